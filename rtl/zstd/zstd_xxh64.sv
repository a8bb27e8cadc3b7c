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
/// P3); the constant multiplies are sums of shifted terms in canonical signed-digit form.
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

  // The constant multiplies as sums of shifted terms in canonical signed-digit form (P = PP - PN,
  // no two adjacent digits): 22-25 rows instead of the 35-37 set bits, one adder tree per product
  // (Yosys builds x * P as the full 64-row tree and only then drops the zero rows).
  localparam logic [63:0] P1P = 64'hA040020208000A88, P1N = 64'h0208885082144001;
  localparam logic [63:0] P2P = 64'h0404004128150050, P2N = 64'h4151520400401501;
  localparam logic [63:0] P3P = 64'h2080880220400201, P3N = 64'h0A2A205082088808;

  function automatic logic [63:0] rotl(input logic [63:0] x, input int r);
    rotl = (x << r) | (x >> (64 - r));
  endfunction
  function automatic logic [63:0] mul_p1(input logic [63:0] x);
    logic [63:0] s;
    s = '0;
    for (int i = 0; i < 64; i++) begin
      if (P1P[i]) s = s + (x << i);
      if (P1N[i]) s = s - (x << i);
    end
    mul_p1 = s;
  endfunction
  function automatic logic [63:0] mul_p2(input logic [63:0] x);
    logic [63:0] s;
    s = '0;
    for (int i = 0; i < 64; i++) begin
      if (P2P[i]) s = s + (x << i);
      if (P2N[i]) s = s - (x << i);
    end
    mul_p2 = s;
  endfunction
  function automatic logic [63:0] mul_p3(input logic [63:0] x);
    logic [63:0] s;
    s = '0;
    for (int i = 0; i < 64; i++) begin
      if (P3P[i]) s = s + (x << i);
      if (P3N[i]) s = s - (x << i);
    end
    mul_p3 = s;
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
  logic         mq_pend_q;     // the accumulators changed since the last merge pass
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
  logic [63:0] mp [4];           // stage 1 products lane * P2
  logic [63:0] sp [4];           // stage 3 products s * P1
  pass_e       launch;
  logic [63:0] w4;               // the tail's 4-byte word (after the 8-byte words)
  logic [63:0] lane [4];

  always_comb begin
    launch = PNone;
    if (stripe) launch = PStripe;
    else if (mq_pend_q) launch = PMerge;
    else if (fin_go && cnt_q >= 6'd4) launch = PTail;
    for (int k = 0; k < 4; k++) lane[k] = (launch == PMerge) ? v_q[k] : buf_q[k*64 +: 64];
    for (int k = 0; k < 4; k++) mp[k] = mul_p2(lane[k]);
    // a merge pass needs no accumulator: stage 3 takes rotl(m, 31) straight from stage 1
    for (int k = 0; k < 4; k++) sp[k] = mul_p1((p1_q == PMerge) ? rotl(m_q[k], 31) : s_q[k]);
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
      // a merge pass follows each stripe (the pipeline is otherwise idle between stripes), so
      // the merge steps start right after fin_i
      if (p2_q == PStripe) mq_pend_q <= 1'b1;
      else if (launch == PMerge) mq_pend_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    for (int k = 0; k < 4; k++) begin
      if (launch != PNone) m_q[k] <= mp[k];
      if (p1_q != PNone) s_q[k] <= rotl(((p1_q == PStripe) ? v_q[k] : 64'd0) + m_q[k], 31);
      if (p1_q == PTail && k == 3) s_q[k] <= w4;           // stage 3 then gives w4 * P1
      if (p1_q == PMerge) r_q[k] <= sp[k];
    end
    for (int k = 0; k < 4; k++) if (p2_q == PTail) t_q[k] <= sp[k];
  end

  // ---------------------------------------------------------------------------------------------
  // Serial hash steps, one shared multiplier per constant
  logic [1:0]  k_q;              // merge lane / tail word / tail byte index
  logic [63:0] y_q [3];          // tail bytes * P5
  logic [1:0]  n8;               // tail: 8-byte words, then a 4-byte word if cnt_q[2], then bytes
  logic [7:0]  tb [3];
  logic [63:0] a1, a2, a3;       // multiplier inputs
  logic [63:0] m1, m2, m3;       // products
  logic [63:0] sumrot, sumrot_q;  // the merge's start value, kept with the accumulators

  always_comb begin
    n8 = cnt_q[4:3];
    w4 = 64'(buf_q[9'({n8, 6'b000000}) +: 32]);
    for (int j = 0; j < 3; j++) tb[j] = buf_q[9'({n8, cnt_q[2], 5'b00000}) + 9'(8 * j) +: 8];
    sumrot = rotl(v_q[0], 1) + rotl(v_q[1], 7) + rotl(v_q[2], 12) + rotl(v_q[3], 18);
    unique case (state_q)
      XMStep:  a1 = h_q ^ r_q[k_q];
      XT8:     a1 = rotl(h_q ^ t_q[k_q], 27);
      XT1:     a1 = rotl(h_q ^ y_q[k_q], 11);
      default: a1 = sumrot_q ^ r_q[0];               // XFeed: the first merge step at fin_go
    endcase
    a2 = (state_q == XT4) ? rotl(h_q ^ t_q[3], 23) : (h_q ^ (h_q >> 33));
    a3 = h_q ^ (h_q >> 29);
    m1 = mul_p1(a1);
    m2 = mul_p2(a2);
    m3 = mul_p3(a3);
  end

  always_ff @(posedge clk_i) begin
    sumrot_q <= sumrot;
    if (fin_go) begin
      for (int j = 0; j < 3; j++) y_q[j] <= 64'(tb[j]) * P5;
    end
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
      buf_q <= buf_n;
      cnt_q <= cnt_n;
      if (in_valid_i && state_q == XFeed) len_q <= len_q + 64'(in_cnt_i);
      if (p2_q == PStripe) begin
        for (int k = 0; k < 4; k++) v_q[k] <= sp[k];
      end
      unique case (state_q)
        XFeed: begin
          if (fin_go) begin
            h_q     <= (len_q >= 64'd32) ? m1 + P4 : P5 + len_q;
            k_q     <= (len_q >= 64'd32) ? 2'd1 : 2'd0;
            state_q <= (len_q >= 64'd32) ? XMStep : XWait;   // the tail rounds follow the merge
          end
        end
        XWait: begin
          if (p1_q == PNone && p2_q == PNone) begin
            if (n8 != 2'd0) state_q <= XT8;
            else if (cnt_q[2]) state_q <= XT4;
            else if (cnt_q[1:0] != 2'd0) state_q <= XT1;
            else state_q <= XAv1;
          end
        end
        XMStep: begin
          h_q <= m1 + P4 + ((k_q == 2'd3) ? len_q : 64'd0);
          k_q <= k_q + 2'd1;
          if (k_q == 2'd3) begin
            k_q <= '0;
            if (n8 != 2'd0) state_q <= XT8;
            else if (cnt_q[2]) state_q <= XT4;
            else if (cnt_q[1:0] != 2'd0) state_q <= XT1;
            else state_q <= XAv1;
          end
        end
        XT8: begin
          h_q <= m1 + P4;
          k_q <= k_q + 2'd1;
          if (k_q + 2'd1 == n8) begin
            k_q <= '0;
            if (cnt_q[2]) state_q <= XT4;
            else if (cnt_q[1:0] != 2'd0) state_q <= XT1;
            else state_q <= XAv1;
          end
        end
        XT4: begin
          h_q <= m2 + P3;
          state_q <= (cnt_q[1:0] != 2'd0) ? XT1 : XAv1;
        end
        XT1: begin
          h_q <= m1;
          k_q <= k_q + 2'd1;
          if (k_q + 2'd1 == cnt_q[1:0]) state_q <= XAv1;
        end
        XAv1: begin
          h_q     <= m2;
          state_q <= XAv2;
        end
        XAv2: begin
          h_q     <= m3 ^ (m3 >> 32);
          state_q <= XDone;
        end
        default: ;
      endcase
    end
  end

  assign done_o = (state_q == XDone);
  assign hash_o = h_q;

  // Bytes arriving after fin_i (the next frame's, when it has no checksum) are ignored.
  // A stripe never enters while the previous one is in stage 1 (it would miss its accumulators).
  `NDP_ASSERT(stripe_gap_a, !stripe || p1_q != PStripe)
  // a merge pass in stage 1 uses the stage 3 multipliers: no other pass is in stage 2 then
  `NDP_ASSERT(merge_gap_a, p1_q != PMerge || p2_q == PNone)
  `NDP_ASSERT(cnt_a, cnt_q <= 6'd39)
  // fin_i comes after the last byte (zstd_frame: exec idle and its output empty)
  `NDP_ASSERT(fin_a, !(fin_go && in_valid_i))
endmodule
