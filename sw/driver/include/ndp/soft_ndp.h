// Software NDP (docs/driver.md, "dax"): the region bytes of a stored image that lies in CXL memory
// without an NDP controller, decoded on the host CPU. A read fetches only the plane blocks of the
// chunks it touches that the region needs (the format still cuts the bytes moved over the link),
// checks and decodes them exactly like the device (decode_chunk_plane: header rules, codec, XXH32,
// span, exponent range) and assembles the region; the bytes equal ImageReader::read_region. RAW
// blocks are checksummed in place and not copied; BF16 `expbyte` chunks use a vectorised plane
// transpose (AVX-512 + GFNI when the CPU has them, portable SWAR otherwise).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "ndp/driver.h"
#include "ndp/image.h"

namespace ndp::drv {

class SoftReader {
 public:
  // img must be a reader over the bytes at `base` (ImageReader::open_view(base, size)); both must
  // outlive the SoftReader.
  SoftReader(ImageReader& img, const uint8_t* base);
  ~SoftReader();
  // Region bytes [offset, offset + bytes) of tensor t (the caller checked the range). Thread-safe:
  // each thread decodes with its own scratch. A block that fails names tensor, chunk, plane and its
  // image offset; st counts the blocks fetched (device_bytes = link_bytes = their stored bytes).
  Status read(size_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out, CallStats* st) const;

  // Which kernel BF16 expbyte chunks use here: "avx512-gfni" or "swar".
  static const char* kernel_name();

 private:
  Status read_kv(size_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out, CallStats* st) const;
  ImageReader& img_;
  const uint8_t* base_;
  mutable std::mutex kv_mu_;  // KV tensors go through img_ (not thread-safe for decoding)
};

}  // namespace ndp::drv
