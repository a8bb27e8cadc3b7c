// pfx_inc: a W-bit counter step a + b (mod 2^W) where b is small (B bits): the low B bits add in a
// pfx_add and the carry out of them increments the upper W - B bits through a prefix AND (each
// upper bit flips when the carry arrives and every upper bit below it is one), for 64-bit
// counters at the clock a full 64-bit pfx_add gives, at about a third of its cells.
//
/// Purely combinational. The prefix AND's levels are (* keep *) nets, as pfx_add's levels and for
/// the same reason (ABC's dc2 turns an unbroken prefix network back into a chain: the counters of
/// ndp_dev_csr, written as `+`, were a chain of OR4 gates of 1.18 ns); their fanout is two.
`include "ndp_assert.svh"

module pfx_inc #(
  parameter int unsigned W = 64,
  parameter int unsigned B = 8,
  localparam int unsigned U = W - B,                     // upper bits
  localparam int unsigned L = (U > 1) ? $clog2(U) : 1
) (
  input  logic [W-1:0] a_i,
  input  logic [B-1:0] b_i,
  output logic [W-1:0] sum_o
);
  logic [B-1:0] lo_co;
  pfx_add #(.W(B)) u_lo (.a_i(a_i[B-1:0]), .b_i(b_i), .ci_i(1'b0), .sum_o(sum_o[B-1:0]), .co_o(lo_co));

  // level l, bit j: AND of upper bits j - 2^l + 1 .. j (down to 0); level 0 the bits themselves
  (* keep *) logic [(L+1)*U-1:0] t /* verilator split_var */;
  assign t[U-1:0] = a_i[W-1:B];
  for (genvar l = 0; l < L; l++) begin : gen_lvl
    assign t[(l+1)*U +: U] = t[l*U +: U] & ((t[l*U +: U] << (1 << l)) | U'((64'd1 << (1 << l)) - 64'd1));
  end
  // upper bit j flips when the low part carries and bits 0 .. j - 1 are all one
  assign sum_o[W-1:B] = a_i[W-1:B] ^ ({U{lo_co[B-1]}} & {t[L*U +: U-1], 1'b1});

  logic unused_t;
  assign unused_t = ^{t[(L+1)*U-1], lo_co[B-2:0]};

  `NDP_ASSERT_INIT(params_a, B >= 2 && W > B + 1)
endmodule
