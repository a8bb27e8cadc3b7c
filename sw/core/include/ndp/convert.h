// Scalar conversions between the host float formats (used by readers and `--as bf16`).
#pragma once

#include <cstdint>
#include <cstring>

namespace ndp {

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// FP32 -> BF16 with round-to-nearest-even; NaN stays NaN (quiet bit forced), Inf stays Inf.
inline uint16_t fp32_to_bf16_rne(uint32_t u) {
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7FFFu + lsb) >> 16);
}
inline uint32_t bf16_to_fp32(uint16_t h) { return static_cast<uint32_t>(h) << 16; }

// FP16 (IEEE binary16) -> FP32, exact.
inline uint32_t fp16_to_fp32(uint16_t h) {
  uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return s | 0x7F800000u | (m << 13);
  if (e == 0) {
    if (m == 0) return s;
    int sh = 0;
    while (!(m & 0x400)) { m <<= 1; ++sh; }
    m &= 0x3FF;
    return s | (static_cast<uint32_t>(113 - sh) << 23) | (m << 13);
  }
  return s | ((e + 112) << 23) | (m << 13);
}

}  // namespace ndp
