// spill_reg: two-entry skid (spill) register that cuts every combinational path of a stream.
//
/// Registers: `out_valid_o`, `out_data_o` and `in_ready_o` all come from flops, so neither the
/// forward (valid/data) nor the backward (ready) path passes through. Full throughput: one beat per
/// cycle in steady state; the second entry catches the beat in flight when the sink stalls.
/// Entry A takes input beats; B holds the older beat while the sink stalls. Payload has no reset.
`include "ndp_assert.svh"

module spill_reg #(
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
  logic             a_full_q, b_full_q;
  logic [Width-1:0] a_data_q, b_data_q;
  logic             a_fill, a_drain, b_fill, b_drain;

  // A drains whenever B is free: to the output if the sink takes it, into B otherwise.
  assign a_fill  = in_valid_i && in_ready_o;
  assign a_drain = a_full_q && !b_full_q;
  assign b_fill  = a_drain && !out_ready_i;
  assign b_drain = b_full_q && out_ready_i;

  assign in_ready_o  = !a_full_q || !b_full_q;
  assign out_valid_o = a_full_q || b_full_q;
  assign out_data_o  = b_full_q ? b_data_q : a_data_q;

  always_ff @(posedge clk_i) begin
    if (a_fill) a_data_q <= in_data_i;
    if (b_fill) b_data_q <= a_data_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_full_q <= 1'b0;
      b_full_q <= 1'b0;
    end else begin
      if (a_fill || a_drain) a_full_q <= a_fill;
      if (b_fill || b_drain) b_full_q <= b_fill;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(width_legal_a, Width >= 1)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, out_data_o)

`ifdef FORMAL
  // Proven by `make formal`: handshake rules, no loss or duplication, ordering (k-th out = k-th in).
  localparam int unsigned FW = 4;
  logic          f_past_valid = 1'b0;
  (* anyconst *) logic [FW-1:0] f_k;
  logic [FW-1:0]    f_in_cnt, f_out_cnt, f_dist;
  logic [Width-1:0] f_rec;
  logic [1:0]       f_held;
  logic             push, pop;

  assign push   = in_valid_i && in_ready_o;
  assign pop    = out_valid_o && out_ready_i;
  assign f_dist = f_k - f_out_cnt;
  assign f_held = {1'b0, a_full_q} + {1'b0, b_full_q};

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
      assert (FW'(f_held) == FW'(f_in_cnt - f_out_cnt));
      // B only ever holds a beat older than A's
      if (f_dist == '0 && f_held != 2'd0) assert (out_data_o == f_rec);
      if (f_dist == FW'(1) && f_held == 2'd2) assert (a_data_q == f_rec);
      if (pop && f_out_cnt == f_k) assert (out_data_o == f_rec);
    end
  end
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni)) begin
      if ($past(out_valid_o && !out_ready_i)) begin
        assert (out_valid_o);
        assert (out_data_o == $past(out_data_o));
      end
      // ready only drops after a beat was taken (it is registered)
      if ($past(in_ready_o) && !in_ready_o) assert ($past(push));
    end
  end
  always @(posedge clk_i) if (rst_ni) cover (a_full_q && b_full_q);
`endif
endmodule
