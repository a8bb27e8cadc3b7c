// Bit-exact model of the hardware ZSTD encoder rtl/zstd/zstd_encoder.sv (docs/zstd.md, "Encoder"),
// and the plane-block encoder of the codec lane with both hardware engines (LZ4 and ZSTD).
//
// The engine writes Zstandard frames (RFC 8878) of one or more blocks. Each block is, in this order
// of preference:
//   RLE_Block         every byte equal;
//   Huffman block     (huffman mode, EXPBYTE planes) the literals-only block of docs/spec.md 4.3,
//                     byte for byte what write_huffman_frame() writes, when it exists; otherwise a
//                     huffman-mode block is a Raw_Block (the mode runs no match finder);
//   sequences block   (general mode) a Compressed_Block: the hardware LZ4 match finder's
//                     sequences (lz4_hw_model.h, same parameters), offsets coded with repeat codes,
//                     literal / match lengths and offset codes FSE-coded with the predefined
//                     distributions, literals raw or, when smaller and enabled, Huffman-coded
//                     (huffman_literals_section());
//   Raw_Block         when the compressed block would not be smaller than the raw bytes.
// Huffman mode with huffman_literals (the RTL's in_huf_i with in_hl_i, HufLits) writes both
// candidates and keeps the smaller block, the Huffman block (or its Raw_Block) on ties: the
// spec 4.3 Huffman block, and the sequences block with Huffman-coded literals (or its Raw_Block).
// This file is the specification at transaction level: the RTL bench compares the RTL's frames
// byte for byte with zstd_hw_frame().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndp/block.h"
#include "ndp/lz4_hw_model.h"
#include "ndp/status.h"

namespace ndp {

struct ZstdHwParams {
  Lz4HwParams finder;            // the match finder (the LZ4 engine's, same parameters)
  bool huffman_literals = false; // sequences blocks may Huffman-code their literals; Huffman mode
                                 // then also tries the sequences block and keeps the smaller
};

enum class ZstdHwKind : uint8_t { kRaw = 0, kRle = 1, kSequences = 2, kHuffman = 3 };
const char* zstd_hw_kind_name(ZstdHwKind k);

struct ZstdHwBlockInfo {
  ZstdHwKind kind = ZstdHwKind::kRaw;
  uint32_t raw_size = 0;
  uint32_t sequences = 0;      // sequences blocks: matches coded
  uint32_t literals = 0;       // sequences blocks: literal bytes
  bool huffman_lits = false;   // sequences blocks: literals Huffman-coded
  uint32_t bytes = 0;          // block header + content
};

// The repeat-offset history a decoder carries from one compressed block to the next (RFC 8878
// "Repeat offsets"); a frame starts with {1, 4, 8}.
struct ZstdRepHistory {
  uint32_t rep[3] = {1, 4, 8};
};

// Frame header of a single-segment frame of `total` content bytes (1..2^32-1): magic, descriptor,
// Frame_Content_Size in 1, 2 or 4 bytes (no window descriptor, checksum or dictionary id).
void zstd_hw_frame_header(uint64_t total, std::vector<uint8_t>& out);

// One block (3-byte block header + content) for src[0..n-1], n = 1..65536, appended to out.
// `last` sets Last_Block; `rep` is the frame's offset history, updated when the block is a
// sequences block (blocks of other kinds leave it unchanged, as a decoder does).
Status zstd_hw_block(const uint8_t* src, size_t n, bool huffman, bool last, ZstdRepHistory& rep,
                     std::vector<uint8_t>& out, ZstdHwBlockInfo* info = nullptr, const ZstdHwParams& p = {});

// Whole frame of src[0..n-1] (1 <= n < 2^32) cut into blocks of block_bytes (1..65536) bytes,
// appended to out; infos (if given) receives one entry per block.
Status zstd_hw_frame(const uint8_t* src, size_t n, bool huffman, size_t block_bytes, std::vector<uint8_t>& out,
                     std::vector<ZstdHwBlockInfo>* infos = nullptr, const ZstdHwParams& p = {});

// The codec lane's two engines: the LZ4 encoder's match finder and the ZSTD encoder's parameters.
// zstd.huffman_literals applies to EXPBYTE planes only (codec_lane with ZstdHufLits sets in_hl_i for
// plane id 0x40): their ZSTD candidate is then the smaller of the Huffman frame and the sequences
// frame with Huffman-coded literals. The defaults are codec_lane's (ZstdHashBytes = 8,
// ZstdHufLits = 1; the LZ4 engine hashes 4 bytes); huffman_frame_only() gives the lane with
// ZstdHashBytes = 4, ZstdHufLits = 0 (the Huffman frame alone for EXPBYTE planes).
struct LaneHwParams {
  Lz4HwParams lz4;
  ZstdHwParams zstd;
  LaneHwParams() {
    zstd.finder.hash_bytes = 8;
    zstd.huffman_literals = true;
  }
  static LaneHwParams huffman_frame_only() {
    LaneHwParams p;
    p.zstd = ZstdHwParams{};
    return p;
  }
};

// Plane-block encoder of the hardware codec lane with both engines: docs/spec.md section 3 with the
// hardware LZ4 (lz4_hw_compress) and the hardware ZSTD frame (zstd_hw_frame of one block, Huffman
// mode for EXPBYTE planes, id 0x40) as the candidates. Same rules as BlockEncoder::encode: CONST
// first; the policy's candidates (auto: both, lz4, zstd, raw: none); a candidate is used only when it
// saves a 64-byte burst; the smallest paying one wins, ties to LZ4; otherwise RAW. info->huffman_frame
// says the ZSTD payload is the spec 4.3 frame. Appends header + payload to out.
Result<BlockInfo> encode_block_lane(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id,
                                    CodecPolicy policy, bool guard, std::vector<uint8_t>& out,
                                    const LaneHwParams& p = {});

}  // namespace ndp
