// lane_xxh32_round: one XXH32 lane round v' = rotl(v + m, 13) * P1 (mod 2^32) on an accumulator
// held in carry-save form with a deferred correction, so that rounds chain without a
// carry-propagate adder between them (lane_xxh32 applies two per cycle at 32 B/cycle).
//
/// Purely combinational. The accumulator is v = s + c + Kc(k) (mod 2^32), where k = {K32, K19}
/// (two bits each) selects Kc = K19 * P1 - K32 * (P1 << 13). With x = v + m = s + c + Kc + m and
/// rotl(a + b + ..., 13) = rotl(a, 13) + rotl(b, 13) + ... + K19 - (K32 << 13), where K19 is the
/// carry of the four low 19-bit parts into bit 19 and K32 the carry out of bit 31 of the four-operand
/// sum (0..3 each):
///   v' = P1 * rotl(s, 13) + P1 * rotl(c, 13) + P1 * rotl(Kc, 13) + mm + Kc(k')
/// with mm = P1 * rotl(m, 13) formed a stage earlier, P1 * rotl(Kc, 13) a 16-entry constant table
/// and k' = {K32, K19} of this round. So the new pair is one xxh_cmul tree (two operands times P1
/// and two addend rows) and k' comes from carry trees (pfx_carry) that run beside it; nothing on
/// the accumulator path is a carry-propagate adder. Whoever resolves the accumulator
/// (s + c + Kc(k)) looks Kc up from a registered k (lane_xxh32's finaliser).
///
/// Select = 1 (a round chained behind another in the same cycle, whose k_i arrives late): k' is
/// formed for each of the 16 values of k (s + c + m is one 3:2 level shared by all, each
/// candidate adds its constant Kc and takes two carries) and k_i only selects among them, so the
/// chain of k through the rounds is one 16:1 select per round instead of a table, a 3:2 level
/// and a carry tree.
`include "ndp_assert.svh"

module lane_xxh32_round #(
  parameter bit Select = 1'b0
) (
  input  logic [31:0] s_i,
  input  logic [31:0] c_i,
  input  logic [3:0]  k_i,     // {K32, K19} of the previous round
  input  logic [31:0] m_i,     // lane word * P2
  input  logic [31:0] mm_i,    // rotl(m, 13) * P1
  output logic [31:0] s_o,
  output logic [31:0] c_o,
  output logic [3:0]  k_o
);
  localparam logic [31:0] P1 = lane_pkg::XxhP1;
  localparam int unsigned NC = Select ? 16 : 1;   // k' candidates

  function automatic logic [31:0] rotl(input logic [31:0] x, input int r);
    rotl = (x << r) | (x >> (32 - r));
  endfunction
  // Kc for k = 0..15 ({K32, K19}: lane_pkg::xxh32_kc), and P1 * rotl(Kc, 13)
  function automatic logic [511:0] kc_table();
    for (int i = 0; i < 16; i++) kc_table[i*32 +: 32] = lane_pkg::xxh32_kc(4'(i));
  endfunction
  function automatic logic [511:0] kr_table(input logic [31:0] p);
    logic [511:0] t;
    t = kc_table();
    for (int i = 0; i < 16; i++) kr_table[i*32 +: 32] = p * rotl(t[i*32 +: 32], 13);
  endfunction
  localparam logic [511:0] KCT = kc_table();
  localparam logic [511:0] KRT = kr_table(P1);

  logic [31:0] kr;
  assign kr = KRT[k_i*32 +: 32];

  // the new pair: P1 * (rotl(s) + rotl(c)) + mm + P1 * rotl(Kc)
  // arrivals in csa_tree units (half an XOR): behind another round the operands come from its
  // tree (about 28) and mm from a register; kr follows k_i through a 16-entry table
  localparam logic [7:0] XA = Select ? 8'd28 : 8'd0;
  xxh_cmul #(.W(32), .C(P1), .NX(2), .NA(2), .XArr(XA), .AArr({XA + (Select ? 8'd24 : 8'd10), 8'd0})) u_mul (
    .x_i({rotl(c_i, 13), rotl(s_i, 13)}), .a_i({kr, mm_i}), .sum_o(s_o), .carry_o(c_o)
  );

  // k' = {K32, K19} of s + c + m + Kc: s + c + m as a carry-save pair (33 bits: the sum is
  // below 3 * 2^32), then per candidate Kc one more 3:2 level and the two carries
  logic [33:0] ts, tc;
  csa_tree #(.W(34), .N(3)) u_scm (
    .rows_i({34'(m_i), 34'(c_i), 34'(s_i)}), .sum_o(ts), .carry_o(tc)
  );
  // (* keep *): the candidates are functions of s, c and m only; without the boundary ABC folds
  // the select back into them (one adder on Kc(k_i) again) and k_i's path is a carry tree long
  (* keep *) logic [NC*4-1:0] kcand;
  for (genvar j = 0; j < NC; j++) begin : gen_cand
    logic [31:0] kc;
    logic [33:0] us, uc;
    logic [20:0] ls, lc;
    logic        c32, c19;
    if (Select) begin : gen_const
      assign kc = KCT[j*32 +: 32];
    end else begin : gen_table
      assign kc = KCT[k_i*32 +: 32];
    end
    // K32: bits 33..32 of the four-operand sum
    assign us = ts ^ tc ^ 34'(kc);
    assign uc = ((ts & tc) | (ts & 34'(kc)) | (tc & 34'(kc))) << 1;
    pfx_carry #(.W(32)) u_c32 (.a_i(us[31:0]), .b_i(uc[31:0]), .co_o(c32));
    // K19: bits 20..19 of the sum of the four low 19-bit parts. The pair's bits 18..0 and its
    // carry row's bit 19 (bit 18's carry) are the same 3:2 level on the truncated operands
    assign ls = {1'b0, tc[19], ts[18:0] ^ tc[18:0] ^ kc[18:0]};
    assign lc = {1'b0, (ts[18:0] & tc[18:0]) | (ts[18:0] & kc[18:0]) | (tc[18:0] & kc[18:0]), 1'b0};
    pfx_carry #(.W(19)) u_c19 (.a_i(ls[18:0]), .b_i(lc[18:0]), .co_o(c19));
    assign kcand[j*4 +: 4] = {2'(us[33:32] + uc[33:32] + 2'(c32)), 2'(ls[20:19] + lc[20:19] + 2'(c19))};
  end
  if (Select) begin : gen_sel
    assign k_o = kcand[k_i*4 +: 4];
  end else begin : gen_one
    assign k_o = kcand;
  end
endmodule
