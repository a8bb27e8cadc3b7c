// pfx_carry: the carry out of a W-bit add a + b (no carry-in) as a prefix tree: ceil(log2(W))
// levels of group generate/propagate combines over W - 1 nodes, for where only the carry is
// wanted (pfx_add gives every sum bit and every carry at W log2 W nodes).
//
/// Purely combinational. The propagate of a bit is a | b (enough for a carry, and an OR is
/// faster than the XOR a sum needs). Unlike pfx_add's, the levels are not (* keep *) nets: a kept
/// net is an output of ABC's netlist whose loads ABC cannot see, so it neither buffers nor sizes
/// its driver (in lane_xxh32's carry-select rounds a level node shared by 16 candidate trees,
/// 33 loads, came out as one NOR2xp33 stage of 214 ps).
`include "ndp_assert.svh"

module pfx_carry #(
  parameter int unsigned W = 32,
  localparam int unsigned L = (W > 1) ? $clog2(W) : 1,
  localparam int unsigned WP = 1 << L    // W padded to a power of two with (g, p) = (0, 1)
) (
  input  logic [W-1:0] a_i,
  input  logic [W-1:0] b_i,
  output logic         co_o
);
  // level l holds 2^(L-l) groups of 2^l bits; group i at bits i of level l's slice
  logic [2*WP-2:0] g /* verilator split_var */, p /* verilator split_var */;

  assign g[WP-1:0] = WP'(a_i) & WP'(b_i);
  assign p[WP-1:0] = {{(WP-W){1'b1}}, a_i | b_i};
  for (genvar l = 0; l < L; l++) begin : gen_lvl
    localparam int unsigned B = 2 * WP - (2 * WP >> l);   // base of level l
    localparam int unsigned N = WP >> (l + 1);             // groups at level l + 1
    for (genvar i = 0; i < N; i++) begin : gen_grp
      assign g[B + (WP >> l) + i] = g[B + 2*i + 1] | (p[B + 2*i + 1] & g[B + 2*i]);
      assign p[B + (WP >> l) + i] = p[B + 2*i + 1] & p[B + 2*i];
    end
  end
  assign co_o = g[2*WP - 2];

  logic unused_p;
  assign unused_p = p[2*WP - 2];

  `NDP_ASSERT_INIT(params_a, W >= 2)
endmodule
