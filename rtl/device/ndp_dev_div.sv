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
endmodule
