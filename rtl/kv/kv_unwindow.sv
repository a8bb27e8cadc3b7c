// kv_unwindow: KV read path of docs/spec.md section 6, the exact inverse of kv_window.
//
// Input stream `in_*`: a window's w x N transformed elements in channel-major order (element index
// n*w + t, exponent fields holding deltas), P per beat, N*w/P beats per window. `in_tokens_i` gives
// the window's token count w (1..W, from the tensor table) and must hold for every beat of the
// window. Input stream `base_*`: the window's N base exponents, P bytes per beat, NB beats, in
// (h, c) order; the two streams of a window may arrive in any interleaving.
// Output stream `out_*`: the restored token-major elements (exponent = (delta + base) mod 2^ExpW),
// N/P beats per token, w tokens; `out_last_o` marks the window's final beat, `out_tokens_o` = w.
//
// Buffering: the double-buffered skewed bank store of kv_window, written channel-side (runs of
// kv_run_gen) and read token-side. With w a multiple of P every input beat is one run, so a window
// is written in N*w/P cycles and read in as many: full rate on both sides.
//
/// Registers: write counters and the latched w, read counters, buffer flags, base exponents
/// (kv_base_buf), the P bank RAMs (ram_1r1w), one read pipeline stage and the output FIFO (fifo_sync). `in_ready_o` depends on
/// registered state and, on a window's first beat only, on `in_tokens_i`; never on `out_ready_i`.
`include "ndp_assert.svh"

module kv_unwindow #(
  parameter int unsigned C = 128,
  parameter int unsigned W = 32,
  parameter int unsigned H = 1,
  parameter int unsigned P = 16,
  parameter int unsigned ExpW = 8,
  parameter int unsigned ManW = 7,
  parameter int unsigned FifoDepth = 4,
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
  // channel-major transformed elements
  input  logic            in_valid_i,
  output logic            in_ready_o,
  input  logic [P*EW-1:0] in_data_i,
  input  logic [TW-1:0]   in_tokens_i,
  // base exponents
  input  logic            base_valid_i,
  output logic            base_ready_o,
  input  logic [P*8-1:0]  base_data_i,
  // token-major restored elements
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [P*EW-1:0] out_data_o,
  output logic            out_last_o,
  output logic [TW-1:0]   out_tokens_o
);
  logic [1:0]    full_q;
  logic [TW-1:0] tok_q [2];
  logic          wr_close, rd_release;

  // ---------------------------------------------------------------------------------------------
  // Write side: runs of one channel from the input beats, base bytes from the base stream.
  logic          wr_buf_q, wr_started_q, el_done_q, bs_done_q;
  logic [NW-1:0] wr_n_q;
  logic [TW-1:0] wr_t_q, wr_w_q, wr_w, wr_rem_q, wr_rem;
  logic [PW-1:0] wr_off_q;
  logic [BW-1:0] bs_blk_q;
  logic          wr_free, el_go, elem_end, base_fire, base_end;
  logic [PW:0]   run_cnt;
  logic [P-1:0]  run_en;
  logic [P*PW-1:0] run_idx;
  logic [P*AW-1:0] run_addr;
  logic          run_beat_end, run_chan_end, win_end_run;
  logic [P*ExpW-1:0] base_in;

  assign wr_free     = !full_q[wr_buf_q];
  assign wr_w        = wr_started_q ? wr_w_q : in_tokens_i;
  assign wr_rem      = wr_started_q ? wr_rem_q : in_tokens_i;  // tokens left in the channel: w - t
  assign el_go       = wr_free && !el_done_q && in_valid_i;
  assign in_ready_o  = wr_free && !el_done_q && run_beat_end;
  assign win_end_run = run_chan_end && (32'(wr_n_q) == N - 1);
  assign elem_end    = el_go && win_end_run;
  assign base_ready_o = wr_free && !bs_done_q;
  assign base_fire   = base_valid_i && base_ready_o;
  assign base_end    = base_fire && (32'(bs_blk_q) == NB - 1);
  assign wr_close    = wr_free && (elem_end || el_done_q) && (base_end || bs_done_q);
  for (genvar i = 0; i < P; i++) begin : gen_base_in
    assign base_in[i*ExpW +: ExpW] = base_data_i[i*8 +: ExpW];
  end

  kv_run_gen #(.P(P), .W(W), .N(N)) u_run (
    .buf_i(wr_buf_q), .n_i(wr_n_q), .t_i(wr_t_q), .off_i(wr_off_q), .rem_i(wr_rem),
    .cnt_o(run_cnt), .en_o(run_en), .idx_o(run_idx), .addr_o(run_addr),
    .beat_end_o(run_beat_end), .chan_end_o(run_chan_end)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_buf_q     <= 1'b0;
      wr_started_q <= 1'b0;
      wr_w_q       <= '0;
      wr_rem_q     <= '0;
      wr_n_q       <= '0;
      wr_t_q       <= '0;
      wr_off_q     <= '0;
      el_done_q    <= 1'b0;
      bs_blk_q     <= '0;
      bs_done_q    <= 1'b0;
    end else if (wr_close) begin
      wr_buf_q     <= !wr_buf_q;
      wr_started_q <= 1'b0;
      wr_n_q       <= '0;
      wr_t_q       <= '0;
      wr_off_q     <= '0;
      el_done_q    <= 1'b0;
      bs_blk_q     <= '0;
      bs_done_q    <= 1'b0;
    end else begin
      if (el_go) begin
        wr_started_q <= 1'b1;
        wr_w_q       <= wr_w;
        wr_off_q     <= wr_off_q + PW'(run_cnt);
        if (run_chan_end) begin
          wr_t_q   <= '0;
          wr_rem_q <= wr_w;
          wr_n_q   <= wr_n_q + 1'b1;
        end else begin
          wr_t_q   <= TW'(32'(wr_t_q) + 32'(run_cnt));
          wr_rem_q <= TW'(32'(wr_rem) - 32'(run_cnt));
        end
        if (win_end_run) el_done_q <= 1'b1;
      end
      if (base_fire) begin
        bs_blk_q <= bs_blk_q + 1'b1;
        if (base_end) bs_done_q <= 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Read side: token t, block blk from banks (t + i) mod P at one address.
  logic          rd_buf_q;
  logic [TW-1:0] rd_t_q, rd_w;
  logic [BW-1:0] rd_blk_q;
  logic          rd_full, issue, credit_ok, rd_last;
  logic [AW-1:0] rd_addr;
  logic [$clog2(FifoDepth+1)-1:0] fifo_count;
  logic          s1_valid_q, s1_last_q;
  logic [PW-1:0] s1_rot_q;
  logic [P*ExpW-1:0] s1_base_q, rd_base;
  logic [TW-1:0] s1_tokens_q;

  assign rd_full    = full_q[rd_buf_q];
  assign rd_w       = tok_q[rd_buf_q];
  assign credit_ok  = 32'(fifo_count) + 32'(s1_valid_q) < FifoDepth;
  assign issue      = rd_full && credit_ok;
  assign rd_last    = (32'(rd_blk_q) == NB - 1) && (rd_t_q == rd_w - 1'b1);
  assign rd_release = issue && rd_last;
  assign rd_addr    = AW'((rd_buf_q ? W * NB : 0) + 32'(rd_t_q) * NB + 32'(rd_blk_q));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_buf_q <= 1'b0;
      rd_t_q   <= '0;
      rd_blk_q <= '0;
    end else if (issue) begin
      if (rd_last) begin
        rd_buf_q <= !rd_buf_q;
        rd_t_q   <= '0;
        rd_blk_q <= '0;
      end else if (32'(rd_blk_q) == NB - 1) begin
        rd_t_q   <= rd_t_q + 1'b1;
        rd_blk_q <= '0;
      end else begin
        rd_blk_q <= rd_blk_q + 1'b1;
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
    if (wr_close) tok_q[wr_buf_q] <= wr_w;
  end

  // ---------------------------------------------------------------------------------------------
  // Storage.
  logic [P*EW-1:0] bank_rdata;
  logic [ExpW-1:0] unused_chan_base;  // the per-channel read port is kv_window's

  for (genvar b = 0; b < P; b++) begin : gen_bank
    logic [PW-1:0] src;
    assign src = wr_off_q + run_idx[b*PW +: PW];
    ram_1r1w #(.Width(EW), .Depth(2 * W * NB), .Lanes(1)) u_ram (
      .clk_i, .rst_ni,
      .we_i(el_go && run_en[b]), .waddr_i(run_addr[b*AW +: AW]), .wlane_i(1'b1),
      .wdata_i(in_data_i[32'(src) * EW +: EW]),
      .re_i(issue), .raddr_i(rd_addr), .rdata_o(bank_rdata[b*EW +: EW])
    );
  end

  kv_base_buf #(.P(P), .N(N), .ExpW(ExpW), .Merge(1'b0)) u_base (
    .clk_i, .rst_ni,
    .fresh_i(1'b0), .fresh_buf_i(1'b0), .max_i(1'b0),
    .we_i(base_fire), .wbuf_i(wr_buf_q), .wblk_i(bs_blk_q), .wdata_i(base_in),
    .rbuf_i(rd_buf_q), .rblk_i(rd_blk_q), .rblk_data_o(rd_base),
    .rchan_i('0), .rchan_data_o(unused_chan_base)
  );

  // ---------------------------------------------------------------------------------------------
  // Stage 1: rotate the bank data into channel order and add the base exponents back.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s1_valid_q <= 1'b0;
    else s1_valid_q <= issue;
  end
  always_ff @(posedge clk_i) begin
    if (issue) begin
      s1_rot_q    <= PW'(rd_t_q);
      s1_base_q   <= rd_base;
      s1_last_q   <= rd_last;
      s1_tokens_q <= rd_w;
    end
  end

  logic [P*EW-1:0] restored;
  for (genvar i = 0; i < P; i++) begin : gen_lane
    logic [PW-1:0] src;
    logic [EW-1:0] e;
    assign src = PW'(i) + s1_rot_q;
    assign e   = bank_rdata[32'(src) * EW +: EW];
    assign restored[i*EW +: EW] = {e[EW-1], e[ManW +: ExpW] + s1_base_q[i*ExpW +: ExpW], e[ManW-1:0]};
  end

  logic fifo_in_ready;
  fifo_sync #(.Width(P * EW + 1 + TW), .Depth(FifoDepth)) u_out_fifo (
    .clk_i, .rst_ni,
    .in_valid_i(s1_valid_q), .in_ready_o(fifo_in_ready), .in_data_i({restored, s1_last_q, s1_tokens_q}),
    .out_valid_o, .out_ready_i, .out_data_o({out_data_o, out_last_o, out_tokens_o}),
    .count_o(fifo_count)
  );

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, P >= 2 && (P & (P - 1)) == 0 && N % P == 0 && W >= 1 && ExpW >= 1 &&
                             ExpW <= 8 && ManW >= 1 && FifoDepth >= 3)
  `NDP_ASSERT(push_room_a, !s1_valid_q || fifo_in_ready)
  `NDP_ASSERT(tokens_legal_a, !(in_valid_i && !wr_started_q && wr_free) ||
                              (in_tokens_i != '0 && 32'(in_tokens_i) <= W))
  `NDP_ASSERT(tokens_stable_a, !(in_valid_i && wr_started_q) || in_tokens_i == wr_w_q)
  `NDP_ASSERT(window_end_is_beat_end_a, !(el_go && win_end_run) || run_beat_end)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o, {in_data_i, in_tokens_i})
  `NDP_ASSERT_STREAM(base_stream_a, base_valid_i, base_ready_o, base_data_i)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_last_o, out_tokens_o})
endmodule
