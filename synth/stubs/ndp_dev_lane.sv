// Black-box view of rtl/device/ndp_dev_lane.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
module ndp_dev_lane #(
  parameter int unsigned FifoWords = 32,     // input FIFO, 64-byte words
  parameter int unsigned BankAw    = 10,     // staging word address bits (32-byte words)
  localparam int unsigned FCW = $clog2(FifoWords + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // assignment: one block [start, end) of DRAM
  input  logic              as_valid_i,
  output logic              as_ready_o,
  input  logic [39:0]       as_start_i,
  input  logic [39:0]       as_end_i,
  input  logic [15:0]       as_block_id_i,
  input  logic [7:0]        as_plane_i,
  input  logic [16:0]       as_raw_i,
  input  logic [7:0]        as_pad_i,
  input  logic [4:0]        as_bank_i,
  // DRAM read requests (line address, beats - 1) and this lane's read data
  output logic              ar_valid_o,
  input  logic              ar_ready_i,
  output logic [33:0]       ar_line_o,
  output logic [7:0]        ar_len_o,
  input  logic              r_valid_i,
  input  logic [511:0]      r_data_i,
  // staging writes
  output logic              st_we_o,
  output logic [4:0]        st_bank_o,
  output logic [BankAw-1:0] st_addr_o,
  output logic [255:0]      st_data_o,
  // one done beat per block
  output logic              dn_valid_o,
  input  logic              dn_ready_i,
  output logic [7:0]        dn_code_o
);
endmodule
