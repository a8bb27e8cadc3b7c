// csa_tree: N addends of W bits reduced to a carry-save pair (sum_o + carry_o == the sum of the
// rows, mod 2^W) by levels of 3:2 carry-save adders (Wallace), wired by arrival time.
//
/// Purely combinational; no carry-propagate adder (add the pair with pfx_add where the value is
/// needed). ceil(log1.5(N / 2)) levels of one full adder each. At every level the rows are sorted
/// by estimated arrival (Arr gives each input row's, in units of half an XOR; a full adder's sum
/// comes 2 after the later of its first two inputs or with its third, plus 2; its carry 2 after its
/// latest input): the earliest three rows share an adder, and so on, with the latest row of each
/// group on the adder's last XOR and the rows that do not fill a group (the latest) passing the
/// level unchanged. So a carry row, ready a level before the sums beside it, meets the sums at the
/// adder's last XOR, and a late row (Arr) enters the tree at a later level.
`include "ndp_assert.svh"

module csa_tree #(
  parameter int unsigned     W   = 32,
  parameter int unsigned     N   = 3,
  parameter logic [N*8-1:0]  Arr = '0    // row k's arrival at bits k*8 +: 8 (0: all at once)
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

  // the rows' order at level lvl: slot k takes row ord[k*8 +: 8] of that level (a stable sort by
  // arrival); the arrivals of a level's rows follow from the previous level's order
  function automatic logic [NP*8-1:0] order(input int unsigned lvl);
    logic [NP*16-1:0] at, an;   // arrival of row i at bits i*16 +: 16 (this level, next level)
    logic [NP*8-1:0]  o;
    logic [7:0]  t;
    int unsigned n, k, a, b, c, m;
    for (int unsigned r = 0; r < NP; r++) at[r*16 +: 16] = (r < N) ? 16'(Arr[r*8 +: 8]) : 16'd0;
    n = N;
    o = '0;
    for (int unsigned l = 0; l <= lvl; l++) begin
      for (int unsigned i = 0; i < NP; i++) o[i*8 +: 8] = 8'(i);
      for (int unsigned i = 1; i < n; i++) begin   // insertion sort of slots 0..n-1
        for (int unsigned j = i; j > 0; j--) begin
          if (at[32'(o[(j-1)*8 +: 8])*16 +: 16] > at[32'(o[j*8 +: 8])*16 +: 16]) begin
            t = o[(j-1)*8 +: 8];
            o[(j-1)*8 +: 8] = o[j*8 +: 8];
            o[j*8 +: 8] = t;
          end
        end
      end
      if (l < lvl) begin
        k = n / 3;
        an = '0;
        for (int unsigned j = 0; j < k; j++) begin
          a = 32'(at[32'(o[(3*j)*8 +: 8])*16 +: 16]);
          b = 32'(at[32'(o[(3*j+1)*8 +: 8])*16 +: 16]);
          c = 32'(at[32'(o[(3*j+2)*8 +: 8])*16 +: 16]);
          m = (a > b) ? a : b;
          an[(2*j)*16 +: 16]   = 16'(((m + 2 > c) ? m + 2 : c) + 2);
          an[(2*j+1)*16 +: 16] = 16'(((m > c) ? m : c) + 2);
        end
        for (int unsigned j = 0; j < n % 3; j++) an[(2*k+j)*16 +: 16] = at[32'(o[(3*k+j)*8 +: 8])*16 +: 16];
        at = an;
        n = 2 * k + n % 3;
      end
    end
    order = o;
  endfunction
  // every level's order is a permutation of its rows
  function automatic bit orders_ok();
    logic [NP*8-1:0] o;
    logic [255:0]    seen;
    orders_ok = 1'b1;
    for (int unsigned q = 0; q < L; q++) begin
      o = order(q);
      seen = '0;
      for (int unsigned r = 0; r < rows_at(N, q); r++) seen[o[r*8 +: 8]] = 1'b1;
      for (int unsigned r = 0; r < rows_at(N, q); r++) if (!seen[8'(r)]) orders_ok = 1'b0;
    end
  endfunction

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
    localparam logic [NP*8-1:0] O = order(l);
    for (genvar j = 0; j < K; j++) begin : gen_fa
      logic [W-1:0] a, b, c;
      assign a = lv[l*NP + 32'(O[(3*j)*8 +: 8])];
      assign b = lv[l*NP + 32'(O[(3*j+1)*8 +: 8])];
      assign c = lv[l*NP + 32'(O[(3*j+2)*8 +: 8])];
      assign lv[(l+1)*NP + 2*j]     = (a ^ b) ^ c;
      // carries out of bits 0..W-2 move up one bit; the carry out of bit W-1 drops
      assign lv[(l+1)*NP + 2*j + 1] = ((a & b) | (a & c) | (b & c)) << 1;
    end
    for (genvar j = 0; j < NL % 3; j++) begin : gen_pass
      assign lv[(l+1)*NP + 2*K + j] = lv[l*NP + 32'(O[(3*K+j)*8 +: 8])];
    end
    for (genvar j = NN; j < NP; j++) begin : gen_zero
      assign lv[(l+1)*NP + j] = '0;
    end
  end

  assign sum_o   = lv[L*NP];
  assign carry_o = lv[L*NP + 1];

  `NDP_ASSERT_INIT(params_a, N >= 1 && W >= 2 && N <= 255)
  `NDP_ASSERT_INIT(orders_a, orders_ok())
endmodule
