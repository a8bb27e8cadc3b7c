// The 12-byte plane block header (docs/spec.md section 3).
#include <xxhash.h>

#include <cstring>
#include <string>

#include "ndp/block.h"

namespace ndp {
namespace {

std::string hex2(unsigned v) {
  static const char* d = "0123456789abcdef";
  return std::string("0x") + d[(v >> 4) & 15] + d[v & 15];
}

uint32_t rd16(const uint8_t* p) { return static_cast<uint32_t>(p[0] | (p[1] << 8)); }

}  // namespace

const char* codec_name(Codec c) {
  switch (c) {
    case Codec::kRaw: return "raw";
    case Codec::kConst: return "const";
    case Codec::kLz4: return "lz4";
    case Codec::kZstd: return "zstd";
  }
  return "?";
}

bool codec_policy_from_name(const char* name, CodecPolicy* out) {
  static const struct {
    const char* n;
    CodecPolicy p;
  } kNames[] = {{"auto", CodecPolicy::kAuto}, {"lz4", CodecPolicy::kLz4},
                {"zstd", CodecPolicy::kZstd}, {"raw", CodecPolicy::kRaw}};
  for (const auto& e : kNames)
    if (std::strcmp(name, e.n) == 0) {
      *out = e.p;
      return true;
    }
  return false;
}

bool plane_id_defined(uint8_t plane_id) { return plane_id < 32 || plane_id == 0x40 || plane_id == 0x41; }

uint32_t block_checksum(const uint8_t* p, size_t n) { return XXH32(p, n, 0); }

void serialize_block_header(const BlockHeader& h, uint8_t* out) {
  out[0] = static_cast<uint8_t>(h.block_id);
  out[1] = static_cast<uint8_t>(h.block_id >> 8);
  out[2] = h.plane_id;
  out[3] = static_cast<uint8_t>(static_cast<uint8_t>(h.codec) | (h.guard ? kBlockFlagGuard : 0));
  out[4] = static_cast<uint8_t>(h.raw_size);  // modulo 65536: 65536 is stored as 0
  out[5] = static_cast<uint8_t>(h.raw_size >> 8);
  out[6] = static_cast<uint8_t>(h.comp_size);
  out[7] = static_cast<uint8_t>(h.comp_size >> 8);
  for (int i = 0; i < 4; ++i) out[8 + i] = static_cast<uint8_t>(h.checksum >> (8 * i));
}

Result<BlockHeader> parse_block_header(const uint8_t* p, size_t n, const char* what, BlockFault* fault) {
  const std::string w(what ? what : "block");
  BlockFault dummy;
  BlockFault& f = fault ? *fault : dummy;
  f = BlockFault::kNone;
  if (n < kBlockHeaderBytes) {
    f = BlockFault::kHeaderTruncated;
    return Status::Error(w + ": truncated header (" + std::to_string(n) + " of 12 bytes)");
  }
  BlockHeader h;
  h.block_id = static_cast<uint16_t>(rd16(p));
  h.plane_id = p[2];
  const unsigned codec = p[3] & 0x0F, flags = p[3] & 0xF0;
  f = BlockFault::kCodecUnknown;
  if (codec > 3) return Status::Error(w + ": unknown codec " + std::to_string(codec));
  f = BlockFault::kFlagsReserved;
  if (flags & ~static_cast<unsigned>(kBlockFlagGuard))
    return Status::Error(w + ": reserved flag bits set (byte 3 = " + hex2(p[3]) + ")");
  f = BlockFault::kPlaneUndefined;
  if (!plane_id_defined(h.plane_id)) return Status::Error(w + ": undefined plane id " + hex2(h.plane_id));
  h.codec = static_cast<Codec>(codec);
  h.guard = (flags & kBlockFlagGuard) != 0;
  h.raw_size = rd16(p + 4) ? rd16(p + 4) : kMaxPlaneBytes;
  h.comp_size = rd16(p + 6) ? rd16(p + 6) : kMaxPlaneBytes;
  h.checksum = static_cast<uint32_t>(p[8] | (p[9] << 8) | (p[10] << 16)) | (static_cast<uint32_t>(p[11]) << 24);
  f = BlockFault::kSizeRule;
  if (h.codec == Codec::kRaw && h.comp_size != h.raw_size)
    return Status::Error(w + ": RAW block with comp_size " + std::to_string(h.comp_size) +
                         " != raw_size " + std::to_string(h.raw_size));
  if (h.codec == Codec::kConst && h.comp_size != 1)
    return Status::Error(w + ": CONST block with comp_size " + std::to_string(h.comp_size) + " != 1");
  if (h.codec != Codec::kRaw && h.comp_size == kMaxPlaneBytes)
    return Status::Error(w + ": comp_size 65536 is only allowed for a RAW block");
  f = BlockFault::kNone;
  return h;
}

}  // namespace ndp
