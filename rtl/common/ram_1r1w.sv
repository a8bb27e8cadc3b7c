// ram_1r1w: simple dual-port RAM, one write and one read port, synchronous read, lane write mask.
//
/// Behavioural model of an SRAM macro: `rdata_o` is registered (valid the cycle after `re_i`) and
/// holds its value while `re_i` is low. A write hits only the lanes whose `wlane_i` bit is set.
/// Reading an address written in the same cycle returns the old data. No reset (SRAM contents).
/// Synthesis flows black-box this module (synth/blocks/*.cfg) and report its bits separately;
/// FPGA flows map it to block RAM.
`include "ndp_assert.svh"

module ram_1r1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 64,
  parameter int unsigned Lanes = 1,
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,  // assertions only
  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Lanes-1:0] wlane_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             re_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
  localparam int unsigned LaneW = Width / Lanes;

  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        if (wlane_i[l]) mem_q[waddr_i][l*LaneW +: LaneW] <= wdata_i[l*LaneW +: LaneW];
      end
    end
    if (re_i) rdata_q <= mem_q[raddr_i];
  end
  assign rdata_o = rdata_q;

  `NDP_ASSERT_INIT(lanes_legal_a, Lanes >= 1 && Width % Lanes == 0 && Depth >= 2)
  `NDP_ASSERT(waddr_in_range_a, !we_i || 32'(waddr_i) < Depth)
  `NDP_ASSERT(raddr_in_range_a, !re_i || 32'(raddr_i) < Depth)
endmodule
