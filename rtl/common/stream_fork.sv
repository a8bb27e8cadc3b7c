// stream_fork: copies one input beat to N output streams that each handshake independently.
//
/// Registers: one "already taken" bit per output. The input is taken once every enabled output
/// has taken the beat (in this or an earlier cycle). Outputs with `en_i` clear are skipped.
/// Valid to the outputs depends only on the input valid and the taken bits, never on ready.
`include "ndp_assert.svh"

module stream_fork #(
  parameter int unsigned N = 2
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [N-1:0] en_i,
  input  logic         in_valid_i,
  output logic         in_ready_o,
  output logic [N-1:0] out_valid_o,
  input  logic [N-1:0] out_ready_i
);
  logic [N-1:0] taken_q, done;

  assign out_valid_o = {N{in_valid_i}} & en_i & ~taken_q;
  assign done        = taken_q | (out_valid_o & out_ready_i) | ~en_i;
  assign in_ready_o  = (done == '1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      taken_q <= '0;
    end else if (in_valid_i) begin
      taken_q <= in_ready_o ? '0 : (taken_q | (out_valid_o & out_ready_i));
    end
  end

  `NDP_ASSERT_INIT(n_legal_a, N >= 1)
  `NDP_ASSERT(taken_only_enabled_a, (taken_q & ~en_i) == '0)
  `NDP_ASSERT(taken_only_while_valid_a, taken_q == '0 || in_valid_i)
endmodule
