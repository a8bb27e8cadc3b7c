// ndp_dev_tags: the chunk-buffer tags of ndp_device's read path (docs/spec.md 7.6). Each of the
// Bufs entries is invalid or tagged (window, tensor, chunk); a tagged entry may still be decoding
// (busy). One compare port finds a key; the victim is the lowest-numbered invalid entry, else the
// least recently used one (an age matrix: exact LRU), among the entries not pinned (held by a burst
// parked in the read tracker, ndp_dev_track) and not excluded. Entries become most recently used when
// touched or allocated. A demand decode that ends with an error leaves its entry invalid; a failed
// prefetch keeps its tag with the error flag set, and a demand decode can be started again in that
// entry (redo). FLUSH drops every tag (an entry still decoding stays busy until its decode ends).
//
/// Registers: tags, valid, busy, prefetch and error flags, the age matrix. Lookups, the victim and
/// the entry flags are combinational from these registers.
`include "ndp_assert.svh"

module ndp_dev_tags #(
  parameter int unsigned Bufs = 8,
  parameter int unsigned TW   = 6,
  localparam int unsigned BW = (Bufs > 1) ? $clog2(Bufs) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // compare port
  input  logic [6:0]      key_w_i,
  input  logic [TW-1:0]   key_t_i,
  input  logic [39:0]     key_k_i,
  output logic            hit_o,
  output logic [BW-1:0]   hit_idx_o,
  // victim for an allocation: never a pinned entry, nor entry excl_idx_i while excl_i (the prefetch
  // step keeps the entry of the beat that triggered it, even when its decode has just failed)
  input  logic [Bufs-1:0] pin_i,
  input  logic            excl_i,
  input  logic [BW-1:0]   excl_idx_i,
  output logic [BW-1:0]   victim_o,
  output logic            victim_busy_o,
  // make an entry the most recently used
  input  logic            touch_i,
  input  logic [BW-1:0]   touch_idx_i,
  // tag the victim with the key (busy until its decode ends); pf: a prefetch
  input  logic            alloc_i,
  input  logic            alloc_pf_i,
  // a demand decode of the tagged entry redo_idx_i starts again (after a failed prefetch)
  input  logic            redo_i,
  input  logic [BW-1:0]   redo_idx_i,
  // a decode ended
  input  logic            done_i,
  input  logic [BW-1:0]   done_idx_i,
  input  logic            done_err_i,
  input  logic            flush_i,
  // entry flags
  output logic [Bufs-1:0] valid_o,
  output logic [Bufs-1:0] busy_o,
  output logic [Bufs-1:0] err_o,    // the entry's last decode failed (tagged: a failed prefetch)
  output logic [Bufs-1:0] pf_o,     // the entry's last decode was a prefetch
  // tag of one entry
  input  logic [BW-1:0]   q_idx_i,
  output logic [6:0]      q_w_o,
  output logic [TW-1:0]   q_t_o
);
  logic [Bufs-1:0] tv_q, busy_q, err_q, pf_q;
  logic [6:0]      tw_q [Bufs];
  logic [TW-1:0]   tt_q [Bufs];
  logic [39:0]     tk_q [Bufs];
  // older_q[i * Bufs + j]: entry i was used less recently than entry j (i != j)
  logic [Bufs*Bufs-1:0] older_q;

  always_comb begin
    hit_o     = 1'b0;
    hit_idx_o = '0;
    for (int unsigned b = 0; b < Bufs; b++) begin
      if (tv_q[b] && tw_q[b] == key_w_i && tt_q[b] == key_t_i && tk_q[b] == key_k_i) begin
        hit_o     = 1'b1;
        hit_idx_o = BW'(b);
      end
    end
  end

  logic            any_inv;
  logic [BW-1:0]   inv_idx, lru_idx;
  logic [Bufs-1:0] out;   // entries that cannot be the victim
  always_comb begin
    out = pin_i;
    if (excl_i) out[excl_idx_i] = 1'b1;
    any_inv = 1'b0;
    inv_idx = '0;
    for (int b = Bufs - 1; b >= 0; b--) begin
      if (!tv_q[b] && !out[b]) begin
        any_inv = 1'b1;
        inv_idx = BW'(b);
      end
    end
    lru_idx = '0;
    for (int unsigned i = 0; i < Bufs; i++) begin
      logic oldest;
      oldest = !out[i];
      for (int unsigned j = 0; j < Bufs; j++) begin
        if (j != i && !out[j] && !older_q[i * Bufs + j]) oldest = 1'b0;
      end
      if (oldest) lru_idx = BW'(i);
    end
  end
  assign victim_o      = any_inv ? inv_idx : lru_idx;
  assign victim_busy_o = busy_q[victim_o];

  assign valid_o = tv_q;
  assign busy_o  = busy_q;
  assign err_o   = err_q;
  assign pf_o    = pf_q;
  assign q_w_o   = tw_q[q_idx_i];
  assign q_t_o   = tt_q[q_idx_i];

  // the entry made most recently used this cycle
  logic          use_any;
  logic [BW-1:0] use_idx;
  assign use_any = touch_i || alloc_i;
  assign use_idx = alloc_i ? victim_o : touch_idx_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tv_q   <= '0;
      busy_q <= '0;
      err_q  <= '0;
      pf_q   <= '0;
      for (int unsigned i = 0; i < Bufs; i++)
        for (int unsigned j = 0; j < Bufs; j++) older_q[i * Bufs + j] <= i > j;
    end else begin
      if (flush_i) tv_q <= '0;
      if (done_i) begin
        busy_q[done_idx_i] <= 1'b0;
        err_q[done_idx_i]  <= done_err_i;
        if (done_err_i && !pf_q[done_idx_i]) tv_q[done_idx_i] <= 1'b0;
      end
      if (redo_i) begin
        busy_q[redo_idx_i] <= 1'b1;
        err_q[redo_idx_i]  <= 1'b0;
        pf_q[redo_idx_i]   <= 1'b0;
      end
      if (alloc_i) begin
        tv_q[victim_o]   <= 1'b1;
        busy_q[victim_o] <= 1'b1;
        err_q[victim_o]  <= 1'b0;
        pf_q[victim_o]   <= alloc_pf_i;
      end
      if (use_any) begin
        for (int unsigned j = 0; j < Bufs; j++) begin
          if (BW'(j) != use_idx) begin
            older_q[32'(use_idx) * Bufs + j] <= 1'b0;
            older_q[j * Bufs + 32'(use_idx)] <= 1'b1;
          end
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (alloc_i) begin
      tw_q[victim_o] <= key_w_i;
      tt_q[victim_o] <= key_t_i;
      tk_q[victim_o] <= key_k_i;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Bufs >= 1 && Bufs <= 64)
  `NDP_ASSERT(alloc_free_a, !alloc_i || !busy_q[victim_o])
  `NDP_ASSERT(alloc_not_touch_a, !(alloc_i && touch_i))
  `NDP_ASSERT(done_busy_a, !done_i || busy_q[done_idx_i])
  `NDP_ASSERT(alloc_new_key_a, !alloc_i || !hit_o)
  `NDP_ASSERT(alloc_not_excluded_a, !(alloc_i && (pin_i[victim_o] || (excl_i && victim_o == excl_idx_i))))
  `NDP_ASSERT(redo_failed_prefetch_a, !redo_i || (tv_q[redo_idx_i] && !busy_q[redo_idx_i] && err_q[redo_idx_i]
                                                  && pf_q[redo_idx_i]))
  `NDP_ASSERT(redo_alone_a, !(redo_i && (alloc_i || (done_i && done_idx_i == redo_idx_i))))
endmodule
