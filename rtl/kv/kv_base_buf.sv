// kv_base_buf: per-channel base exponents of the two windows of a KV double buffer.
//
// Holds 2 x N exponent values (N = H x C channels per window). The write port updates the P channels
// of one block: overwrite, or (min mode, used while a window fills) keep the smaller of the stored and
// the new value, which computes base = min over the window's tokens of the exponent field.
// Read port A returns the P values of a block, port B the value of one channel.
//
/// Registers: the 2 x N values (flip-flops; N x ExpW bits per window). No reset: a window's values are
/// always written (by its first token, or by the base stream) before they are read.
`include "ndp_assert.svh"

module kv_base_buf #(
  parameter int unsigned P = 16,
  parameter int unsigned N = 128,
  parameter int unsigned ExpW = 8,
  localparam int unsigned NB = N / P,
  localparam int unsigned BW = (NB > 1) ? $clog2(NB) : 1,
  localparam int unsigned NW = (N > 1) ? $clog2(N) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              we_i,
  input  logic              wmin_i,     // 1: keep min(stored, new); 0: overwrite
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
  logic [BlkBits-1:0]  old_blk, new_blk;

  assign old_blk = base_q[(32'(wbuf_i) * NB + 32'(wblk_i)) * BlkBits +: BlkBits];
  for (genvar i = 0; i < P; i++) begin : gen_lane
    logic [ExpW-1:0] o, v;
    assign o = old_blk[i*ExpW +: ExpW];
    assign v = wdata_i[i*ExpW +: ExpW];
    assign new_blk[i*ExpW +: ExpW] = (wmin_i && o < v) ? o : v;
  end

  always_ff @(posedge clk_i) begin
    if (we_i) base_q[(32'(wbuf_i) * NB + 32'(wblk_i)) * BlkBits +: BlkBits] <= new_blk;
  end

  assign rblk_data_o  = base_q[(32'(rbuf_i) * NB + 32'(rblk_i)) * BlkBits +: BlkBits];
  assign rchan_data_o = base_q[(32'(rbuf_i) * N + 32'(rchan_i)) * ExpW +: ExpW];

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, P >= 2 && N % P == 0 && ExpW >= 1 && ExpW <= 8)
  `NDP_ASSERT(wblk_a, !we_i || 32'(wblk_i) < NB)
endmodule
