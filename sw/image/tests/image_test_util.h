// Shared helpers of the image tests: weight-like random tensors of every dtype.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ndp/convert.h"
#include "ndp/dtype.h"
#include "ndp/test_seed.h"

namespace ndp::imgtest {

// n elements of t in natural encoding: Gaussian-like weights (floats) with a few specials (zeros,
// subnormals, Inf, NaN) mixed in, uniform random for integers.
inline std::vector<uint8_t> weights(DType t, uint64_t n, uint32_t seed, bool specials = true) {
  std::mt19937 rng(static_cast<uint32_t>(ndp::testing::test_seed(seed)));
  std::normal_distribution<float> nd(0.0f, 0.02f);
  std::vector<uint8_t> out(dtype_bytes(t, n));
  for (uint64_t i = 0; i < n; ++i) {
    float f = nd(rng);
    const uint32_t r = rng();
    if (specials && r % 997 == 0) f = 0.0f;
    if (specials && r % 1999 == 0) f = std::ldexp(1.0f, -140);  // FP32 subnormal
    uint32_t u = f32_bits(f);
    if (specials && r % 4001 == 0) u = 0x7F800000u | (r & 0x80000000u);
    if (specials && r % 5003 == 0) u = 0x7FC00001u;
    switch (t) {
      case DType::kFP32:
        std::memcpy(&out[4 * i], &u, 4);
        break;
      case DType::kBF16: {
        const uint16_t h = fp32_to_bf16_rne(u);
        std::memcpy(&out[2 * i], &h, 2);
        break;
      }
      case DType::kFP16: {
        // Scale into the fp16 range and take the top bits of a plausible encoding.
        uint16_t h = static_cast<uint16_t>((r & 0x8000u) | ((10 + r % 8) << 10) | (rng() & 0x3FF));
        if (specials && r % 3001 == 0) h = 0x7C00;
        std::memcpy(&out[2 * i], &h, 2);
        break;
      }
      case DType::kFP8E4M3:
      case DType::kFP8E5M2:
        out[i] = static_cast<uint8_t>((r & 0x80u) | ((2 + r % 6) << 3) | (rng() & 7));
        break;
      case DType::kINT8:
        out[i] = static_cast<uint8_t>(static_cast<int>(nd(rng) * 2000.0f));
        break;
      case DType::kINT4:
        out[i / 2] = static_cast<uint8_t>(out[i / 2] | ((r & 0xF) << (4 * (i % 2))));
        break;
    }
  }
  return out;
}

inline const DType kAllTypes[] = {DType::kBF16,    DType::kFP16,    DType::kFP32, DType::kFP8E4M3,
                                  DType::kFP8E5M2, DType::kINT8,    DType::kINT4};

}  // namespace ndp::imgtest
