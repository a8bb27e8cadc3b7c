// lane_xxh32: XXH32 (seed 0) of a byte stream, InBytes bytes per cycle, one message per packet.
//
/// Registers: the stripe accumulator (up to 15 bytes not yet in a 16-byte stripe) and this cycle's
/// lanes times P2 (stage A), their rotated products rotl(m, 13) * P1 (stage A2), the four lane
/// accumulators and the message length (stage B), and the finaliser (its own state, so the next
/// message streams in while the last one is finished). Stage B applies up to InBytes/16 rounds per
/// cycle with lane_xxh32_round: the accumulators stay in carry-save form with a deferred
/// correction (s + c + Kc), so two chained rounds are two multiplier trees and no carry-propagate
/// adder. Every constant multiply is an xxh_cmul tree closed by a pfx_add (one per register
/// stage), every add on a path a pfx_add (Yosys 0.23 maps `+` as a ripple chain). The finaliser
/// resolves the accumulators and forms the length term in the cycle it takes a message, then
/// takes one cycle per 4-byte word and per byte left over (at most 3 + 3; their products with P3
/// and P5 are formed in that first cycle), two for the avalanche's multiplies and one for its last
/// xor-shift: between the steps h is a registered carry-save pair, so a step is one adder and one
/// multiply tree. The hash is registered and held on hash_o until taken. in_ready_o drops only
/// while a finished message waits for a busy finaliser.
`include "ndp_assert.svh"

module lane_xxh32 #(
  parameter int unsigned InBytes = 32,   // multiple of 16
  localparam int unsigned CW = $clog2(InBytes + 1),
  localparam int unsigned NS = InBytes / 16
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               in_valid_i,
  output logic               in_ready_o,
  input  logic [InBytes*8-1:0] in_data_i,
  input  logic [CW-1:0]      in_cnt_i,   // 0..InBytes bytes in lanes 0..cnt-1
  input  logic               in_last_i,
  output logic               hash_valid_o,
  input  logic               hash_ready_i,
  output logic [31:0]        hash_o
);
  localparam logic [31:0] P1 = lane_pkg::XxhP1;
  localparam logic [31:0] P2 = 32'h85EBCA77;
  localparam logic [31:0] P3 = 32'hC2B2AE3D;
  localparam logic [31:0] P4 = 32'h27D4EB2F;
  localparam logic [31:0] P5 = 32'h165667B1;
  localparam int unsigned AW = 15 + InBytes;   // accumulator bytes
  localparam int unsigned NW = NS * 4;         // lane words per cycle
  localparam logic [127:0] VInit = {32'd0 - P1, 32'd0, P2, P1 + P2};   // lanes 3..0

  function automatic logic [31:0] rotl(input logic [31:0] x, input int r);
    rotl = (x << r) | (x >> (32 - r));
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Stage A: stripes from the accumulator and the beat, lanes times P2
  logic [15*8-1:0] acc_q;
  logic [3:0]      acnt_q;
  logic            a_v_q, a_last_q;
  logic [1:0]      a_ns_q;                  // stripes this cycle (0..NS)
  logic [NW*32-1:0] a_m_q;                  // word w = stripe * 4 + lane at bits w*32 +: 32
  logic [15*8-1:0] a_tail_q;               // at last: the bytes left over (< 16)
  logic [3:0]      a_tcnt_q;
  logic [CW-1:0]   a_cnt_q;
  logic            a_go;                    // stage A takes the beat
  logic            a2_go;                   // stage A2 takes stage A's content
  logic            a2_v_q;

  logic            fin_busy;                // finaliser holds a message not yet hashed
  logic            b_pend_q;                // stage B holds a finished message for the finaliser
  logic            b_take;                  // stage A2's content moves through B this cycle

  assign b_take     = a2_v_q && !b_pend_q;
  assign a2_go      = a_v_q && (!a2_v_q || b_take);
  assign in_ready_o = !a_v_q || a2_go;      // stage A is empty or moves on this cycle
  assign a_go       = in_valid_i && in_ready_o;

  logic [AW*8-1:0] comb;
  logic [5:0]      tot;
  logic [1:0]      ns;
  logic [NW*32-1:0] mp;
  always_comb begin
    logic [InBytes*8-1:0] d;
    d = in_data_i;
    for (int i = 0; i < InBytes; i++) if (32'(i) >= 32'(in_cnt_i)) d[i*8 +: 8] = 8'h00;
    comb = (AW*8)'(acc_q) | ((AW*8)'(d) << {acnt_q, 3'b000});
    tot  = 6'(acnt_q) + 6'(in_cnt_i);
    ns   = 2'(tot >> 4);
  end
  for (genvar w = 0; w < NW; w++) begin : gen_mp
    logic [31:0] ps, pc, unused_co;
    xxh_cmul #(.W(32), .C(P2), .NX(1), .NA(1)) u_mul (
      .x_i(comb[w*32 +: 32]), .a_i(32'd0), .sum_o(ps), .carry_o(pc)
    );
    pfx_add #(.W(32)) u_add (.a_i(ps), .b_i(pc), .ci_i(1'b0), .sum_o(mp[w*32 +: 32]), .co_o(unused_co));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q  <= '0;
      acnt_q <= '0;
      a_v_q  <= 1'b0;
    end else if (a_go) begin
      a_v_q <= 1'b1;
      if (in_last_i) begin
        acc_q  <= '0;
        acnt_q <= '0;
      end else begin
        acc_q  <= 120'(comb >> {ns, 7'b0000000});
        acnt_q <= 4'(tot - {ns, 4'b0000});
      end
    end else if (a2_go) begin
      a_v_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (a_go) begin
      a_last_q <= in_last_i;
      a_ns_q   <= ns;
      a_cnt_q  <= in_cnt_i;
      a_tail_q <= 120'(comb >> {ns, 7'b0000000});
      a_tcnt_q <= 4'(tot - {ns, 4'b0000});
      a_m_q    <= mp;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage A2: rotl(m, 13) * P1
  logic            a2_last_q;
  logic [1:0]      a2_ns_q;
  logic [NW*32-1:0] a2_m_q, a2_mm_q, mmp;
  logic [15*8-1:0] a2_tail_q;
  logic [3:0]      a2_tcnt_q;
  logic [CW-1:0]   a2_cnt_q;

  for (genvar w = 0; w < NW; w++) begin : gen_mmp
    logic [31:0] ps, pc, unused_co;
    xxh_cmul #(.W(32), .C(P1), .NX(1), .NA(1)) u_mul (
      .x_i(rotl(a_m_q[w*32 +: 32], 13)), .a_i(32'd0), .sum_o(ps), .carry_o(pc)
    );
    pfx_add #(.W(32)) u_add (.a_i(ps), .b_i(pc), .ci_i(1'b0), .sum_o(mmp[w*32 +: 32]), .co_o(unused_co));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) a2_v_q <= 1'b0;
    else if (a2_go) a2_v_q <= 1'b1;
    else if (b_take) a2_v_q <= 1'b0;
  end

  always_ff @(posedge clk_i) begin
    if (a2_go) begin
      a2_last_q <= a_last_q;
      a2_ns_q   <= a_ns_q;
      a2_cnt_q  <= a_cnt_q;
      a2_tail_q <= a_tail_q;
      a2_tcnt_q <= a_tcnt_q;
      a2_m_q    <= a_m_q;
      a2_mm_q   <= mmp;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage B: lane accumulators v = s + c + Kc(k), up to NS rounds per cycle
  logic [127:0] vs_q, vc_q;          // lane l at bits l*32 +: 32
  logic [15:0]  vk_q;                // lane l at bits l*4 +: 4 (the round's {K32, K19})
  logic [31:0]  len_q, len_n;
  logic [127:0] bs_q, bc_q;          // a finished message handed to the finaliser
  logic [15:0]  bk_q;                // its k: the finaliser looks Kc(k) up
  logic [31:0]  blen_q;
  logic [15*8-1:0] btail_q;
  logic [3:0]   btcnt_q;
  // the accumulators after 0..NS rounds, the rounds chained unconditionally (no select between
  // them), and after the a2_ns_q rounds this cycle applies (fs, fc, fk)
  logic [(NS+1)*128-1:0] rs /* verilator split_var */, rc /* verilator split_var */;
  logic [(NS+1)*16-1:0]  rk /* verilator split_var */;
  logic [127:0] fs, fc;
  logic [15:0]  fk;
  logic [31:0]  unused_lco;

  assign rs[127:0]  = vs_q;
  assign rc[127:0]  = vc_q;
  assign rk[15:0]   = vk_q;
  for (genvar s = 0; s < NS; s++) begin : gen_round
    for (genvar l = 0; l < 4; l++) begin : gen_lane
      lane_xxh32_round #(.Select(s > 0)) u_round (
        .s_i(rs[s*128 + l*32 +: 32]), .c_i(rc[s*128 + l*32 +: 32]), .k_i(rk[s*16 + l*4 +: 4]),
        .m_i(a2_m_q[(s*4 + l)*32 +: 32]), .mm_i(a2_mm_q[(s*4 + l)*32 +: 32]),
        .s_o(rs[(s+1)*128 + l*32 +: 32]), .c_o(rc[(s+1)*128 + l*32 +: 32]), .k_o(rk[(s+1)*16 + l*4 +: 4])
      );
    end
  end
  logic [127:0] as [4], ac [4];   // indexed by a2_ns_q (0..NS)
  logic [15:0]  ak [4];
  for (genvar s = 0; s < 4; s++) begin : gen_after
    if (s <= NS) begin : gen_r
      assign as[s] = rs[s*128 +: 128];
      assign ac[s] = rc[s*128 +: 128];
      assign ak[s] = rk[s*16 +: 16];
    end else begin : gen_none
      assign as[s] = '0;
      assign ac[s] = '0;
      assign ak[s] = '0;
    end
  end
  assign fs = as[a2_ns_q];
  assign fc = ac[a2_ns_q];
  assign fk = ak[a2_ns_q];
  pfx_add #(.W(32)) u_len (
    .a_i(len_q), .b_i(32'(a2_cnt_q)), .ci_i(1'b0), .sum_o(len_n), .co_o(unused_lco)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vs_q     <= VInit;
      vc_q     <= '0;
      vk_q     <= '0;
      len_q    <= '0;
      b_pend_q <= 1'b0;
    end else begin
      if (b_take) begin
        if (a2_last_q) begin
          bs_q     <= fs;
          bc_q     <= fc;
          bk_q     <= fk;
          blen_q   <= len_n;
          btail_q  <= a2_tail_q;
          btcnt_q  <= a2_tcnt_q;
          b_pend_q <= 1'b1;
          vs_q     <= VInit;
          vc_q     <= '0;
          vk_q     <= '0;
          len_q    <= '0;
        end else begin
          vs_q  <= fs;
          vc_q  <= fc;
          vk_q  <= fk;
          len_q <= len_n;
        end
      end
      if (b_pend_q && !fin_busy) b_pend_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Finaliser: h in carry-save form (hs_q + hc_q) between its steps, so a step is one 3:2 level,
  // one adder (the rotation and the xor-shifts need h itself) and one constant multiply tree
  typedef enum logic [2:0] {FIdle, FWord, FByte, FAv1, FAv2, FFin, FDone} fst_e;
  fst_e        fst_q;
  logic [31:0] hs_q, hc_q;    // h between the steps
  logic [31:0] h_q;           // the hash (FDone)
  logic [3:0]  fn_q, fi_q;    // bytes left over, next index
  logic [31:0] fw_q [3];      // the 4-byte words left over * P3
  logic [31:0] fb_q [3];      // the bytes after them * P5
  logic [95:0] fwp, fbp;
  logic [127:0] bv;           // the resolved accumulators of the message taken

  // h0: the accumulators' rotated sum (or P5 below 16 bytes) plus the length, as a pair
  for (genvar l = 0; l < 4; l++) begin : gen_bv
    logic [31:0] ts, tc, unused_co;
    csa_tree #(.W(32), .N(3)) u_t (
      .rows_i({lane_pkg::xxh32_kc(bk_q[l*4 +: 4]), bc_q[l*32 +: 32], bs_q[l*32 +: 32]}), .sum_o(ts), .carry_o(tc)
    );
    pfx_add #(.W(32)) u_a (.a_i(ts), .b_i(tc), .ci_i(1'b0), .sum_o(bv[l*32 +: 32]), .co_o(unused_co));
  end
  logic        blong;
  logic [31:0] h0s, h0c;
  assign blong = |blen_q[31:4];
  csa_tree #(.W(32), .N(5)) u_h0 (
    .rows_i({blen_q, blong ? rotl(bv[127:96], 18) : 32'd0, blong ? rotl(bv[95:64], 12) : 32'd0,
             blong ? rotl(bv[63:32], 7) : 32'd0, blong ? rotl(bv[31:0], 1) : P5}),
    .sum_o(h0s), .carry_o(h0c)
  );

  // the step's value t = h + (this step's word or byte term), then its multiply
  logic [31:0] fadd, t3s, t3c, t, unused_tco;
  logic [31:0] x1s, x1c, x2s, x2c, x3s, x3c, x4s, x4c;
  assign fadd = (fst_q == FWord) ? fw_q[fi_q[3:2]] : ((fst_q == FByte) ? fb_q[fi_q[1:0]] : 32'd0);
  csa_tree #(.W(32), .N(3)) u_t3 (.rows_i({fadd, hc_q, hs_q}), .sum_o(t3s), .carry_o(t3c));
  pfx_add #(.W(32)) u_t (.a_i(t3s), .b_i(t3c), .ci_i(1'b0), .sum_o(t), .co_o(unused_tco));
  xxh_cmul #(.W(32), .C(P4), .NX(1), .NA(1)) u_hw (
    .x_i(rotl(t, 17)), .a_i(32'd0), .sum_o(x1s), .carry_o(x1c)
  );
  xxh_cmul #(.W(32), .C(P1), .NX(1), .NA(1)) u_hb (
    .x_i(rotl(t, 11)), .a_i(32'd0), .sum_o(x2s), .carry_o(x2c)
  );
  xxh_cmul #(.W(32), .C(P2), .NX(1), .NA(1)) u_av1 (
    .x_i(t ^ (t >> 15)), .a_i(32'd0), .sum_o(x3s), .carry_o(x3c)
  );
  xxh_cmul #(.W(32), .C(P3), .NX(1), .NA(1)) u_av2 (
    .x_i(t ^ (t >> 13)), .a_i(32'd0), .sum_o(x4s), .carry_o(x4c)
  );

  // the tail's words * P3 and bytes * P5, formed when the message is taken
  for (genvar i = 0; i < 3; i++) begin : gen_tail
    logic [31:0] ws, wc, ys, yc, unused_wco, unused_yco;
    xxh_cmul #(.W(32), .C(P3), .NX(1), .NA(1)) u_w (
      .x_i(btail_q[i*32 +: 32]), .a_i(32'd0), .sum_o(ws), .carry_o(wc)
    );
    pfx_add #(.W(32)) u_wa (.a_i(ws), .b_i(wc), .ci_i(1'b0), .sum_o(fwp[i*32 +: 32]), .co_o(unused_wco));
    xxh_cmul #(.W(32), .C(P5), .NX(1), .NA(1)) u_b (
      .x_i(32'(btail_q[(7'({btcnt_q[3:2], 2'b00}) + 7'(i)) * 7'd8 +: 8])), .a_i(32'd0),
      .sum_o(ys), .carry_o(yc)
    );
    pfx_add #(.W(32)) u_ba (.a_i(ys), .b_i(yc), .ci_i(1'b0), .sum_o(fbp[i*32 +: 32]), .co_o(unused_yco));
  end

  assign fin_busy     = (fst_q != FIdle);
  assign hash_valid_o = (fst_q == FDone);
  assign hash_o       = h_q;

  always_ff @(posedge clk_i) begin
    if (fst_q == FIdle && b_pend_q) begin
      for (int i = 0; i < 3; i++) begin
        fw_q[i] <= fwp[i*32 +: 32];
        fb_q[i] <= fbp[i*32 +: 32];
      end
    end
    unique case (fst_q)
      FIdle: begin
        hs_q <= h0s;
        hc_q <= h0c;
      end
      FWord: begin
        hs_q <= x1s;
        hc_q <= x1c;
      end
      FByte: begin
        hs_q <= x2s;
        hc_q <= x2c;
      end
      FAv1: begin
        hs_q <= x3s;
        hc_q <= x3c;
      end
      FAv2: begin
        hs_q <= x4s;
        hc_q <= x4c;
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fst_q <= FIdle;
      h_q   <= '0;
    end else begin
      unique case (fst_q)
        FIdle: if (b_pend_q) begin
          fn_q  <= btcnt_q;
          fi_q  <= '0;
          fst_q <= (btcnt_q >= 4'd4) ? FWord : ((btcnt_q != '0) ? FByte : FAv1);
        end
        FWord: begin
          fi_q <= fi_q + 4'd4;
          if (fn_q - fi_q - 4'd4 >= 4'd4) fst_q <= FWord;
          else if (fn_q - fi_q - 4'd4 != '0) fst_q <= FByte;
          else fst_q <= FAv1;
        end
        FByte: begin
          fi_q <= fi_q + 4'd1;
          if (fi_q + 4'd1 == fn_q) fst_q <= FAv1;
        end
        FAv1: fst_q <= FAv2;
        FAv2: fst_q <= FFin;
        FFin: begin
          h_q   <= t ^ (t >> 16);
          fst_q <= FDone;
        end
        FDone: if (hash_ready_i) fst_q <= FIdle;
        default: fst_q <= FIdle;
      endcase
    end
  end

  `NDP_ASSERT_INIT(params_a, InBytes % 16 == 0 && InBytes >= 16 && InBytes <= 48)
  `NDP_ASSERT(cnt_a, !in_valid_i || 32'(in_cnt_i) <= InBytes)
  `NDP_ASSERT_STREAM(hash_stream_a, hash_valid_o, hash_ready_i, hash_o)
endmodule
