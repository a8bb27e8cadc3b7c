// kv_base_buf: per-channel base exponents of the two windows of a KV double buffer.
//
// Holds 2 x N exponent values (N = H x C channels per window). The write port updates the P channels
// of one block. Merge = 0: overwrite. Merge = 1 (kv_window, while a window fills): keep the larger
// (max_i = 1) or the smaller (max_i = 0) of the stored and the new value, which computes base =
// max or min over the window's tokens of the exponent field; each block has a "fresh" flag (set for
// a whole buffer by fresh_i, cleared by the block's next write) that makes that first write an
// overwrite. Per-block flags keep the fanout of the overwrite decision at P x ExpW flip-flops
// instead of the whole array. max_i is sampled with every write: the decoder accepts any base, so a
// change in the middle of a window still gives a valid (if unusual) base.
// Read port A returns the P values of a block, port B the value of one channel.
//
/// Registers: the 2 x N values (flip-flops; N x ExpW bits per window, no reset: a window's values are
/// always written, by its first token or by the base stream, before they are read) and, with Merge,
/// 2 x NB fresh flags (reset to 1).
`include "ndp_assert.svh"

module kv_base_buf #(
  parameter int unsigned P = 16,
  parameter int unsigned N = 128,
  parameter int unsigned ExpW = 8,
  parameter bit          Merge = 1'b1,
  localparam int unsigned NB = N / P,
  localparam int unsigned BW = (NB > 1) ? $clog2(NB) : 1,
  localparam int unsigned NW = (N > 1) ? $clog2(N) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              fresh_i,    // Merge: the next write of every block of fresh_buf_i overwrites
  input  logic              fresh_buf_i,
  input  logic              max_i,      // Merge: 1 keeps the larger value, 0 the smaller
  input  logic              we_i,
  input  logic              wbuf_i,
  input  logic [BW-1:0]     wblk_i,
  input  logic [P*ExpW-1:0] wdata_i,
  input  logic              rbuf_i,
  input  logic [BW-1:0]     rblk_i,
  output logic [P*ExpW-1:0] rblk_data_o,
  input  logic [NW-1:0]     rchan_i,
  output logic [ExpW-1:0]   rchan_data_o
);
  localparam int unsigned BlkBits = P * ExpW;

  logic [2*N*ExpW-1:0] base_q;

  // Every block register compares its own stored values with the incoming ones (no read mux in
  // the update path): the write is one compare and one select deep.
  for (genvar k = 0; k < 2 * NB; k++) begin : gen_blk
    logic sel, merge;
    assign sel = we_i && (32'(wbuf_i) * NB + 32'(wblk_i) == k);
    if (Merge) begin : gen_fresh
      logic fresh_q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) fresh_q <= 1'b1;
        else if (fresh_i && 32'(fresh_buf_i) == k / NB) fresh_q <= 1'b1;
        else if (sel) fresh_q <= 1'b0;
      end
      assign merge = !fresh_q;
    end else begin : gen_overwrite
      assign merge = 1'b0;
    end
    for (genvar i = 0; i < P; i++) begin : gen_lane
      logic [ExpW-1:0] o, v;
      assign o = base_q[(k * P + i) * ExpW +: ExpW];
      assign v = wdata_i[i*ExpW +: ExpW];
      // Keep the stored value if it is the smaller (min) or not the smaller (max; equal values
      // are the same either way).
      always_ff @(posedge clk_i) begin
        if (sel && !(merge && ((o < v) ^ max_i))) base_q[(k * P + i) * ExpW +: ExpW] <= v;
      end
    end
  end

  assign rblk_data_o  = base_q[(32'(rbuf_i) * NB + 32'(rblk_i)) * BlkBits +: BlkBits];
  assign rchan_data_o = base_q[(32'(rbuf_i) * N + 32'(rchan_i)) * ExpW +: ExpW];

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, P >= 2 && N % P == 0 && ExpW >= 1 && ExpW <= 8)
  `NDP_ASSERT(wblk_a, !we_i || 32'(wblk_i) < NB)
  `NDP_ASSERT(fresh_not_written_a, !(fresh_i && we_i && fresh_buf_i == wbuf_i))
endmodule
