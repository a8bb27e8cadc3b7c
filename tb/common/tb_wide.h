// Byte access to Verilator ports: wide ports (VlWide, > 64 bits) and narrow integer ports alike,
// little-endian (byte 0 = bits 7..0).
#pragma once

#include <verilated.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ndp::tb {

template <std::size_t W>
inline void put_bytes(VlWide<W>& port, const uint8_t* p, size_t n) {
  for (size_t w = 0; w < W; ++w) {
    uint32_t v = 0;
    for (size_t b = 0; b < 4; ++b) {
      size_t i = w * 4 + b;
      if (i < n) v |= static_cast<uint32_t>(p[i]) << (8 * b);
    }
    port[w] = v;
  }
}
template <std::size_t W>
inline void get_bytes(const VlWide<W>& port, uint8_t* p, size_t n) {
  for (size_t i = 0; i < n && i < W * 4; ++i) p[i] = static_cast<uint8_t>(port[i / 4] >> (8 * (i % 4)));
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline void put_bytes(T& port, const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && i < sizeof(T); ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  port = static_cast<T>(v);
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline void get_bytes(const T& port, uint8_t* p, size_t n) {
  for (size_t i = 0; i < n && i < sizeof(T); ++i) p[i] = static_cast<uint8_t>(static_cast<uint64_t>(port) >> (8 * i));
}

}  // namespace ndp::tb
