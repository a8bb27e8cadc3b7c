// Baseline compression figures: LZ4/ZSTD on raw bytes and on bit-planes, block by block with raw bypass.
#include "baseline.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <memory>

namespace ndp {

BlockCodecs::BlockCodecs(int zstd_level) : level_(zstd_level), cctx_(ZSTD_createCCtx()) {}
BlockCodecs::~BlockCodecs() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_)); }

uint64_t BlockCodecs::lz4(const uint8_t* p, size_t n) {
  if (n == 0) return 0;
  buf_.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(n))));
  int c = LZ4_compress_default(reinterpret_cast<const char*>(p), reinterpret_cast<char*>(buf_.data()),
                               static_cast<int>(n), static_cast<int>(buf_.size()));
  return c > 0 ? std::min<uint64_t>(uint64_t(c), n) : n;
}

uint64_t BlockCodecs::zstd(const uint8_t* p, size_t n) {
  if (n == 0) return 0;
  buf_.resize(ZSTD_compressBound(n));
  size_t c = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(cctx_), buf_.data(), buf_.size(), p, n, level_);
  return ZSTD_isError(c) ? n : std::min<uint64_t>(c, n);
}

void BlockCodecs::raw_bytes(const uint8_t* p, size_t n, size_t block, uint64_t& lz4_out, uint64_t& zstd_out) {
  for (size_t off = 0; off < n; off += block) {
    size_t len = std::min(block, n - off);
    lz4_out += lz4(p + off, len);
    zstd_out += zstd(p + off, len);
  }
}

}  // namespace ndp
