// codec_lane: one compression lane of the codec complex (paper Fig. 9): the plane-block wrapper
// around the codec engines, one stream in and one stream out per direction, so lanes replicate.
//
/// Encode: raw plane block in (enc_in_*, header fields held per packet, codec policy) -> stored
/// block out (12-byte header + payload; CONST / LZ4 / ZSTD / RAW chosen as the golden model does).
/// Decode: stored
/// block in (dec_in_*, with what the index expects) -> decoded bytes out, then one status beat
/// (lane_pkg::status_e). Both directions are independent (codec_lane_enc, codec_lane_dec); this
/// module only wires them. Each side has an LZ4 engine and, with HasZstd (the default), a ZSTD
/// engine (zstd_encoder, zstd_lane_dec); without them the encoder has no ZSTD candidate and ZSTD
/// blocks are reported as unsupported.
`include "ndp_assert.svh"

module codec_lane #(
  parameter int unsigned EncInBytes    = 16,
  parameter int unsigned EncOutBytes   = 32,
  parameter int unsigned DecBytes      = 32,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter bit          HasZstd       = 1'b1,
  parameter int unsigned ZstdHistBytes = 65536,
  parameter int unsigned ZstdHashBytes = 8,     // the ZSTD encoder's finder hash (codec_lane_enc)
  parameter int unsigned ZstdHufLits   = 1,     // 1: EXPBYTE blocks take the smaller of two frames
  localparam int unsigned EICW = $clog2(EncInBytes + 1),
  localparam int unsigned EOCW = $clog2(EncOutBytes + 1),
  localparam int unsigned DCW  = $clog2(DecBytes + 1)
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // encode direction
  input  logic                     enc_in_valid_i,
  output logic                     enc_in_ready_o,
  input  logic [EncInBytes*8-1:0]  enc_in_data_i,
  input  logic [EICW-1:0]          enc_in_cnt_i,
  input  logic                     enc_in_last_i,
  input  logic [15:0]              enc_in_block_id_i,
  input  logic [7:0]               enc_in_plane_id_i,
  input  logic                     enc_in_guard_i,
  input  logic [16:0]              enc_in_raw_size_i,
  input  logic [1:0]               enc_in_policy_i,   // 0 auto, 1 lz4, 2 zstd, 3 raw
  output logic                     enc_out_valid_o,
  input  logic                     enc_out_ready_i,
  output logic [EncOutBytes*8-1:0] enc_out_data_o,
  output logic [EOCW-1:0]          enc_out_cnt_o,
  output logic                     enc_out_last_o,
  // decode direction
  input  logic                     dec_in_valid_i,
  output logic                     dec_in_ready_o,
  input  logic [DecBytes*8-1:0]    dec_in_data_i,
  input  logic [DCW-1:0]           dec_in_cnt_i,
  input  logic                     dec_in_last_i,
  input  logic [15:0]              dec_in_exp_block_id_i,
  input  logic [7:0]               dec_in_exp_plane_id_i,
  input  logic [16:0]              dec_in_exp_raw_size_i,
  input  logic [7:0]               dec_in_pad_mask_i,
  output logic                     dec_out_valid_o,
  input  logic                     dec_out_ready_i,
  output logic [DecBytes*8-1:0]    dec_out_data_o,
  output logic [DCW-1:0]           dec_out_cnt_o,
  output logic                     dec_out_last_o,
  output logic                     dec_out_err_o,
  output lane_pkg::status_e        dec_out_code_o
);
  codec_lane_enc #(
    .InBytes(EncInBytes), .OutBytes(EncOutBytes), .MaxBlockBytes(MaxBlockBytes), .HasZstd(HasZstd),
    .ZstdHashBytes(ZstdHashBytes), .ZstdHufLits(ZstdHufLits)
  ) u_enc (
    .clk_i, .rst_ni,
    .in_valid_i    (enc_in_valid_i),
    .in_ready_o    (enc_in_ready_o),
    .in_data_i     (enc_in_data_i),
    .in_cnt_i      (enc_in_cnt_i),
    .in_last_i     (enc_in_last_i),
    .in_block_id_i (enc_in_block_id_i),
    .in_plane_id_i (enc_in_plane_id_i),
    .in_guard_i    (enc_in_guard_i),
    .in_raw_size_i (enc_in_raw_size_i),
    .in_policy_i   (enc_in_policy_i),
    .out_valid_o   (enc_out_valid_o),
    .out_ready_i   (enc_out_ready_i),
    .out_data_o    (enc_out_data_o),
    .out_cnt_o     (enc_out_cnt_o),
    .out_last_o    (enc_out_last_o)
  );

  codec_lane_dec #(
    .Bytes(DecBytes), .MaxBlockBytes(MaxBlockBytes), .HasZstd(HasZstd), .ZstdHistBytes(ZstdHistBytes)
  ) u_dec (
    .clk_i, .rst_ni,
    .in_valid_i        (dec_in_valid_i),
    .in_ready_o        (dec_in_ready_o),
    .in_data_i         (dec_in_data_i),
    .in_cnt_i          (dec_in_cnt_i),
    .in_last_i         (dec_in_last_i),
    .in_exp_block_id_i (dec_in_exp_block_id_i),
    .in_exp_plane_id_i (dec_in_exp_plane_id_i),
    .in_exp_raw_size_i (dec_in_exp_raw_size_i),
    .in_pad_mask_i     (dec_in_pad_mask_i),
    .out_valid_o       (dec_out_valid_o),
    .out_ready_i       (dec_out_ready_i),
    .out_data_o        (dec_out_data_o),
    .out_cnt_o         (dec_out_cnt_o),
    .out_last_o        (dec_out_last_o),
    .out_err_o         (dec_out_err_o),
    .out_code_o        (dec_out_code_o)
  );

  `NDP_ASSERT_INIT(params_a, EncOutBytes >= EncInBytes && DecBytes >= 16)
endmodule
