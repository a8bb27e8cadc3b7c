// stream_join: one output beat when every enabled input stream has a beat (AND-join).
//
/// Purely combinational (no registers). Inputs whose `en_i` bit is clear are ignored and never
/// handshaken. `out_valid_o` depends only on the input valids; each enabled input is taken in the
/// cycle the output is taken. With no input enabled the output is never valid.
`include "ndp_assert.svh"

module stream_join #(
  parameter int unsigned N = 2
) (
  input  logic         clk_i,   // assertions only
  input  logic         rst_ni,  // assertions only
  input  logic [N-1:0] en_i,
  input  logic [N-1:0] in_valid_i,
  output logic [N-1:0] in_ready_o,
  output logic         out_valid_o,
  input  logic         out_ready_i
);
  assign out_valid_o = (en_i != '0) && ((in_valid_i | ~en_i) == '1);
  assign in_ready_o  = {N{out_valid_o && out_ready_i}} & en_i;

  `NDP_ASSERT_INIT(n_legal_a, N >= 1)
  `NDP_ASSERT(ready_only_enabled_a, (in_ready_o & ~en_i) == '0)
endmodule
