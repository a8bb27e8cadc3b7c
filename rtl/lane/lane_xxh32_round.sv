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
/// and two addend rows) and k' comes from two small trees and prefix adders that run beside it;
/// nothing on the accumulator path is a carry-propagate adder. Whoever resolves the accumulator
/// (s + c + Kc(k)) looks Kc up from a registered k (lane_xxh32's finaliser), so no table sits
/// behind k_o.
`include "ndp_assert.svh"

module lane_xxh32_round (
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

  logic [31:0] kc, kr;
  assign kc = KCT[k_i*32 +: 32];
  assign kr = KRT[k_i*32 +: 32];

  // the new pair: P1 * (rotl(s) + rotl(c)) + mm + P1 * rotl(Kc)
  xxh_cmul #(.W(32), .C(P1), .NX(2), .NA(2)) u_mul (
    .x_i({rotl(c_i, 13), rotl(s_i, 13)}), .a_i({kr, mm_i}), .sum_o(s_o), .carry_o(c_o)
  );

  // K19: carry of the four low 19-bit parts into bit 19; K32: carry out of the four-operand sum
  logic [20:0] ls, lc, lsum, unused_lco;
  logic [33:0] hs, hc, hsum, unused_hco;
  csa_tree #(.W(21), .N(4)) u_lo (
    .rows_i({21'(kc[18:0]), 21'(m_i[18:0]), 21'(c_i[18:0]), 21'(s_i[18:0])}),
    .sum_o(ls), .carry_o(lc)
  );
  pfx_add #(.W(21)) u_loa (.a_i(ls), .b_i(lc), .ci_i(1'b0), .sum_o(lsum), .co_o(unused_lco));
  csa_tree #(.W(34), .N(4)) u_hi (
    .rows_i({34'(kc), 34'(m_i), 34'(c_i), 34'(s_i)}), .sum_o(hs), .carry_o(hc)
  );
  pfx_add #(.W(34)) u_hia (.a_i(hs), .b_i(hc), .ci_i(1'b0), .sum_o(hsum), .co_o(unused_hco));

  assign k_o = {hsum[33:32], lsum[20:19]};

  logic unused_sum;
  assign unused_sum = ^{lsum[18:0], hsum[31:0]};
endmodule
