// bp_asm_dec: lane stage 1 of the region converter (docs/spec.md section 5.2): classify the source
// element v' and normalise it to sig * 2^(te - ManBits) with sig's MSB set (subnormal sources shift
// their leading one up), then express te against the target: dp = te - X - emin + 1 (the target's
// biased exponent when >= 1; X is the MX shared exponent, 0 outside MX, emin the target's minimum
// normal exponent) and shw = (ManBits - m) - (dp - 1), the alignment shift of a subnormal result.
// With E' = e for a normal source and -lz for a subnormal one, dp = E' - xoffp and shw =
// kshift - E', where bp_asm_mx supplies xoffp and kshift per beat: one subtraction each.
//
/// Purely combinational; registered by the parent (bp_assembler) before bp_asm_align.
`include "ndp_assert.svh"

module bp_asm_dec #(
  parameter int unsigned ExpBits = 8,
  parameter int unsigned ManBits = 7,
  localparam int unsigned ElemBits = 1 + ExpBits + ManBits,
  localparam int unsigned TW = ExpBits + 4
) (
  input  logic [ElemBits-1:0] elem_i,    // v', natural encoding
  input  logic [TW-1:0]       xoffp_i,   // Bias - bt + X (signed)
  input  logic [TW-1:0]       kshift_i,  // xoffp + 1 + ManBits - m (signed)
  output logic                s_o,
  output logic                nan_o,
  output logic                inf_o,
  output logic                zero_o,
  output logic [ManBits:0]    sig_o,     // normalised significand (NaN: {1, payload})
  output logic [TW-1:0]       dp_o,      // te - X - emin + 1 (signed)
  output logic [TW-1:0]       shw_o      // ManBits - m - (te - X - emin) (signed)
);
  localparam int unsigned MW = $clog2(ManBits + 1);

  logic [ExpBits-1:0] e;
  logic [ManBits-1:0] f;
  logic [MW-1:0]      lz;
  logic [TW-1:0]      ep;

  assign s_o    = elem_i[ElemBits-1];
  assign e      = elem_i[ManBits +: ExpBits];
  assign f      = elem_i[ManBits-1:0];
  assign nan_o  = (e == '1) && (f != '0);
  assign inf_o  = (e == '1) && (f == '0);
  assign zero_o = (e == '0) && (f == '0);

  always_comb begin
    lz = '0;
    for (int i = 0; i < ManBits; i++) begin
      if (f[i]) lz = MW'(ManBits - 1 - i);  // the highest set bit wins (last assignment)
    end
  end
  always_comb begin
    if (e != '0) begin
      sig_o = {1'b1, f};
      ep    = TW'(e);
    end else begin
      sig_o = {f, 1'b0} << lz;
      ep    = TW'(0) - TW'(lz);
    end
  end
  assign dp_o  = ep - xoffp_i;
  assign shw_o = kshift_i - ep;

  `NDP_ASSERT_INIT(params_a, ExpBits >= 5 && ExpBits <= 8 && ManBits >= 3)
endmodule
