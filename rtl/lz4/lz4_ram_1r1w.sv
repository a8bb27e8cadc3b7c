// lz4_ram_1r1w: simple dual-port RAM, one synchronous read port and one write port.
//
/// Registers: the array and the read data register. A read in the same cycle as a write to the
/// same address returns the old contents (read-first), which is what the LZ4 engines rely on and
/// what SRAM macros and FPGA block RAMs provide. The read data register holds its value while
/// re_i is low. No reset on the array (contents are never read before written by the engines).
`include "ndp_assert.svh"

module lz4_ram_1r1w #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 2048,
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             re_i,
  input  logic [AW-1:0]    raddr_i,
  output logic [Width-1:0] rdata_o,
  input  logic             we_i,
  input  logic [AW-1:0]    waddr_i,
  input  logic [Width-1:0] wdata_i
);
  logic [Width-1:0] mem_q [Depth];

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem_q[raddr_i];
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  `NDP_ASSERT_INIT(params_a, Depth >= 2 && Width >= 1)
  `NDP_ASSERT(waddr_a, !we_i || 32'(waddr_i) < Depth)
  `NDP_ASSERT(raddr_a, !re_i || 32'(raddr_i) < Depth)
endmodule
