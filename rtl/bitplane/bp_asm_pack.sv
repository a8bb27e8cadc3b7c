// bp_asm_pack: packs one beat of converted lane codes into the region's byte layout
// (docs/spec.md section 5.1): source-width words, bytes, 6-bit LSB-first stream, nibble pairs,
// and the MX scale byte in front of a group's first beat.
//
/// Purely combinational. Lanes at or above `cnt_i` are treated as zero (padding bits are zero).
`include "ndp_assert.svh"

module bp_asm_pack #(
  parameter int unsigned ElemBits = 16,
  parameter int unsigned Lanes    = 16,
  localparam int unsigned OutBytes = Lanes * ElemBits / 8,
  localparam int unsigned CntW = $clog2(Lanes + 1),
  localparam int unsigned NbW = $clog2(OutBytes + 1)
) (
  input  bp_pkg::fmt_e              fmt_i,
  input  logic [Lanes*ElemBits-1:0] codes_i,   // lane i's code at [i*ElemBits +: ElemBits]
  input  logic [CntW-1:0]           cnt_i,
  input  logic                      gfirst_i,  // MX: first beat of a group
  input  logic [7:0]                scale_i,   // MX: the group's scale byte
  output logic [OutBytes*8-1:0]     data_o,
  output logic [NbW-1:0]            nbytes_o
);
  logic [Lanes*ElemBits-1:0] c;
  logic                      scale_here;

  always_comb begin
    for (int unsigned i = 0; i < Lanes; i++) begin
      c[i*ElemBits +: ElemBits] = (CntW'(i) < cnt_i) ? codes_i[i*ElemBits +: ElemBits] : '0;
    end
  end
  assign scale_here = gfirst_i && (fmt_i == bp_pkg::FmtMxfp8 || fmt_i == bp_pkg::FmtMxfp4);

  always_comb begin
    data_o   = '0;
    nbytes_o = '0;
    unique case (fmt_i)
      bp_pkg::FmtFull, bp_pkg::FmtEmK: begin
        data_o   = c;
        nbytes_o = NbW'(16'(cnt_i) * 16'(ElemBits / 8));
      end
      bp_pkg::FmtE4M3, bp_pkg::FmtE5M2, bp_pkg::FmtMxfp8: begin
        for (int unsigned i = 0; i < Lanes; i++) data_o[i*8 +: 8] = c[i*ElemBits +: 8];
        nbytes_o = NbW'(cnt_i);
      end
      bp_pkg::FmtE3M2, bp_pkg::FmtE2M3: begin
        for (int unsigned i = 0; i < Lanes; i++) data_o[i*6 +: 6] = c[i*ElemBits +: 6];
        nbytes_o = NbW'((16'(cnt_i) * 16'd6 + 16'd7) >> 3);
      end
      bp_pkg::FmtE2M1, bp_pkg::FmtMxfp4: begin
        for (int unsigned i = 0; i < Lanes; i++) data_o[i*4 +: 4] = c[i*ElemBits +: 4];
        nbytes_o = NbW'((16'(cnt_i) + 16'd1) >> 1);
      end
      default: ;
    endcase
    if (scale_here) begin
      data_o   = {data_o[OutBytes*8-9:0], scale_i};
      nbytes_o = nbytes_o + 1'b1;
    end
  end

  `NDP_ASSERT_INIT(geometry_a, Lanes % 4 == 0 && ElemBits >= 16)
endmodule
