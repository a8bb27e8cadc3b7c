// rst_sync: reset synchroniser. Asserts rst_no asynchronously with rst_ni and releases it
// synchronously, two rising edges of clk_i after rst_ni rises (so every flop of the domain leaves
// reset in the same cycle, with recovery/removal timed against clk_i).
//
/// Registers: the two stages of sync_ff (reset to 0, fed with 1).
`include "ndp_assert.svh"

module rst_sync (
  input  logic clk_i,
  input  logic rst_ni,   // asynchronous, from any domain
  output logic rst_no    // for the flops of clk_i's domain
);
  sync_ff #(.Width(1), .ResetVal(64'd0)) u_sync (
    .clk_i, .rst_ni, .d_i(1'b1), .q_o(rst_no)
  );
endmodule
