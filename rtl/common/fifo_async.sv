// fifo_async: asynchronous (dual-clock) first-word-fall-through FIFO with valid/ready on both sides,
// for clock-domain crossings. Gray-coded pointers cross through sync_ff (two flops); the full and
// empty flags are registered and compared in Gray code (Cummings, "Simulation and Synthesis
// Techniques for Asynchronous FIFO Design", style 2), so no binary pointer ever crosses a domain.
//
/// Registers: per side its binary and Gray pointer and flag; the storage array (written in the
/// write domain, read combinationally at the read pointer: LUT RAM on FPGAs, Depth words). The full
/// flag resets high, so in_ready_o stays low until one write clock after the write side leaves reset.
/// Both sides must be reset together (one asynchronous source, a rst_sync per domain): a side
/// reset alone would lose the pointers' agreement. Latency: a word written on a write edge is
/// visible on out_valid_o two to three read edges later. Depth: a power of two, at least 4.
`include "ndp_assert.svh"

module fifo_async #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  localparam int unsigned AW   = $clog2(Depth)
) (
  // write side
  input  logic             wclk_i,
  input  logic             wrst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  // read side
  input  logic             rclk_i,
  input  logic             rrst_ni,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);
  function automatic logic [AW:0] gray(input logic [AW:0] b);
    gray = b ^ (b >> 1);
  endfunction

  logic [Width-1:0] mem_q [Depth];
  logic [AW:0] wbin_q, wgray_q, rbin_q, rgray_q, wbin_d, wgray_d, rbin_d, rgray_d;
  logic [AW:0] rgray_w, wgray_r;  // the other side's Gray pointer, synchronised
  logic        full_q, empty_q, push, pop;

  // ---------------------------------------------------------------------------------------------
  // Write side
  assign in_ready_o = !full_q;
  assign push       = in_valid_i && !full_q;
  assign wbin_d     = wbin_q + (AW + 1)'(push);
  assign wgray_d    = gray(wbin_d);

  always_ff @(posedge wclk_i) begin
    if (push) mem_q[wbin_q[AW-1:0]] <= in_data_i;
  end
  always_ff @(posedge wclk_i or negedge wrst_ni) begin
    if (!wrst_ni) begin
      wbin_q  <= '0;
      wgray_q <= '0;
      full_q  <= 1'b1;
    end else begin
      wbin_q  <= wbin_d;
      wgray_q <= wgray_d;
      // full: the next write pointer is one lap ahead of the read pointer (top two Gray bits differ)
      full_q  <= wgray_d == {~rgray_w[AW:AW-1], rgray_w[AW-2:0]};
    end
  end
  sync_ff #(.Width(AW + 1)) u_rptr_sync (.clk_i(wclk_i), .rst_ni(wrst_ni), .d_i(rgray_q), .q_o(rgray_w));

  // ---------------------------------------------------------------------------------------------
  // Read side
  assign out_valid_o = !empty_q;
  assign out_data_o  = mem_q[rbin_q[AW-1:0]];
  assign pop         = !empty_q && out_ready_i;
  assign rbin_d      = rbin_q + (AW + 1)'(pop);
  assign rgray_d     = gray(rbin_d);

  always_ff @(posedge rclk_i or negedge rrst_ni) begin
    if (!rrst_ni) begin
      rbin_q  <= '0;
      rgray_q <= '0;
      empty_q <= 1'b1;
    end else begin
      rbin_q  <= rbin_d;
      rgray_q <= rgray_d;
      empty_q <= rgray_d == wgray_r;
    end
  end
  sync_ff #(.Width(AW + 1)) u_wptr_sync (.clk_i(rclk_i), .rst_ni(rrst_ni), .d_i(wgray_q), .q_o(wgray_r));

  // ---------------------------------------------------------------------------------------------
  // Assertions (on the read clock: the macros assume clk_i/rst_ni, so it is written out here)
`ifdef VERILATOR
  out_stream_a: assert property (@(posedge rclk_i) disable iff (!rrst_ni)
    (out_valid_o && !out_ready_i) |=> (out_valid_o && $stable(out_data_o)));
`endif
  `NDP_ASSERT_INIT(depth_legal_a, Depth >= 4 && (1 << AW) == Depth && Width >= 1)
endmodule
