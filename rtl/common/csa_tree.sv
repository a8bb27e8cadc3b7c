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

  // level l, row k in lv[l*NP + k]: one word per row, so a simulator evaluates each full adder as
  // three word operations (a packed (L+1)*NP*W-bit vector made Verilator copy it per assignment)
  logic [W-1:0] lv [(L+1)*NP] /* verilator split_var */;

  for (genvar k = 0; k < NP; k++) begin : gen_in
    if (k < N) begin : gen_row
      assign lv[k] = rows_i[k*W +: W];
    end else begin : gen_zero
      assign lv[k] = '0;
    end
  end
  for (genvar l = 0; l < L; l++) begin : gen_lvl
    localparam int unsigned NL = rows_at(N, l);
    localparam int unsigned K = NL / 3;
    localparam int unsigned NN = 2 * K + NL % 3;
    for (genvar j = 0; j < K; j++) begin : gen_fa
      logic [W-1:0] a, b, c;
      assign a = lv[l*NP + 3*j];
      assign b = lv[l*NP + 3*j + 1];
      assign c = lv[l*NP + 3*j + 2];
      assign lv[(l+1)*NP + 2*j]     = a ^ b ^ c;
      // carries out of bits 0..W-2 move up one bit; the carry out of bit W-1 drops
      assign lv[(l+1)*NP + 2*j + 1] = ((a & b) | (a & c) | (b & c)) << 1;
    end
    for (genvar j = 0; j < NL % 3; j++) begin : gen_pass
      assign lv[(l+1)*NP + 2*K + j] = lv[l*NP + 3*K + j];
    end
    for (genvar j = NN; j < NP; j++) begin : gen_zero
      assign lv[(l+1)*NP + j] = '0;
    end
  end

  assign sum_o   = lv[L*NP];
  assign carry_o = lv[L*NP + 1];

  `NDP_ASSERT_INIT(params_a, N >= 1 && W >= 2)
endmodule
