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

#include <vector>

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

#pragma GCC diagnostic pop

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

}  // namespace ndp::drv
