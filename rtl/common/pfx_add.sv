// pfx_add: W-bit adder with carry-in as a Kogge-Stone parallel prefix (log2(W) levels of
// generate/propagate), also giving the carry out of every bit.
//
/// Purely combinational. Yosys 0.23 maps `a + b` as a ripple-carry chain that ABC only partly
/// restructures (a 64-bit add took 1.15 ns in the ASAP7 flow of synth/); use this cell on adds that
/// sit on a block's critical path. co_o[i] is the carry out of bit i (into bit i + 1), so
/// co_o[W-1] is the carry out of the sum.
`include "ndp_assert.svh"

module pfx_add #(
  parameter int unsigned W = 32
) (
  input  logic [W-1:0] a_i,
  input  logic [W-1:0] b_i,
  input  logic         ci_i,
  output logic [W-1:0] sum_o,
  output logic [W-1:0] co_o
);
  localparam int unsigned L = (W > 1) ? $clog2(W) : 1;

  // level l holds the group generate/propagate of bits i down to i - 2^l + 1 (or bit 0)
  // (* keep *): ABC's dc2 (synth/abc_asic.script) rewrites an unbroken prefix network into a
  // near-ripple chain (64 bits: 290 -> 856 ps in its own estimate); kept level outputs stop that
  (* keep *) logic [(L+1)*W-1:0] g /* verilator split_var */, p /* verilator split_var */;
  logic [W-1:0]       p0;

  assign p0         = a_i ^ b_i;
  assign g[W-1:0]   = (a_i & b_i) | {{(W-1){1'b0}}, p0[0] & ci_i};
  assign p[W-1:0]   = {p0[W-1:1], 1'b0};   // bit 0's group reaches the carry-in: fully resolved

  for (genvar l = 0; l < L; l++) begin : gen_lvl
    // bits i >= 2^l combine with bit i - 2^l; the lower bits pass
    assign g[(l+1)*W +: W] = g[l*W +: W] | (p[l*W +: W] & (g[l*W +: W] << (1 << l)));
    assign p[(l+1)*W +: W] = p[l*W +: W] & ((p[l*W +: W] << (1 << l)) | ~({W{1'b1}} << (1 << l)));
  end

  assign co_o  = g[L*W +: W];
  assign sum_o = p0 ^ {co_o[W-2:0], ci_i};

  logic unused_p;
  assign unused_p = ^p[L*W +: W];

  `NDP_ASSERT_INIT(params_a, W >= 2)
endmodule
