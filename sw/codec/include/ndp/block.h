// Plane block codec (docs/spec.md section 3): the 12-byte block header, the encoder with CONST
// detection, LZ4 / ZSTD candidates and the raw-bypass rule, and the bounds-checked decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp {

enum class Codec : uint8_t { kRaw = 0, kConst = 1, kLz4 = 2, kZstd = 3 };
// Which compressed candidates the encoder may try (CONST is always tried first).
enum class CodecPolicy : uint8_t { kAuto = 0, kLz4 = 1, kZstd = 2, kRaw = 3 };

constexpr size_t kBlockHeaderBytes = 12;
constexpr uint32_t kMaxPlaneBytes = 65536;  // largest raw_size / comp_size of a block
constexpr uint8_t kBlockFlagGuard = 0x10;   // header byte 3, bit 4
constexpr int kZstdLevel = 3;               // golden-model ZSTD level
constexpr uint32_t kBurstBytes = 64;        // DRAM burst used by the raw-bypass rule

const char* codec_name(Codec c);
// "auto", "lz4", "zstd", "raw"; false if the name is unknown.
bool codec_policy_from_name(const char* name, CodecPolicy* out);

// True for the plane ids section 2 defines: bit-planes 0..31, EXPBYTE (0x40), KVBASE (0x41).
bool plane_id_defined(uint8_t plane_id);

// Decoded form of the 12-byte header. Sizes are the true sizes 1..65536 (not the stored modulo).
struct BlockHeader {
  uint16_t block_id = 0;
  uint8_t plane_id = 0;
  Codec codec = Codec::kRaw;
  bool guard = false;
  uint32_t raw_size = 0;
  uint32_t comp_size = 0;
  uint32_t checksum = 0;  // XXH32 seed 0 of the raw plane bytes
};

// Which check of parse_block_header / BlockDecoder::decode failed (kNone: none), listed in the order
// they are applied (docs/spec.md section 3, "Decoding"). Lets a caller classify a failure without
// parsing the message (the device model maps it to the codec lane's status, sw/device).
enum class BlockFault : uint8_t {
  kNone,
  kHeaderTruncated,   // fewer than 12 bytes
  kCodecUnknown,      // codec 4..15
  kFlagsReserved,     // header byte 3 bits 5..7
  kPlaneUndefined,    // plane id not defined by section 2
  kSizeRule,          // RAW comp != raw, CONST comp != 1, comp 65536 for a non-RAW block
  kPlaneMismatch,     // plane id != the expected one
  kBlockMismatch,     // block id != the expected one (mod 65536)
  kRawMismatch,       // raw_size != the expected one
  kPayloadTruncated,  // fewer than 12 + comp_size bytes available
  kLz4Payload,        // the LZ4 payload does not decode to exactly raw_size bytes
  kZstdPayload,       // the ZSTD payload breaks the frame rules or does not decode to raw_size bytes
  kChecksum,          // XXH32 of the decoded bytes != the header's
  kPadding,           // bit-plane padding bits set in the last byte
};

// Write the header into out[0..11]. Contract: raw_size and comp_size in 1..65536.
void serialize_block_header(const BlockHeader& h, uint8_t* out);
// Parse and check a header: at least 12 bytes, known codec, reserved flag bits zero, defined plane
// id, and the per-codec size rules (RAW: comp == raw; CONST: comp == 1). `what` names the block in
// error messages (e.g. "tensor 'w' chunk 3 plane 0x40"). On an error *fault (if given) says which
// check failed; on success it is kNone.
Result<BlockHeader> parse_block_header(const uint8_t* p, size_t n, const char* what = "block",
                                       BlockFault* fault = nullptr);

// XXH32 (seed 0), the block checksum.
uint32_t block_checksum(const uint8_t* p, size_t n);

// What the encoder chose for one block.
struct BlockInfo {
  Codec codec = Codec::kRaw;
  bool huffman_frame = false;  // ZSTD payload is the literals-only Huffman frame (section 4.3)
  uint32_t raw_size = 0;
  uint32_t comp_size = 0;      // payload bytes; the stored block is 12 + comp_size bytes
};

// Reusable encoder (holds a ZSTD context and scratch buffers); not thread-safe, one per thread.
class BlockEncoder {
 public:
  BlockEncoder();
  ~BlockEncoder();
  BlockEncoder(const BlockEncoder&) = delete;
  BlockEncoder& operator=(const BlockEncoder&) = delete;

  // Encode one plane (n = 1..65536 bytes) and APPEND header + payload to `out`.
  // Codec choice per section 3: CONST when every byte is equal; else the policy's candidates
  // (LZ4_compress_default; ZSTD level 3 frame, for plane_id 0x40 the smaller of that and the
  // literals-only Huffman frame, ties to Huffman), a candidate is used only when it saves a 64-byte
  // burst, the smallest paying one wins (ties: LZ4), otherwise RAW. block_id is stored modulo 65536.
  Result<BlockInfo> encode(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id,
                           CodecPolicy policy, bool guard, std::vector<uint8_t>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What the reader knows about a block from the image (index, tensor table).
struct BlockExpect {
  uint8_t plane_id = 0;
  uint64_t block_id = 0;    // compared modulo 65536
  uint32_t raw_size = 0;    // 1..65536
  uint8_t pad_mask = 0;     // bits of the last decoded byte that must be zero (bit-plane padding)
  const char* what = "block";  // names the block in error messages
};

// Reusable decoder (holds a ZSTD decompression context); not thread-safe, one per thread.
class BlockDecoder {
 public:
  BlockDecoder();
  ~BlockDecoder();
  BlockDecoder(const BlockDecoder&) = delete;
  BlockDecoder& operator=(const BlockDecoder&) = delete;

  // Decode the block starting at stored[0] (n bytes available; the block may be followed by other
  // data) into out[0..exp.raw_size-1]. Checks in spec order: header fits, codec and flags known,
  // plane id == exp.plane_id, block id, raw_size == exp.raw_size, payload fits, the codec decodes
  // to exactly raw_size bytes (ZSTD: single-segment frame with content size == raw_size, no
  // dictionary, no checksum, nothing after the frame), padding bits zero, XXH32 matches.
  // Never writes beyond out + exp.raw_size. On success *consumed (if given) = 12 + comp_size.
  // *fault (if given) receives the failing check (kNone on success); it does not change the checks.
  Status decode(const uint8_t* stored, size_t n, const BlockExpect& exp, uint8_t* out,
                size_t* consumed = nullptr, BlockFault* fault = nullptr);

  // The ZSTD payload step of decode() alone: payload p[0..n-1] (exactly comp_size bytes) must be one
  // single-segment frame with content size == raw, no dictionary, no checksum, nothing after it,
  // decoding to exactly raw bytes into out[0..raw-1]. `what` names the block in errors.
  Status decode_zstd_payload(const uint8_t* p, size_t n, uint32_t raw, uint8_t* out, const std::string& what);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience wrappers using a thread-local encoder / decoder.
Result<BlockInfo> encode_block(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id,
                               CodecPolicy policy, bool guard, std::vector<uint8_t>& out);
Status decode_block(const uint8_t* stored, size_t n, const BlockExpect& exp, uint8_t* out,
                    size_t* consumed = nullptr);

}  // namespace ndp
