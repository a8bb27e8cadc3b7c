// bp_asm_round: lane stage 3 of the region converter: apply the rounding increment (the carry
// may reach the exponent), the overflow rule (infinity for eEmK/E5M2, saturation for E4M3, FP6,
// FP4 and MX elements) and the NaN/Inf rules of docs/spec.md 5.2, and put the sign on top.
//
/// Purely combinational; the parent registers the codes before packing.
`include "ndp_assert.svh"

module bp_asm_round #(
  parameter int unsigned ExpBits = 8,
  parameter int unsigned ManBits = 7,
  localparam int unsigned ElemBits = 1 + ExpBits + ManBits,
  localparam int unsigned TW = ExpBits + 4,
  localparam int unsigned MW = $clog2(ManBits + 1),
  localparam int unsigned QW = TW - 1 + ManBits + 1
) (
  input  bp_pkg::fmt_e        fmt_i,
  input  logic [QW-1:0]       maxcode_i,  // largest finite target code (magnitude)
  input  logic [MW-1:0]       shift_i,    // eEmK: ManBits - K (code to source-word position)
  input  logic                s_i,
  input  logic                nan_i,
  input  logic                inf_i,
  input  logic                mx_zero_i,  // MX group holds NaN/Inf: element is +0
  input  logic [QW-1:0]       q0_i,
  input  logic                inc_i,
  output logic [ElemBits-1:0] code_o      // output code, LSB aligned (sign at the format's MSB)
);
  logic [ElemBits-2:0] q;  // the code's low bits (any wider value overflows)
  logic                ovf;
  logic [ElemBits-2:0] mag, inf_word, nan_word;

  // q > maxcode without waiting for the increment's carry
  assign q        = q0_i[ElemBits-2:0] + (ElemBits-1)'(inc_i);
  assign ovf      = (q0_i > maxcode_i) || (inc_i && q0_i == maxcode_i);
  assign inf_word = {{ExpBits{1'b1}}, {ManBits{1'b0}}};
  assign nan_word = {{ExpBits{1'b1}}, 1'b1, {(ManBits - 1){1'b0}}};  // canonical quiet NaN

  always_comb begin
    mag = '0;
    unique case (fmt_i)
      bp_pkg::FmtFull: begin  // v' itself: finite values pass exactly (m = ManBits, no rounding)
        if (nan_i) mag = {{ExpBits{1'b1}}, q0_i[ManBits-1:0]};
        else if (inf_i) mag = inf_word;
        else mag = (ElemBits-1)'(q);
      end
      bp_pkg::FmtEmK: begin
        if (nan_i) mag = nan_word;
        else if (inf_i || ovf) mag = inf_word;
        else mag = (ElemBits-1)'(q) << shift_i;
      end
      bp_pkg::FmtE4M3, bp_pkg::FmtMxfp8: begin
        if (nan_i && fmt_i == bp_pkg::FmtE4M3) mag = (ElemBits-1)'(7'h7F);
        else if (inf_i || ovf || nan_i) mag = (ElemBits-1)'(7'h7E);
        else mag = (ElemBits-1)'(q[6:0]);
      end
      bp_pkg::FmtE5M2: begin
        if (nan_i) mag = (ElemBits-1)'(7'h7E);
        else if (inf_i || ovf) mag = (ElemBits-1)'(7'h7C);
        else mag = (ElemBits-1)'(q[6:0]);
      end
      bp_pkg::FmtE3M2, bp_pkg::FmtE2M3: begin
        if (nan_i || inf_i || ovf) mag = (ElemBits-1)'(5'h1F);
        else mag = (ElemBits-1)'(q[4:0]);
      end
      bp_pkg::FmtE2M1, bp_pkg::FmtMxfp4: begin
        if (nan_i || inf_i || ovf) mag = (ElemBits-1)'(3'h7);
        else mag = (ElemBits-1)'(q[2:0]);
      end
      default: mag = '0;
    endcase
  end

  always_comb begin
    code_o = '0;
    unique case (fmt_i)
      bp_pkg::FmtFull, bp_pkg::FmtEmK: code_o = {s_i, mag};
      bp_pkg::FmtE4M3, bp_pkg::FmtE5M2, bp_pkg::FmtMxfp8: code_o = ElemBits'({s_i, mag[6:0]});
      bp_pkg::FmtE3M2, bp_pkg::FmtE2M3: code_o = ElemBits'({s_i, mag[4:0]});
      bp_pkg::FmtE2M1, bp_pkg::FmtMxfp4: code_o = ElemBits'({s_i, mag[2:0]});
      default: code_o = '0;
    endcase
    if (mx_zero_i) code_o = '0;
  end

  `NDP_ASSERT_INIT(params_a, ElemBits <= 32 && ManBits >= 3)
endmodule
