// Black-box view of rtl/common/ram_1r1w for ASIC synthesis: the standard-cell libraries used here
// have no SRAM macros, so the RAM is kept as a macro instance whose bits are reported separately
// (synth/synth.sh) instead of being built from flip-flops. Ports match the RTL module.
(* blackbox *)
module ram_1r1w #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 64,
  parameter int unsigned Lanes = 1,
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Lanes-1:0] wlane_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             re_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);
endmodule
