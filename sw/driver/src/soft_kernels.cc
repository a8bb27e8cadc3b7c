// BF16 expbyte unpack: 64 elements per step with one byte permute and one GF(2) affine transform.
//
// For 64 elements the sign and the 7 mantissa planes are 8 words of 64 bits. Placed in one 512-bit
// register as qword k = plane (7 - k), a byte transpose (vpermb) gathers, for each group of 8
// elements, the 8 plane bytes of that group into one qword; gf2p8affineqb with the group's qword
// as the matrix and the bytes 1 << j as the vectors transposes each 8x8 bit matrix, so byte j of
// the group becomes element j's sign and mantissa bits (bit 7 = sign, bits 6..0 = mantissa). Two
// zero-extensions with the exponent bytes then give the BF16 words. CPUs without AVX-512 VBMI and
// GFNI take the portable unpack_chunk (SWAR bit transposes).
#include "soft_kernels.h"

#include <immintrin.h>

#include <cstring>
#include <vector>

#include "ndp/block.h"
#include "ndp/planes.h"

namespace ndp::drv {

namespace {

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which -Wmaybe-uninitialized flags
// once inlined (GCC bug 105593); the values are fully defined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

alignas(64) const uint8_t kZeroPlane[65536 + 64] = {};  // any plane of a chunk of at most 65536 elements

__attribute__((target("avx512f,avx512bw,avx512vbmi,gfni"))) void unpack_avx512(const uint8_t* const p[8],
                                                                               const uint8_t* exp, uint64_t groups,
                                                                               uint8_t* dst) {
  // out byte 8 g + k = in byte 8 k + g
  alignas(64) uint8_t idx[64];
  for (int g = 0; g < 8; ++g)
    for (int k = 0; k < 8; ++k) idx[8 * g + k] = static_cast<uint8_t>(8 * k + g);
  const __m512i perm = _mm512_load_si512(idx);
  const __m512i onehot = _mm512_set1_epi64(static_cast<long long>(0x8040201008040201ull));
  const __m512i lo7 = _mm512_set1_epi16(0x7F), sgn = _mm512_set1_epi16(static_cast<short>(0x8000));
  for (uint64_t i = 0; i < groups; ++i) {
    // qword k = plane (7 - k): k = 0 is the sign (bit 7), k = 1..7 mantissa bits 6..0.
    long long q[8];
    for (int k = 0; k < 8; ++k) __builtin_memcpy(&q[k], p[k] + 8 * i, 8);
    const __m512i planes = _mm512_set_epi64(q[7], q[6], q[5], q[4], q[3], q[2], q[1], q[0]);
    const __m512i bytes = _mm512_permutexvar_epi8(perm, planes);
    const __m512i sm = _mm512_gf2p8affine_epi64_epi8(onehot, bytes, 0);
    for (int h = 0; h < 2; ++h) {
      const __m512i s = _mm512_cvtepu8_epi16(h ? _mm512_extracti64x4_epi64(sm, 1) : _mm512_castsi512_si256(sm));
      const __m512i e = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(exp + 64 * i + 32 * h)));
      const __m512i w = _mm512_or_si512(_mm512_or_si512(_mm512_and_si512(_mm512_slli_epi16(s, 8), sgn),
                                                        _mm512_and_si512(s, lo7)),
                                        _mm512_slli_epi16(e, 7));
      _mm512_storeu_si512(dst + 128 * i + 64 * h, w);
    }
  }
}

constexpr uint32_t kP1 = 2654435761u, kP2 = 2246822519u, kP3 = 3266489917u, kP4 = 668265263u, kP5 = 374761393u;

