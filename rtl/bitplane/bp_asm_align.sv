// bp_asm_align: lane stage 2 of the region converter: place the normalised significand in the
// target format and find the rounding increment (round to nearest, ties to even, on v' exactly).
//
// Normal target (dp >= 1): code q0 = (dp << m) | top m fraction bits, shifted out = the
// ManBits - m bits below. Subnormal target (dp <= 0): q0 = sig >> shw (the hidden bit moves into
// the fraction), everything below shifted out (bp_asm_dec gives dp and shw). Both are the
// target's {exponent, mantissa} code before rounding, so a rounding carry runs from the
// mantissa into the exponent.
//
/// Purely combinational; registered by the parent before bp_asm_round.
`include "ndp_assert.svh"

module bp_asm_align #(
  parameter int unsigned ExpBits = 8,
  parameter int unsigned ManBits = 7,
  localparam int unsigned TW = ExpBits + 4,
  localparam int unsigned MW = $clog2(ManBits + 1),
  localparam int unsigned QW = TW - 1 + ManBits + 1
) (
  input  logic [ManBits:0] sig_i,
  input  logic [TW-1:0]    dp_i,
  input  logic [TW-1:0]    shw_i,
  input  logic             nan_i,
  input  logic             zero_i,
  input  logic [MW-1:0]    m_i,    // target mantissa bits
  input  logic [MW-1:0]    mm_i,   // ManBits - m
  output logic [QW-1:0]    q0_o,   // code before rounding (NaN: the source payload)
  output logic             inc_o   // round up by one code
);
  localparam int unsigned SW = $clog2(ManBits + 3);
  localparam int unsigned XW = 2 * ManBits + 3;

  logic          neg, rnd, sticky;
  logic [SW-1:0] sh;
  logic [XW-1:0] ext;
  logic [ManBits:0] qs, fmask, frac;


  assign neg = dp_i[TW-1] || (dp_i == '0);
  always_comb begin
    if (!neg) sh = SW'(mm_i);
    else if ($signed(shw_i) > $signed(TW'(ManBits + 2))) sh = SW'(ManBits + 2);
    else sh = SW'(shw_i);
  end
  assign ext    = {sig_i, {(ManBits + 2){1'b0}}} >> sh;
  assign qs     = ext[XW-1 -: ManBits + 1];
  assign rnd    = ext[ManBits + 1];
  assign sticky = (ext[ManBits:0] != '0);
  assign fmask  = ~({(ManBits + 1){1'b1}} << m_i);
  assign frac   = qs & fmask;

  always_comb begin
    if (nan_i) q0_o = QW'(sig_i[ManBits-1:0]);
    else if (zero_i) q0_o = '0;
    else if (neg) q0_o = QW'(qs);
    else q0_o = (QW'(dp_i) << m_i) | QW'(frac);
  end
  assign inc_o = !nan_i && !zero_i && rnd && (sticky || q0_o[0]);

  `NDP_ASSERT_INIT(params_a, ManBits >= 3)
endmodule
