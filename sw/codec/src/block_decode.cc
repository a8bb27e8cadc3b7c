// Bounds-checked plane block decoder (docs/spec.md section 3, "Decoding").
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <string>

#include "ndp/block.h"

namespace ndp {
namespace {

std::string num(uint64_t v) { return std::to_string(v); }

// Structural checks of a ZSTD payload before libzstd sees it: one frame, single segment, content
// size == raw, no dictionary, no checksum, and it spans the payload exactly.
Status check_zstd_frame(const uint8_t* p, size_t n, uint32_t raw, const std::string& w) {
  if (n < 6) return Status::Error(w + ": ZSTD payload of " + num(n) + " bytes is too short for a frame");
  const uint32_t magic = static_cast<uint32_t>(p[0] | (p[1] << 8) | (p[2] << 16)) | (uint32_t{p[3]} << 24);
  if (magic != ZSTD_MAGICNUMBER) return Status::Error(w + ": ZSTD payload does not start with the frame magic");
  // Frame_Header_Descriptor: bit 5 single segment, bit 4 unused, bit 3 reserved, bit 2 checksum,
  // bits 1..0 dictionary id size.
  const uint8_t fhd = p[4];
  if (!(fhd & 0x20)) return Status::Error(w + ": ZSTD frame is not single-segment");
  if (fhd & 0x18) return Status::Error(w + ": ZSTD frame header has unused/reserved bits set");
  if (fhd & 0x04) return Status::Error(w + ": ZSTD frame carries a content checksum");
  if (fhd & 0x03) return Status::Error(w + ": ZSTD frame names a dictionary");
  const unsigned long long fcs = ZSTD_getFrameContentSize(p, n);
  if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
    return Status::Error(w + ": ZSTD frame header unreadable");
  if (fcs != raw)
    return Status::Error(w + ": ZSTD frame content size " + num(fcs) + " != raw_size " + num(raw));
  const size_t fsize = ZSTD_findFrameCompressedSize(p, n);
  if (ZSTD_isError(fsize)) return Status::Error(w + ": corrupt ZSTD frame (" + ZSTD_getErrorName(fsize) + ")");
  if (fsize != n)
    return Status::Error(w + ": ZSTD frame is " + num(fsize) + " bytes, payload " + num(n));
  return Status::Ok();
}

}  // namespace

struct BlockDecoder::Impl {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ~Impl() { ZSTD_freeDCtx(dctx); }
};

BlockDecoder::BlockDecoder() : impl_(std::make_unique<Impl>()) {}
BlockDecoder::~BlockDecoder() = default;

Status BlockDecoder::decode(const uint8_t* stored, size_t n, const BlockExpect& exp, uint8_t* out,
                            size_t* consumed, BlockFault* fault) {
  const std::string w(exp.what ? exp.what : "block");
  BlockFault dummy;
  BlockFault& f = fault ? *fault : dummy;
  auto hr = parse_block_header(stored, n, w.c_str(), &f);
  if (!hr.ok()) return hr.status();
  const BlockHeader& h = hr.value();
  f = BlockFault::kPlaneMismatch;
  if (h.plane_id != exp.plane_id)
    return Status::Error(w + ": plane id " + num(h.plane_id) + " where the index expects " + num(exp.plane_id));
  f = BlockFault::kBlockMismatch;
  if (h.block_id != static_cast<uint16_t>(exp.block_id))
    return Status::Error(w + ": block id " + num(h.block_id) + " where the index expects " +
                         num(exp.block_id & 0xFFFF));
  f = BlockFault::kRawMismatch;
  if (h.raw_size != exp.raw_size)
    return Status::Error(w + ": raw_size " + num(h.raw_size) + " where the index implies " + num(exp.raw_size));
  f = BlockFault::kPayloadTruncated;
  if (kBlockHeaderBytes + h.comp_size > n)
    return Status::Error(w + ": payload truncated (" + num(n - kBlockHeaderBytes) + " of " +
                         num(h.comp_size) + " bytes)");
  const uint8_t* p = stored + kBlockHeaderBytes;
  switch (h.codec) {
    case Codec::kRaw:
      std::memcpy(out, p, h.raw_size);
      break;
    case Codec::kConst:
      std::memset(out, p[0], h.raw_size);
      break;
    case Codec::kLz4: {
      f = BlockFault::kLz4Payload;
      const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(p), reinterpret_cast<char*>(out),
                                        static_cast<int>(h.comp_size), static_cast<int>(h.raw_size));
      if (r < 0) return Status::Error(w + ": corrupt LZ4 payload");
      if (static_cast<uint32_t>(r) != h.raw_size)
        return Status::Error(w + ": LZ4 payload decodes to " + num(static_cast<uint64_t>(r)) +
                             " bytes, raw_size " + num(h.raw_size));
      break;
    }
    case Codec::kZstd:
      f = BlockFault::kZstdPayload;
      NDP_RETURN_IF_ERROR(decode_zstd_payload(p, h.comp_size, h.raw_size, out, w));
      break;
  }
  f = BlockFault::kChecksum;
  const uint32_t sum = block_checksum(out, h.raw_size);
  if (sum != h.checksum)
    return Status::Error(w + ": checksum mismatch (XXH32 " + num(sum) + ", header " + num(h.checksum) + ")");
  f = BlockFault::kPadding;
  if (out[h.raw_size - 1] & exp.pad_mask)
    return Status::Error(w + ": non-zero padding bits in the last byte");
  f = BlockFault::kNone;
  if (consumed) *consumed = kBlockHeaderBytes + h.comp_size;
  return Status::Ok();
}

Status BlockDecoder::decode_zstd_payload(const uint8_t* p, size_t n, uint32_t raw, uint8_t* out,
                                         const std::string& w) {
  NDP_RETURN_IF_ERROR(check_zstd_frame(p, n, raw, w));
  const size_t r = ZSTD_decompressDCtx(impl_->dctx, out, raw, p, n);
  if (ZSTD_isError(r)) return Status::Error(w + ": corrupt ZSTD payload (" + ZSTD_getErrorName(r) + ")");
  if (r != raw) return Status::Error(w + ": ZSTD payload decodes to " + num(r) + " bytes, raw_size " + num(raw));
  return Status::Ok();
}

Status decode_block(const uint8_t* stored, size_t n, const BlockExpect& exp, uint8_t* out, size_t* consumed) {
  thread_local BlockDecoder dec;
  return dec.decode(stored, n, exp, out, consumed);
}

}  // namespace ndp
