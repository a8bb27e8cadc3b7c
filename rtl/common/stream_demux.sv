// stream_demux: routes the input stream to the output selected by `sel_i`.
//
/// Purely combinational. `sel_i` must stay stable while the input is valid and not yet taken.
/// Payload is shared by all outputs (only the selected one sees valid).
`include "ndp_assert.svh"

module stream_demux #(
  parameter int unsigned N = 2,
  localparam int unsigned SelW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,   // assertions only
  input  logic            rst_ni,  // assertions only
  input  logic [SelW-1:0] sel_i,
  input  logic            in_valid_i,
  output logic            in_ready_o,
  output logic [N-1:0]    out_valid_o,
  input  logic [N-1:0]    out_ready_i
);
  always_comb begin
    out_valid_o        = '0;
    out_valid_o[sel_i] = in_valid_i;
  end
  assign in_ready_o = out_ready_i[sel_i];

  `NDP_ASSERT_INIT(n_legal_a, N >= 1)
  `NDP_ASSERT(sel_in_range_a, !in_valid_i || 32'(sel_i) < N)
endmodule
