// pipe_reg: one-entry pipeline register for a valid/ready stream.
//
/// Registers the forward path (`out_valid_o`, `out_data_o`); the backward path is combinational:
/// `in_ready_o = !out_valid_o || out_ready_i`. Full throughput (one beat per cycle). Use it to cut
/// long forward logic between stages; put a spill_reg where the ready path must be cut too.
/// Payload has no reset.
`include "ndp_assert.svh"

module pipe_reg #(
  parameter int unsigned Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);
  logic             valid_q;
  logic [Width-1:0] data_q;

  assign in_ready_o  = !valid_q || out_ready_i;
  assign out_valid_o = valid_q;
  assign out_data_o  = data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= 1'b0;
    else if (in_ready_o) valid_q <= in_valid_i;
  end
  always_ff @(posedge clk_i) begin
    if (in_valid_i && in_ready_o) data_q <= in_data_i;
  end

  `NDP_ASSERT_INIT(width_legal_a, Width >= 1)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, out_data_o)

`ifdef FORMAL
  // Proven by `make formal`: handshake rules and ordering (k-th out = k-th in).
  localparam int unsigned FW = 4;
  logic          f_past_valid = 1'b0;
  (* anyconst *) logic [FW-1:0] f_k;
  logic [FW-1:0]    f_in_cnt, f_out_cnt;
  logic [Width-1:0] f_rec;
  logic             push, pop;

  assign push = in_valid_i && in_ready_o;
  assign pop  = out_valid_o && out_ready_i;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_in_cnt  <= '0;
      f_out_cnt <= '0;
    end else begin
      if (push) f_in_cnt <= f_in_cnt + 1'b1;
      if (pop) f_out_cnt <= f_out_cnt + 1'b1;
    end
  end
  always @(posedge clk_i) if (push && f_in_cnt == f_k) f_rec <= in_data_i;
  always @(*) begin
    if (rst_ni) begin
      assert (FW'(valid_q) == FW'(f_in_cnt - f_out_cnt));
      if (valid_q && f_out_cnt == f_k) assert (data_q == f_rec);
    end
  end
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni) && $past(out_valid_o && !out_ready_i)) begin
      assert (out_valid_o);
      assert (out_data_o == $past(out_data_o));
    end
  end
  always @(posedge clk_i) if (rst_ni) cover (f_past_valid && pop && f_out_cnt == f_k && f_k == FW'(3));
`endif
endmodule