// The stripe loop of XXH32 for four buffers of len bytes (len >= 16) at once: lane group j (32-bit
// lanes 4j..4j+3) holds buffer j's accumulators v1..v4. acc[4 j + a] receives them.
__attribute__((target("avx512f"))) void xxh32_stripes4(const uint8_t* const* d, uint64_t len, uint32_t* acc) {
  const __m512i p1 = _mm512_set1_epi32(static_cast<int>(kP1)), p2 = _mm512_set1_epi32(static_cast<int>(kP2));
  __m512i v = _mm512_setr_epi32(static_cast<int>(kP1 + kP2), static_cast<int>(kP2), 0, static_cast<int>(0u - kP1),
                                static_cast<int>(kP1 + kP2), static_cast<int>(kP2), 0, static_cast<int>(0u - kP1),
                                static_cast<int>(kP1 + kP2), static_cast<int>(kP2), 0, static_cast<int>(0u - kP1),
                                static_cast<int>(kP1 + kP2), static_cast<int>(kP2), 0, static_cast<int>(0u - kP1));
  for (uint64_t o = 0; o + 16 <= len; o += 16) {
    __m512i x = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d[0] + o)));
    x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d[1] + o)), 1);
    x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d[2] + o)), 2);
    x = _mm512_inserti32x4(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d[3] + o)), 3);
    v = _mm512_mullo_epi32(_mm512_rol_epi32(_mm512_add_epi32(v, _mm512_mullo_epi32(x, p2)), 13), p1);
  }
  _mm512_storeu_si512(acc, v);
}

#pragma GCC diagnostic pop

// XXH32 of one buffer from its stripe accumulators (len >= 16): merge, length, tail, avalanche.
uint32_t xxh32_finish(const uint32_t* v, const uint8_t* p, uint64_t len) {
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  uint32_t h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
  h += static_cast<uint32_t>(len);
  uint64_t o = len / 16 * 16;
  for (; o + 4 <= len; o += 4) {
    uint32_t w;
    std::memcpy(&w, p + o, 4);
    h = rotl(h + w * kP3, 17) * kP4;
  }
  for (; o < len; ++o) h = rotl(h + p[o] * kP5, 11) * kP1;
  h ^= h >> 15;
  h *= kP2;
  h ^= h >> 13;
  h *= kP3;
  h ^= h >> 16;
  return h;
}

bool have_avx512_gfni() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni");
  return ok;
}

void unpack_generic(const uint8_t* sign, const uint8_t* exp, const uint8_t* const mant[7], uint64_t n, uint8_t* dst) {
  std::vector<const uint8_t*> planes{sign, exp};
  for (int b = 0; b < 7; ++b) planes.push_back(mant[b]);
  unpack_chunk(DType::kBF16, Layout::kExpByte, planes, n, dst);
}

}  // namespace

void unpack_bf16_expbyte(const uint8_t* sign, const uint8_t* exp, const uint8_t* const mant[7], uint64_t n,
                         uint8_t* dst) {
  if (!have_avx512_gfni() || n > 65536) {
    unpack_generic(sign, exp, mant, n, dst);
    return;
  }
  const uint8_t* p[8];
  p[0] = sign ? sign : kZeroPlane;
  for (int b = 0; b < 7; ++b) p[1 + b] = mant[b] ? mant[b] : kZeroPlane;  // mant[0] = plane 6
  const uint64_t groups = n / 64;
  unpack_avx512(p, exp ? exp : kZeroPlane, groups, dst);
  if (n % 64 == 0) return;
  const uint8_t* tail[7];
  for (int b = 0; b < 7; ++b) tail[b] = mant[b] ? mant[b] + 8 * groups : nullptr;
  unpack_generic(sign ? sign + 8 * groups : nullptr, exp ? exp + 64 * groups : nullptr, tail, n - 64 * groups,
                 dst + 128 * groups);
}

const char* bf16_kernel_name() { return have_avx512_gfni() ? "avx512-gfni" : "swar"; }


void xxh32_batch(const uint8_t* const* data, const uint32_t* len, size_t count, uint32_t* out) {
  static const bool simd = __builtin_cpu_supports("avx512f");
  size_t i = 0;
  while (i < count) {
    if (simd && i + 4 <= count && len[i] >= 16 && len[i + 1] == len[i] && len[i + 2] == len[i] && len[i + 3] == len[i]) {
      uint32_t acc[16];
      xxh32_stripes4(data + i, len[i], acc);
      for (int j = 0; j < 4; ++j) out[i + j] = xxh32_finish(acc + 4 * j, data[i + j], len[i]);
      i += 4;
    } else {
      out[i] = block_checksum(data[i], len[i]);
      ++i;
    }
  }
}

}  // namespace ndp::drv
