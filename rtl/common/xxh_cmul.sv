// xxh_cmul: the sum of NX operands times a constant C plus NA addends, mod 2^W, as a carry-save
// pair: sum_o + carry_o == C * (x_0 + ... + x_{NX-1}) + a_0 + ... + a_{NA-1} (mod 2^W). The
// constant multiplies of XXH32 and XXH64 (primes P1..P5), shared by lane_xxh32 and zstd_xxh64.
//
/// Purely combinational: one csa_tree over the shifted operands of C in canonical signed-digit
/// form (C = CP - CN with no two adjacent digits: about W/3 rows instead of popcount(C)), the
/// addends and one constant row; no carry-propagate adder, so a pipeline can register the pair and
/// add it (pfx_add) in the next stage, or feed it to the next tree. A digit -2^i of C contributes
/// (~x) << i and the constant 2^i ((~x) << i == -(x << i) - 2^i mod 2^W), so the constant row is
/// NX * CN.
`include "ndp_assert.svh"

module xxh_cmul #(
  parameter int unsigned    W  = 64,
  parameter logic [W-1:0]   C  = '1,
  parameter int unsigned    NX = 1,
  parameter int unsigned    NA = 1,
  parameter logic [7:0]     XArr = '0,      // the operands' arrival (csa_tree's Arr units)
  parameter logic [NA*8-1:0] AArr = '0      // addend k's arrival at bits k*8 +: 8
) (
  input  logic [NX*W-1:0] x_i,     // operand k at bits k*W +: W
  input  logic [NA*W-1:0] a_i,     // addend k at bits k*W +: W (tie unused ones to '0); the
                                   // addends enter the tree last, the highest k latest
  output logic [W-1:0]    sum_o,
  output logic [W-1:0]    carry_o
);
  // canonical signed-digit form of c mod 2^W: {negative digits, positive digits}
  function automatic logic [2*W-1:0] csd(input logic [W-1:0] c);
    logic [W+1:0] v;
    logic [W-1:0] dp, dn;
    v  = {2'b00, c};
    dp = '0;
    dn = '0;
    for (int i = 0; i < W; i++) begin
      if (v[0] && v[1]) begin
        dn[i] = 1'b1;
        v     = v + 1'b1;
      end else if (v[0]) begin
        dp[i] = 1'b1;
        v     = v - 1'b1;
      end
      v = v >> 1;
    end
    csd = {dn, dp};
  endfunction
  // digits of d below bit i
  function automatic int unsigned below(input logic [W-1:0] d, input int unsigned i);
    int unsigned c;
    c = 0;
    for (int unsigned j = 0; j < W; j++) if (j < i && d[j]) c = c + 1;
    below = c;
  endfunction

  localparam logic [2*W-1:0] D  = csd(C);
  localparam logic [W-1:0]   CP = D[W-1:0];
  localparam logic [W-1:0]   CN = D[2*W-1:W];
  localparam logic [W-1:0]   DG = CP | CN;
  localparam int unsigned    ND = below(DG, W);      // digits per operand
  localparam int unsigned    N  = NX * ND + 1 + NA;  // operand rows, constant row, addends

  logic [N*W-1:0] rows;

  assign rows[(NX*ND + 1)*W +: NA*W] = a_i;   // last: the rows that enter the tree latest
  for (genvar k = 0; k < NX; k++) begin : gen_x
    for (genvar i = 0; i < W; i++) begin : gen_digit
      if (DG[i]) begin : gen_row
        localparam int unsigned R = k * ND + below(DG, i);
        if (CP[i]) begin : gen_pos
          assign rows[R*W +: W] = x_i[k*W +: W] << i;
        end else begin : gen_neg
          assign rows[R*W +: W] = (~x_i[k*W +: W]) << i;
        end
      end
    end
  end
  assign rows[NX*ND*W +: W] = W'(NX) * CN;

  // the rows' arrivals for the tree: operand rows XArr, the constant row 0, the addends AArr
  function automatic logic [N*8-1:0] arrivals();
    arrivals = '0;
    for (int unsigned r = 0; r < NX * ND; r++) arrivals[r*8 +: 8] = XArr;
    arrivals[(NX*ND + 1)*8 +: NA*8] = AArr;
  endfunction

  csa_tree #(.W(W), .N(N), .Arr(arrivals())) u_tree (.rows_i(rows), .sum_o(sum_o), .carry_o(carry_o));

  `NDP_ASSERT_INIT(params_a, NX >= 1 && NA >= 1 && W >= 2)
endmodule
