// lane_pkg: status codes of the codec lane's decode direction (docs/lz4.md, "Codec lane"), and the
// XXH32 correction constant of lane_xxh32.
//
/// The order of the header checks is the golden decoder's (sw/codec block_decode.cc): header
/// fits, codec, reserved flags, plane id defined, per-codec size rules, then plane id, block id and
/// raw_size against the index, payload fits, payload decodes, checksum, padding bits.
package lane_pkg;

  typedef enum logic [5:0] {
    StOk            = 6'd0,
    StHdrTrunc      = 6'd1,   // packet shorter than the 12-byte header
    StCodecUnknown  = 6'd2,   // codec field 4..15
    StFlagsReserved = 6'd3,   // header byte 3 bits 5..7 set
    StPlaneUndef    = 6'd4,   // plane id not defined by spec section 2
    StSizeRule      = 6'd5,   // RAW comp != raw, CONST comp != 1, or comp 65536 for a non-RAW block
    StPlaneMismatch = 6'd6,   // plane id differs from the index's
    StBlockMismatch = 6'd7,   // block id differs from the index's
    StRawMismatch   = 6'd8,   // raw_size differs from the size the index implies
    StPayloadTrunc  = 6'd9,   // packet ends before 12 + comp_size bytes
    StUnsupported   = 6'd10,  // ZSTD payload in a lane built without the ZSTD engine (HasZstd 0)
    StChecksum      = 6'd11,  // XXH32 of the decoded bytes differs from the header's
    StPadding       = 6'd12,  // bit-plane padding bits (pad mask) set in the last byte
    StLz4Base       = 6'd16,  // 16 + lz4_pkg::err_e: the LZ4 payload is malformed
    StZstdBase      = 6'd32   // 32 + zstd_lane_dec code (1..18): the ZSTD payload is malformed
  } status_e;

  // XXH32's first prime and the deferred correction Kc(k) of lane_xxh32's carry-save accumulators
  // (lane_xxh32_round: v = s + c + Kc(k), k = {K32, K19}, two bits each), shared by the round
  // (its constant tables) and lane_xxh32 (its finaliser).
  localparam logic [31:0] XxhP1 = 32'h9E3779B1;
  function automatic logic [31:0] xxh32_kc(input logic [3:0] k);
    xxh32_kc = 32'(k[1:0]) * XxhP1 - 32'(k[3:2]) * (XxhP1 << 13);
  endfunction

endpackage
