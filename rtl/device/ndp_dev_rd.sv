// ndp_dev_rd: the read side of ndp_device's host port. Takes AXI read bursts (AR), decodes each
// beat by its line address (docs/spec.md 7.1, 7.2, 7.5) and answers it: control-window lines from
// ndp_dev_csr, store-window bursts forwarded to DRAM, region-window lines from the chunk buffers.
// A region beat locates its tensor (lookup by base, descriptor cached) and its chunk (a sequential
// divider, or the next chunk when a burst walks on). A beat in the current chunk reads it at once;
// any other beat looks its chunk up in the chunk-buffer tags (ndp_dev_tags): a hit uses the entry,
// a miss hands a demand job for the victim entry to ndp_dev_chunk. Then the prefetch step (spec
// 7.6): when chunk k - 1 is buffered or the beat is the tensor's first line, each of chunks
// k + 1 .. k + PREFETCH not buffered gets a victim entry and a prefetch job; the window runs on
// into chunks 0, 1, ... of the next descriptor's tensor (its descriptor read into a second register). Jobs run in the chunk engine while beats are served; a beat
// whose chunk is still decoding waits for it, or, at the burst's first beat, parks the burst in the
// read tracker (ndp_dev_track, spec 7.6 "Read tracker": TRACK > 0, another burst ready, at most
// TRACK chunk-buffer entries held by parked bursts) and takes another one; a parked burst resumes
// at its first beat once its entry's decode has ended. Bursts of one ID are answered in request
// order, different IDs in the order their chunks arrive; a chunk whose demand decode failed answers
// SLVERR, a failed prefetch is decoded again on demand in its entry.
//
/// Registers: the read tracker (ndp_dev_track), the current burst with its beat's offset in the
/// region and the region's size, the cached descriptor and its chunk count, the current chunk, the tags (ndp_dev_tags), one pending-beat stage (the CSR and
/// chunk-buffer RAMs answer the cycle after the request), and the 4-entry R FIFO (so RVALID/RDATA
/// come from flops).
`include "ndp_assert.svh"

module ndp_dev_rd #(
  parameter int unsigned IdW           = 8,
  parameter int unsigned MaxTensors    = 64,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned Bufs          = 8,
  parameter int unsigned DramAw        = 30,
  parameter int unsigned Track         = 64,   // read tracker entries (a power of two)
  localparam int unsigned TW       = $clog2(MaxTensors),
  localparam int unsigned BW       = (Bufs > 1) ? $clog2(Bufs) : 1,
  localparam int unsigned BufWords = MaxChunkElems * 2 / 64,
  localparam int unsigned RcbAw    = BW + $clog2(BufWords)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // host AR / R
  input  logic               ar_valid_i,
  output logic               ar_ready_o,
  input  logic [IdW-1:0]     ar_id_i,
  input  logic [47:0]        ar_addr_i,
  input  logic [7:0]         ar_len_i,
  input  logic [2:0]         ar_size_i,
  input  logic [1:0]         ar_burst_i,
  output logic               r_valid_o,
  input  logic               r_ready_i,
  output logic [IdW-1:0]     r_id_o,
  output logic [511:0]       r_data_o,
  output logic [1:0]         r_resp_o,
  output logic               r_last_o,
  // control block
  output logic               csr_rd_valid_o,
  output logic [33:0]        csr_rd_line_o,
  input  logic [511:0]       csr_rd_data_i,
  input  logic               csr_rd_decerr_i,
  output logic               dsc_valid_o,
  output logic [TW-1:0]      dsc_t_o,
  input  ndp_dev_pkg::desc_t dsc_i,
  output logic [18:0]        lk_slot_o,
  input  logic               lk_hit_i,
  input  logic [TW-1:0]      lk_t_i,
  input  logic               enable_i,
  input  logic               commit_busy_i,
  input  logic               flush_i,
  input  logic [7:0]         pf_depth_i,    // PREFETCH (<= Bufs - 2)
  input  logic [7:0]         track_i,       // TRACK (<= Bufs - 2): entries parked bursts may hold
  input  logic [MaxTensors-1:0] mapped_i,   // accepted descriptors
  output logic               decoding_o,    // a chunk decode is in flight (STATUS bit 2)
  // store-window reads to DRAM
  output logic               sr_ar_valid_o,
  input  logic               sr_ar_ready_i,
  output logic [33:0]        sr_ar_line_o,
  output logic [7:0]         sr_ar_len_o,
  input  logic               sr_r_valid_i,
  output logic               sr_r_ready_o,
  input  logic [511:0]       sr_r_data_i,
  input  logic [1:0]         sr_r_resp_i,
  // chunk engine
  output logic               job_valid_o,
  input  logic               job_ready_i,
  output ndp_dev_pkg::job_t  job_o,
  output logic [BW-1:0]      job_buf_o,
  input  logic               done_i,
  input  logic [BW-1:0]      done_buf_i,
  input  logic               done_err_i,
  // chunk buffer read (data the next cycle)
  output logic               rcb_re_o,
  output logic [RcbAw-1:0]   rcb_addr_o,
  input  logic [511:0]       rcb_data_i,
  // log, counters, status
  output logic               err_valid_o,
  output ndp_dev_pkg::err_t  err_o,
  output logic               cnt_hit_o
);
  // ---------------------------------------------------------------------------------------------
  // Read tracker and the current burst
  // tracker payload: address, beats (len + 1), the region format of its window, and the burst
  // checks made when the AR is taken (the protocol rule, a store-window burst), so what a taken
  // burst loads needs no add or decode after the tracker's select (a long path of its own)
  localparam int unsigned PW = 48 + 9 + 4 + 1 + 1;
  logic          af_valid, af_ready, a_parked, a_fresh, park, burst_done;
  logic [PW-1:0] a_pay;
  logic [IdW-1:0] a_id;
  logic [47:0]   a_addr;
  logic [8:0]    a_beats;
  logic [3:0]    a_fmt;
  logic          a_is_store;
  logic [BW-1:0] a_buf;
  logic          unused_rf_ready;
  logic [Bufs-1:0] t_busy, pinned;
  logic          fresh_q;
  logic [BW-1:0] cur_buf_q;
  ndp_dev_track #(.Track(Track), .IdW(IdW), .Bufs(Bufs), .PW(PW)) u_track (
    .clk_i, .rst_ni,
    .ar_valid_i, .ar_ready_o, .ar_id_i,
    .ar_pay_i({ar_addr_i, 9'(ar_len_i) + 9'd1, ndp_dev_pkg::fmt_of(ar_addr_i[44:40]),
               ndp_dev_pkg::axi_burst_ok(ar_addr_i[11:6], ar_len_i, ar_size_i, ar_burst_i),
               ar_addr_i[47:40] == ndp_dev_pkg::WinStore}),
    .busy_i(t_busy),
    .sel_valid_o(af_valid), .take_i(af_valid && af_ready), .sel_id_o(a_id), .sel_pay_o(a_pay),
    .sel_parked_o(a_parked), .sel_buf_o(a_buf), .sel_fresh_o(a_fresh),
    .park_i(park), .park_buf_i(cur_buf_q), .park_fresh_i(fresh_q), .done_i(burst_done),
    .pinned_o(pinned)
  );
  logic a_proto;
  assign {a_addr, a_beats, a_fmt, a_proto, a_is_store} = a_pay;

  typedef enum logic [3:0] {RdIdle, RdBeat, RdDesc, RdDescWait, RdDescDiv, RdLocate, RdLocateDiv,
                            RdTag, RdPfCheck, RdPf, RdPfDesc, RdPfDescWait, RdPfNext, RdWait,
                            RdStoreAr, RdStoreData} rd_e;
  rd_e          st_q;
  logic [IdW-1:0] id_q;
  logic [41:0]  line_q;          // host address [47:6]
  logic [8:0]   left_q;          // beats left in the burst
  logic         proto_q;
  logic [8:0]   store_n_q;       // store-window beats forwarded to DRAM

  logic [7:0]   win;
  logic [33:0]  oline;
  logic [4:0]   f;
  logic [1:0]   g;
  logic         is_region;
  assign win       = line_q[41:34];
  assign oline     = line_q[33:0];
  assign f         = win[4:0];
  assign g         = win[6:5];
  assign is_region = win[7] && g != 2'd3 && ndp_dev_pkg::fmt_exposed(f);
  assign lk_slot_o = oline[33:15];

  // ---------------------------------------------------------------------------------------------
  // Cached descriptor, its chunk count (elems / chunk_elems) and the current chunk
  ndp_dev_pkg::desc_t d_q;
  logic          d_valid_q;
  logic [TW-1:0] d_t_q;
  logic [39:0]   d_lastk_q;      // index of the last chunk
  logic [31:0]   d_nlast_q;      // elements of the last chunk
  logic [3:0]    fmt;            // bp_pkg::fmt_e
  logic [42:0]   x, tsize_q, rc_q, rlast_q;
  logic [39:0]   x_q;
  logic [6:0]    wnorm;          // region window with g dropped for `full`
  assign fmt   = ndp_dev_pkg::fmt_of(f);
  // A chunk's region bytes (rc) and the last chunk's (rlast), registered every cycle: they are
  // read from RdLocate on, at least a cycle after the window (a burst taken) or the descriptor
  // (RdDescWait) changed, so the registers hold the current values there.
  // The tensor's region bytes for every format class (tsz_cls_q), registered every cycle from the
  // cached descriptor for the burst taken next: a taken burst's size is then a select by its format.
  logic [4*43-1:0] tsz_cls_q;
  always_ff @(posedge clk_i) begin
    rc_q      <= ndp_dev_pkg::region_bytes(fmt, 40'(d_q.chunk_elems));
    rlast_q   <= ndp_dev_pkg::region_bytes(fmt, 40'(d_nlast_q));
    tsz_cls_q <= ndp_dev_pkg::region_bytes_cls(d_q.elems);
  end
  // The beat's offset in its tensor's region, x = (oline - base) x 64, and the region's size are
  // registers (x_q, tsize_q) that follow line_q and d_q: set from the next line and descriptor
  // when a burst is taken or a descriptor read, x_q + 64 per beat (a burst stays in its window, so
  // tsize_q holds). The beat decision then starts from flops, not from a subtract and a
  // shift-add in series with the compares.
  assign x     = 43'(x_q);
  assign wnorm = (f == 5'd0) ? 7'd0 : {g, f};

  logic          cur_valid_q, cur_poison_q;
  logic [39:0]   cur_k_q;
  logic [42:0]   cur_x0_q, cur_x1_q, cur_x1, unused_x1_co;
  logic          in_cur;

  // chunk buffer tags: one compare port whose key is the chunk this state looks at
  logic [39:0]     loc_k_q, key_k;
  // loc_k - 1, and in RdPf the prefetch chunk loc_k + pf_j with whether it lies past the tensor's
  // last chunk, as registers (stepped with pf_j), so the tag key and the prefetch end come from
  // flops, not from a 40-bit add and compare in front of the tags
  logic [39:0]     loc_km1_q, pf_k_q;
  logic            pf_past_q;
  logic [7:0]      pf_j_q;          // prefetch step: chunk loc_k + pf_j
  logic            tag_hit, victim_busy, tag_touch, tag_alloc, tag_redo;
  logic [BW-1:0]   tag_buf, victim;
  logic [Bufs-1:0] t_valid, t_err, t_pf;
  logic [6:0]      cur_w;
  logic [TW-1:0]   cur_t;
  // the next tensor's descriptor, and the prefetch position in it: chunk pf_c (elements before it:
  // pf_c x chunk_elems; nx_rem_q below holds the elements from there on)
  ndp_dev_pkg::desc_t nd_q;
  logic [7:0]    pf_c_q;
  logic [TW-1:0] key_t, nt;
  assign nt = d_t_q + 1'b1;
  always_comb begin
    key_k = loc_k_q;
    key_t = d_t_q;
    if (st_q == RdPfCheck) key_k = loc_km1_q;
    else if (st_q == RdPf) key_k = pf_k_q;
    else if (st_q == RdPfNext) begin
      key_k = 40'(pf_c_q);
      key_t = nt;
    end
  end
  ndp_dev_tags #(.Bufs(Bufs), .TW(TW)) u_tags (
    .clk_i, .rst_ni,
    .key_w_i(wnorm), .key_t_i(key_t), .key_k_i(key_k), .hit_o(tag_hit), .hit_idx_o(tag_buf),
    .pin_i(pinned), .excl_i(st_q == RdPf || st_q == RdPfNext), .excl_idx_i(cur_buf_q), .victim_o(victim),
    .victim_busy_o(victim_busy),
    .touch_i(tag_touch), .touch_idx_i(tag_buf),
    .alloc_i(tag_alloc), .alloc_pf_i(st_q == RdPf || st_q == RdPfNext),
    .redo_i(tag_redo), .redo_idx_i(cur_buf_q),
    .done_i, .done_idx_i(done_buf_i), .done_err_i,
    .flush_i,
    .valid_o(t_valid), .busy_o(t_busy), .err_o(t_err), .pf_o(t_pf),
    .q_idx_i(cur_buf_q), .q_w_o(cur_w), .q_t_o(cur_t)
  );

  assign decoding_o = t_busy != '0;
  assign in_cur = cur_valid_q && t_valid[cur_buf_q] && !t_busy[cur_buf_q] && !t_err[cur_buf_q]
               && cur_w == wnorm && cur_t == d_t_q
               && x >= cur_x0_q && x < cur_x1_q;

  // divider (descriptor: elems / chunk_elems; locate: x / rc)
  logic        dv_start, dv_busy, dv_done;
  logic [42:0] dv_num, dv_quo;
  logic [31:0] dv_den, dv_rem;
  ndp_dev_div #(.NW(43), .DW(32)) u_div (
    .clk_i, .rst_ni,
    .start_i(dv_start), .num_i(dv_num), .den_i(dv_den),
    .busy_o (dv_busy), .done_o(dv_done), .quo_o(dv_quo), .rem_o(dv_rem)
  );

  logic [42:0]  loc_x0_q;
  logic         loc_last;
  logic [31:0]  loc_n;
  assign loc_last = loc_k_q == d_lastk_q;
  assign loc_n    = loc_last ? d_nlast_q : d_q.chunk_elems;
  // the located chunk's window end (RdWait): loc_x0 + its region bytes, a prefix adder
  pfx_add #(.W(43)) u_x1 (.a_i(loc_x0_q), .b_i(loc_last ? rlast_q : rc_q), .ci_i(1'b0),
                          .sum_o(cur_x1), .co_o(unused_x1_co));

  // ---------------------------------------------------------------------------------------------
  // Beat issue: decide the beat in RdBeat, push it into the R FIFO the next cycle
  typedef enum logic [1:0] {SrcZero, SrcCsr, SrcRcb} src_e;
  logic          p_valid_q, p_last_q;
  src_e          p_src_q;
  logic [1:0]    p_resp_q;
  logic [IdW-1:0] p_id_q;
  logic [2:0]    rf_cnt;
  logic          can_issue, issue, beat_last;
  logic [1:0]    issue_resp;
  src_e          issue_src;
  logic          need_desc, need_locate, hit_beat, poison_beat;

  assign can_issue = 32'(rf_cnt) + 32'(p_valid_q) < 32'd4;
  assign beat_last = left_q == 9'd1;

  always_comb begin
    issue       = 1'b0;
    issue_resp  = ndp_dev_pkg::RespOkay;
    issue_src   = SrcZero;
    need_desc   = 1'b0;
    need_locate = 1'b0;
    hit_beat    = 1'b0;
    poison_beat = 1'b0;
    csr_rd_valid_o = 1'b0;
    rcb_re_o    = 1'b0;
    if (st_q == RdBeat && can_issue) begin
      if (!proto_q) begin
        issue = 1'b1;
        issue_resp = ndp_dev_pkg::RespSlvErr;
      end else if (win == ndp_dev_pkg::WinCtrl) begin
        issue = 1'b1;
        csr_rd_valid_o = !csr_rd_decerr_i;
        issue_src  = csr_rd_decerr_i ? SrcZero : SrcCsr;
        issue_resp = csr_rd_decerr_i ? ndp_dev_pkg::RespDecErr : ndp_dev_pkg::RespOkay;
      end else if (!is_region) begin
        issue = 1'b1;
        issue_resp = ndp_dev_pkg::RespDecErr;
      end else if (!enable_i) begin
        issue = 1'b1;
        issue_resp = ndp_dev_pkg::RespSlvErr;
      end else if (!lk_hit_i) begin
        issue = 1'b1;
        issue_resp = ndp_dev_pkg::RespDecErr;
      end else if (!d_valid_q || d_t_q != lk_t_i) begin
        need_desc = 1'b1;
      end else if (x >= tsize_q) begin
        issue = 1'b1;
        issue_resp = ndp_dev_pkg::RespDecErr;
      end else if (cur_poison_q) begin
        // this beat's demand decode failed (spec 7.5): SLVERR; the next beat looks the chunk up again
        issue       = 1'b1;
        issue_resp  = ndp_dev_pkg::RespSlvErr;
        poison_beat = 1'b1;
      end else if (!in_cur) begin
        need_locate = 1'b1;
      end else begin
        issue      = 1'b1;
        issue_src  = SrcRcb;
        rcb_re_o   = 1'b1;
        hit_beat   = 1'b1;
      end
    end
  end
  assign csr_rd_line_o = oline;
  assign rcb_addr_o    = {cur_buf_q, $clog2(BufWords)'((x - cur_x0_q) >> 6)};

  // R FIFO
  localparam int unsigned RW = IdW + 512 + 2 + 1;
  logic          rf_in_valid;
  logic [RW-1:0] rf_in, rf_out;
  logic [511:0]  p_data;
  assign p_data = (p_src_q == SrcCsr) ? csr_rd_data_i : (p_src_q == SrcRcb) ? rcb_data_i : '0;
  assign sr_r_ready_o = st_q == RdStoreData && !p_valid_q && rf_cnt < 3'd4;
  always_comb begin
    rf_in_valid = p_valid_q;
    rf_in       = {p_id_q, p_data, p_resp_q, p_last_q};
    if (sr_r_valid_i && sr_r_ready_o) begin
      rf_in_valid = 1'b1;
      rf_in       = {id_q, sr_r_data_i, sr_r_resp_i, left_q == 9'd1};
    end
  end
  fifo_sync #(.Width(RW), .Depth(4)) u_r (
    .clk_i, .rst_ni,
    .in_valid_i (rf_in_valid),
    .in_ready_o (unused_rf_ready),
    .in_data_i  (rf_in),
    .out_valid_o(r_valid_o),
    .out_ready_i(r_ready_i),
    .out_data_o (rf_out),
    .count_o    (rf_cnt)
  );
  assign {r_id_o, r_data_o, r_resp_o, r_last_o} = rf_out;

  // ---------------------------------------------------------------------------------------------
  // Store window: the beats inside DRAM go to DRAM as one burst, the rest answer DECERR
  localparam logic [33:0] DramLines = 34'(64'(1) << (DramAw - 6));
  logic [8:0] store_in;
  always_comb begin
    if (oline >= DramLines) store_in = '0;
    else if (34'(left_q) > DramLines - oline) store_in = 9'(DramLines - oline);
    else store_in = left_q;
  end
  assign sr_ar_valid_o = st_q == RdStoreAr && store_in != '0;
  assign sr_ar_line_o  = oline;
  assign sr_ar_len_o   = 8'(store_in - 9'd1);

  // job: the looked-up chunk (demand) or chunk loc_k + pf_j (prefetch)
  logic        tag_miss_go, pf_end, pf_eot, pf_go, nx_end, nx_go, nx_last, pf_skip;
  logic        resume_q, first_q;
  logic [BW-1:0] resume_buf_q;
  assign tag_miss_go = st_q == RdTag && !resume_q && !tag_hit && !victim_busy && job_ready_i;
  assign pf_end      = st_q == RdPf && (pf_j_q > pf_depth_i || pf_past_q);
  assign pf_eot      = st_q == RdPf && pf_j_q <= pf_depth_i && pf_past_q;  // on into the next tensor
  assign pf_go       = st_q == RdPf && !pf_end && !tag_hit && !victim_busy && job_ready_i;
  // the next tensor's elements from chunk pf_c on, nx_rem_q = elems - pf_c x chunk_elems (negative
  // past the end), a register: its chunk count and last-chunk test are one compare, not an add, a
  // compare and a subtract in series in front of job_o
  logic signed [40:0] nx_rem_q, nx_rem_n;
  logic [40:0]        unused_nx_co, nx_chunk_inv;
  assign nx_chunk_inv = ~(41'(nd_q.chunk_elems));   // Yosys 0.23 reads ~41'(x) as a cast of size ~41
  pfx_add #(.W(41)) u_nx_rem (
    .a_i(nx_rem_q), .b_i(nx_chunk_inv), .ci_i(1'b1), .sum_o(nx_rem_n), .co_o(unused_nx_co)
  );
  assign nx_end      = st_q == RdPfNext && (pf_j_q > pf_depth_i || nx_rem_q <= 41'sd0);
  assign nx_go       = st_q == RdPfNext && !nx_end && !tag_hit && !victim_busy && job_ready_i;
  assign nx_last     = nx_rem_q <= $signed(41'(nd_q.chunk_elems));
  // with entries pinned by parked bursts, the prefetch step ends at a victim still decoding
  // instead of waiting for it (a parked burst may be waiting on that decode's set)
  assign pf_skip     = ((st_q == RdPf && !pf_end) || (st_q == RdPfNext && !nx_end)) && !tag_hit && victim_busy
                    && pinned != '0;
  assign tag_alloc   = tag_miss_go || pf_go || nx_go;
  // the beat's entry holds a failed prefetch: decode it again on demand in place (spec 7.6)
  assign tag_redo    = st_q == RdWait && !t_busy[cur_buf_q] && t_valid[cur_buf_q] && t_err[cur_buf_q]
                    && job_ready_i;
  assign tag_touch   = (st_q == RdTag || (st_q == RdPf && !pf_end) || (st_q == RdPfNext && !nx_end)) && tag_hit;
  always_comb begin
    job_o          = '0;
    job_o.fmt      = fmt;
    job_o.k        = 4'(f - 5'd1);
    job_o.guard    = (f == 5'd0) ? 2'd0 : g;
    job_o.expbyte  = d_q.layout[0];
    job_o.tensor   = 32'(d_t_q);
    job_o.chunk    = (st_q == RdPf) ? pf_k_q : loc_k_q;
    job_o.last     = (st_q == RdPf) ? pf_k_q == d_lastk_q : loc_last;
    job_o.n        = (st_q == RdPf) ? ((pf_k_q == d_lastk_q) ? d_nlast_q : d_q.chunk_elems) : loc_n;
    job_o.prefetch = st_q == RdPf || st_q == RdPfNext;
    job_o.slots    = d_q.slots;
    job_o.image    = d_q.image;
    job_o.index    = d_q.index;
    job_o.data_end = d_q.data_end;
    if (st_q == RdPfNext) begin
      job_o.expbyte  = nd_q.layout[0];
      job_o.tensor   = 32'(nt);
      job_o.chunk    = 40'(pf_c_q);
      job_o.last     = nx_last;
      job_o.n        = nx_last ? 32'(nx_rem_q) : nd_q.chunk_elems;
      job_o.slots    = nd_q.slots;
      job_o.image    = nd_q.image;
      job_o.index    = nd_q.index;
      job_o.data_end = nd_q.data_end;
    end
  end
  assign job_valid_o = tag_alloc || tag_redo;
  assign job_buf_o   = tag_redo ? cur_buf_q : victim;

  // divider operands
  always_comb begin
    dv_start = 1'b0;
    dv_num   = {3'd0, dsc_i.elems - 40'd1};
    dv_den   = dsc_i.chunk_elems;
    if (st_q == RdDescWait) dv_start = 1'b1;
    if (st_q == RdLocate && !(cur_valid_q && cur_w == wnorm && cur_t == d_t_q
                              && x == cur_x1_q)) begin
      dv_start = 1'b1;
    end
    if (st_q == RdLocate) begin
      dv_num = x;
      dv_den = rc_q[31:0];
    end
  end
  assign dsc_valid_o = st_q == RdDesc || st_q == RdPfDesc;
  assign dsc_t_o     = (st_q == RdPfDesc) ? nt : lk_t_i;

  // ---------------------------------------------------------------------------------------------
  // Control
  logic burst_end;
  assign burst_end = issue && beat_last;
  assign af_ready  = st_q == RdIdle && !commit_busy_i;

  logic sr_fire;
  assign sr_fire = sr_r_valid_i && sr_r_ready_o;
  // x of a burst taken from the tracker (whose select is a long path): the low 15 line bits pass,
  // the upper 19 add the negated base, a register set with d_q
  logic [18:0] nbase_q, x_hi_acc, unused_xh_co;
  pfx_add #(.W(19)) u_xh (.a_i(a_addr[39:21]), .b_i(nbase_q), .ci_i(1'b0), .sum_o(x_hi_acc),
                          .co_o(unused_xh_co));
  always_ff @(posedge clk_i) begin
    if (st_q == RdIdle && af_valid && af_ready) begin
      x_q     <= {x_hi_acc, a_addr[20:6], 6'd0};
      tsize_q <= ndp_dev_pkg::region_bytes_sel(a_fmt, d_q.elems, tsz_cls_q);
    end else if (st_q == RdDescWait) begin
      x_q     <= {oline - {dsc_i.base, 15'd0}, 6'd0};
      nbase_q <= 19'd0 - dsc_i.base;
      tsize_q <= ndp_dev_pkg::region_bytes(fmt, dsc_i.elems);
    end else if (issue || sr_fire) begin
      x_q     <= {x_q[39:6] + 34'd1, 6'd0};
    end
  end
  // Park the burst at its first beat while its chunk decodes, when another burst is ready and the
  // entries held by parked bursts (this one's included) stay within TRACK.
  logic [Bufs-1:0] pin_next;
  logic [7:0]      pin_cnt;
  always_comb begin
    pin_next = pinned;
    pin_next[cur_buf_q] = 1'b1;
    pin_cnt = '0;
    for (int unsigned b = 0; b < Bufs; b++) pin_cnt = pin_cnt + 8'(pin_next[b]);
  end
  assign park = st_q == RdWait && first_q && t_busy[cur_buf_q] && af_valid && pin_cnt <= track_i;
  assign burst_done = burst_end || (st_q == RdStoreData && sr_fire && store_n_q == 9'd1 && left_q == 9'd1);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q        <= RdIdle;
      p_valid_q   <= 1'b0;
      d_valid_q   <= 1'b0;
      cur_valid_q <= 1'b0;
      cur_poison_q <= 1'b0;
      pf_j_q      <= '0;
      left_q      <= '0;
      line_q      <= '0;
      store_n_q   <= '0;
      fresh_q     <= 1'b0;
      resume_q    <= 1'b0;
      first_q     <= 1'b0;
    end else begin
      p_valid_q <= issue;
      if (issue) fresh_q <= 1'b0;
      if (issue || sr_fire) begin
        first_q  <= 1'b0;
        resume_q <= 1'b0;
      end
      if (issue || sr_fire) begin
        line_q <= line_q + 42'd1;
        left_q <= left_q - 9'd1;
      end
      if (sr_fire) store_n_q <= store_n_q - 9'd1;
      unique case (st_q)
        RdIdle: if (af_valid && af_ready) begin
          line_q   <= a_addr[47:6];
          left_q   <= a_beats;
          first_q  <= 1'b1;
          resume_q <= a_parked;      // a parked burst: its chunk is in entry a_buf
          fresh_q  <= a_parked && a_fresh;
          st_q   <= (a_is_store && a_proto) ? RdStoreAr : RdBeat;
        end
        RdBeat: begin
          if (need_desc) st_q <= RdDesc;
          else if (need_locate) st_q <= RdLocate;
          else if (burst_end) st_q <= RdIdle;
        end
        RdDesc: st_q <= RdDescWait;
        RdDescWait: st_q <= RdDescDiv;
        RdDescDiv: if (dv_done) begin
          d_valid_q <= 1'b1;
          st_q      <= RdBeat;
        end
        RdLocate: st_q <= dv_start ? RdLocateDiv : RdTag;
        RdLocateDiv: if (dv_done) st_q <= RdTag;
        RdTag: begin
          cur_valid_q <= 1'b0;
          resume_q    <= 1'b0;
          if (resume_q) begin
            cur_buf_q <= resume_buf_q;       // RdWait sees how its decode ended
            st_q      <= RdWait;
          end else if (tag_hit) begin
            cur_buf_q <= tag_buf;
            st_q      <= RdPfCheck;
          end else if (tag_miss_go) begin
            cur_buf_q <= victim;
            fresh_q   <= 1'b1;
            st_q      <= RdPfCheck;
          end
        end
        RdPfCheck: begin
          pf_j_q <= 8'd1;
          // a stream: chunk k - 1 is buffered, or this beat is the tensor's first line
          st_q   <= (pf_depth_i != '0 && ((loc_k_q != '0 && tag_hit) || x == '0)) ? RdPf : RdWait;
        end
        RdPf: begin
          if (pf_eot && d_t_q != TW'(MaxTensors - 1) && mapped_i[nt] && !commit_busy_i) st_q <= RdPfDesc;
          else if (pf_end || pf_skip) st_q <= RdWait;
          else if (tag_hit || pf_go) pf_j_q <= pf_j_q + 8'd1;
        end
        RdPfDesc: st_q <= RdPfDescWait;
        RdPfDescWait: begin
          pf_c_q   <= '0;
          nx_rem_q <= 41'(dsc_i.elems);
          st_q     <= RdPfNext;
        end
        RdPfNext: begin
          if (nx_end || pf_skip) st_q <= RdWait;
          else if (tag_hit || nx_go) begin
            pf_j_q   <= pf_j_q + 8'd1;
            pf_c_q   <= pf_c_q + 8'd1;
            nx_rem_q <= nx_rem_n;
          end
        end
        RdWait: if (park) begin
          st_q <= RdIdle;                    // parked: the tracker holds it and entry cur_buf
        end else if (!t_busy[cur_buf_q]) begin
          if (t_valid[cur_buf_q] && t_err[cur_buf_q]) begin
            if (tag_redo) fresh_q <= 1'b1;   // a failed prefetch: decoded again on demand
          end else if (t_valid[cur_buf_q]) begin
            cur_valid_q <= 1'b1;
            st_q        <= RdBeat;
          end else if (t_err[cur_buf_q] && !t_pf[cur_buf_q]) begin
            cur_poison_q <= 1'b1;            // the demand decode failed
            st_q         <= RdBeat;
          end else begin
            st_q <= RdTag;                   // dropped by FLUSH: look the chunk up again
          end
        end
        RdStoreAr: begin
          store_n_q <= store_in;
          if (store_in == '0) st_q <= RdBeat;
          else if (sr_ar_ready_i) st_q <= RdStoreData;
        end
        RdStoreData: if (sr_fire && store_n_q == 9'd1) st_q <= (left_q == 9'd1) ? RdIdle : RdBeat;
        default: st_q <= RdIdle;
      endcase
      // a failed chunk is not kept: the next beat that needs it decodes it again (spec 7.6)
      if (poison_beat) begin
        cur_poison_q <= 1'b0;
        cur_valid_q  <= 1'b0;
      end
      if (flush_i) begin
        cur_valid_q <= 1'b0;
        d_valid_q   <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_q == RdIdle && af_valid && af_ready) begin
      id_q         <= a_id;
      proto_q      <= a_proto;
      resume_buf_q <= a_buf;
    end
    if (issue) begin
      p_src_q  <= issue_src;
      p_resp_q <= issue_resp;
      p_last_q <= beat_last;
      p_id_q   <= id_q;
    end
    if (st_q == RdDescWait) begin
      d_q   <= dsc_i;
      d_t_q <= lk_t_i;
    end
    if (st_q == RdPfDescWait) nd_q <= dsc_i;
    if (st_q == RdPfCheck) begin
      pf_k_q    <= loc_k_q + 40'd1;
      pf_past_q <= loc_k_q >= d_lastk_q;
    end else if (st_q == RdPf && !pf_end && (tag_hit || pf_go)) begin
      pf_k_q    <= pf_k_q + 40'd1;
      pf_past_q <= pf_k_q >= d_lastk_q;
    end
    if (st_q == RdDescDiv && dv_done) begin
      d_lastk_q <= dv_quo[39:0];
      d_nlast_q <= dv_rem + 32'd1;
    end
    if (st_q == RdLocate && !dv_start) begin
      loc_k_q  <= cur_k_q + 40'd1;
      loc_km1_q <= cur_k_q;
      loc_x0_q <= cur_x1_q;
    end
    if (st_q == RdLocateDiv && dv_done) begin
      loc_k_q  <= dv_quo[39:0];
      loc_km1_q <= dv_quo[39:0] - 40'd1;
      loc_x0_q <= x - 43'(dv_rem);
    end
    if (st_q == RdWait && !t_busy[cur_buf_q] && t_valid[cur_buf_q] && !t_err[cur_buf_q]) begin
      cur_k_q  <= loc_k_q;
      cur_x0_q <= loc_x0_q;
      cur_x1_q <= cur_x1;
    end
  end

  always_comb begin
    err_valid_o = st_q == RdIdle && af_valid && af_ready && !a_proto && !a_parked;
    err_o        = '0;
    err_o.code   = ndp_dev_pkg::ErrProtocol;
    err_o.tensor = 32'hFFFF_FFFF;
    err_o.addr   = 64'(a_addr);
  end
  assign cnt_hit_o = hit_beat && !fresh_q;
  logic unused_bits;
  assign unused_bits = ^{d_q.dtype, d_q.flags, dv_busy, dv_quo[42:40], nd_q.base, nd_q.dtype, nd_q.flags};

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Bufs >= 1 && MaxChunkElems >= 2048)
  `NDP_ASSERT(pf_depth_legal_a, Bufs < 2 ? pf_depth_i == '0 : 32'(pf_depth_i) <= Bufs - 2)
  `NDP_ASSERT(pf_keeps_demand_entry_a, !((pf_go || nx_go) && victim == cur_buf_q))
  `NDP_ASSERT(track_legal_a, Bufs < 2 ? track_i == '0 : 32'(track_i) <= Bufs - 2)
  `NDP_ASSERT(alloc_not_pinned_a, !(tag_alloc && pinned[victim]))
  `NDP_ASSERT(park_first_beat_a, !park || (first_q && !cur_valid_q && !resume_q))
  `NDP_ASSERT(wait_on_own_entry_a, st_q != RdWait || !t_valid[cur_buf_q] || cur_w == wnorm)
  `NDP_ASSERT_STREAM(r_stream_a, r_valid_o, r_ready_i, rf_out)
  `NDP_ASSERT(r_fifo_room_a, !rf_in_valid || rf_cnt < 3'd4)
  // the registered offset and size are the expressions they stand for (a protocol-failed burst may
  // leave its window; its beats never use them)
  `NDP_ASSERT(pf_k_follows_a, st_q != RdPf || (pf_k_q == loc_k_q + 40'(pf_j_q)
                                               && pf_past_q == (pf_k_q > d_lastk_q)))
  `NDP_ASSERT(tsz_cls_a, !d_valid_q || st_q == RdDescWait || st_q == RdDescDiv
                        || tsz_cls_q == ndp_dev_pkg::region_bytes_cls(d_q.elems))
  `NDP_ASSERT(nbase_a, !d_valid_q || st_q == RdDescWait || nbase_q == 19'd0 - d_q.base)
  `NDP_ASSERT(rc_current_a, (st_q != RdLocate && st_q != RdWait)
                            || (rc_q == ndp_dev_pkg::region_bytes(fmt, 40'(d_q.chunk_elems))
                                && rlast_q == ndp_dev_pkg::region_bytes(fmt, 40'(d_nlast_q))))
  `NDP_ASSERT(nx_rem_a, st_q != RdPfNext
                        || nx_rem_q == $signed(41'(nd_q.elems) - 41'(pf_c_q) * 41'(nd_q.chunk_elems)))
  `NDP_ASSERT(loc_km1_a, st_q != RdPfCheck || loc_km1_q == loc_k_q - 40'd1)
  `NDP_ASSERT(x_follows_line_a, st_q == RdIdle || !proto_q || !d_valid_q || x_q == {oline - {d_q.base, 15'd0}, 6'd0})
  `NDP_ASSERT(tsize_follows_desc_a, st_q == RdIdle || !proto_q
                                    || tsize_q == ndp_dev_pkg::region_bytes(fmt, d_q.elems))
endmodule
