// sync_ff: two-flop synchroniser for a signal (or a Gray-coded bus, one bit changing at a time)
// entering the clock domain of clk_i.
//
/// Registers: both stages (reset to ResetVal). The first stage may go metastable; nothing but the
/// second stage reads it. ASYNC_REG keeps Vivado from splitting the pair and places it in one slice;
/// fpga/quartus/ndp_fpga.sdc and the Quartus project mark the pair as a synchroniser.
`include "ndp_assert.svh"

module sync_ff #(
  parameter int unsigned    Width    = 1,
  parameter logic [63:0]    ResetVal = '0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Width-1:0] d_i,   // from another clock domain
  output logic [Width-1:0] q_o    // synchronised to clk_i (two cycles later)
);
  (* ASYNC_REG = "TRUE" *) logic [Width-1:0] meta_q;
  (* ASYNC_REG = "TRUE" *) logic [Width-1:0] sync_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      meta_q <= Width'(ResetVal);
      sync_q <= Width'(ResetVal);
    end else begin
      meta_q <= d_i;
      sync_q <= meta_q;
    end
  end
  assign q_o = sync_q;

  `NDP_ASSERT_INIT(width_legal_a, Width >= 1 && Width <= 64)
endmodule
