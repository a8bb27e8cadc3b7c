// zstd_decoder: Zstandard (RFC 8878) frame decoder. docs/zstd.md describes the architecture,
// the history limit, the error codes, the cycle bounds and the measured throughput.
//
/// Input: the bytes of a job (one or more frames, skippable frames allowed) in beats of in_cnt_i
/// bytes (lanes 0..cnt-1), in_last_i on the final beat. Output: decoded bytes in rows of out_cnt_o
/// (1..8) bytes, then one status row (out_last_o, out_cnt_o = 0, out_err_o/out_code_o). Rows
/// before an error row are not valid data. At most out_cap_i bytes are ever emitted per job.
/// out_frames_o (with the status row) counts the job's frames, for callers that need exactly one.
/// Internals: zstd_frame (control, input queue), block RAM (compressed block), zstd_lits with the
/// Huffman tree builder and 4 stream decoders, zstd_fse_build, zstd_seq, zstd_exec (history,
/// output), zstd_xxh64. Shared readers and RAM ports are driven by one unit at a time (the
/// others drive zeros), so they are OR-combined here; block-RAM reads go through rr_arbiter.
`include "ndp_assert.svh"

module zstd_decoder #(
  parameter int unsigned HistBytes = 65536,   // history limit (power of two, >= 65536 documented)
  localparam int unsigned AddrW  = 17,        // block RAM: 128 KiB (Block_Maximum_Size)
  localparam int unsigned LitWAW = 14         // literal RAM: 128 KiB in 64-bit words
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           in_valid_i,
  output logic           in_ready_o,
  input  logic [63:0]    in_data_i,
  input  logic [3:0]     in_cnt_i,
  input  logic           in_last_i,
  input  logic [31:0]    out_cap_i,
  output logic           out_valid_o,
  input  logic           out_ready_i,
  output logic [63:0]    out_data_o,
  output logic [3:0]     out_cnt_o,
  output logic           out_last_o,
  output logic           out_err_o,
  output zstd_pkg::err_e out_code_o,
  output logic [15:0]    out_frames_o     // with the status row: frames in the job (skippable included)
);
  localparam int unsigned BWAW = AddrW - 3;

  // ---- shared block-RAM readers -----------------------------------------------------------------
  logic               fwd_init;
  logic [AddrW-1:0]   fwd_init_addr;
  logic [6:0]         fwd_consume;
  logic [63:0]        fwd_peek;
  logic [7:0]         fwd_nvalid;
  logic [AddrW+3:0]   fwd_bitpos;
  logic [4:0]         rd_req, rd_gnt;
  logic [BWAW-1:0]    rd_addr [5];
  logic [63:0]        blk_rdata;
  logic               arb_valid;
  logic [2:0]         arb_idx;

  logic [3:0]         bwd_init;
  logic [AddrW:0]     bwd_begin [4];
  logic [AddrW:0]     bwd_end [4];
  logic [5:0]         bwd_consume [4];
  logic [31:0]        bwd_peek [4];
  logic [3:0]         bwd_ready, bwd_err;
  logic signed [AddrW+4:0] bwd_left [4];

  zstd_bitrd_fwd #(.AddrW(AddrW)) u_fwd (
    .clk_i, .rst_ni,
    .init_i(fwd_init), .init_addr_i(fwd_init_addr), .consume_i(fwd_consume),
    .peek_o(fwd_peek), .nvalid_o(fwd_nvalid), .bitpos_o(fwd_bitpos),
    .req_o(rd_req[0]), .req_addr_o(rd_addr[0]), .gnt_i(rd_gnt[0]), .rdata_i(blk_rdata)
  );
  for (genvar k = 0; k < 4; k++) begin : gen_bwd
    zstd_bitrd_bwd #(.AddrW(AddrW)) u_bwd (
      .clk_i, .rst_ni,
      .init_i(bwd_init[k]), .begin_i(bwd_begin[k]), .end_i(bwd_end[k]), .consume_i(bwd_consume[k]),
      .peek_o(bwd_peek[k]), .ready_o(bwd_ready[k]), .err_o(bwd_err[k]), .left_o(bwd_left[k]),
      .req_o(rd_req[k+1]), .req_addr_o(rd_addr[k+1]), .gnt_i(rd_gnt[k+1]), .rdata_i(blk_rdata)
    );
  end

  rr_arbiter #(.N(5)) u_rd_arb (
    .clk_i, .rst_ni,
    .in_valid_i(rd_req), .in_ready_o(rd_gnt),
    .out_valid_o(arb_valid), .out_ready_i(1'b1), .idx_o(arb_idx)
  );

  logic            bw_we;
  logic [BWAW-1:0] bw_addr;
  logic [63:0]     bw_data;
  ram_1r1w #(.Width(64), .Depth(1 << BWAW)) u_blk_ram (
    .clk_i, .rst_ni,
    .we_i(bw_we), .waddr_i(bw_addr), .wlane_i(1'b1), .wdata_i(bw_data),
    .re_i(arb_valid), .raddr_i(rd_addr[arb_idx]), .rdata_o(blk_rdata)
  );

  // ---- table RAM (FSE decoding tables) ----------------------------------------------------------
  logic        tw_we;
  logic [10:0] tw_addr;
  logic [20:0] tw_data, tr_data;
  logic        fb_tr_re, ht_tr_re;
  logic [10:0] fb_tr_addr, ht_tr_addr;
  ram_1r1w #(.Width(21), .Depth(2048)) u_tab_ram (
    .clk_i, .rst_ni,
    .we_i(tw_we), .waddr_i(tw_addr), .wlane_i(1'b1), .wdata_i(tw_data),
    .re_i(fb_tr_re || ht_tr_re),
    .raddr_i(fb_tr_re ? fb_tr_addr : ht_tr_addr),
    .rdata_o(tr_data)
  );
  // copies of the LL, OF and ML regions for zstd_seq: one lookup of all three per cycle
  logic        sq_tab_re;
  logic [26:0] sq_tab_addr;
  logic [62:0] sq_tab_data;
  for (genvar k = 0; k < 3; k++) begin : gen_seq_tab
    ram_1r1w #(.Width(21), .Depth(512)) u_seq_tab (
      .clk_i, .rst_ni,
      .we_i(tw_we && tw_addr[10:9] == 2'(k)), .waddr_i(tw_addr[8:0]), .wlane_i(1'b1), .wdata_i(tw_data),
      .re_i(sq_tab_re), .raddr_i(sq_tab_addr[k*9 +: 9]), .rdata_o(sq_tab_data[k*21 +: 21])
    );
  end

  // ---- FSE builder ------------------------------------------------------------------------------
  logic       ht_fse_start, sq_fse_start, fse_done, fse_err;
  logic [1:0] sq_fse_mode, sq_fse_kind;
  logic [7:0] sq_fse_rle;
  logic [3:0] fse_al;
  logic [6:0] fb_consume, ht_consume, li_consume, sq_consume;
  zstd_fse_build u_fse (
    .clk_i, .rst_ni,
    .start_i(ht_fse_start || sq_fse_start),
    .mode_i(ht_fse_start ? 2'd2 : sq_fse_mode),
    .kind_i(ht_fse_start ? zstd_pkg::TabHW : sq_fse_kind),
    .rle_sym_i(sq_fse_rle),
    .done_o(fse_done), .err_o(fse_err), .al_o(fse_al),
    .fwd_consume_o(fb_consume), .fwd_peek_i(fwd_peek), .fwd_nvalid_i(fwd_nvalid),
    .fwd_bitpos_i(fwd_bitpos[2:0]),
    .tw_we_o(tw_we), .tw_addr_o(tw_addr), .tw_data_o(tw_data),
    .tr_re_o(fb_tr_re), .tr_addr_o(fb_tr_addr), .tr_data_i(tr_data)
  );

  // ---- Huffman tree and stream decoders ---------------------------------------------------------
  logic              huf_start, huf_done, huf_err;
  logic [AddrW:0]    huf_desc_end;
  logic [3:0]        maxbits;
  logic [11*12-1:0]  rank_start;
  logic [11*9-1:0]   rank_idx;
  logic              ht_bwd_init;
  logic [AddrW:0]    ht_bwd_begin, ht_bwd_end;
  logic [5:0]        ht_bwd_consume;
  logic              sw_we;
  logic [7:0]        sw_addr, sw_data;
  zstd_huf_tree #(.AddrW(AddrW)) u_huf_tree (
    .clk_i, .rst_ni,
    .start_i(huf_start), .done_o(huf_done), .err_o(huf_err), .desc_end_o(huf_desc_end),
    .maxbits_o(maxbits), .rank_start_o(rank_start), .rank_idx_o(rank_idx),
    .fwd_consume_o(ht_consume), .fwd_peek_i(fwd_peek), .fwd_nvalid_i(fwd_nvalid),
    .fwd_bitpos_i(fwd_bitpos),
    .fse_start_o(ht_fse_start), .fse_done_i(fse_done), .fse_err_i(fse_err), .fse_al_i(fse_al),
    .bwd_init_o(ht_bwd_init), .bwd_begin_o(ht_bwd_begin), .bwd_end_o(ht_bwd_end),
    .bwd_consume_o(ht_bwd_consume), .bwd_peek_i(bwd_peek[0]), .bwd_ready_i(bwd_ready[0]),
    .bwd_err_i(bwd_err[0]), .bwd_left_i(bwd_left[0]),
    .tr_re_o(ht_tr_re), .tr_addr_o(ht_tr_addr), .tr_data_i(tr_data),
    .sw_we_o(sw_we), .sw_addr_o(sw_addr), .sw_data_o(sw_data)
  );

  logic [3:0]        hs_start, hs_busy, hs_err;
  logic              li_hmode, li_half;      // literals section in a literal-RAM half (zstd_lits)
  logic [4*18-1:0]   hs_count;
  logic [5:0]        hs_consume [4];
  logic [3:0]        sr_re;
  logic [7:0]        sr_addr [4];
  logic [7:0]        sr_data [4];
  logic [7:0]        sr_addr2 [4];
  logic [7:0]        sr_data2 [4];
  logic [3:0]        hw_req, hw_gnt;
  logic [LitWAW-1:0] hw_addr [4];
  logic [63:0]       hw_data [4];
  logic              hw_valid;
  logic [1:0]        hw_idx;
  for (genvar k = 0; k < 4; k++) begin : gen_hs
    // the macros' read ports on plain nets: Yosys 0.23 drops a black-box output bound to an
    // unpacked-array element (the RAMs then vanished from synthesis)
    logic [7:0] rd_sym, rd_sym2;
    ram_1r1w #(.Width(8), .Depth(256)) u_sym_ram (
      .clk_i, .rst_ni,
      .we_i(sw_we), .waddr_i(sw_addr), .wlane_i(1'b1), .wdata_i(sw_data),
      .re_i(sr_re[k]), .raddr_i(sr_addr[k]), .rdata_o(rd_sym)
    );
    ram_1r1w #(.Width(8), .Depth(256)) u_sym_ram2 (
      .clk_i, .rst_ni,
      .we_i(sw_we), .waddr_i(sw_addr), .wlane_i(1'b1), .wdata_i(sw_data),
      .re_i(sr_re[k]), .raddr_i(sr_addr2[k]), .rdata_o(rd_sym2)
    );
    assign sr_data[k]  = rd_sym;
    assign sr_data2[k] = rd_sym2;
    zstd_huf_stream #(.AddrW(AddrW), .LitWAW(LitWAW)) u_hs (
      .clk_i, .rst_ni,
      .start_i(hs_start[k]), .count_i(hs_count[k*18 +: 18]),
      .base_i(li_hmode ? LitWAW'({li_half, 2'(k), {(LitWAW-3){1'b0}}}) : LitWAW'({2'(k), {(LitWAW-2){1'b0}}})),
      .busy_o(hs_busy[k]), .err_o(hs_err[k]),
      .maxbits_i(maxbits), .rank_start_i(rank_start), .rank_idx_i(rank_idx),
      .bwd_consume_o(hs_consume[k]), .bwd_peek_i(bwd_peek[k]), .bwd_ready_i(bwd_ready[k]),
      .bwd_err_i(bwd_err[k]), .bwd_left_i(bwd_left[k]),
      .sr_re_o(sr_re[k]), .sr_addr_o(sr_addr[k]), .sr_data_i(sr_data[k]),
      .sr_addr2_o(sr_addr2[k]), .sr_data2_i(sr_data2[k]),
      .wreq_o(hw_req[k]), .waddr_o(hw_addr[k]), .wdata_o(hw_data[k]), .wgnt_i(hw_gnt[k])
    );
  end
  rr_arbiter #(.N(4)) u_lw_arb (
    .clk_i, .rst_ni,
    .in_valid_i(hw_req), .in_ready_o(hw_gnt),
    .out_valid_o(hw_valid), .out_ready_i(1'b1), .idx_o(hw_idx)
  );

  // ---- literals, sequences, frame ---------------------------------------------------------------
  logic                  frame_start, lits_start, lits_done, lits_err;
  zstd_pkg::err_e        lits_code, seq_code, stat_code;
  logic [AddrW:0]        blk_size, lit_end;
  logic [17:0]           lit_size;
  logic                  li_rle;
  logic [7:0]            li_rle_byte;
  logic [4*18-1:0]       li_len;
  logic                  li_fwd_init;
  logic [AddrW-1:0]      li_fwd_addr;
  logic [3:0]            li_bwd_init;
  logic [4*(AddrW+1)-1:0] li_bwd_begin, li_bwd_end;
  logic                  li_lw_we, fr_lw_we;
  logic [LitWAW-1:0]     li_lw_addr, fr_lw_addr;
  logic [63:0]           li_lw_data, fr_lw_data;

  logic                  lit_free;   // executor idle (set below)
  logic [1:0]            half_free;  // no queued or current executor source reads that half
  zstd_lits #(.AddrW(AddrW), .LitWAW(LitWAW)) u_lits (
    .clk_i, .rst_ni,
    .frame_start_i(frame_start), .start_i(lits_start), .lit_free_i(lit_free), .half_free_i(half_free),
    .blk_size_i(blk_size),
    .done_o(lits_done), .err_o(lits_err), .code_o(lits_code),
    .lit_end_o(lit_end), .lit_size_o(lit_size),
    .lit_rle_o(li_rle), .lit_rle_byte_o(li_rle_byte), .lit_len_o(li_len),
    .lit_half_mode_o(li_hmode), .lit_half_o(li_half),
    .fwd_init_o(li_fwd_init), .fwd_init_addr_o(li_fwd_addr), .fwd_consume_o(li_consume),
    .fwd_peek_i(fwd_peek), .fwd_nvalid_i(fwd_nvalid), .fwd_bitpos_i(fwd_bitpos),
    .huf_start_o(huf_start), .huf_done_i(huf_done), .huf_err_i(huf_err),
    .huf_desc_end_i(huf_desc_end),
    .bwd_init_o(li_bwd_init), .bwd_begin_o(li_bwd_begin), .bwd_end_o(li_bwd_end),
    .hs_start_o(hs_start), .hs_count_o(hs_count), .hs_busy_i(hs_busy), .hs_err_i(hs_err),
    .lw_we_o(li_lw_we), .lw_addr_o(li_lw_addr), .lw_data_o(li_lw_data)
  );

  logic              seq_start, seq_done, seq_err;
  logic [31:0]       fpos, room;
  logic [17:0]       bmax;
  logic [17:0]       seq_blk_out;
  logic              sq_cmd_valid, fr_cmd_valid, cmd_ready;
  logic [17:0]       sq_cmd_ll, sq_cmd_ml, fr_cmd_ll;
  logic [16:0]       sq_cmd_off;
  logic              sq_fwd_init;
  logic [AddrW-1:0]  sq_fwd_addr;
  logic              sq_bwd_init;
  logic [AddrW:0]    sq_bwd_begin, sq_bwd_end;
  logic [5:0]        sq_bwd_consume;

  zstd_seq #(.AddrW(AddrW), .HistBytes(HistBytes)) u_seq (
    .clk_i, .rst_ni,
    .frame_start_i(frame_start), .start_i(seq_start), .sec_begin_i(lit_end), .blk_end_i(blk_size),
    .lit_size_i(lit_size), .fpos_i(fpos), .room_i(room), .bmax_i(bmax),
    .done_o(seq_done), .err_o(seq_err), .code_o(seq_code), .blk_out_o(seq_blk_out),
    .cmd_valid_o(sq_cmd_valid), .cmd_ready_i(cmd_ready), .cmd_ll_o(sq_cmd_ll), .cmd_ml_o(sq_cmd_ml),
    .cmd_off_o(sq_cmd_off),
    .fwd_init_o(sq_fwd_init), .fwd_init_addr_o(sq_fwd_addr), .fwd_consume_o(sq_consume),
    .fwd_peek_i(fwd_peek), .fwd_nvalid_i(fwd_nvalid), .fwd_bitpos_i(fwd_bitpos),
    .fse_start_o(sq_fse_start), .fse_mode_o(sq_fse_mode), .fse_kind_o(sq_fse_kind),
    .fse_rle_o(sq_fse_rle), .fse_done_i(fse_done), .fse_err_i(fse_err), .fse_al_i(fse_al),
    .bwd_init_o(sq_bwd_init), .bwd_begin_o(sq_bwd_begin), .bwd_end_o(sq_bwd_end),
    .bwd_consume_o(sq_bwd_consume), .bwd_peek_i(bwd_peek[0]), .bwd_ready_i(bwd_ready[0]),
    .bwd_err_i(bwd_err[0]), .bwd_left_i(bwd_left[0]),
    .tab_re_o(sq_tab_re), .tab_addr_o(sq_tab_addr), .tab_data_i(sq_tab_data)
  );

  // reader sharing
  always_comb begin
    fwd_init      = li_fwd_init || sq_fwd_init;
    fwd_init_addr = li_fwd_init ? li_fwd_addr : sq_fwd_addr;
    fwd_consume   = fb_consume | ht_consume | li_consume | sq_consume;
    for (int k = 0; k < 4; k++) begin
      bwd_init[k]    = li_bwd_init[k];
      bwd_begin[k]   = li_bwd_begin[k*(AddrW+1) +: AddrW+1];
      bwd_end[k]     = li_bwd_end[k*(AddrW+1) +: AddrW+1];
      bwd_consume[k] = hs_consume[k];
    end
    if (ht_bwd_init) begin
      bwd_init[0] = 1'b1; bwd_begin[0] = ht_bwd_begin; bwd_end[0] = ht_bwd_end;
    end
    if (sq_bwd_init) begin
      bwd_init[0] = 1'b1; bwd_begin[0] = sq_bwd_begin; bwd_end[0] = sq_bwd_end;
    end
    bwd_consume[0] = hs_consume[0] | ht_bwd_consume | sq_bwd_consume;
  end

  // ---- executor ---------------------------------------------------------------------------------
  logic              fr_src, fr_rle, fr_hmode, fr_half, cmdq_valid, cmdq_ready, ex_idle;
  logic [7:0]        fr_rle_byte;
  logic [4*18-1:0]   fr_len;
  logic [83:0]       cmdq_in, cmdq_data;
  logic [2:0]        unused_cmdq_cnt;   // [83]: source command {rle, byte, lengths, half mode, half}
  logic [1:0]        ex_busy_half;
  logic [2:0]        pend0_q, pend1_q;     // source commands per half pushed, not yet applied
  logic              lr_re;
  logic [LitWAW-1:0] lr_addr;
  logic [63:0]       lr_data;
  logic              ex_valid, ex_ready;
  logic [63:0]       ex_data;
  logic [3:0]        ex_cnt;
  logic              stat_valid, stat_ready;
  logic              xxh_clear, xxh_fin, xxh_done;
  logic [63:0]       xxh_hash;

  always_comb begin
    if (fr_cmd_valid && fr_src) cmdq_in = {1'b1, fr_rle, fr_rle_byte, fr_len, fr_hmode, fr_half};
    else if (fr_cmd_valid)      cmdq_in = {31'd0, fr_cmd_ll, 18'd0, 17'd0};
    else                        cmdq_in = {31'd0, sq_cmd_ll, sq_cmd_ml, sq_cmd_off};
  end
  fifo_sync #(.Width(84), .Depth(4)) u_cmdq (
    .clk_i, .rst_ni,
    .in_valid_i (sq_cmd_valid || fr_cmd_valid),
    .in_ready_o (cmd_ready),
    .in_data_i  (cmdq_in),
    .out_valid_o(cmdq_valid),
    .out_ready_i(cmdq_ready),
    .out_data_o (cmdq_data),
    .count_o    (unused_cmdq_cnt)
  );

  ram_1r1w #(.Width(64), .Depth(1 << LitWAW)) u_lit_ram (
    .clk_i, .rst_ni,
    .we_i(fr_lw_we || li_lw_we || hw_valid),
    .waddr_i(fr_lw_we ? fr_lw_addr : li_lw_we ? li_lw_addr : hw_addr[hw_idx]),
    .wlane_i(1'b1),
    .wdata_i(fr_lw_we ? fr_lw_data : li_lw_we ? li_lw_data : hw_data[hw_idx]),
    .re_i(lr_re), .raddr_i(lr_addr), .rdata_o(lr_data)
  );

  zstd_exec #(.HistBytes(HistBytes), .LitWAW(LitWAW)) u_exec (
    .clk_i, .rst_ni,
    .cmd_valid_i(cmdq_valid), .cmd_ready_o(cmdq_ready),
    .cmd_ll_i(cmdq_data[52:35]), .cmd_ml_i(cmdq_data[34:17]), .cmd_off_i(cmdq_data[16:0]),
    .cmd_src_i(cmdq_data[83]), .src_rle_i(cmdq_data[82]), .src_rle_byte_i(cmdq_data[81:74]),
    .src_len_i(cmdq_data[73:2]), .src_half_mode_i(cmdq_data[1]), .src_half_i(cmdq_data[0]),
    .busy_half_o(ex_busy_half),
    .lr_re_o(lr_re), .lr_addr_o(lr_addr), .lr_data_i(lr_data),
    .out_valid_o(ex_valid), .out_ready_i(ex_ready), .out_data_o(ex_data), .out_cnt_o(ex_cnt),
    .idle_o(ex_idle)
  );

  assign lit_free = ex_idle && !cmdq_valid;

  // Literal-RAM halves: a half may be written when no source command for it waits in the queue
  // and the executor's current source has read all its bytes from it.
  // Halves a source command reads: its half, both (whole-RAM regions), none (RLE).
  logic [1:0] push_use, pop_use;
  always_comb begin
    push_use = '0;
    pop_use  = '0;
    if (fr_cmd_valid && fr_src && cmd_ready && !fr_rle)
      push_use = fr_hmode ? (fr_half ? 2'b10 : 2'b01) : 2'b11;
    if (cmdq_valid && cmdq_ready && cmdq_data[83] && !cmdq_data[82])
      pop_use = cmdq_data[1] ? (cmdq_data[0] ? 2'b10 : 2'b01) : 2'b11;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend0_q <= '0; pend1_q <= '0;
    end else begin
      pend0_q <= pend0_q + 3'(push_use[0]) - 3'(pop_use[0]);
      pend1_q <= pend1_q + 3'(push_use[1]) - 3'(pop_use[1]);
    end
  end
  assign half_free = {pend1_q == '0 && !ex_busy_half[1], pend0_q == '0 && !ex_busy_half[0]};

  zstd_xxh64 u_xxh (
    .clk_i, .rst_ni,
    .clear_i(xxh_clear), .in_valid_i(ex_valid && ex_ready), .in_data_i(ex_data), .in_cnt_i(ex_cnt),
    .fin_i(xxh_fin), .done_o(xxh_done), .hash_o(xxh_hash)
  );

  zstd_frame #(.AddrW(AddrW), .LitWAW(LitWAW)) u_frame (
    .clk_i, .rst_ni,
    .in_valid_i, .in_ready_o, .in_data_i, .in_cnt_i, .in_last_i, .out_cap_i,
    .stat_valid_o(stat_valid), .stat_ready_i(stat_ready), .stat_code_o(stat_code),
    .stat_frames_o(out_frames_o),
    .out_empty_i(!ex_valid),
    .bw_we_o(bw_we), .bw_addr_o(bw_addr), .bw_data_o(bw_data),
    .lw_we_o(fr_lw_we), .lw_addr_o(fr_lw_addr), .lw_data_o(fr_lw_data),
    .frame_start_o(frame_start),
    .lits_start_o(lits_start), .blk_size_o(blk_size), .lits_done_i(lits_done),
    .lits_err_i(lits_err), .lits_code_i(lits_code),
    .lits_rle_i(li_rle), .lits_rle_byte_i(li_rle_byte), .lits_len_i(li_len),
    .seq_start_o(seq_start), .fpos_o(fpos), .room_o(room), .bmax_o(bmax), .seq_done_i(seq_done),
    .seq_err_i(seq_err), .seq_code_i(seq_code), .seq_blk_out_i(seq_blk_out),
    .lits_half_mode_i(li_hmode), .lits_half_i(li_half),
    .cmd_valid_o(fr_cmd_valid), .cmd_src_o(fr_src),
    .lit_rle_o(fr_rle), .lit_rle_byte_o(fr_rle_byte), .lit_len_o(fr_len),
    .lit_half_mode_o(fr_hmode), .lit_half_o(fr_half), .cmd_ready_i(cmd_ready), .cmd_ll_o(fr_cmd_ll),
    .exec_idle_i(ex_idle && !cmdq_valid),
    .xxh_clear_o(xxh_clear), .xxh_fin_o(xxh_fin), .xxh_done_i(xxh_done), .xxh_hash_i(xxh_hash)
  );

  // ---- output rows: data, then the status row ---------------------------------------------------
  assign out_valid_o = ex_valid || stat_valid;
  assign out_data_o  = ex_valid ? ex_data : 64'd0;
  assign out_cnt_o   = ex_valid ? ex_cnt : 4'd0;
  assign out_last_o  = !ex_valid && stat_valid;
  assign out_err_o   = !ex_valid && stat_valid && stat_code != zstd_pkg::ErrNone;
  assign out_code_o  = ex_valid ? zstd_pkg::ErrNone : stat_code;
  assign ex_ready    = out_ready_i;
  assign stat_ready  = out_ready_i && !ex_valid;

  `NDP_ASSERT_INIT(hist_legal_a, HistBytes >= 65536 && (HistBytes & (HistBytes - 1)) == 0)
  `NDP_ASSERT(one_fwd_init_a, !(li_fwd_init && sq_fwd_init))
  `NDP_ASSERT(one_bwd0_user_a, 32'(li_bwd_init[0]) + 32'(ht_bwd_init) + 32'(sq_bwd_init) <= 1)
  `NDP_ASSERT(one_lit_writer_a, 32'(fr_lw_we) + 32'(li_lw_we) + 32'(hw_valid) <= 1)
  `NDP_ASSERT(pend_no_underflow_a, !(pop_use[0] && pend0_q == '0) && !(pop_use[1] && pend1_q == '0))
  `NDP_ASSERT(pend_no_overflow_a, !(push_use[0] && pend0_q == 3'd7) && !(push_use[1] && pend1_q == 3'd7))
  `NDP_ASSERT_STREAM(out_stable_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
endmodule
