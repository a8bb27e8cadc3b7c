// Little-endian bit writer used by zstd-style streams: bits are appended LSB first into a forward
// byte buffer. A "backward" bitstream (Huffman, FSE) is this stream closed with a 1 bit and zero
// padding; its reader starts at the last byte and reads the last-written bits first.
#pragma once

#include <cstdint>
#include <vector>

namespace ndp::codec_internal {

class BitWriter {
 public:
  explicit BitWriter(std::vector<uint8_t>& out) : out_(out) {}

  // Append the low n bits of v (n <= 32; v < 2^n).
  void add(uint32_t v, int n) {
    acc_ |= static_cast<uint64_t>(v) << nbits_;
    nbits_ += n;
    if (nbits_ >= 32) flush32();
  }
  // Close a backward bitstream: append the end mark (a 1 bit) and zero-pad to a byte.
  void close_backward() {
    add(1, 1);
    flush_all();
  }
  // Flush a forward bitstream, zero-padding the last byte.
  void flush_all() {
    while (nbits_ > 0) {
      out_.push_back(static_cast<uint8_t>(acc_));
      acc_ >>= 8;
      nbits_ = nbits_ > 8 ? nbits_ - 8 : 0;
    }
    acc_ = 0;
  }

 private:
  void flush32() {
    const uint32_t w = static_cast<uint32_t>(acc_);
    const uint8_t b[4] = {static_cast<uint8_t>(w), static_cast<uint8_t>(w >> 8),
                          static_cast<uint8_t>(w >> 16), static_cast<uint8_t>(w >> 24)};
    out_.insert(out_.end(), b, b + 4);
    acc_ >>= 32;
    nbits_ -= 32;
  }
  std::vector<uint8_t>& out_;
  uint64_t acc_ = 0;
  int nbits_ = 0;
};

}  // namespace ndp::codec_internal
