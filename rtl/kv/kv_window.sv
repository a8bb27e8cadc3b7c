// kv_window: KV write path of docs/spec.md section 6. Token-major KV vectors in, channel-major
// window with per-channel base exponents and exponent deltas out.
//
// Input: per token, N = H x C elements (h-major, then channel), P elements per beat (NB = N/P beats
// per token). `in_last_i` on a token's final beat ends the sequence: the window closes with w < W
// tokens. Otherwise a window closes after W tokens.
// Output stream `out_*` (the bp_aggregator input format: P elements per beat): the window's w x N
// elements in channel-major order, element index n*w + t, with each exponent field replaced by
// (e - base[n]) mod 2^ExpW; `out_last_o` marks the window's final beat (the chunk end),
// `out_seq_last_o` the final beat of the sequence, `out_tokens_o` gives w. Wired to bp_aggregator:
// in_data = out_data, in_cnt = P, cfg_chunk_elems = N x out_tokens, in_last = out_seq_last.
// Output stream `base_*`: the N base exponents, P bytes per beat in (h, c) order (zero-extended to
// 8 bits), NB beats per window, `base_last_o` on the last. The base is the spec's reference choice
// (section 6), selected by `cfg_base_max_i`: 1 = max of e over the window's tokens (layout
// expbyte), 0 = min (layout bitplane); zeros/subnormals count as 0, NaN/Inf as 2^ExpW - 1. It is
// sampled with every input beat and meant to change between sequences (a change inside a window
// gives a base that is neither, which the decoder accepts like any other).
//
// Buffering: two windows (double buffer) of P RAM banks with a skewed layout (kv_run_gen), so the
// token-side write and the channel-side read each take one cycle per beat. While one window is read
// out the next one fills: with W a multiple of P the input never stalls at one beat per cycle unless
// the outputs are backpressured. Partial windows with w mod P != 0 read out in N x ceil(w/P)-ish
// runs instead of N x w / P beats (only at a sequence end).
//
/// Registers: write counters, read counters, buffer flags, the base exponents (kv_base_buf), the P
/// bank RAMs (ram_1r1w), two read pipeline stages (rotated elements, then the beat assembly register)
/// and the output FIFO (fifo_sync). No
/// combinational path from any output ready to any input ready or valid.
`include "ndp_assert.svh"

module kv_window #(
  parameter int unsigned C = 128,        // channels per head
  parameter int unsigned W = 32,         // tokens per window
  parameter int unsigned H = 1,          // heads co-packed in one window
  parameter int unsigned P = 16,         // elements per beat (power of two, divides H x C)
  parameter int unsigned ExpW = 8,       // exponent bits (bf16: 8, fp16: 5)
  parameter int unsigned ManW = 7,       // mantissa bits (bf16: 7, fp16: 10)
  parameter int unsigned FifoDepth = 4,  // output FIFO entries (>= 3 for full rate)
  localparam int unsigned EW = 1 + ExpW + ManW,
  localparam int unsigned N = H * C,
  localparam int unsigned NB = N / P,
  localparam int unsigned PW = $clog2(P),
  localparam int unsigned TW = $clog2(W + 1),
  localparam int unsigned NW = (N > 1) ? $clog2(N) : 1,
  localparam int unsigned BW = (NB > 1) ? $clog2(NB) : 1,
  localparam int unsigned AW = $clog2(2 * W * NB)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            cfg_base_max_i,  // base = max (1, expbyte layout) or min (0, bitplane)
  // token-major KV input
  input  logic            in_valid_i,
  output logic            in_ready_o,
  input  logic [P*EW-1:0] in_data_i,
  input  logic            in_last_i,
  // channel-major transformed elements
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [P*EW-1:0] out_data_o,
  output logic            out_last_o,      // last beat of the window (chunk)
  output logic            out_seq_last_o,  // last beat of the sequence's final window
  output logic [TW-1:0]   out_tokens_o,
  // base exponents
  output logic            base_valid_o,
  input  logic            base_ready_i,
  output logic [P*8-1:0]  base_data_o,
  output logic            base_last_o,
  output logic [TW-1:0]   base_tokens_o
);
  // ---------------------------------------------------------------------------------------------
  // Buffer flags: full_q[b] = window b is complete and not yet read out.
  logic [1:0]    full_q, seql_q;  // seql_q[b]: window b ends the sequence
  logic [TW-1:0] tok_q [2];
  logic          wr_close, rd_release;

  // ---------------------------------------------------------------------------------------------
  // Write side: token t, block blk -> banks (t + i) mod P at one address.
  logic          wr_buf_q;
  logic [TW-1:0] wr_t_q;
  logic [BW-1:0] wr_blk_q;
  logic          in_fire, wr_tok_end;
  logic [AW-1:0] wr_addr;
  logic [P*ExpW-1:0] in_exp;

  assign in_ready_o = !full_q[wr_buf_q];
  assign in_fire    = in_valid_i && in_ready_o;
  assign wr_tok_end = (32'(wr_blk_q) == NB - 1);
  assign wr_close   = in_fire && wr_tok_end && (32'(wr_t_q) == W - 1 || in_last_i);
  assign wr_addr    = AW'((wr_buf_q ? W * NB : 0) + 32'(wr_t_q) * NB + 32'(wr_blk_q));
  for (genvar i = 0; i < P; i++) begin : gen_in_exp
    assign in_exp[i*ExpW +: ExpW] = in_data_i[i*EW + ManW +: ExpW];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_buf_q <= 1'b0;
      wr_t_q   <= '0;
      wr_blk_q <= '0;
    end else if (in_fire) begin
      if (wr_close) begin
        wr_buf_q <= !wr_buf_q;
        wr_t_q   <= '0;
        wr_blk_q <= '0;
      end else if (wr_tok_end) begin
        wr_t_q   <= wr_t_q + 1'b1;
        wr_blk_q <= '0;
      end else begin
        wr_blk_q <= wr_blk_q + 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Read side: runs of one channel (kv_run_gen), assembled into channel-major beats.
  logic          rd_buf_q, rd_done_q, bs_done_q, rd_first_q;
  logic [NW-1:0] rd_n_q;
  logic [TW-1:0] rd_t_q, rd_w, rd_rem_q, rd_rem;
  logic [PW-1:0] rd_off_q;
  logic [BW-1:0] bs_blk_q;
  logic          rd_full, issue, credit_ok, win_end_run, elem_end, base_fire, base_end;
  logic [PW:0]   run_cnt;
  logic [P-1:0]  run_en;
  logic [P*PW-1:0] unused_run_idx;  // stage 1 derives positions from the rotation instead
  logic [P*AW-1:0] run_addr;
  logic          run_beat_end, run_chan_end;
  logic [$clog2(FifoDepth+1)-1:0] fifo_count;
  logic          s1_valid_q, s1_beat_end_q, s1_last_q, s1_seq_last_q;
  logic          s2_valid_q, s2_beat_end_q, s2_last_q, s2_seq_last_q;
  logic [TW-1:0] s2_tokens_q;
  logic [PW:0]   s1_cnt_q;
  logic [PW-1:0] s1_off_q, s1_rot_q;
  logic [ExpW-1:0] s1_base_q, chan_base;
  logic [TW-1:0] s1_tokens_q;

  assign rd_full = full_q[rd_buf_q];
  assign rd_w    = tok_q[rd_buf_q];
  assign rd_rem  = rd_first_q ? rd_w : rd_rem_q;  // tokens left in the channel: w - t

  kv_run_gen #(.P(P), .W(W), .N(N)) u_run (
    .buf_i(rd_buf_q), .n_i(rd_n_q), .t_i(rd_t_q), .off_i(rd_off_q), .rem_i(rd_rem),
    .cnt_o(run_cnt), .en_o(run_en), .idx_o(unused_run_idx), .addr_o(run_addr),
    .beat_end_o(run_beat_end), .chan_end_o(run_chan_end)
  );

  // A run is issued only if the beat it may complete has a FIFO slot (count + beats in flight).
  assign credit_ok   = 32'(fifo_count) + 32'(s1_valid_q && s1_beat_end_q) + 32'(s2_valid_q && s2_beat_end_q)
                       < FifoDepth;
  assign issue       = rd_full && !rd_done_q && credit_ok;
  assign win_end_run = run_chan_end && (32'(rd_n_q) == N - 1);
  assign elem_end    = issue && win_end_run;
  assign base_valid_o = rd_full && !bs_done_q;
  assign base_fire   = base_valid_o && base_ready_i;
  assign base_end    = base_fire && (32'(bs_blk_q) == NB - 1);
  assign rd_release  = rd_full && (elem_end || rd_done_q) && (base_end || bs_done_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_buf_q   <= 1'b0;
      rd_n_q     <= '0;
      rd_t_q     <= '0;
      rd_off_q   <= '0;
      rd_rem_q   <= '0;
      rd_first_q <= 1'b1;
      rd_done_q  <= 1'b0;
      bs_blk_q   <= '0;
      bs_done_q  <= 1'b0;
    end else if (rd_release) begin
      rd_buf_q   <= !rd_buf_q;
      rd_n_q     <= '0;
      rd_t_q     <= '0;
      rd_off_q   <= '0;
      rd_first_q <= 1'b1;
      rd_done_q  <= 1'b0;
      bs_blk_q   <= '0;
      bs_done_q  <= 1'b0;
    end else begin
      if (issue) begin
        rd_first_q <= 1'b0;
        rd_off_q   <= rd_off_q + PW'(run_cnt);
        if (run_chan_end) begin
          rd_t_q   <= '0;
          rd_rem_q <= rd_w;
          rd_n_q   <= rd_n_q + 1'b1;
        end else begin
          rd_t_q   <= TW'(32'(rd_t_q) + 32'(run_cnt));
          rd_rem_q <= TW'(32'(rd_rem) - 32'(run_cnt));
        end
        if (win_end_run) rd_done_q <= 1'b1;
      end
      if (base_fire) begin
        bs_blk_q <= bs_blk_q + 1'b1;
        if (base_end) bs_done_q <= 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      full_q <= '0;
    end else begin
      if (wr_close) full_q[wr_buf_q] <= 1'b1;
      if (rd_release) full_q[rd_buf_q] <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (wr_close) begin
      tok_q[wr_buf_q]  <= wr_t_q + 1'b1;
      seql_q[wr_buf_q] <= in_last_i;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Storage: P banks and the base exponents.
  logic [P*EW-1:0]   bank_rdata;
  logic [P*ExpW-1:0] base_blk;

  for (genvar b = 0; b < P; b++) begin : gen_bank
    logic [PW-1:0] src;  // bank b holds channel (b - t) mod P of the block
    assign src = PW'(b) - PW'(wr_t_q);
    ram_1r1w #(.Width(EW), .Depth(2 * W * NB), .Lanes(1)) u_ram (
      .clk_i, .rst_ni,
      .we_i(in_fire), .waddr_i(wr_addr), .wlane_i(1'b1), .wdata_i(in_data_i[32'(src) * EW +: EW]),
      .re_i(issue && run_en[b]), .raddr_i(run_addr[b*AW +: AW]), .rdata_o(bank_rdata[b*EW +: EW])
    );
  end

  // The window's first token overwrites the base values (fresh flags set for the buffer the writer
  // moves to at each close), every later token keeps the maximum (or minimum).
  kv_base_buf #(.P(P), .N(N), .ExpW(ExpW), .Merge(1'b1)) u_base (
    .clk_i, .rst_ni,
    .fresh_i(wr_close), .fresh_buf_i(!wr_buf_q), .max_i(cfg_base_max_i),
    .we_i(in_fire), .wbuf_i(wr_buf_q), .wblk_i(wr_blk_q), .wdata_i(in_exp),
    .rbuf_i(rd_buf_q), .rblk_i(bs_blk_q), .rblk_data_o(base_blk),
    .rchan_i(rd_n_q), .rchan_data_o(chan_base)
  );

  for (genvar i = 0; i < P; i++) begin : gen_base_out
    assign base_data_o[i*8 +: 8] = 8'(base_blk[i*ExpW +: ExpW]);
  end
  assign base_last_o   = (32'(bs_blk_q) == NB - 1);
  assign base_tokens_o = rd_w;

  // ---------------------------------------------------------------------------------------------
  // Stage 1: RAM data -> rotate into beat positions and subtract the base; stage 2: merge the run
  // into the beat (acc_q) and push complete beats into the FIFO.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s1_valid_q <= 1'b0;
    else s1_valid_q <= issue;
  end
  always_ff @(posedge clk_i) begin
    if (issue) begin
      s1_off_q      <= rd_off_q;
      s1_cnt_q      <= run_cnt;
      s1_rot_q      <= PW'(rd_t_q) + PW'(rd_n_q) - rd_off_q;
      s1_base_q     <= chan_base;
      s1_beat_end_q <= run_beat_end;
      s1_last_q     <= win_end_run;
      s1_seq_last_q <= win_end_run && seql_q[rd_buf_q];
      s1_tokens_q   <= rd_w;
    end
  end

  // Stage 1 -> 2: every beat position takes its bank's element (rotation) with the base subtracted.
  logic [P*EW-1:0] s1_elems, s2_elems_q, acc_q, merged;
  logic [P-1:0]    s1_sel, s2_sel_q;
  for (genvar p = 0; p < P; p++) begin : gen_pos
    logic [PW-1:0] k, src;
    logic [EW-1:0] e;
    assign k   = PW'(p) - s1_off_q;
    assign src = PW'(p) + s1_rot_q;
    assign e   = bank_rdata[32'(src) * EW +: EW];
    assign s1_sel[p] = (32'(k) < 32'(s1_cnt_q));
    assign s1_elems[p*EW +: EW] = {e[EW-1], e[ManW +: ExpW] - s1_base_q, e[ManW-1:0]};
    // Stage 2: merge the run into the beat.
    assign merged[p*EW +: EW] = s2_sel_q[p] ? s2_elems_q[p*EW +: EW] : acc_q[p*EW +: EW];
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s2_valid_q <= 1'b0;
    else s2_valid_q <= s1_valid_q;
  end
  always_ff @(posedge clk_i) begin
    if (s1_valid_q) begin
      s2_elems_q    <= s1_elems;
      s2_sel_q      <= s1_sel;
      s2_beat_end_q <= s1_beat_end_q;
      s2_last_q     <= s1_last_q;
      s2_seq_last_q <= s1_seq_last_q;
      s2_tokens_q   <= s1_tokens_q;
    end
    if (s2_valid_q) acc_q <= merged;
  end

  // ---------------------------------------------------------------------------------------------
  // Output FIFO.
  logic fifo_push, fifo_in_ready;
  assign fifo_push = s2_valid_q && s2_beat_end_q;

  fifo_sync #(.Width(P * EW + 2 + TW), .Depth(FifoDepth)) u_out_fifo (
    .clk_i, .rst_ni,
    .in_valid_i(fifo_push), .in_ready_o(fifo_in_ready),
    .in_data_i({merged, s2_last_q, s2_seq_last_q, s2_tokens_q}),
    .out_valid_o, .out_ready_i, .out_data_o({out_data_o, out_last_o, out_seq_last_o, out_tokens_o}),
    .count_o(fifo_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, P >= 2 && (P & (P - 1)) == 0 && N % P == 0 && W >= 1 && ExpW >= 1 &&
                             ExpW <= 8 && ManW >= 1 && FifoDepth >= 3)
  `NDP_ASSERT(push_room_a, !fifo_push || fifo_in_ready)
  `NDP_ASSERT(last_at_token_end_a, !(in_valid_i && in_last_i) || wr_tok_end)
  `NDP_ASSERT(window_end_is_beat_end_a, !(issue && win_end_run) || run_beat_end)
  `NDP_ASSERT(run_nonempty_a, !issue || run_cnt != '0)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o, {in_data_i, in_last_i})
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                    {out_data_o, out_last_o, out_seq_last_o, out_tokens_o})
  `NDP_ASSERT_STREAM(base_stream_a, base_valid_o, base_ready_i, {base_data_o, base_last_o, base_tokens_o})
endmodule
