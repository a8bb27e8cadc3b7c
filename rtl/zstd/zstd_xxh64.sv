// zstd_xxh64: XXH64 (seed 0) of a byte stream fed up to 8 bytes per cycle, for the frame
// Content_Checksum (low 32 bits). Stripes of 32 bytes are folded into the four accumulators by a
// three-stage pipeline (lane * P2 | acc + m, rotl 31 | * P1), one multiply per stage: with at most
// 8 bytes per cycle a stripe completes at most every 4 cycles, so the pipeline never holds two
// stripes and no input is ever refused. fin_i (held until done_o) starts the merge, tail and
// avalanche once the pipeline is empty (<= 19 cycles); done_o then holds the hash until clear_i.
//
/// Registers: a 40-byte input buffer, the stripe pipeline (pre-multiplied lanes, rotated sums),
/// the accumulators, the length, the merge/tail round results and the tail FSM with its hash.
/// Every register-to-register path holds at most one 64x64 constant multiply: the merge rounds
/// round(0, v) (redone after every stripe, skipping stage 2) and the tail rounds round(0, w) go
/// through the stripe pipeline, the serial hash steps share one multiplier per constant (P1, P2,
/// P3). The constant multiplies are xxh_cmul trees (canonical signed digits) closed by a pfx_add,
/// and every 64-bit add is a pfx_add: Yosys 0.23 maps `+` as a ripple chain (1.15 ns at 64 bits in
/// ASAP7). The additions into the serial products (P4, P3, the length) enter their trees as
/// addend rows, the length plus P4 and plus P5 are kept in registers.
`include "ndp_assert.svh"

module zstd_xxh64 (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        clear_i,
  input  logic        in_valid_i,
  input  logic [63:0] in_data_i,
  input  logic [3:0]  in_cnt_i,
  input  logic        fin_i,       // all bytes fed: compute the digest (held until done_o)
  output logic        done_o,
  output logic [63:0] hash_o
);
  localparam logic [63:0] P1 = 64'h9E3779B185EBCA87;
  localparam logic [63:0] P2 = 64'hC2B2AE3D27D4EB4F;
  localparam logic [63:0] P3 = 64'h165667B19E3779F9;
  localparam logic [63:0] P4 = 64'h85EBCA77C2B2AE63;
  localparam logic [63:0] P5 = 64'h27D4EB2F165667C5;

  function automatic logic [63:0] rotl(input logic [63:0] x, input int r);
    rotl = (x << r) | (x >> (64 - r));
  endfunction

  typedef enum logic [3:0] {XFeed, XWait, XMStep, XT8, XT4, XT1, XAv1, XAv2, XDone} state_e;
  // what a pass through the round pipeline is: a stripe, the merge rounds, the tail rounds
  typedef enum logic [1:0] {PNone, PStripe, PMerge, PTail} pass_e;

  state_e       state_q;
  logic [319:0] buf_q;
  logic [5:0]   cnt_q;
  logic [63:0]  v_q [4];
  logic [63:0]  len_q, h_q;
  logic [63:0]  imask, idata;
  logic [319:0] buf_n;
  logic [5:0]   cnt_n;
  logic         stripe;        // a stripe leaves the buffer this cycle
  logic         fin_go;        // the digest starts this cycle
  logic         mq_pend_q, mq_pend_d;   // the accumulators changed since the last merge pass
  logic [3:0]   lmerge_q;      // launch == PMerge, registered a cycle ahead: one copy per lane
                               // (each selects 128 operand bits of its lane; no decode, no fanout tree)
  logic         lmerge_d;
  pass_e        p1_q, p2_q;    // pass in stage 1 (m_q) and stage 2 (s_q) of the round pipeline

  assign stripe = (state_q == XFeed) && cnt_q >= 6'd32;
  // the buffer and the accumulators are final, and r_q holds their merge rounds, once no stripe
  // is left or in flight and no merge pass is due
  assign fin_go = (state_q == XFeed) && fin_i && !stripe && p1_q == PNone && p2_q == PNone &&
                  !mq_pend_q;

  always_comb begin
    imask = (in_cnt_i >= 4'd8) ? '1 : ((64'd1 << {in_cnt_i[2:0], 3'b000}) - 64'd1);
    idata = in_data_i & imask;
    buf_n = buf_q;
    cnt_n = cnt_q;
    if (stripe) begin
      buf_n = buf_q >> 256;
      cnt_n = cnt_q - 6'd32;
    end
    if (in_valid_i && state_q == XFeed) begin
      buf_n = buf_n | (320'(idata) << {cnt_n, 3'b000});
      cnt_n = cnt_n + 6'(in_cnt_i);
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Round pipeline: round(acc, lane) = rotl(acc + lane * P2, 31) * P1 on four lanes
  logic [63:0] m_q [4];          // lane * P2
  logic [63:0] s_q [4];          // rotl(acc + m, 31)
  logic [63:0] r_q [4];          // merge rounds round(0, v_k)
  logic [63:0] t_q [4];          // tail rounds round(0, w_k), k < 3, and the 4-byte word * P1
  logic [255:0] mp;              // stage 1 products lane * P2, lane k at bits k*64 +: 64
  logic [255:0] sp;              // stage 3 products s * P1
  logic [255:0] sa;              // stage 2 sums acc + m
  pass_e       launch;
  logic [63:0] w4;               // the tail's 4-byte word (after the 8-byte words)
  // operands of the lane multipliers and adders
  logic [255:0] lanev, accv, sxv, mqv;

  always_comb begin
    launch = PNone;
    if (stripe) launch = PStripe;
    else if (mq_pend_q) launch = PMerge;
    else if (fin_go && cnt_q >= 6'd4) launch = PTail;
    for (int k = 0; k < 4; k++) begin
      lanev[k*64 +: 64] = lmerge_q[k] ? v_q[k] : buf_q[k*64 +: 64];
      accv[k*64 +: 64]  = (p1_q == PStripe) ? v_q[k] : 64'd0;
      // stage 3 always multiplies s_q: a merge pass writes rotl(m, 31) there from stage 1
      // (it needs no accumulator), so no pass decode sits in front of the stage 3 trees
      sxv[k*64 +: 64]   = s_q[k];
      mqv[k*64 +: 64]   = m_q[k];
    end
  end

  // a merge pass follows each stripe (the pipeline is otherwise idle between stripes), so the
  // merge steps start right after fin_i
  always_comb begin
    mq_pend_d = mq_pend_q;
    if (p2_q == PStripe) mq_pend_d = 1'b1;
    else if (launch == PMerge) mq_pend_d = 1'b0;
  end

  for (genvar k = 0; k < 4; k++) begin : gen_lane
    logic [63:0] ms, mc, ss, sc;
    logic [63:0] unused_co1, unused_co2, unused_co3;
    xxh_cmul #(.W(64), .C(P2), .NX(1), .NA(1)) u_m (
      .x_i(lanev[k*64 +: 64]), .a_i(64'd0), .sum_o(ms), .carry_o(mc)
    );
    pfx_add #(.W(64)) u_madd (
      .a_i(ms), .b_i(mc), .ci_i(1'b0), .sum_o(mp[k*64 +: 64]), .co_o(unused_co1)
    );
    pfx_add #(.W(64)) u_acc (
      .a_i(accv[k*64 +: 64]), .b_i(mqv[k*64 +: 64]), .ci_i(1'b0), .sum_o(sa[k*64 +: 64]), .co_o(unused_co2)
    );
    xxh_cmul #(.W(64), .C(P1), .NX(1), .NA(1)) u_s (
      .x_i(sxv[k*64 +: 64]), .a_i(64'd0), .sum_o(ss), .carry_o(sc)
    );
    pfx_add #(.W(64)) u_sadd (
      .a_i(ss), .b_i(sc), .ci_i(1'b0), .sum_o(sp[k*64 +: 64]), .co_o(unused_co3)
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p1_q      <= PNone;
      p2_q      <= PNone;
      mq_pend_q <= 1'b0;
    end else if (clear_i) begin
      p1_q      <= PNone;
      p2_q      <= PNone;
      mq_pend_q <= 1'b0;
    end else begin
      p1_q <= launch;
      p2_q <= (p1_q == PMerge) ? PNone : p1_q;
      mq_pend_q <= mq_pend_d;
    end
  end

  always_ff @(posedge clk_i) begin
    for (int k = 0; k < 4; k++) begin
      if (launch != PNone) m_q[k] <= mp[k*64 +: 64];
      if (p1_q != PNone) s_q[k] <= rotl(sa[k*64 +: 64], 31);
      if (p1_q == PTail && k == 3) s_q[k] <= w4;           // stage 3 then gives w4 * P1
      if (lmerge_q[k]) s_q[k] <= rotl(mp[k*64 +: 64], 31);   // p1_q == PNone then
      if (p1_q == PMerge) r_q[k] <= sp[k*64 +: 64];
    end
    for (int k = 0; k < 4; k++) if (p2_q == PTail) t_q[k] <= sp[k*64 +: 64];
  end

  // ---------------------------------------------------------------------------------------------
  // Serial hash steps, one shared multiplier per constant
  logic [1:0]  k_q, k_d;         // merge lane / tail word / tail byte index
  state_e      state_d;
  // The multiplier operands of the next step, prepared a cycle ahead from state_d / k_d so that
  // no state decode or indexed read sits in front of the trees: the value XORed into h (r_q,
  // t_q or y_q at k) and one-hot modes.
  logic [63:0] p_q, p_d;
  // h ^ p, registered with h: the XOR of the next step's operand is folded into the adders that
  // write h (their sum bits are p0 ^ carry, so p0 ^ p_d ^ carry costs no level), so no XOR sits
  // in front of the multiplier trees. Equal to h_q ^ p_q in every step that reads it (asserted).
  logic [63:0] hp_q, hp_d, m1x, m2x;
  // The step's modes, decoded from state_d / k_d a cycle ahead, one (* keep *) copy per 16-bit
  // slice of the multiplier operands, their addends and hp_d, so no fanout tree sits between a
  // mode flop and the trees: XMStep, XT8, XT1, none of those (a1's fourth term), XT4, hp's source
  // (m1 in XMStep/XT8/XT1, m2 in XT4/XAv1), XMStep at k == 3. Each copy equals the decode of
  // state_q / k_q (asserted).
  logic [3:0]  ms_r, t8_r, t1_r, nm_r, t4_r, hm2_r, ml_r;
  logic [63:0] y_q [3];          // tail bytes * P5
  logic [1:0]  n8;               // tail: 8-byte words, then a 4-byte word if cnt_q[2], then bytes
  logic [191:0] tbv;            // the tail bytes, zero-extended
  logic [255:0] srrows;          // rows of the merge's start value
  logic [63:0] a1, a2, a3;       // multiplier inputs
  logic [63:0] hp27, hp11, hp23, hx33, sr0;  // their candidate operands
  logic [63:0] d1, d2;           // their addends: P4 / length + P4 / 0, P3 / 0
  logic [63:0] m1, m2, m3;       // products plus addends
  logic [63:0] sumrot, sumrot_q;  // the merge's start value, kept with the accumulators
  logic [63:0] len_n;            // the length after this cycle's bytes
  logic [63:0] len_a, len_b;
  logic [63:0] lp4_q, lp5_q;     // length + P4, length + P5
  logic [63:0] lp4, lp5;
  logic        long_msg;         // 32 bytes or more: the merge runs

  assign long_msg = |len_q[63:5];

  always_comb begin
    n8 = cnt_q[4:3];
    w4 = 64'(buf_q[9'({n8, 6'b000000}) +: 32]);
    for (int j = 0; j < 3; j++) tbv[j*64 +: 64] = 64'(buf_q[9'({n8, cnt_q[2], 5'b00000}) + 9'(8 * j) +: 8]);
    srrows = {rotl(v_q[3], 18), rotl(v_q[2], 12), rotl(v_q[1], 7), rotl(v_q[0], 1)};
    // XFeed (no mode): the first merge step at fin_go
    hp27 = rotl(hp_q, 27);
    hp11 = rotl(hp_q, 11);
    hp23 = rotl(hp_q, 23);
    hx33 = h_q ^ (h_q >> 33);
    sr0  = sumrot_q ^ r_q[0];
    for (int j = 0; j < 4; j++) begin  // each 16-bit slice selects on its own mode flops
      a1[j*16 +: 16] = ({16{ms_r[j]}} & hp_q[j*16 +: 16]) | ({16{t8_r[j]}} & hp27[j*16 +: 16]) |
                       ({16{t1_r[j]}} & hp11[j*16 +: 16]) | ({16{nm_r[j]}} & sr0[j*16 +: 16]);
      a2[j*16 +: 16] = t4_r[j] ? hp23[j*16 +: 16] : hx33[j*16 +: 16];
    end
    a3 = h_q ^ (h_q >> 29);
    for (int j = 0; j < 4; j++) begin  // the addends too: per slice (a scalar mode flop merged with
      // a replica would drive the 64 addend bits and its slice: in zstd_decoder ABC buffered that
      // net with a 1.6 ns hold-buffer stage)
      d1[j*16 +: 16] = t1_r[j] ? 16'd0 : (ml_r[j] ? lp4_q[j*16 +: 16] : P4[j*16 +: 16]);
      d2[j*16 +: 16] = t4_r[j] ? P3[j*16 +: 16] : 16'd0;
    end
    len_a = clear_i ? 64'd0 : len_q;
    len_b = (in_valid_i && state_q == XFeed && !clear_i) ? 64'(in_cnt_i) : 64'd0;
  end

  // the shared multipliers, each closed by its carry-propagate adder
  logic [63:0] s1, c1, s2, c2, s3, c3, sr_s, sr_c;
  logic [319:0] unused_co;       // carries out of the other adders' bits
  logic [63:0] co1, co2;         // carries of the m1 and m2 adders (the hp fold)
  xxh_cmul #(.W(64), .C(P1), .NX(1), .NA(1)) u_m1 (.x_i(a1), .a_i(d1), .sum_o(s1), .carry_o(c1));
  xxh_cmul #(.W(64), .C(P2), .NX(1), .NA(1)) u_m2 (.x_i(a2), .a_i(d2), .sum_o(s2), .carry_o(c2));
  xxh_cmul #(.W(64), .C(P3), .NX(1), .NA(1)) u_m3 (.x_i(a3), .a_i(64'd0), .sum_o(s3), .carry_o(c3));
  pfx_add #(.W(64)) u_m1a (.a_i(s1), .b_i(c1), .ci_i(1'b0), .sum_o(m1), .co_o(co1));
  pfx_add #(.W(64)) u_m2a (.a_i(s2), .b_i(c2), .ci_i(1'b0), .sum_o(m2), .co_o(co2));
  pfx_add #(.W(64)) u_m3a (.a_i(s3), .b_i(c3), .ci_i(1'b0), .sum_o(m3), .co_o(unused_co[0 +: 64]));
  // m1 ^ p_d and m2 ^ p_d from the adders' carries: (s ^ c ^ p_d) ^ (carry into each bit)
  assign m1x = (s1 ^ c1 ^ p_d) ^ {co1[62:0], 1'b0};
  assign m2x = (s2 ^ c2 ^ p_d) ^ {co2[62:0], 1'b0};
  logic [1:0] unused_cotop;       // their carries out of bit 63
  assign unused_cotop = {co2[63], co1[63]};
  logic fin_long, fin_short;    // the digest's first write of h: m1 (merge) or lp5
  assign fin_long  = (state_q == XFeed) && fin_go && long_msg;
  assign fin_short = (state_q == XFeed) && fin_go && !long_msg;
  always_comb begin
    for (int j = 0; j < 4; j++) begin  // h holds otherwise (XWait into the tail steps: p changes)
      hp_d[j*16 +: 16] = ({16{!nm_r[j] || fin_long}} & m1x[j*16 +: 16]) | ({16{hm2_r[j]}} & m2x[j*16 +: 16]) |
                         ({16{nm_r[j] && !fin_long && !hm2_r[j]}} &
                          ((fin_short ? lp5_q[j*16 +: 16] : h_q[j*16 +: 16]) ^ p_d[j*16 +: 16]));
    end
  end
  csa_tree #(.W(64), .N(4)) u_sr (
    .rows_i(srrows), .sum_o(sr_s), .carry_o(sr_c)
  );
  pfx_add #(.W(64)) u_sra (.a_i(sr_s), .b_i(sr_c), .ci_i(1'b0), .sum_o(sumrot), .co_o(unused_co[64 +: 64]));
  // the length counter and its sums with P4 and P5 (ready the cycle after the last byte or clear_i)
  pfx_add #(.W(64)) u_len (
    .a_i(len_a), .b_i(len_b), .ci_i(1'b0), .sum_o(len_n), .co_o(unused_co[128 +: 64])
  );
  pfx_add #(.W(64)) u_lp4 (.a_i(len_n), .b_i(P4), .ci_i(1'b0), .sum_o(lp4), .co_o(unused_co[192 +: 64]));
  pfx_add #(.W(64)) u_lp5 (.a_i(len_n), .b_i(P5), .ci_i(1'b0), .sum_o(lp5), .co_o(unused_co[256 +: 64]));

  // the tail bytes times P5
  logic [191:0] yp;
  for (genvar j = 0; j < 3; j++) begin : gen_tb
    logic [63:0] ys, yc;
    logic [63:0] unused_yco;
    xxh_cmul #(.W(64), .C(P5), .NX(1), .NA(1)) u_y (
      .x_i(tbv[j*64 +: 64]), .a_i(64'd0), .sum_o(ys), .carry_o(yc)
    );
    pfx_add #(.W(64)) u_ya (.a_i(ys), .b_i(yc), .ci_i(1'b0), .sum_o(yp[j*64 +: 64]), .co_o(unused_yco));
  end

  always_ff @(posedge clk_i) begin
    sumrot_q <= sumrot;
    lp4_q    <= lp4;
    lp5_q    <= lp5;
    if (fin_go) begin
      for (int j = 0; j < 3; j++) y_q[j] <= yp[j*64 +: 64];
    end
  end

  // next state and index
  always_comb begin
    state_d = state_q;
    k_d     = k_q;
    unique case (state_q)
      XFeed: if (fin_go) begin
        k_d     = long_msg ? 2'd1 : 2'd0;
        state_d = long_msg ? XMStep : XWait;   // the tail rounds follow the merge
      end
      XWait: if (p1_q == PNone && p2_q == PNone) begin
        if (n8 != 2'd0) state_d = XT8;
        else if (cnt_q[2]) state_d = XT4;
        else if (cnt_q[1:0] != 2'd0) state_d = XT1;
        else state_d = XAv1;
      end
      XMStep: begin
        k_d = k_q + 2'd1;
        if (k_q == 2'd3) begin
          k_d = '0;
          if (n8 != 2'd0) state_d = XT8;
          else if (cnt_q[2]) state_d = XT4;
          else if (cnt_q[1:0] != 2'd0) state_d = XT1;
          else state_d = XAv1;
        end
      end
      XT8: begin
        k_d = k_q + 2'd1;
        if (k_q + 2'd1 == n8) begin
          k_d = '0;
          if (cnt_q[2]) state_d = XT4;
          else if (cnt_q[1:0] != 2'd0) state_d = XT1;
          else state_d = XAv1;
        end
      end
      XT4:  state_d = (cnt_q[1:0] != 2'd0) ? XT1 : XAv1;
      XT1: begin
        k_d = k_q + 2'd1;
        if (k_q + 2'd1 == cnt_q[1:0]) state_d = XAv1;
      end
      XAv1: state_d = XAv2;
      XAv2: state_d = XDone;
      default: ;
    endcase
    if (clear_i) begin
      state_d = XFeed;
      k_d     = '0;
    end
    // r_q, t_q and y_q are final when a step that reads them is entered (the merge and tail
    // passes have left the pipeline, y_q is written at fin_go)
    unique case (state_d)
      XMStep:  p_d = r_q[k_d];
      XT8:     p_d = t_q[k_d];
      XT4:     p_d = t_q[3];
      default: p_d = y_q[k_d];
    endcase
  end

  always_ff @(posedge clk_i) begin
    p_q  <= p_d;
    hp_q <= hp_d;
  end

  for (genvar j = 0; j < 4; j++) begin : gen_mode
    logic [6:0] mq;
    (* keep *) always_ff @(posedge clk_i) begin
      mq <= {state_d == XMStep, state_d == XT8, state_d == XT1,
             !(state_d == XMStep || state_d == XT8 || state_d == XT1), state_d == XT4,
             state_d == XT4 || state_d == XAv1, state_d == XMStep && k_d == 2'd3};
    end
    assign {ms_r[j], t8_r[j], t1_r[j], nm_r[j], t4_r[j], hm2_r[j], ml_r[j]} = mq;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= XFeed;
      buf_q <= '0; cnt_q <= '0; len_q <= '0; h_q <= '0; k_q <= '0;
      v_q[0] <= P1 + P2; v_q[1] <= P2; v_q[2] <= '0; v_q[3] <= 64'd0 - P1;
    end else if (clear_i) begin
      state_q <= XFeed;
      buf_q <= '0; cnt_q <= '0; len_q <= '0; h_q <= '0; k_q <= '0;
      v_q[0] <= P1 + P2; v_q[1] <= P2; v_q[2] <= '0; v_q[3] <= 64'd0 - P1;
    end else begin
      buf_q   <= buf_n;
      cnt_q   <= cnt_n;
      len_q   <= len_n;
      state_q <= state_d;
      k_q     <= k_d;
      if (p2_q == PStripe) begin
        for (int k = 0; k < 4; k++) v_q[k] <= sp[k*64 +: 64];
      end
      unique case (state_q)
        XFeed:  if (fin_go) h_q <= long_msg ? m1 : lp5_q;   // m1 includes P4
        XMStep: h_q <= m1;   // + P4, + the length at k_q == 3
        XT8:    h_q <= m1;   // + P4
        XT4:    h_q <= m2;   // + P3
        XT1:    h_q <= m1;
        XAv1:   h_q <= m2;
        XAv2:   h_q <= m3 ^ (m3 >> 32);
        default: ;
      endcase
    end
  end

  assign done_o = (state_q == XDone);
  assign hash_o = h_q;

  // next cycle's launch == PMerge: a merge is due and no stripe leaves the buffer. (* keep *):
  // Yosys would merge the four identical flops back into one.
  assign lmerge_d = mq_pend_d && !(state_d == XFeed && cnt_n >= 6'd32);
  for (genvar k = 0; k < 4; k++) begin : gen_lmerge
    logic lm_q;
    (* keep *) always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) lm_q <= 1'b0;
      else if (clear_i) lm_q <= 1'b0;
      else lm_q <= lmerge_d;
    end
    assign lmerge_q[k] = lm_q;
  end

  // Bytes arriving after fin_i (the next frame's, when it has no checksum) are ignored.
  // A stripe never enters while the previous one is in stage 1 (it would miss its accumulators).
  `NDP_ASSERT(stripe_gap_a, !stripe || p1_q != PStripe)
  // a merge pass in stage 1 uses the stage 3 multipliers: no other pass is in stage 2 then
  `NDP_ASSERT(merge_gap_a, p1_q != PMerge || p2_q == PNone)
  // a merge pass launches into an empty stage 1, so its s_q write never meets a stage 2 one
  `NDP_ASSERT(merge_launch_a, launch != PMerge || p1_q == PNone)
  `NDP_ASSERT(lmerge_a, lmerge_q == {4{launch == PMerge}})
  // every mode copy is the decode of the state it was registered for
  `NDP_ASSERT(mode_a, ms_r == {4{state_q == XMStep}} && t8_r == {4{state_q == XT8}} &&
                      t1_r == {4{state_q == XT1}} &&
                      nm_r == {4{!(state_q == XMStep || state_q == XT8 || state_q == XT1)}} &&
                      t4_r == {4{state_q == XT4}} && hm2_r == {4{state_q == XT4 || state_q == XAv1}} &&
                      ml_r == {4{state_q == XMStep && k_q == 2'd3}})
  `NDP_ASSERT(hp_a, !(state_q == XMStep || state_q == XT8 || state_q == XT4 || state_q == XT1) ||
                    hp_q == (h_q ^ p_q))
  `NDP_ASSERT(cnt_a, cnt_q <= 6'd39)
  // fin_i comes after the last byte (zstd_frame: exec idle and its output empty)
  `NDP_ASSERT(fin_a, !(fin_go && in_valid_i))
endmodule
