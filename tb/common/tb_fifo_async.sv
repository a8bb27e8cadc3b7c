// tb_fifo_async: bench top for the clock-crossing cells (rtl/common fifo_async, sync_ff, rst_sync).
// A word stream goes from clk_i to other_clk_i through one fifo_async (4 deep, so it fills), through
// a stall point in the other domain (a 16-bit LFSR holds the transfer on random cycles), and back to
// clk_i through a second fifo_async, so the bench drives and checks both ends on clk_i. Each domain
// has its own rst_sync from rst_ni.
module tb_fifo_async (
  input  logic        clk_i,
  input  logic        other_clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  logic [15:0] in_data_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [15:0] out_data_o
);
  logic rst_n, orst_n;
  rst_sync u_rst (.clk_i(clk_i), .rst_ni, .rst_no(rst_n));
  rst_sync u_orst (.clk_i(other_clk_i), .rst_ni, .rst_no(orst_n));

  logic        m_valid, m_ready, b_valid, b_ready, go;
  logic [15:0] m_data, lfsr_q;
  fifo_async #(.Width(16), .Depth(4)) u_there (
    .wclk_i(clk_i), .wrst_ni(rst_n), .in_valid_i, .in_ready_o, .in_data_i,
    .rclk_i(other_clk_i), .rrst_ni(orst_n), .out_valid_o(m_valid), .out_ready_i(m_ready),
    .out_data_o(m_data)
  );
  // other domain: pass a word on when the LFSR allows (valid never depends on ready)
  always_ff @(posedge other_clk_i or negedge orst_n) begin
    if (!orst_n) lfsr_q <= 16'hACE1;
    else lfsr_q <= {lfsr_q[14:0], lfsr_q[15] ^ lfsr_q[13] ^ lfsr_q[12] ^ lfsr_q[10]};
  end
  assign go      = lfsr_q[1:0] != 2'b00;  // 3 cycles in 4
  assign b_valid = m_valid && go;
  assign m_ready = b_ready && go;
  fifo_async #(.Width(16), .Depth(8)) u_back (
    .wclk_i(other_clk_i), .wrst_ni(orst_n), .in_valid_i(b_valid), .in_ready_o(b_ready), .in_data_i(m_data),
    .rclk_i(clk_i), .rrst_ni(rst_n), .out_valid_o, .out_ready_i, .out_data_o
  );
endmodule
