// csa_tree: N addends of W bits reduced to a carry-save pair (sum_o + carry_o == the sum of the
// rows, mod 2^W) by levels of 3:2 carry-save adders (Wallace).
//
/// Purely combinational; no carry-propagate adder (add the pair with pfx_add where the value is
/// needed). ceil(log1.5(N / 2)) levels of one full adder each. Rows are taken in order and the
/// rows that do not fill a group of three pass a level unchanged, so put late-arriving rows last:
/// they then enter the tree at its last levels.
`include "ndp_assert.svh"

module csa_tree #(
  parameter int unsigned W = 32,
  parameter int unsigned N = 3
) (
  input  logic [N*W-1:0] rows_i,   // row k at bits k*W +: W
  output logic [W-1:0]   sum_o,
  output logic [W-1:0]   carry_o
);
  // rows left after l levels
  function automatic int unsigned rows_at(input int unsigned n, input int unsigned l);
    int unsigned c;
    c = n;
    for (int unsigned i = 0; i < l; i++) c = (c > 2) ? 2 * (c / 3) + c % 3 : c;
    rows_at = c;
  endfunction
  function automatic int unsigned levels(input int unsigned n);
    int unsigned c;
    c = 0;
    for (int unsigned i = 0; i < 32; i++) if (rows_at(n, i) > 2) c = i + 1;
    levels = c;
  endfunction
  localparam int unsigned L = levels(N);
  localparam int unsigned NP = (N < 2) ? 2 : N;   // row slots per level

  logic [(L+1)*NP*W-1:0] lv /* verilator split_var */;   // level l, row k at bits (l*NP + k)*W +: W

  assign lv[0 +: NP*W] = (NP*W)'(rows_i);
  for (genvar l = 0; l < L; l++) begin : gen_lvl
    localparam int unsigned NL = rows_at(N, l);
    localparam int unsigned K = NL / 3;
    localparam int unsigned NN = 2 * K + NL % 3;
    for (genvar j = 0; j < K; j++) begin : gen_fa
      logic [W-1:0] a, b, c;
      assign a = lv[(l*NP + 3*j) * W +: W];
      assign b = lv[(l*NP + 3*j + 1) * W +: W];
      assign c = lv[(l*NP + 3*j + 2) * W +: W];
      assign lv[((l+1)*NP + 2*j) * W +: W]     = a ^ b ^ c;
      logic [W-2:0] m;   // carries out of bits 0..W-2
      assign m = (a[W-2:0] & b[W-2:0]) | (a[W-2:0] & c[W-2:0]) | (b[W-2:0] & c[W-2:0]);
      assign lv[((l+1)*NP + 2*j + 1) * W +: W] = {m[W-2:0], 1'b0};   // carries out of bit W-1 drop
    end
    for (genvar j = 0; j < NL % 3; j++) begin : gen_pass
      assign lv[((l+1)*NP + 2*K + j) * W +: W] = lv[(l*NP + 3*K + j) * W +: W];
    end
    if (NN < NP) begin : gen_zero
      assign lv[((l+1)*NP + NN) * W +: (NP - NN) * W] = '0;
    end
  end

  assign sum_o   = lv[L*NP*W +: W];
  assign carry_o = lv[(L*NP + 1) * W +: W];

  logic unused_lv;   // the empty row slots and the carries out of bit W-1
  assign unused_lv = ^lv;

  `NDP_ASSERT_INIT(params_a, N >= 1 && W >= 2)
endmodule
