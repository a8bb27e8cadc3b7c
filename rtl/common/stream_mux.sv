// stream_mux: forwards the input stream selected by `sel_i` to the output.
//
/// Purely combinational. `sel_i` must stay stable while the selected input is valid and not yet
/// taken (it usually comes from an arbiter or a registered control FSM). Unselected inputs see
/// ready low.
`include "ndp_assert.svh"

module stream_mux #(
  parameter int unsigned N     = 2,
  parameter int unsigned Width = 8,
  localparam int unsigned SelW = (N > 1) ? $clog2(N) : 1
) (
  input  logic             clk_i,   // assertions only
  input  logic             rst_ni,  // assertions only
  input  logic [SelW-1:0]  sel_i,
  input  logic [N-1:0]     in_valid_i,
  output logic [N-1:0]     in_ready_o,
  input  logic [N*Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);
  assign out_valid_o = in_valid_i[sel_i];
  assign out_data_o  = in_data_i[sel_i*Width +: Width];
  always_comb begin
    in_ready_o        = '0;
    in_ready_o[sel_i] = out_ready_i;
  end

  `NDP_ASSERT_INIT(n_legal_a, N >= 1 && Width >= 1)
  `NDP_ASSERT(sel_in_range_a, in_valid_i == '0 || 32'(sel_i) < N)
endmodule
