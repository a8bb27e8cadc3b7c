// bp_asm_cvt: one lane of the region converter (docs/spec.md section 5.2): source element v'
// (mantissa bits below the fetched ones already zero) to the region's output code.
//
// Method: normalise v' to sig * 2^(te - ManBits) with sig's MSB set, then place it in the target:
// q = max(0, te - emin) << m  +  sig >> sh,   sh = ManBits - m + max(0, emin - te),
// which is the target's {exponent, mantissa} code for normal and subnormal results alike; round
// to nearest even on the bits shifted out (round bit + sticky), let the carry run into the
// exponent, then apply the overflow rule (saturate or infinity) and the NaN/Inf rules.
//
/// Purely combinational. The format parameters (`m_i`, `emin_i`, `maxcode_i`, `shift_i`) are
/// registered per command by the parent; `xscale_i` is the MX shared exponent (0 otherwise).
`include "ndp_assert.svh"

module bp_asm_cvt #(
  parameter int unsigned ExpBits = 8,
  parameter int unsigned ManBits = 7,
  localparam int unsigned ElemBits = 1 + ExpBits + ManBits,
  localparam int unsigned TW = ExpBits + 4,           // signed exponent arithmetic
  localparam int unsigned MW = $clog2(ManBits + 1),
  localparam int unsigned QW = TW - 1 + ManBits + 1   // target code before the overflow rule
) (
  input  logic [ElemBits-1:0] elem_i,     // v', natural encoding
  input  bp_pkg::fmt_e        fmt_i,
  input  logic [MW-1:0]       m_i,        // target mantissa bits
  input  logic [TW-1:0]       emin_i,     // target minimum normal exponent (signed)
  input  logic [QW-1:0]       maxcode_i,  // largest finite target code (magnitude)
  input  logic [MW-1:0]       shift_i,    // eEmK: ManBits - K (code to source-word shift)
  input  logic [TW-1:0]       xscale_i,   // MX: divide by 2^xscale (signed)
  input  logic                mx_zero_i,  // MX group holds NaN/Inf: element is +0
  output logic [ElemBits-1:0] code_o      // output code, LSB aligned (sign at the format's MSB)
);
  localparam int unsigned Bias = (1 << (ExpBits - 1)) - 1;
  localparam int unsigned SW = $clog2(ManBits + 3);
  localparam int unsigned XW = 2 * ManBits + 3;

  logic               s, emax, nan, inf, zero;
  logic [ExpBits-1:0] e;
  logic [ManBits-1:0] f;
  logic [MW-1:0]      lz;
  logic [ManBits:0]   sig;
  logic [TW-1:0]      te, d, shw;
  logic [SW-1:0]      sh;
  logic [XW-1:0]      ext;
  logic [QW-1:0]      ediff, q0, q;
  logic               rnd, sticky, inc, ovf;
  logic [ElemBits-2:0] mag;

  assign s    = elem_i[ElemBits-1];
  assign e    = elem_i[ManBits +: ExpBits];
  assign f    = elem_i[ManBits-1:0];
  assign emax = (e == '1);
  assign nan  = emax && (f != '0);
  assign inf  = emax && (f == '0);
  assign zero = (e == '0) && (f == '0);

  // Normalise: subnormal sources shift their leading one up to the hidden position.
  always_comb begin
    lz = '0;
    for (int i = 0; i < ManBits; i++) begin
      if (f[i]) lz = MW'(ManBits - 1 - i);  // the highest set bit wins (last assignment)
    end
  end
  always_comb begin
    if (e != '0) begin
      sig = {1'b1, f};
      te  = TW'(e) - TW'(Bias);
    end else begin
      sig = {f, 1'b0} << lz;
      te  = -TW'(Bias) - TW'(lz);
    end
  end

  // Place into the target: shift right by sh with round and sticky bits.
  always_comb begin
    d     = te - xscale_i - emin_i;
    ediff = '0;
    shw   = TW'(ManBits) - TW'(m_i);
    if (d[TW-1]) shw = shw - d;
    else ediff = QW'(d);
    sh = (shw > TW'(ManBits + 2)) ? SW'(ManBits + 2) : SW'(shw);
  end
  assign ext    = {sig, {(ManBits + 2){1'b0}}} >> sh;
  assign rnd    = ext[ManBits + 1];
  assign sticky = (ext[ManBits:0] != '0);
  assign q0     = (ediff << m_i) + QW'(ext[XW-1 -: ManBits + 1]);
  assign inc    = rnd && (sticky || q0[0]);
  assign q      = zero ? '0 : q0 + QW'(inc);  // a zero has no hidden bit: nothing to place
  assign ovf    = (q > maxcode_i);

  // Special values and the overflow rule of each format (magnitude bits, sign added below).
  always_comb begin
    mag = '0;
    unique case (fmt_i)
      bp_pkg::FmtFull: mag = elem_i[ElemBits-2:0];
      bp_pkg::FmtEmK: begin
        if (nan) mag = {{ExpBits{1'b1}}, 1'b1, {(ManBits - 1){1'b0}}};
        else if (inf || ovf) mag = {{ExpBits{1'b1}}, {ManBits{1'b0}}};
        else mag = (ElemBits-1)'(q) << shift_i;
      end
      bp_pkg::FmtE4M3, bp_pkg::FmtMxfp8: begin
        if (nan && fmt_i == bp_pkg::FmtE4M3) mag = (ElemBits-1)'(7'h7F);
        else if (inf || ovf || nan) mag = (ElemBits-1)'(7'h7E);
        else mag = (ElemBits-1)'(q[6:0]);
      end
      bp_pkg::FmtE5M2: begin
        if (nan) mag = (ElemBits-1)'(7'h7E);
        else if (inf || ovf) mag = (ElemBits-1)'(7'h7C);
        else mag = (ElemBits-1)'(q[6:0]);
      end
      bp_pkg::FmtE3M2, bp_pkg::FmtE2M3: begin
        if (nan || inf || ovf) mag = (ElemBits-1)'(5'h1F);
        else mag = (ElemBits-1)'(q[4:0]);
      end
      bp_pkg::FmtE2M1, bp_pkg::FmtMxfp4: begin
        if (nan || inf || ovf) mag = (ElemBits-1)'(3'h7);
        else mag = (ElemBits-1)'(q[2:0]);
      end
      default: mag = '0;
    endcase
  end

  // Sign at the top of the output format.
  always_comb begin
    code_o = '0;
    unique case (fmt_i)
      bp_pkg::FmtFull, bp_pkg::FmtEmK: code_o = {s, mag};
      bp_pkg::FmtE4M3, bp_pkg::FmtE5M2, bp_pkg::FmtMxfp8: code_o = ElemBits'({s, mag[6:0]});
      bp_pkg::FmtE3M2, bp_pkg::FmtE2M3: code_o = ElemBits'({s, mag[4:0]});
      bp_pkg::FmtE2M1, bp_pkg::FmtMxfp4: code_o = ElemBits'({s, mag[2:0]});
      default: code_o = '0;
    endcase
    if (mx_zero_i) code_o = '0;
  end

  `NDP_ASSERT_INIT(params_a, ExpBits >= 5 && ExpBits <= 8 && ManBits >= 3 && ElemBits <= 32)
endmodule
