// bp_pkg: shared constants of the bit-plane datapath (docs/spec.md sections 2 and 5).
package bp_pkg;
  // Region output formats; the encoding equals ndp::RegionKind (sw/core/include/ndp/precision.h).
  typedef enum logic [3:0] {
    FmtFull  = 4'd0,
    FmtEmK   = 4'd1,
    FmtE4M3  = 4'd2,
    FmtE5M2  = 4'd3,
    FmtE3M2  = 4'd4,
    FmtE2M3  = 4'd5,
    FmtE2M1  = 4'd6,
    FmtMxfp8 = 4'd7,
    FmtMxfp4 = 4'd8
  } fmt_e;

  // Plane id of the byte-wide exponent plane (spec section 2).
  localparam logic [7:0] PlaneExpByte = 8'h40;
  // Elements per MX scaling group (spec section 5.4).
  localparam int unsigned MxGroup = 32;
endpackage
