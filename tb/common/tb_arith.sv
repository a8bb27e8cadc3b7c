// tb_arith: test top that exposes the rtl/common arithmetic cells to the C++ harness
// (tb/common/test_arith.cc). All combinational, each instance independent:
//   p64: pfx_add W=64   p21: pfx_add W=21   t32: csa_tree W=32, N=7 rows
//   t25: csa_tree W=32, N=25 rows with staggered arrivals (Arr: row k at (7k mod 40))
//   m64: xxh_cmul W=64, C = XXH64 P1, 2 operands, 2 addends
//   m32: xxh_cmul W=32, C = XXH32 P2, 1 operand, 1 addend
//   c32, c19: pfx_carry W=32 and an odd W=19 (a padded tree)
//   i64: pfx_inc W=64, B=8 (the device's counters)
module tb_arith (
  input  logic [63:0]  p64_a_i,
  input  logic [63:0]  p64_b_i,
  input  logic         p64_ci_i,
  output logic [63:0]  p64_sum_o,
  output logic [63:0]  p64_co_o,
  input  logic [20:0]  p21_a_i,
  input  logic [20:0]  p21_b_i,
  input  logic         p21_ci_i,
  output logic [20:0]  p21_sum_o,
  output logic [20:0]  p21_co_o,
  input  logic [223:0] t32_rows_i,
  output logic [31:0]  t32_sum_o,
  output logic [31:0]  t32_carry_o,
  input  logic [799:0] t25_rows_i,
  output logic [31:0]  t25_sum_o,
  output logic [31:0]  t25_carry_o,
  input  logic [127:0] m64_x_i,
  input  logic [127:0] m64_a_i,
  output logic [63:0]  m64_sum_o,
  output logic [63:0]  m64_carry_o,
  input  logic [31:0]  m32_x_i,
  input  logic [31:0]  m32_a_i,
  output logic [31:0]  m32_sum_o,
  output logic [31:0]  m32_carry_o,
  input  logic [31:0]  c32_a_i,
  input  logic [31:0]  c32_b_i,
  output logic         c32_co_o,
  input  logic [18:0]  c19_a_i,
  input  logic [18:0]  c19_b_i,
  output logic         c19_co_o,
  input  logic [63:0]  i64_a_i,
  input  logic [7:0]   i64_b_i,
  output logic [63:0]  i64_sum_o
);
  pfx_add #(.W(64)) u_p64 (.a_i(p64_a_i), .b_i(p64_b_i), .ci_i(p64_ci_i), .sum_o(p64_sum_o),
                           .co_o(p64_co_o));
  pfx_add #(.W(21)) u_p21 (.a_i(p21_a_i), .b_i(p21_b_i), .ci_i(p21_ci_i), .sum_o(p21_sum_o),
                           .co_o(p21_co_o));
  csa_tree #(.W(32), .N(7)) u_t32 (.rows_i(t32_rows_i), .sum_o(t32_sum_o), .carry_o(t32_carry_o));
  function automatic logic [199:0] t25_arr();
    for (int k = 0; k < 25; k++) t25_arr[k*8 +: 8] = 8'((7 * k) % 40);
  endfunction
  csa_tree #(.W(32), .N(25), .Arr(t25_arr())) u_t25 (
    .rows_i(t25_rows_i), .sum_o(t25_sum_o), .carry_o(t25_carry_o));
  xxh_cmul #(.W(64), .C(64'h9E37_79B1_85EB_CA87), .NX(2), .NA(2)) u_m64 (
    .x_i(m64_x_i), .a_i(m64_a_i), .sum_o(m64_sum_o), .carry_o(m64_carry_o));
  xxh_cmul #(.W(32), .C(32'h85EB_CA77), .NX(1), .NA(1)) u_m32 (
    .x_i(m32_x_i), .a_i(m32_a_i), .sum_o(m32_sum_o), .carry_o(m32_carry_o));
  pfx_carry #(.W(32)) u_c32 (.a_i(c32_a_i), .b_i(c32_b_i), .co_o(c32_co_o));
  pfx_carry #(.W(19)) u_c19 (.a_i(c19_a_i), .b_i(c19_b_i), .co_o(c19_co_o));
  pfx_inc #(.W(64), .B(8)) u_i64 (.a_i(i64_a_i), .b_i(i64_b_i), .sum_o(i64_sum_o));
endmodule
