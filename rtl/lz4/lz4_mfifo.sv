// lz4_mfifo: deep FIFO of Width-bit entries with up to N pushes per cycle, backed by N RAM banks
// (entry i in bank i mod N), feeding a small lz4_mq head queue that shows the oldest PopN entries.
//
/// Registers: the RAM banks (ram_1r1w), the write and read pointers, the count of entries read
/// from the RAM but not yet in the head queue (one cycle of RAM latency), and the head queue.
/// Consecutive entries sit in distinct banks, so N pushes and N prefetch reads per cycle never
/// conflict. Used as the encoder's sequence queue, deep enough for the selector to run ahead of the
/// formatter while the formatter writes a long literal run.
`include "ndp_assert.svh"

module lz4_mfifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 512,  // RAM entries (multiple of N, power of two)
  parameter int unsigned N     = 4,    // pushes and prefetch reads per cycle
  parameter int unsigned PopN  = 3,
  localparam int unsigned HQ   = N + PopN + 1,
  localparam int unsigned PW   = $clog2(Depth),
  localparam int unsigned CW   = $clog2(Depth + 1),
  localparam int unsigned NCW  = $clog2(N + 1),
  localparam int unsigned HCW  = $clog2(HQ + 1),
  localparam int unsigned Rows = Depth / N,
  localparam int unsigned RW   = $clog2(Rows),
  localparam int unsigned BW   = (N > 1) ? $clog2(N) : 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [NCW-1:0]           push_cnt_i,   // <= free_o
  input  logic [N*Width-1:0]       push_data_i,
  output logic [CW-1:0]            free_o,       // RAM entries free
  output logic [PopN*Width-1:0]    head_o,
  output logic [HCW-1:0]           count_o,      // entries in the head queue
  input  logic [$clog2(PopN+1)-1:0] pop_cnt_i
);
  logic [PW:0]     wr_q, rd_q;       // one extra bit: full vs empty
  logic [NCW-1:0]  fly_q;            // entries read last cycle, arriving now
  logic [BW-1:0]   fly_bank_q;       // bank of the first of them
  logic [CW-1:0]   used;
  logic [NCW-1:0]  rd_k;
  logic [HCW-1:0]  hq_cnt;

  assign used   = CW'(wr_q - rd_q);
  assign free_o = CW'(Depth) - used;

  // prefetch as many as fit in the head queue (counting those in flight)
  always_comb begin
    logic [31:0] room;
    room = HQ - 32'(hq_cnt) - 32'(fly_q);
    rd_k = NCW'(N);
    if (32'(used) < 32'(rd_k)) rd_k = NCW'(used);
    if (room < 32'(rd_k)) rd_k = NCW'(room);
  end

  // RAM banks
  logic            we [N];
  logic [RW-1:0]   wa [N];
  logic [Width-1:0] wd [N];
  logic            re [N];
  logic [RW-1:0]   ra [N];
  logic [Width-1:0] rd [N];
  always_comb begin
    for (int b = 0; b < N; b++) begin
      logic [BW-1:0] j;
      logic [PW-1:0] e;  // entry index modulo Depth
      // write: the j-th pushed entry goes to bank (wr + j) mod N
      j     = BW'(b) - BW'(wr_q);
      e     = wr_q[PW-1:0] + PW'(j);
      we[b] = (32'(j) < 32'(push_cnt_i));
      wa[b] = RW'(e >> BW);
      wd[b] = push_data_i[32'(j)*Width +: Width];
      // read: the j-th prefetched entry comes from bank (rd + j) mod N
      j     = BW'(b) - BW'(rd_q);
      e     = rd_q[PW-1:0] + PW'(j);
      re[b] = (32'(j) < 32'(rd_k));
      ra[b] = RW'(e >> BW);
    end
  end

  for (genvar b = 0; b < N; b++) begin : gen_bank
    // the macro's read port on a plain net: Yosys 0.23 drops a black-box output bound to an
    // unpacked-array element (the RAM then vanished from synthesis)
    logic [Width-1:0] rd_rd;
    ram_1r1w #(.Width(Width), .Depth(Rows)) u_ram (
      .clk_i,
      .rst_ni,
      .we_i   (we[b]),
      .waddr_i(wa[b]),
      .wlane_i(1'b1),
      .wdata_i(wd[b]),
      .re_i   (re[b]),
      .raddr_i(ra[b]),
      .rdata_o(rd_rd)
    );
    assign rd[b] = rd_rd;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q       <= '0;
      rd_q       <= '0;
      fly_q      <= '0;
      fly_bank_q <= '0;
    end else begin
      wr_q       <= wr_q + (PW+1)'(push_cnt_i);
      rd_q       <= rd_q + (PW+1)'(rd_k);
      fly_q      <= rd_k;
      fly_bank_q <= BW'(rd_q);
    end
  end

  // entries arriving from the RAM, in order
  logic [N*Width-1:0] fly_data;
  always_comb begin
    for (int j = 0; j < N; j++) fly_data[j*Width +: Width] = rd[BW'(fly_bank_q + BW'(j))];
  end

  lz4_mq #(.Width(Width), .Depth(HQ), .PushN(N), .PopN(PopN)) u_head (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (fly_q),
    .push_data_i(fly_data),
    .pop_cnt_i  (pop_cnt_i),
    .head_o     (head_o),
    .count_o    (hq_cnt)
  );
  assign count_o = hq_cnt;

  `NDP_ASSERT_INIT(params_a, (N & (N - 1)) == 0 && Depth % N == 0 && (Depth & (Depth - 1)) == 0)
  `NDP_ASSERT(no_overflow_a, 32'(push_cnt_i) <= 32'(free_o))
  `NDP_ASSERT(pop_a, 32'(pop_cnt_i) <= 32'(hq_cnt))
endmodule
