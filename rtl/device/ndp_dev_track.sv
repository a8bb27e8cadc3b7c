// ndp_dev_track: the read-request tracker of ndp_device's host port (docs/spec.md 7.4 TRACK, 7.6
// "Read tracker"). Track entries hold accepted AR bursts in arrival order (a ring with holes: a
// burst leaves when it has been answered, whatever its position). The read path takes one burst
// at a time: the oldest *ready* one whose AXI ID has no older burst in the tracker (one ID's
// bursts are answered in request order; different IDs in any order). A burst whose first chunk is
// still decoding can be *parked*: it goes back into its entry holding (pinning) that chunk-buffer
// entry, and becomes ready again when the decode has ended. So random reads with many IDs keep
// several demand decodes in flight and are answered in the order their chunks arrive.
// Per-ID order: each entry records its predecessor (the youngest older entry of its ID, found when
// it arrives) and waits until that one has left.
//
/// Registers: the entries (payload, ID, flags, pinned buffer, predecessor), the head/tail pointers,
/// the current entry, and the selection (oldest ready from the head) with a copy of its entry's
/// fields, offered while it is still the oldest ready one. sel_valid_o, the pinned-buffer mask
/// and ar_ready_o are combinational from the registers and busy_i.
`include "ndp_assert.svh"

module ndp_dev_track #(
  parameter int unsigned Track = 64,   // entries (a power of two)
  parameter int unsigned IdW   = 8,
  parameter int unsigned Bufs  = 8,
  parameter int unsigned PW    = 48 + 8 + 3 + 2,   // payload bits (the default: addr, len, size, burst)
  localparam int unsigned KW = $clog2(Track),
  localparam int unsigned BW = (Bufs > 1) ? $clog2(Bufs) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // AXI AR (accepted into the tail entry)
  input  logic            ar_valid_i,
  output logic            ar_ready_o,
  input  logic [IdW-1:0]  ar_id_i,
  input  logic [PW-1:0]   ar_pay_i,
  // chunk-buffer entries still decoding (a parked burst waits on its entry)
  input  logic [Bufs-1:0] busy_i,
  // the burst to take next
  output logic            sel_valid_o,
  input  logic            take_i,
  output logic [IdW-1:0]  sel_id_o,
  output logic [PW-1:0]   sel_pay_o,
  output logic            sel_parked_o,   // a parked burst resumes
  output logic [BW-1:0]   sel_buf_o,      // its chunk-buffer entry
  output logic            sel_fresh_o,    // it started that entry's decode
  // the taken burst: parked again (pinning park_buf_i), or answered
  input  logic            park_i,
  input  logic [BW-1:0]   park_buf_i,
  input  logic            park_fresh_i,
  input  logic            done_i,
  output logic [Bufs-1:0] pinned_o        // chunk-buffer entries held by parked bursts
);
  logic [KW:0]    head_q, tail_q;
  logic [Track-1:0] valid_q, parked_q, predv_q, last_q, fresh_q;
  logic [IdW-1:0] id_q   [Track];
  logic [PW-1:0]  pay_q  [Track];
  logic [BW-1:0]  buf_q  [Track];
  logic [KW-1:0]  pred_q [Track];
  logic           cur_v_q;
  logic [KW-1:0]  cur_q;

  logic full;
  assign full       = head_q[KW] != tail_q[KW] && head_q[KW-1:0] == tail_q[KW-1:0];
  assign ar_ready_o = !full;

  // candidates: in the tracker, not taken, first of their ID, and not waiting on a decode
  logic [Track-1:0] cand;
  always_comb begin
    for (int unsigned i = 0; i < Track; i++) begin
      cand[i] = valid_q[i] && !(cur_v_q && cur_q == KW'(i)) && !predv_q[i]
             && !(parked_q[i] && busy_i[buf_q[i]]);
    end
  end
  // the oldest candidate: the lowest one at or after the head, else the lowest one. It is the
  // lowest set bit of {cand, cand at/after head}, found with a prefix OR in log2(2 Track) levels of
  // word-wide shifts (an x & -x carry chain maps to a ripple), then encoded from one-hot.
  logic [2*Track-1:0] dbl, dbl_pfx, dbl_first;
  logic [Track-1:0]   at_head, first;
  logic [KW-1:0]      sel;
  always_comb begin
    for (int unsigned i = 0; i < Track; i++) at_head[i] = KW'(i) >= head_q[KW-1:0];
    dbl     = {cand, cand & at_head};
    dbl_pfx = dbl;                  // dbl_pfx[i]: some bit of dbl at or below i
    for (int unsigned s = 1; s < 2 * Track; s = s * 2) dbl_pfx = dbl_pfx | (dbl_pfx << s);
    dbl_first = dbl & ~(dbl_pfx << 1);
    first     = dbl_first[Track-1:0] | dbl_first[2*Track-1:Track];
    sel = '0;
    for (int unsigned i = 0; i < Track; i++) sel = sel | (first[i] ? KW'(i) : '0);
  end
  // The selection is also registered with the selected entry's fields (sel_q and the *_sel_q
  // registers), so what the read path loads when it takes a burst comes from flops, not through
  // the select and a Track-way multiplexer. The registered entry is offered only while it is still
  // the oldest candidate (sel == sel_q): a cycle after the selection changed, the new one is offered.
  // The entry's fields cannot change while it stays a candidate (only the tail entry is written,
  // and only the taken entry is parked or leaves), so the registered copy is the entry.
  logic           selv_q;
  logic [KW-1:0]  sel_q;
  logic [IdW-1:0] id_sel_q;
  logic [PW-1:0]  pay_sel_q;
  logic           parked_sel_q, fresh_sel_q;
  logic [BW-1:0]  buf_sel_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      selv_q <= 1'b0;
      sel_q  <= '0;
    end else begin
      selv_q <= cand != '0;
      sel_q  <= sel;
    end
  end
  always_ff @(posedge clk_i) begin
    id_sel_q     <= id_q[sel];
    pay_sel_q    <= pay_q[sel];
    parked_sel_q <= parked_q[sel];
    buf_sel_q    <= buf_q[sel];
    fresh_sel_q  <= fresh_q[sel];
  end
  assign sel_valid_o  = selv_q && cand != '0 && sel == sel_q;
  // the registered copy is the selected entry (checked by sel_fields_a and the formal proof)
  logic sel_copy_ok;
  assign sel_copy_ok = sel_q == sel && id_sel_q == id_q[sel] && pay_sel_q == pay_q[sel]
                    && parked_sel_q == parked_q[sel] && buf_sel_q == buf_q[sel] && fresh_sel_q == fresh_q[sel];
  assign sel_id_o     = id_sel_q;
  assign sel_pay_o    = pay_sel_q;
  assign sel_parked_o = parked_sel_q;
  assign sel_buf_o    = buf_sel_q;
  assign sel_fresh_o  = fresh_sel_q;

  always_comb begin
    pinned_o = '0;
    for (int unsigned i = 0; i < Track; i++) if (valid_q[i] && parked_q[i]) pinned_o[buf_q[i]] = 1'b1;
  end

  // an arriving burst's predecessor: the youngest entry of its ID (one that is not leaving now; at
  // most one entry of an ID has its last flag, so the match is one-hot)
  logic          ar_fire, pred_any, leave;
  logic [KW-1:0] pred, tail;
  assign ar_fire = ar_valid_i && ar_ready_o;
  assign leave   = done_i && cur_v_q;
  assign tail    = tail_q[KW-1:0];
  always_comb begin
    pred_any = 1'b0;
    pred     = '0;
    for (int unsigned i = 0; i < Track; i++) begin
      if (valid_q[i] && last_q[i] && id_q[i] == ar_id_i && !(leave && cur_q == KW'(i))) begin
        pred_any = 1'b1;
        pred     = pred | KW'(i);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q   <= '0;
      tail_q   <= '0;
      valid_q  <= '0;
      parked_q <= '0;
      predv_q  <= '0;
      last_q   <= '0;
      fresh_q  <= '0;
      cur_v_q  <= 1'b0;
      cur_q    <= '0;
    end else begin
      // the head walks over entries that have left
      if (head_q != tail_q && !valid_q[head_q[KW-1:0]]) head_q <= head_q + 1'b1;
      if (take_i) begin
        cur_v_q         <= 1'b1;
        cur_q           <= sel_q;
        parked_q[sel_q] <= 1'b0;
      end
      if (park_i) begin
        cur_v_q         <= 1'b0;
        parked_q[cur_q] <= 1'b1;
        buf_q[cur_q]    <= park_buf_i;
        fresh_q[cur_q]  <= park_fresh_i;
      end
      if (leave) begin
        cur_v_q        <= 1'b0;
        valid_q[cur_q] <= 1'b0;
        last_q[cur_q]  <= 1'b0;
        for (int unsigned i = 0; i < Track; i++) if (pred_q[i] == cur_q) predv_q[i] <= 1'b0;
      end
      if (ar_fire) begin
        tail_q          <= tail_q + 1'b1;
        valid_q[tail]   <= 1'b1;
        parked_q[tail]  <= 1'b0;
        last_q[tail]    <= 1'b1;
        predv_q[tail]   <= pred_any;
        if (pred_any) last_q[pred] <= 1'b0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (ar_fire) begin
      id_q[tail]   <= ar_id_i;
      pay_q[tail]  <= ar_pay_i;
      pred_q[tail] <= pred;
    end
  end

`ifdef FORMAL
  // Proven by `make formal` (job track_4: Track = 4, IdW = 1, Bufs = 2): under the read path's rules
  // (take only the selected burst while none is taken; park or finish only the taken one), entries
  // live only between head and tail; an entry's predecessor flag says exactly whether an older
  // entry of its ID is in the tracker, and points at the youngest such one; exactly the youngest
  // entry of each ID has its last flag; the taken entry is valid, not parked and first of its ID; the
  // selected entry is the oldest candidate.
  // Hence the read path never takes a burst while an older one of its ID waits (per-ID order).
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(*) begin
    if (take_i) assume (sel_valid_o && !cur_v_q);
    if (park_i || done_i) assume (cur_v_q && !take_i);
    assume (!(park_i && done_i));
  end
  logic [KW:0] f_used;
  assign f_used = tail_q - head_q;
  // The per-entry properties loop over FT entries: all of them at the proof's size (Track <= 8),
  // none at larger sizes (read_verilog also elaborates the default Track = 64, where the nested
  // loops alone took minutes).
  localparam int unsigned FT = (Track <= 8) ? Track : 0;
  function automatic logic [KW-1:0] f_dist(input logic [KW-1:0] i);
    f_dist = i - head_q[KW-1:0];
  endfunction
  always @(*) begin
    if (rst_ni) begin
      assert (32'(f_used) <= Track);
      if (cur_v_q) assert (valid_q[cur_q] && !parked_q[cur_q] && !predv_q[cur_q]);
      for (int unsigned i = 0; i < FT; i++) begin
        logic older_same, younger_same;
        logic [KW-1:0] youngest_older;
        older_same = 1'b0;
        younger_same = 1'b0;
        youngest_older = '0;
        if (!(32'(f_dist(KW'(i))) < 32'(f_used))) assert (!valid_q[i]);
        for (int unsigned j = 0; j < FT; j++) begin
          if (j != i && valid_q[j] && id_q[j] == id_q[i]) begin
            if (f_dist(KW'(j)) < f_dist(KW'(i))) begin
              if (!older_same || f_dist(KW'(j)) > f_dist(youngest_older)) youngest_older = KW'(j);
              older_same = 1'b1;
            end else begin
              younger_same = 1'b1;
            end
          end
        end
        if (valid_q[i]) begin
          assert (predv_q[i] == older_same);
          if (predv_q[i]) assert (pred_q[i] == youngest_older);
          assert (last_q[i] == !younger_same);
        end
      end
    end
  end
  always @(*) begin
    if (rst_ni && sel_valid_o) begin
      assert (cand[sel]);
      assert (sel_copy_ok);
      for (int unsigned i = 0; i < FT; i++) if (cand[i]) assert (f_dist(KW'(i)) >= f_dist(sel));
    end
  end
  always @(posedge clk_i) begin
    cover (rst_ni && full && parked_q != '0);
    cover (rst_ni && take_i && sel != head_q[KW-1:0] && valid_q[head_q[KW-1:0]]);  // out of order
  end
`endif

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Track >= 2 && (Track & (Track - 1)) == 0 && Bufs >= 1)
  `NDP_ASSERT(take_ready_a, !take_i || (sel_valid_o && !cur_v_q))
  `NDP_ASSERT(park_taken_a, !park_i || (cur_v_q && !done_i && !take_i))
  `NDP_ASSERT(done_taken_a, !done_i || (cur_v_q && !take_i))
  `NDP_ASSERT(tail_free_a, !ar_fire || !valid_q[tail])
  `NDP_ASSERT(sel_candidate_a, !sel_valid_o || cand[sel])
  `NDP_ASSERT(sel_fields_a, !sel_valid_o || sel_copy_ok)
  `NDP_ASSERT(cur_valid_a, !cur_v_q || (valid_q[cur_q] && !parked_q[cur_q] && !predv_q[cur_q]))
endmodule
