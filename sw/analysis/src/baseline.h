// Block-wise LZ4/ZSTD sizes with raw bypass (a block costs min(compressed, raw)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ndp {

class BlockCodecs {
 public:
  explicit BlockCodecs(int zstd_level);
  ~BlockCodecs();
  BlockCodecs(const BlockCodecs&) = delete;
  BlockCodecs& operator=(const BlockCodecs&) = delete;

  // Payload bytes of one block under each codec, never more than n (raw bypass).
  uint64_t lz4(const uint8_t* p, size_t n);
  uint64_t zstd(const uint8_t* p, size_t n);
  // Cut [p, p+n) into blocks of `block` bytes and add each codec's payload bytes.
  void raw_bytes(const uint8_t* p, size_t n, size_t block, uint64_t& lz4_out, uint64_t& zstd_out);

 private:
  int level_;
  void* cctx_;
  std::vector<uint8_t> buf_;
};

}  // namespace ndp
