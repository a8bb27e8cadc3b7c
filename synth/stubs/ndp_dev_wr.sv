// Black-box view of rtl/device/ndp_dev_wr.sv for the synthesis of an enclosing block (synth/blocks/*.cfg BLACKBOX):
// the module has its own row in docs/results/synth.md. Ports and parameters match the RTL module.
(* blackbox *)
module ndp_dev_wr #(
  parameter int unsigned IdW    = 8,
  parameter int unsigned DramAw = 30
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  // host AW / W / B
  input  logic           aw_valid_i,
  output logic           aw_ready_o,
  input  logic [IdW-1:0] aw_id_i,
  input  logic [47:0]    aw_addr_i,
  input  logic [7:0]     aw_len_i,
  input  logic [2:0]     aw_size_i,
  input  logic [1:0]     aw_burst_i,
  input  logic           w_valid_i,
  output logic           w_ready_o,
  input  logic [511:0]   w_data_i,
  input  logic [63:0]    w_strb_i,
  input  logic           w_last_i,
  output logic           b_valid_o,
  input  logic           b_ready_i,
  output logic [IdW-1:0] b_id_o,
  output logic [1:0]     b_resp_o,
  // control-window line writes
  output logic           csr_wr_valid_o,
  output logic [33:0]    csr_wr_line_o,
  output logic [511:0]   csr_wr_data_o,
  output logic [63:0]    csr_wr_strb_o,
  input  logic           csr_wr_decerr_i,
  // DRAM AW / W / B
  output logic           dw_aw_valid_o,
  input  logic           dw_aw_ready_i,
  output logic [33:0]    dw_aw_line_o,
  output logic [7:0]     dw_aw_len_o,
  output logic           dw_w_valid_o,
  input  logic           dw_w_ready_i,
  output logic [511:0]   dw_w_data_o,
  output logic [63:0]    dw_w_strb_o,
  output logic           dw_w_last_o,
  input  logic           dw_b_valid_i,
  output logic           dw_b_ready_o,
  input  logic [1:0]     dw_b_resp_i,
  // counters, status
  output ndp_dev_pkg::err_t err_o,          // a protocol error, logged once per burst
  output logic           err_valid_o,
  output logic           cnt_wr_beat_o,
  output logic           cnt_wr_decerr_o,
  output logic           cnt_wr_slverr_o
);
endmodule
