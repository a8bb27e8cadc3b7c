// ndp_dev_div: sequential unsigned divider (restoring, one quotient bit per cycle).
//
/// Registers: remainder, quotient, divisor and the bit counter. A division takes NW cycles from
/// `start_i` to `done_o` (one cycle pulse). Division by zero gives an all-ones quotient.
`include "ndp_assert.svh"

module ndp_dev_div #(
  parameter int unsigned NW = 43,   // dividend / quotient bits
  parameter int unsigned DW = 32    // divisor / remainder bits
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          start_i,
  input  logic [NW-1:0] num_i,
  input  logic [DW-1:0] den_i,
  output logic          busy_o,
  output logic          done_o,
  output logic [NW-1:0] quo_o,
  output logic [DW-1:0] rem_o
);
  logic [NW-1:0] q_q;
  logic [DW-1:0] r_q;
  logic [DW:0]   r_shift;
  logic [DW-1:0] d_q;
  logic [$clog2(NW+1)-1:0] n_q;
  logic          busy_q, done_q;

  assign r_shift = {r_q[DW-1:0], q_q[NW-1]};
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      n_q    <= '0;
    end else begin
      done_q <= 1'b0;
      if (start_i) begin
        busy_q <= 1'b1;
        n_q    <= '0;
      end else if (busy_q) begin
        n_q <= n_q + 1'b1;
        if (32'(n_q) == NW - 1) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      q_q <= num_i;
      r_q <= '0;
      d_q <= den_i;
    end else if (busy_q) begin
      if (r_shift >= {1'b0, d_q}) begin
        r_q <= DW'(r_shift - {1'b0, d_q});
        q_q <= {q_q[NW-2:0], 1'b1};
      end else begin
        r_q <= DW'(r_shift);
        q_q <= {q_q[NW-2:0], 1'b0};
      end
    end
  end
  assign busy_o = busy_q;
  assign done_o = done_q;
  assign quo_o  = q_q;
  assign rem_o  = r_q;

  `NDP_ASSERT_INIT(params_a, NW >= 2 && DW >= 1)

`ifdef FORMAL
  // Proven by `make formal` (small widths): after n steps the low n bits of q_q are the quotient so
  // far, its high bits the unconsumed dividend bits, and num = (Q * den + r) * 2^(NW-n) + rest with
  // r < den; so at done_o, quo * den + rem = num and rem < den.
  localparam int unsigned XW = 2 * NW + DW + 2;
  logic          f_past_valid = 1'b0;
  logic [NW-1:0] f_num;
  logic [XW-1:0] f_q, f_rest, f_lhs;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(posedge clk_i) if (start_i) f_num <= num_i;
  // the interface: no start while busy, the divisor is not zero
  always @(*) if (busy_q) assume (!start_i);
  always @(*) if (start_i) assume (den_i != '0);

  always @(*) begin
    f_q    = XW'(q_q) & ((XW'(1) << n_q) - XW'(1));       // quotient bits so far
    f_rest = XW'(q_q) >> n_q;                             // dividend bits not yet shifted in
    f_lhs  = ((f_q * XW'(d_q) + XW'(r_q)) << (NW - 32'(n_q))) + f_rest;
    if (rst_ni && (busy_q || done_q)) begin
      assert (32'(n_q) <= NW);
      assert (d_q != '0);
      assert (r_q < d_q);
      assert (f_lhs == XW'(f_num));
    end
    if (rst_ni && done_q) begin
      assert (XW'(quo_o) * XW'(d_q) + XW'(rem_o) == XW'(f_num));
      assert (rem_o < d_q);
    end
    if (rst_ni && busy_q) assert (!done_q);
  end
  always @(posedge clk_i) begin
    if (f_past_valid && rst_ni && $past(rst_ni) && $past(start_i)) assert (busy_q && n_q == '0);
    cover (rst_ni && done_q && quo_o != '0 && rem_o != '0);
  end
`endif
endmodule
