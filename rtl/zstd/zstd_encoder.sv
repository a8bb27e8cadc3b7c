// zstd_encoder: Zstandard compressor of the codec lane (RFC 8878 frames; docs/zstd.md "Encoder").
// Its output is bit-exact with sw/codec zstd_hw_frame() (include/ndp/zstd_hw_model.h).
///
/// Input: one block (job) per packet, beats of InBytes bytes except the last, with the job's fields
/// held for the packet: in_size_i (1..MaxBlockBytes), in_huf_i (Huffman mode: the spec 4.3
/// literals-only block for EXPBYTE planes), in_hl_i (a sequences job's literals Huffman-coded,
/// with HufLits), in_first_i (the block opens a frame: the frame header
/// with Frame_Content_Size in_total_i goes in front), in_lastblk_i (Last_Block). Output: the block
/// (and frame header) in beats of 32 bytes except the last (out_last_o), out_kind_o = the block kind
/// written (0 raw, 1 RLE, 2 sequences, 3 Huffman).
///
/// Three job stages, each holding one job: collect (the input goes into the match finder's ring;
/// Huffman jobs are counted by zstd_enc_hist, sequences jobs' records go to the sequence store),
/// build (Huffman jobs: zstd_enc_build writes the code table and tree description into one half of
/// the double-buffered table and tree RAMs) and encode (Huffman: the 1 or 4 zstd_enc_huf_stream
/// into the region RAMs; then zstd_enc_emit writes the block). So a block's input and its code
/// build overlap the previous block's streams and output; the input ring holds two blocks (up to
/// MaxBlockBytes/2 each for the overlap).
///
/// HufLits = 1 Huffman-codes the literals of sequences jobs that ask for it (in_hl_i; zstd_hw_model.h
/// ZstdHwParams::huffman_literals): in the encode stage such a job first copies its literal runs
/// from the ring into the literal buffer and the histogram (zstd_enc_litgather), builds their code
/// into the table half it reserves, runs the streams over the literal buffer, then the sequence
/// encoder writes its bitstream behind the streams in the region RAMs; the emitter takes the smaller
/// literals section. While such a job has not built its code, no Huffman job starts to be counted.
`include "ndp_assert.svh"

module zstd_encoder #(
  parameter int unsigned InBytes       = 16,
  parameter int unsigned HashBits      = 13,
  // bytes the match finder hashes per position, 4 or 8 (docs/zstd_encoder.md "Hash bytes": with
  // raw literals in sequences blocks 4 stores less on real planes; 8 wins with Huffman literals)
  parameter int unsigned HashBytes     = 4,
  parameter int unsigned HashBanks     = 64,
  parameter int unsigned MatchBytes    = 16,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter int unsigned HufLits       = 0,
  localparam int unsigned ICW      = $clog2(InBytes + 1),
  localparam int unsigned CntW     = $clog2(MaxBlockBytes + 1),
  localparam int unsigned RegWords = (MaxBlockBytes * 11 / 32 + 32) / 32 + 1,
  localparam int unsigned RWW      = $clog2(RegWords)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic [InBytes*8-1:0] in_data_i,
  input  logic [ICW-1:0]       in_cnt_i,
  input  logic                 in_last_i,
  input  logic [16:0]          in_size_i,
  input  logic                 in_huf_i,
  input  logic                 in_hl_i,       // sequences job: Huffman-code its literals (HufLits)
  input  logic                 in_first_i,
  input  logic                 in_lastblk_i,
  input  logic [31:0]          in_total_i,
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [255:0]         out_data_o,
  output logic [5:0]           out_cnt_o,
  output logic                 out_last_o,
  output logic [1:0]           out_kind_o
);
  localparam int unsigned SeqW = 16 + 17 + 16 + 17 + 1;

  // job record {hl, n[16:0], huf, first, lastblk, total[31:0], base[15:0], v0[7:0], eq}: field offsets
  localparam int unsigned JW = 78, JHl = 77, JN = 60, JHuf = 59, JFirst = 58, JLast = 57, JTot = 25, JBase = 9,
                          JV0 = 1, JEq = 0;

  // ---------------------------------------------------------------------------------------------
  // Collect stage: input into the finder's ring, histogram, all-equal check
  logic [JW-1:0] c_q, b_q, e_q;
  logic [16:0] e_n;
  logic [15:0] e_base;
  logic        e_huf, e_eq, em_busy_q;
  assign e_n    = e_q[JN +: 17];
  assign e_base = e_q[JBase +: 16];
  assign e_huf  = e_q[JHuf];
  assign e_eq   = e_q[JEq];
  logic        c_v_q, c_done_q, b_v_q, b_build_q, e_v_q;
  logic        open_q;                 // a job's beats are being taken
  logic [16:0] rcv_q;
  logic        hist_ready, start_ok, in_hs, f_in_ready;
  logic [SeqW-1:0] sq_head;
  /* verilator lint_off UNUSEDSIGNAL */
  logic        f_start;
  logic        bd_fse;
  logic [3:0]  bd_mb;
  logic [1:0]  mq_cnt_unused;
  logic        mq_ready_unused;        // at most 3 jobs are between input and records (ring: 2)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0] f_base;

  logic hl_pend;                       // a sequences job ahead may still need the histogram
  logic in_dual;                       // a Huffman job that also tries the sequences block
  assign in_dual    = in_huf_i && in_hl_i && HufLits != 0;
  assign start_ok   = !c_v_q && (!in_huf_i || (hist_ready && !hl_pend));
  assign in_ready_o = f_in_ready && (open_q || start_ok);
  assign in_hs      = in_valid_i && in_ready_o;

  logic beq;                           // every byte of the beat equals the job's first byte
  always_comb begin
    beq = 1'b1;
    for (int i = 0; i < InBytes; i++)
      if (32'(i) < 32'(in_cnt_i) && in_data_i[i*8 +: 8] != (open_q ? c_q[JV0 +: 8] : in_data_i[7:0]))
        beq = 1'b0;
  end

  // match finder and input ring (port B: 32 bytes from any ring address, for streams and output)
  logic [3:0]      sq_cnt;
  logic            sq_pop;
  logic [15:0]     ring_pos;
  logic [255:0]    ring_data;
  logic            blk_done;

  lz4_enc_finder #(
    .InBytes(InBytes), .OutBytes(32), .HashBits(HashBits), .HashBytes(HashBytes),
    .HashBanks(HashBanks), .MatchBytes(MatchBytes), .MaxBlockBytes(MaxBlockBytes), .PopN(1)
  ) u_finder (
    .clk_i, .rst_ni,
    .in_valid_i  (in_valid_i && (open_q || start_ok)),
    .in_ready_o  (f_in_ready),
    .in_data_i,
    .in_cnt_i,
    .in_last_i,
    .in_size_i,
    .in_nomatch_i(in_huf_i && !in_dual),
    .start_o     (f_start),
    .start_base_o(f_base),
    .seq_head_o  (sq_head),
    .seq_cnt_o   (sq_cnt),
    .seq_pop_i   (sq_pop),
    .b_pos_i     (ring_pos),
    .b_data_o    (ring_data),
    .blk_done_i  (blk_done)
  );
  // Records go to the job at the head of the mode queue (jobs in input order): a Huffman job's
  // single literal record is dropped, a sequences (or dual) job's records go to the sequence store
  // once the sequence RAM is free (the previous job that used it has been written out).
  logic       mq_v, mq_huf, mq_push, mq_pop, rec_last;
  logic       sst_start, sst_busy, sst_done, sst_we;
  logic [14:0] sst_nseq;
  logic [16:0] sst_nlit;
  logic [47:0] sst_rep, rep_commit_q;
  logic [$clog2(MaxBlockBytes/4)-1:0] sst_wa;
  logic [66:0] sst_wd;
  logic       g_own_q, newframe_q, c_started_q;
  assign rec_last = sq_head[0];
  assign mq_push  = in_hs && !open_q;
  assign sq_pop   = (sq_cnt != '0) && mq_v && (mq_huf || sst_busy);
  assign mq_pop   = sq_pop && rec_last;
  assign sst_start = mq_v && !mq_huf && !g_own_q && !sst_busy;
  fifo_sync #(.Width(1), .Depth(3)) u_modeq (
    .clk_i, .rst_ni,
    .in_valid_i (mq_push),
    .in_ready_o (mq_ready_unused),
    .in_data_i  (in_huf_i && !in_dual),
    .out_valid_o(mq_v),
    .out_ready_i(mq_pop),
    .out_data_o (mq_huf),
    .count_o    (mq_cnt_unused)
  );

  zstd_enc_seqstore #(.Depth(MaxBlockBytes / 4)) u_sstore (
    .clk_i, .rst_ni,
    .start_i    (sst_start),
    .rep_i      (newframe_q ? {16'd8, 16'd4, 16'd1} : rep_commit_q),
    .rec_valid_i(sq_pop && !mq_huf),
    .rec_i      (sq_head),
    .busy_o     (sst_busy),
    .done_o     (sst_done),
    .nseq_o     (sst_nseq),
    .nlit_o     (sst_nlit),
    .rep_o      (sst_rep),
    .we_o       (sst_we),
    .waddr_o    (sst_wa),
    .wdata_o    (sst_wd)
  );

  // sequence RAM: {lit_start, ll, ml, ov}, read by the sequence encoder, then by the block writer
  logic [$clog2(MaxBlockBytes/4)-1:0] seq_ra, se_ra;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [14:0] em_seq_addr;            // entries 0..nseq, nseq < Depth
  /* verilator lint_on UNUSEDSIGNAL */
  logic [66:0] seq_rd;
  logic        se_busy_q;
  logic           se_start, se_done, se_wr;
  logic [1:0]     se_wsel;
  logic [RWW-1:0] se_wa;
  logic [255:0]   se_wd;
  logic [16:0]    se_bytes;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [14:0] ga_seq_addr;            // entries 0..nseq, nseq < Depth
  /* verilator lint_on UNUSEDSIGNAL */
  assign seq_ra = se_busy_q ? se_ra :
                  ((eph_q == EGather) ? ga_seq_addr[$clog2(MaxBlockBytes/4)-1:0] :
                   em_seq_addr[$clog2(MaxBlockBytes/4)-1:0]);
  ram_1r1w #(.Width(67), .Depth(MaxBlockBytes / 4)) u_seqram (
    .clk_i, .rst_ni,
    .we_i   (sst_we),
    .waddr_i(sst_wa),
    .wlane_i(1'b1),
    .wdata_i(sst_wd),
    .re_i   (1'b1),
    .raddr_i(seq_ra),
    .rdata_o(seq_rd)
  );

  logic            h_rd_start, h_rd_valid, h_rd_last;
  logic            h_add, h_in_add, ga_wr;
  logic [InBytes*8-1:0] h_data, ga_wd;
  logic [ICW-1:0]  h_cnt, ga_cnt;
  assign h_in_add = in_hs && (open_q ? c_q[JHuf] : in_huf_i);
  assign h_add    = h_in_add || ga_wr;
  assign h_data   = ga_wr ? ga_wd : in_data_i;
  assign h_cnt    = ga_wr ? ga_cnt : in_cnt_i;
  logic [7:0]      h_rd_sym;
  logic [CntW-1:0] h_rd_cnt;
  zstd_enc_hist #(.InBytes(InBytes), .MaxBlockBytes(MaxBlockBytes)) u_hist (
    .clk_i, .rst_ni,
    .ready_o   (hist_ready),
    .add_i     (h_add),
    .data_i    (h_data),
    .cnt_i     (h_cnt),
    .rd_start_i(h_rd_start),
    .rd_valid_o(h_rd_valid),
    .rd_sym_o  (h_rd_sym),
    .rd_cnt_o  (h_rd_cnt),
    .rd_last_o (h_rd_last)
  );

  // ---------------------------------------------------------------------------------------------
  // Build stage
  logic        mv_cb, mv_be, b_ready;
  logic        bd_done, bd_ok;
  logic [7:0]  bd_tlen;
  logic        tw_we, tb_we;
  logic [7:0]  tw_addr, tb_data;
  logic [14:0] tw_data;
  logic [6:0]  tb_addr;
  logic        hb_q, b_half_q, e_half_q;   // table/tree half written by the build / used by E

  assign mv_cb   = c_v_q && c_done_q && ((c_q[JHuf] && !c_q[JHl]) || (c_started_q && sst_done)) && !b_v_q;
  assign b_ready = !b_build_q || bd_done;
  assign mv_be   = b_v_q && b_ready && !e_v_q;

  zstd_enc_build #(.CntW(CntW)) u_build (
    .clk_i, .rst_ni,
    .start_i        ((mv_cb && c_q[JHuf] && !c_q[JEq]) || hl_build),
    .clear_i        (mv_cb && c_q[JHuf] && c_q[JEq]),     // counted, but stored as RLE
    .hist_rd_start_o(h_rd_start),
    .hist_rd_valid_i(h_rd_valid),
    .hist_rd_sym_i  (h_rd_sym),
    .hist_rd_cnt_i  (h_rd_cnt),
    .hist_rd_last_i (h_rd_last),
    .done_o         (bd_done),
    .ok_o           (bd_ok),
    .tlen_o         (bd_tlen),
    .fse_o          (bd_fse),
    .max_bits_o     (bd_mb),
    .tw_we_o        (tw_we),
    .tw_addr_o      (tw_addr),
    .tw_data_o      (tw_data),
    .tb_we_o        (tb_we),
    .tb_addr_o      (tb_addr),
    .tb_data_o      (tb_data)
  );

  // ---------------------------------------------------------------------------------------------
  // Encode stage: streams, then the emitter. Per job: RLE -> emit; Huffman -> the streams (when the
  // code exists) -> emit; sequences -> [HufLits: gather -> build -> the literal streams] -> the
  // sequence encoder -> emit; dual (Huffman with in_hl_i) -> the Huffman streams counting sizes
  // only -> the sequences part as above -> decide -> [the Huffman streams again, written] -> emit
  // the smaller block.
  typedef enum logic [2:0] {EIdle, EGather, EBuild, EStreams, ESeq, EDecide, EHufAgain, EEmit} eph_e;
  eph_e        eph_q;
  logic        e_tok_q;               // the job's tree exists (the literals' in the sequences part)
  logic [7:0]  e_tlen_q;
  logic        e_hlp_q;               // the job's sequences part has begun
  logic        s_dry_q;               // the running streams only count their sizes
  logic        hf_tok_q, hf_half_q;   // dual: the Huffman block's code, its size (emitter)
  logic [7:0]  hf_tlen_q;
  logic [17:0] hf_size_q, em_size;
  logic [3:0]  s_start, s_done, s_rq, s_grant, s_resp_q, s_wr;
  logic [4*16-1:0] s_size;
  logic [4*16-1:0] s_beg;
  logic [4*17-1:0] s_len;
  logic [4*32-1:0] s_tab_addr;
  logic [4*60-1:0] s_tab_data;
  logic [4*16-1:0] s_rq_pos;
  logic [4*RWW-1:0] s_wa;
  logic [4*256-1:0] s_wd;
  logic        e_four, em_start, em_done;
  logic [16:0] seg;
  logic [1:0]  em_kind, kind_req;

  logic        e_dual, seq_part, hl_job, sdone, hl_go, hl_take, hl_build, hl_streams, lits_ready;
  logic        seq_done, huf_write, huf_dry, huf_none, huf_done, huf_wins, e_seqs, ga_start;
  logic [16:0] e_hn;
  assign e_dual     = e_v_q && e_huf && e_q[JHl] && !e_eq;
  assign seq_part   = e_v_q && !e_eq && (!e_huf || e_q[JHl]);
  assign hl_job     = e_v_q && e_q[JHl] && !e_eq && sst_nlit != '0;
  assign e_seqs     = seq_part && sst_nseq != '0;
  assign sdone      = s_done[0] && (!e_four || &s_done);
  // the sequences part begins: a sequences job at once, a dual job after its counting streams; one
  // with literals to code takes the histogram (free: no Huffman job is counted meanwhile)
  assign hl_go      = seq_part && !e_hlp_q && !em_busy_q &&
                      (!e_huf ? eph_q == EIdle :
                                ((eph_q == EIdle && !e_tok_q) || (eph_q == EStreams && s_dry_q && sdone)));
  assign hl_take    = hl_go && (!hl_job || hist_ready);
  assign ga_start   = hl_take && hl_job;
  assign hl_build   = eph_q == EGather && ga_done;
  assign hl_streams = eph_q == EBuild && bd_done && bd_ok;
  // the literals are done: none to code, no code for them, or their streams are done
  assign lits_ready = (hl_take && !hl_job) || (eph_q == EBuild && bd_done && !bd_ok) ||
                      (eph_q == EStreams && e_hlp_q && sdone);
  assign seq_done   = (lits_ready && !e_seqs) || (eph_q == ESeq && se_done);
  // Huffman streams: written (a Huffman job; a dual job whose Huffman block won), or counting
  assign huf_write  = (eph_q == EIdle && e_v_q && e_huf && !e_q[JHl] && !e_eq && e_tok_q && !em_busy_q) ||
                      (eph_q == EHufAgain && e_tok_q);
  assign huf_dry    = eph_q == EIdle && e_dual && e_tok_q && !em_busy_q;
  assign huf_none   = (eph_q == EIdle && e_v_q && e_huf && !e_q[JHl] && !e_eq && !e_tok_q) ||
                      (eph_q == EHufAgain && !e_tok_q);
  assign huf_done   = eph_q == EStreams && !e_hlp_q && !s_dry_q && sdone;
  // dual: the sequences block (the emitter's size for kind_req) against the Huffman block's, which
  // wins ties
  assign huf_wins   = hf_size_q <= em_size;
  assign e_hn   = e_hlp_q ? sst_nlit : e_n;
  assign e_four = e_hn >= 17'd1024;
  assign seg    = (e_hn + 17'd3) >> 2;
  always_comb begin
    for (int k = 0; k < 4; k++) begin
      s_beg[k*16 +: 16] = (e_hlp_q ? 16'd0 : e_base) + 16'(32'(seg) * k);
      s_len[k*17 +: 17] = !e_four ? ((k == 0) ? e_hn : 17'd0) :
                          ((k == 3) ? e_hn - 17'(3 * 32'(seg)) : seg);
      s_start[k]        = (huf_write || huf_dry || hl_streams) && (k == 0 || e_four);
    end
  end

  // ring port B: the streams (round robin) while they run, else the emitter
  logic [1:0]  g_idx;
  logic        g_v;
  logic [15:0] em_ring_pos;
  rr_arbiter #(.N(4)) u_arb (
    .clk_i, .rst_ni,
    .in_valid_i (s_rq),
    .in_ready_o (s_grant),
    .out_valid_o(g_v),
    .out_ready_i(1'b1),
    .idx_o      (g_idx)
  );
  logic [15:0]  ga_ring_pos;
  logic [255:0] lit_data, s_rd_data;
  assign ring_pos  = (eph_q == EStreams) ? s_rq_pos[32'(g_idx)*16 +: 16] :
                     ((eph_q == EGather) ? ga_ring_pos : em_ring_pos);
  assign s_rd_data = e_hlp_q ? lit_data : ring_data;

  // code table replicas: 4 per stream, halves selected by the job
  for (genvar r = 0; r < 16; r++) begin : gen_tab
    ram_1r1w #(.Width(15), .Depth(512)) u_tab (
      .clk_i, .rst_ni,
      .we_i   (tw_we),
      .waddr_i({hb_q, tw_addr}),
      .wlane_i(1'b1),
      .wdata_i(tw_data),
      .re_i   (1'b1),
      .raddr_i({e_half_q, s_tab_addr[r*8 +: 8]}),
      .rdata_o(s_tab_data[r*15 +: 15])
    );
  end

  // region RAMs: stream k writes region k
  logic [1:0]     em_sel, em_sel_q;
  logic [RWW-1:0] em_ra;
  logic [4*256-1:0] reg_rd;
  for (genvar k = 0; k < 4; k++) begin : gen_stream
    zstd_enc_huf_stream #(.RegWords(RegWords)) u_stream (
      .clk_i, .rst_ni,
      .start_i   (s_start[k]),
      .beg_i     (s_beg[k*16 +: 16]),
      .len_i     (s_len[k*17 +: 17]),
      .rq_valid_o(s_rq[k]),
      .rq_grant_i(s_grant[k]),
      .rq_pos_o  (s_rq_pos[k*16 +: 16]),
      .rs_valid_i(s_resp_q[k]),
      .rs_data_i (s_rd_data),
      .tab_addr_o(s_tab_addr[k*32 +: 32]),
      .tab_data_i(s_tab_data[k*60 +: 60]),
      .wr_o      (s_wr[k]),
      .wr_addr_o (s_wa[k*RWW +: RWW]),
      .wr_data_o (s_wd[k*256 +: 256]),
      .done_o    (s_done[k]),
      .size_o    (s_size[k*16 +: 16])
    );
    ram_1r1w #(.Width(256), .Depth(RegWords)) u_region (
      .clk_i, .rst_ni,
      .we_i   ((s_wr[k] && !s_dry_q) || (se_wr && se_wsel == 2'(k))),
      .waddr_i(se_busy_q ? se_wa : s_wa[k*RWW +: RWW]),
      .wlane_i(1'b1),
      .wdata_i(se_busy_q ? se_wd : s_wd[k*256 +: 256]),
      .re_i   (1'b1),
      .raddr_i(em_ra),
      .rdata_o(reg_rd[k*256 +: 256])
    );
  end

  // tree buffer: two halves of 16 words of 8 bytes
  logic [3:0]  em_ta;
  logic [63:0] tree_rd;
  ram_1r1w #(.Width(64), .Depth(32), .Lanes(8)) u_treebuf (
    .clk_i, .rst_ni,
    .we_i   (tb_we),
    .waddr_i({hb_q, tb_addr[6:3]}),
    .wlane_i(8'd1 << tb_addr[2:0]),
    .wdata_i({8{tb_data}}),
    .re_i   (1'b1),
    .raddr_i({e_half_q, em_ta}),
    .rdata_o(tree_rd)
  );

  logic [4*16-1:0] e_size;
  always_comb begin
    for (int k = 0; k < 4; k++) e_size[k*16 +: 16] = (k == 0 || e_four) ? s_size[k*16 +: 16] : 16'd0;
  end
  // the sequence encoder (when there are sequences); the region words below each literal stream's
  // end hold that stream: the FSE bitstream goes behind them
  logic [4*RWW-1:0] e_fs;
  always_comb begin
    for (int k = 0; k < 4; k++)
      e_fs[k*RWW +: RWW] = ((HufLits != 0) && e_q[JHl] && e_hlp_q && e_tok_q) ?
                           RWW'((e_size[k*16 +: 16] + 16'd31) >> 5) : '0;
  end
  assign se_start = lits_ready && e_seqs && !se_busy_q;
  zstd_enc_seqenc #(.Depth(MaxBlockBytes / 4), .RegWords(RegWords)) u_seqenc (
    .clk_i, .rst_ni,
    .start_i  (se_start),
    .nseq_i   (sst_nseq),
    .fs_i     (e_fs),
    .raddr_o  (se_ra),
    .rdata_i  (seq_rd[50:0]),
    .wr_o     (se_wr),
    .wr_sel_o (se_wsel),
    .wr_addr_o(se_wa),
    .wr_data_o(se_wd),
    .done_o   (se_done),
    .bytes_o  (se_bytes)
  );

  assign kind_req = e_eq ? 2'd1 : ((e_huf && !e_hlp_q) ? 2'd3 : 2'd2);
  assign em_start = e_v_q && !em_busy_q &&
                    ((eph_q == EIdle && e_eq) || huf_none || huf_done || (seq_done && !e_dual) ||
                     (eph_q == EDecide && !huf_wins));

  /* verilator lint_off UNUSEDSIGNAL */
  logic [17:0] em_bytes;
  /* verilator lint_on UNUSEDSIGNAL */
  zstd_enc_emit #(.RegWords(RegWords)) u_emit (
    .clk_i, .rst_ni,
    .start_i    (em_start),
    .kind_i     (kind_req),
    .first_i    (e_q[JFirst]),
    .last_i     (e_q[JLast]),
    .total_i    (e_q[JTot +: 32]),
    .n_i        (e_n),
    .base_i     (e_base),
    .v0_i       (e_q[JV0 +: 8]),
    .tree_ok_i  (e_tok_q),
    .tlen_i     (e_tlen_q),
    .ssize_i    (e_size),
    .nlit_i     (sst_nlit),
    .nseq_i     (e_seqs ? sst_nseq : 15'd0),
    .sbytes_i   (se_bytes),
    .fs_i       (e_fs),
    .tree_addr_o(em_ta),
    .tree_data_i(tree_rd),
    .reg_sel_o  (em_sel),
    .reg_addr_o (em_ra),
    .reg_data_i (reg_rd[32'(em_sel_q)*256 +: 256]),
    .ring_pos_o (em_ring_pos),
    .ring_data_i(ring_data),
    .seq_addr_o (em_seq_addr),
    .seq_data_i (seq_rd[66:34]),
    .out_valid_o,
    .out_ready_i,
    .out_data_o,
    .out_cnt_o,
    .out_last_o,
    .done_o     (em_done),
    .size_o     (em_size),
    .kind_o     (em_kind),
    .bytes_o    (em_bytes)
  );
  assign out_kind_o = em_kind;
  assign blk_done   = em_done;

  // literals of a HufLits sequences job: gathered from the ring into the histogram and the literal
  // buffer (read by the streams)
  logic        ga_done;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] ga_wpos;                // only the literal buffer (HufLits) reads it
  logic [16:0] ga_nlit;
  /* verilator lint_on UNUSEDSIGNAL */
  if (HufLits != 0) begin : gen_lits
    zstd_enc_litgather #(.InBytes(InBytes)) u_gather (
      .clk_i, .rst_ni,
      .start_i   (ga_start),
      .nseq_i    (sst_nseq),
      .seq_addr_o(ga_seq_addr),
      .seq_data_i(seq_rd[66:34]),
      .ring_pos_o(ga_ring_pos),
      .ring_data_i(ring_data[InBytes*8-1:0]),
      .wr_o      (ga_wr),
      .wr_pos_o  (ga_wpos),
      .wr_data_o (ga_wd),
      .wr_cnt_o  (ga_cnt),
      .done_o    (ga_done),
      .nlit_o    (ga_nlit)
    );
    /* verilator lint_off UNUSEDSIGNAL */
    logic [InBytes*8-1:0] lb_a_unused;
    /* verilator lint_on UNUSEDSIGNAL */
    lz4_enc_inram #(
      .P(InBytes), .OutBytes(32), .MaxBlockBytes(MaxBlockBytes), .PortA(1'b0), .AlignedWrites(1'b0)
    ) u_litbuf (
      .clk_i, .rst_ni,
      .we_i    (ga_wr),
      .wpos_i  (ga_wpos),
      .wdata_i (ga_wd),
      .wcnt_i  (ga_cnt),
      .a_pos_i (16'd0),
      .a_data_o(lb_a_unused),
      .b_pos_i (s_rq_pos[32'(g_idx)*16 +: 16]),
      .b_data_o(lit_data)
    );
  end else begin : gen_no_lits
    assign ga_seq_addr = '0;
    assign ga_ring_pos = '0;
    assign ga_wr       = 1'b0;
    assign ga_wpos     = '0;
    assign ga_wd       = '0;
    assign ga_cnt      = '0;
    assign ga_done     = 1'b0;
    assign ga_nlit     = '0;
    assign lit_data    = '0;
  end
  // a job with in_hl_i holds the histogram and code builder from the build stage until it has built
  // its literals' code; a dual job until it is written (its Huffman block's code must stay)
  assign hl_pend = (HufLits != 0) && ((b_v_q && b_q[JHl] && !b_q[JEq]) ||
                               (e_v_q && e_q[JHl] && !e_eq &&
                                (e_huf || eph_q == EIdle || eph_q == EGather || eph_q == EBuild)));

  // ---------------------------------------------------------------------------------------------
  // Stage registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q    <= 1'b0;
      rcv_q     <= '0;
      c_v_q     <= 1'b0;
      c_done_q  <= 1'b0;
      b_v_q     <= 1'b0;
      b_build_q <= 1'b0;
      e_v_q     <= 1'b0;
      eph_q     <= EIdle;
      em_busy_q <= 1'b0;
      hb_q      <= 1'b0;
      b_half_q  <= 1'b0;
      e_half_q  <= 1'b0;
      e_tok_q   <= 1'b0;
      e_tlen_q  <= '0;
      e_hlp_q   <= 1'b0;
      s_dry_q   <= 1'b0;
      hf_tok_q  <= 1'b0;
      hf_half_q <= 1'b0;
      hf_tlen_q <= '0;
      hf_size_q <= '0;
      s_resp_q  <= '0;
      em_sel_q  <= '0;
      se_busy_q <= 1'b0;
      g_own_q   <= 1'b0;
      newframe_q <= 1'b1;
      c_started_q <= 1'b0;
      rep_commit_q <= {16'd8, 16'd4, 16'd1};
      c_q       <= '0;
      b_q       <= '0;
      e_q       <= '0;
    end else begin
      s_resp_q <= s_grant;
      em_sel_q <= em_sel;
      // collect
      if (in_hs && !open_q && in_first_i) newframe_q <= 1'b1;
      if (sst_start) begin
        newframe_q  <= 1'b0;
        g_own_q     <= 1'b1;
        c_started_q <= 1'b1;
      end
      if (in_hs) begin
        if (!open_q) begin
          c_v_q    <= 1'b1;
          c_done_q <= 1'b0;
          c_q      <= {in_hl_i && HufLits != 0, in_size_i, in_huf_i, in_first_i, in_lastblk_i,
                       in_total_i, f_base, in_data_i[7:0], beq};
        end else begin
          c_q[JEq] <= c_q[JEq] && beq;
        end
        open_q <= !in_last_i;
        rcv_q  <= in_last_i ? 17'd0 : rcv_q + 17'(in_cnt_i);
        if (in_last_i) c_done_q <= 1'b1;
      end
      // collect -> build
      if (mv_cb) begin
        c_v_q       <= 1'b0;
        c_started_q <= 1'b0;
        b_v_q     <= 1'b1;
        b_q       <= c_q;
        b_build_q <= c_q[JHuf] && !c_q[JEq];
        b_half_q  <= hb_q;
      end
      // build -> encode
      if (mv_be) begin
        b_v_q    <= 1'b0;
        e_v_q    <= 1'b1;
        e_q      <= b_q;
        e_half_q <= b_half_q;
        e_tok_q  <= b_build_q && bd_ok;
        e_tlen_q <= bd_tlen;
        if (b_build_q) hb_q <= !hb_q;
        eph_q    <= EIdle;
        e_hlp_q  <= 1'b0;
      end
      // encode
      if (hl_take) begin
        e_hlp_q   <= 1'b1;
        hf_tok_q  <= e_tok_q;                  // dual: the Huffman block's code and size
        hf_tlen_q <= e_tlen_q;
        hf_half_q <= e_half_q;
        hf_size_q <= em_size;
        if (!hl_job) e_tok_q <= 1'b0;           // no literals to code
      end
      if (ga_start) eph_q <= EGather;
      if (hl_build) begin
        eph_q    <= EBuild;
        e_half_q <= hb_q;                       // the job's code goes into the free half
      end
      if (eph_q == EBuild && bd_done) begin   // EStreams, ESeq or EEmit start in this cycle
        e_tok_q  <= bd_ok;
        e_tlen_q <= bd_tlen;
        hb_q     <= !hb_q;
      end
      if (|s_start) begin
        eph_q   <= EStreams;
        s_dry_q <= huf_dry;
      end
      if (se_start) begin
        eph_q     <= ESeq;
        se_busy_q <= 1'b1;
      end
      if (se_busy_q && se_done) se_busy_q <= 1'b0;
      if (seq_done && e_dual) eph_q <= EDecide;
      if (eph_q == EDecide && huf_wins) begin  // the Huffman block again, written
        eph_q    <= EHufAgain;
        e_hlp_q  <= 1'b0;
        e_tok_q  <= hf_tok_q;
        e_tlen_q <= hf_tlen_q;
        e_half_q <= hf_half_q;
      end
      if (em_start) begin
        em_busy_q <= 1'b1;
        eph_q     <= EEmit;
      end
      if (em_done) begin
        em_busy_q <= 1'b0;
        e_v_q     <= 1'b0;
        eph_q     <= EIdle;
        if (!e_huf || e_q[JHl]) begin
          g_own_q <= 1'b0;                     // the sequence RAM is free again
          if (em_kind == 2'd2) rep_commit_q <= sst_rep;
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, InBytes == 16 && MaxBlockBytes <= 65536 && MaxBlockBytes >= 1024 &&
                   (HashBytes == 4 || (HashBytes == 8 && MatchBytes >= 7)))
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o,
                     {in_data_i, in_cnt_i, in_last_i, in_size_i, in_huf_i, in_hl_i, in_first_i,
                      in_lastblk_i, in_total_i})
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
  `NDP_ASSERT(size_a, !in_valid_i || (in_size_i != '0 && 32'(in_size_i) <= MaxBlockBytes))
  `NDP_ASSERT(total_a, !(in_valid_i && in_first_i) || 32'(in_size_i) <= in_total_i)
  `NDP_ASSERT(beats_a, !in_hs || in_last_i == (rcv_q + 17'(in_cnt_i) == (open_q ? c_q[JN +: 17] : in_size_i)))
  `NDP_ASSERT(one_ring_read_a, !(eph_q == EStreams && g_v && em_busy_q))
  `NDP_ASSERT(build_done_known_a, !(mv_be && b_build_q) || bd_done)
  `NDP_ASSERT(hist_one_user_a, !(h_in_add && ga_wr))
  `NDP_ASSERT(build_one_user_a, !(hl_build && ((mv_cb && c_q[JHuf]) || (b_v_q && b_build_q))))
  `NDP_ASSERT(build_moves_on_a, !(eph_q == EBuild && bd_done) || |s_start || se_start || seq_done)
  `NDP_ASSERT(decide_dual_a, !(eph_q == EDecide || eph_q == EHufAgain) || e_dual)
  `NDP_ASSERT(dry_dual_a, !(eph_q == EStreams && s_dry_q) || e_dual)
  `NDP_ASSERT(gather_nlit_a, !(eph_q == EGather && ga_done) || ga_nlit == sst_nlit)
endmodule
