// lane_pkg: status codes of the codec lane's decode direction (docs/lz4.md, "Codec lane").
//
/// The order of the header checks is the golden decoder's (sw/codec block_decode.cc): header
/// fits, codec, reserved flags, plane id defined, per-codec size rules, then plane id, block id and
/// raw_size against the index, payload fits, payload decodes, checksum, padding bits.
package lane_pkg;

  typedef enum logic [4:0] {
    StOk            = 5'd0,
    StHdrTrunc      = 5'd1,   // packet shorter than the 12-byte header
    StCodecUnknown  = 5'd2,   // codec field 4..15
    StFlagsReserved = 5'd3,   // header byte 3 bits 5..7 set
    StPlaneUndef    = 5'd4,   // plane id not defined by spec section 2
    StSizeRule      = 5'd5,   // RAW comp != raw, CONST comp != 1, or comp 65536 for a non-RAW block
    StPlaneMismatch = 5'd6,   // plane id differs from the index's
    StBlockMismatch = 5'd7,   // block id differs from the index's
    StRawMismatch   = 5'd8,   // raw_size differs from the size the index implies
    StPayloadTrunc  = 5'd9,   // packet ends before 12 + comp_size bytes
    StUnsupported   = 5'd10,  // ZSTD payload: this lane has no ZSTD engine
    StChecksum      = 5'd11,  // XXH32 of the decoded bytes differs from the header's
    StPadding       = 5'd12,  // bit-plane padding bits (pad mask) set in the last byte
    StLz4Base       = 5'd16   // 16 + lz4_pkg::err_e: the LZ4 payload is malformed
  } status_e;

endpackage
