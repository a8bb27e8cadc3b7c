// Black-box view of rtl/lane/codec_lane_dec for synthesising the device controller (ndp_device,
// ndp_dev_lane) without its decode engines: their logic is reported by the lz4_decoder,
// zstd_decoder and codec_lane rows. Ports match the RTL module.
(* blackbox *)
module codec_lane_dec #(
  parameter int unsigned Bytes         = 32,     // input and output beat width
  parameter int unsigned MatchSlots    = 4,
  parameter int unsigned Seqs          = 4,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter bit          HasZstd       = 1'b1,   // a ZSTD engine (zstd_lane_dec) in this lane
  parameter int unsigned ZstdHistBytes = 65536,  // its history limit (>= MaxBlockBytes)
  localparam int unsigned CW = $clog2(Bytes + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // stored blocks, one per packet; the expectations are held for the whole packet
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic [Bytes*8-1:0]   in_data_i,
  input  logic [CW-1:0]        in_cnt_i,
  input  logic                 in_last_i,
  input  logic [15:0]          in_exp_block_id_i,
  input  logic [7:0]           in_exp_plane_id_i,
  input  logic [16:0]          in_exp_raw_size_i,   // 1..65536
  input  logic [7:0]           in_pad_mask_i,       // bits of the last byte that must be zero
  // decoded bytes, then one status beat per block
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [Bytes*8-1:0]   out_data_o,
  output logic [CW-1:0]        out_cnt_o,
  output logic                 out_last_o,
  output logic                 out_err_o,
  output lane_pkg::status_e    out_code_o
);
endmodule
