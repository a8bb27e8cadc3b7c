// fifo_ram: first-word-fall-through FIFO whose storage is a RAM macro (ram_1r1w), for FIFOs too
// deep or wide for flip-flops. Same interface and behaviour as fifo_sync: in_ready_o while fewer
// than Depth entries are held, out_valid_o while one is held, full throughput (one in and one out
// per cycle).
//
/// Registers: the RAM (read data registered), its write and read pointers, the count of entries in
/// the RAM, one read-in-flight bit, and a 2-entry fifo_sync at the output that absorbs the RAM's
/// read latency (a read is issued only when the output stage has room for it). `count_o` counts
/// every entry held: in the RAM, in flight and in the output stage.
`include "ndp_assert.svh"

module fifo_ram #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 16,
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  output logic [CntW-1:0]  count_o
);
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1;

  logic [AW-1:0]   wr_q, rd_q;
  logic [CntW-1:0] ram_cnt_q, total;
  logic            pend_q, push, re;
  logic [1:0]      oq_cnt;
  logic [Width-1:0] rdata;
  logic            unused_oq_ready;  // never full: a read is issued only with room

  assign total      = ram_cnt_q + CntW'(pend_q) + CntW'(oq_cnt);
  assign in_ready_o = total < CntW'(Depth);
  assign push       = in_valid_i && in_ready_o;
  // read the oldest RAM entry when the output stage will have room for it (counting this cycle's
  // pop, so a steady stream moves one entry per cycle)
  assign re         = ram_cnt_q != '0 && 32'(oq_cnt) + 32'(pend_q) - 32'(out_valid_o && out_ready_i) < 2;
  assign count_o    = total;

  ram_1r1w #(.Width(Width), .Depth(Depth)) u_ram (
    .clk_i, .rst_ni,
    .we_i   (push),
    .waddr_i(wr_q),
    .wlane_i(1'b1),
    .wdata_i(in_data_i),
    .re_i   (re),
    .raddr_i(rd_q),
    .rdata_o(rdata)
  );

  fifo_sync #(.Width(Width), .Depth(2)) u_out (
    .clk_i, .rst_ni,
    .in_valid_i (pend_q),
    .in_ready_o (unused_oq_ready),
    .in_data_i  (rdata),
    .out_valid_o,
    .out_ready_i,
    .out_data_o,
    .count_o    (oq_cnt)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q      <= '0;
      rd_q      <= '0;
      ram_cnt_q <= '0;
      pend_q    <= 1'b0;
    end else begin
      if (push) wr_q <= (32'(wr_q) == Depth - 1) ? '0 : wr_q + 1'b1;
      if (re) rd_q <= (32'(rd_q) == Depth - 1) ? '0 : rd_q + 1'b1;
      ram_cnt_q <= ram_cnt_q + CntW'(push) - CntW'(re);
      pend_q    <= re;
    end
  end

  `NDP_ASSERT_INIT(params_a, Depth >= 2 && Width >= 1)
  `NDP_ASSERT(count_bound_a, 32'(total) <= Depth)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, out_data_o)
endmodule
