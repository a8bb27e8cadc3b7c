// Plane block encoder: CONST detection, LZ4 / ZSTD (+ Huffman frame for EXPBYTE) candidates and
// the raw-bypass burst rule (docs/spec.md section 3).
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <string>

#include "ndp/block.h"
#include "ndp/huffman_frame.h"

namespace ndp {
namespace {

constexpr uint8_t kPlaneExpByteId = 0x40;

uint64_t bursts(uint64_t bytes) { return (bytes + kBurstBytes - 1) / kBurstBytes; }

bool all_equal(const uint8_t* p, size_t n) {
  const uint8_t v = p[0];
  for (size_t i = 1; i < n; ++i)
    if (p[i] != v) return false;
  return true;
}

}  // namespace

struct BlockEncoder::Impl {
  ZSTD_CCtx* cctx = nullptr;
  std::vector<uint8_t> lz4_buf, zstd_buf, huf_buf;
  Impl() {
    cctx = ZSTD_createCCtx();
    lz4_buf.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(kMaxPlaneBytes))));
    zstd_buf.resize(ZSTD_compressBound(kMaxPlaneBytes));
  }
  ~Impl() { ZSTD_freeCCtx(cctx); }

  // libzstd level-3 frame: single segment (the content size is known), content size present,
  // no checksum, no dictionary id. Returns 0 on failure.
  size_t zstd_frame(const uint8_t* src, size_t n) {
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kZstdLevel)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0)))
      return 0;
    const size_t r = ZSTD_compress2(cctx, zstd_buf.data(), zstd_buf.size(), src, n);
    if (ZSTD_isError(r)) return 0;
    // Frame_Header_Descriptor bit 5 = Single_Segment_flag; libzstd sets it whenever the window
    // covers the known content size, which holds for every size up to 64 KiB.
    if (r < 5 || !(zstd_buf[4] & 0x20)) return 0;
    return r;
  }
};

BlockEncoder::BlockEncoder() : impl_(std::make_unique<Impl>()) {}
BlockEncoder::~BlockEncoder() = default;

Result<BlockInfo> BlockEncoder::encode(const uint8_t* plane, size_t n, uint8_t plane_id,
                                       uint64_t block_id, CodecPolicy policy, bool guard,
                                       std::vector<uint8_t>& out) {
  if (n == 0 || n > kMaxPlaneBytes)
    return Status::Error("encode block " + std::to_string(block_id) + ": plane size " +
                         std::to_string(n) + " outside 1..65536");
  if (!plane_id_defined(plane_id))
    return Status::Error("encode block " + std::to_string(block_id) + ": undefined plane id " +
                         std::to_string(plane_id));
  BlockHeader h;
  h.block_id = static_cast<uint16_t>(block_id);
  h.plane_id = plane_id;
  h.guard = guard;
  h.raw_size = static_cast<uint32_t>(n);
  h.checksum = block_checksum(plane, n);
  BlockInfo info;
  info.raw_size = h.raw_size;

  const uint8_t* payload = plane;
  size_t psize = n;
  h.codec = Codec::kRaw;
  if (all_equal(plane, n)) {
    h.codec = Codec::kConst;
    psize = 1;
  } else {
    size_t lz4_size = 0, zstd_size = 0;
    const uint8_t* zstd_payload = nullptr;
    if (policy == CodecPolicy::kAuto || policy == CodecPolicy::kLz4) {
      const int r = LZ4_compress_default(reinterpret_cast<const char*>(plane),
                                         reinterpret_cast<char*>(impl_->lz4_buf.data()),
                                         static_cast<int>(n), static_cast<int>(impl_->lz4_buf.size()));
      lz4_size = r > 0 ? static_cast<size_t>(r) : 0;
    }
    if (policy == CodecPolicy::kAuto || policy == CodecPolicy::kZstd) {
      zstd_size = impl_->zstd_frame(plane, n);
      zstd_payload = impl_->zstd_buf.data();
      if (plane_id == kPlaneExpByteId) {
        impl_->huf_buf.clear();
        if (write_huffman_frame(plane, n, impl_->huf_buf) &&
            (zstd_size == 0 || impl_->huf_buf.size() <= zstd_size)) {
          zstd_size = impl_->huf_buf.size();
          zstd_payload = impl_->huf_buf.data();
          info.huffman_frame = true;
        }
      }
    }
    const bool lz4_pays = lz4_size > 0 && bursts(lz4_size) < bursts(n);
    const bool zstd_pays = zstd_size > 0 && bursts(zstd_size) < bursts(n);
    if (zstd_pays && (!lz4_pays || zstd_size < lz4_size)) {
      h.codec = Codec::kZstd;
      payload = zstd_payload;
      psize = zstd_size;
    } else if (lz4_pays) {
      h.codec = Codec::kLz4;
      payload = impl_->lz4_buf.data();
      psize = lz4_size;
    }
    if (h.codec != Codec::kZstd) info.huffman_frame = false;
  }
  h.comp_size = static_cast<uint32_t>(psize);
  info.codec = h.codec;
  info.comp_size = h.comp_size;
  const size_t at = out.size();
  out.resize(at + kBlockHeaderBytes + psize);
  serialize_block_header(h, out.data() + at);
  if (h.codec == Codec::kConst)
    out[at + kBlockHeaderBytes] = plane[0];
  else
    std::memcpy(out.data() + at + kBlockHeaderBytes, payload, psize);
  return info;
}

Result<BlockInfo> encode_block(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id,
                               CodecPolicy policy, bool guard, std::vector<uint8_t>& out) {
  thread_local BlockEncoder enc;
  return enc.encode(plane, n, plane_id, block_id, policy, guard, out);
}

}  // namespace ndp
