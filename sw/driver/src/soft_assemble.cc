// assemble16: region conversion of 16-bit sources through tables.
//
// An element's output code depends only on its fetch view (sign, exponent, top t mantissa bits),
// so each region gets one table of 2^(1 + E + t) codes filled by the golden convert_element; the
// packers then write the 16/8/6/4-bit codes of section 5.1. MX regions (section 5.4) of bf16: per
// group of 32 the shared exponent X = clamp(emax - emax_elem, -127, 127) from the largest finite
// exponent (NaN/Inf anywhere: scale 0xFF, zero codes), then a normal element's code depends only on
// (d = e - 127 - X, fetched mantissa): one table over d in [kDLo, emax_elem] filled by the golden
// convert_mx_element with X = 0 (rows below kDLo round to zero; checked when the table is built);
// subnormal elements go through convert_mx_element itself.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "soft_kernels.h"

namespace ndp::drv {

namespace {

constexpr int kDLo = -48;

struct Tables {
  bool ok = false;
  int drop = 0, t = 0, code_bits = 0;
  std::vector<uint16_t> lut;  // non-MX: code of view >> drop
  bool mx = false;
  int emax_elem = 0;
  uint8_t sign_bit = 0;
  std::vector<uint8_t> mx_lut;  // MX: magnitude code at ((d - kDLo) << t) | mantissa
};

bool is_mx(RegionKind k) { return k == RegionKind::kMXFP8 || k == RegionKind::kMXFP4; }

std::shared_ptr<const Tables> build(const Region& r, DType src) {
  auto tb = std::make_shared<Tables>();
  const DTypeInfo& info = dtype_info(src);
  if (info.bits != 16 || !info.is_float || !region_valid(r, src).ok() || r.kind == RegionKind::kFull) return tb;
  tb->t = region_fetched_mantissa(r, src);
  tb->drop = info.man_bits - tb->t;
  tb->code_bits = static_cast<int>(region_output_bytes(r, src, 64) * 8 / 64);
  if (!is_mx(r.kind)) {
    tb->lut.assign((size_t{1} << (16 - tb->drop)) + 2, 0);  // + 2 spare entries for lut_gather
    for (uint32_t i = 0; i + 2 < tb->lut.size(); ++i) tb->lut[i] = static_cast<uint16_t>(convert_element(r, src, i << tb->drop));
    tb->ok = true;
    return tb;
  }
  if (src != DType::kBF16) return tb;
  tb->mx = true;
  tb->code_bits = r.kind == RegionKind::kMXFP8 ? 8 : 4;
  tb->emax_elem = r.kind == RegionKind::kMXFP8 ? 8 : 2;  // spec 5.4: emax of E4M3 / E2M1
  tb->sign_bit = static_cast<uint8_t>(convert_mx_element(r, src, 0x8000 | 127u << 7, 0) ^
                                      convert_mx_element(r, src, 127u << 7, 0));
  const int rows = tb->emax_elem - kDLo + 1;
  tb->mx_lut.assign((static_cast<size_t>(rows) << tb->t) + 3, 0);  // + 3: 4-byte gathers of the last entry
  for (int d = kDLo; d <= tb->emax_elem; ++d)
    for (uint32_t m = 0; m < (1u << tb->t); ++m)
      tb->mx_lut[(static_cast<size_t>(d - kDLo) << tb->t) | m] =
          static_cast<uint8_t>(convert_mx_element(r, src, static_cast<uint32_t>(d + 127) << 7 | m << tb->drop, 0));
  // Everything below the table must round to zero: the lowest row is all zero.
  tb->ok = std::all_of(tb->mx_lut.begin(), tb->mx_lut.begin() + (1 << tb->t), [](uint8_t c) { return c == 0; });
  return tb;
}

std::shared_ptr<const Tables> tables(const Region& r, DType src) {
  using Key = std::tuple<int, int, int, int>;
  const Key key{static_cast<int>(src), static_cast<int>(r.kind), r.k, r.guard};
  thread_local Key last_key{-1, -1, -1, -1};
  thread_local std::shared_ptr<const Tables> last;
  if (last && key == last_key) return last;
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<const Tables>> all;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = all[key];
  if (!slot) slot = build(r, src);
  last_key = key;
  last = slot;
  return slot;
}

// Codes of `bits` bits LSB-first (section 5.1), zero padding; n codes.
void pack(const uint16_t* codes, uint64_t n, int bits, uint8_t* out) {
  if (bits == 16) {
    std::memcpy(out, codes, 2 * n);
  } else if (bits == 8) {
    for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(codes[i]);
  } else if (bits == 4) {
    for (uint64_t i = 0; i + 1 < n; i += 2) out[i / 2] = static_cast<uint8_t>(codes[i] | codes[i + 1] << 4);
    if (n % 2) out[n / 2] = static_cast<uint8_t>(codes[n - 1]);
  } else {  // 6: four codes in three bytes
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4, out += 3) {
      const uint32_t v = codes[i] | codes[i + 1] << 6 | codes[i + 2] << 12 | static_cast<uint32_t>(codes[i + 3]) << 18;
      out[0] = static_cast<uint8_t>(v);
      out[1] = static_cast<uint8_t>(v >> 8);
      out[2] = static_cast<uint8_t>(v >> 16);
    }
    uint32_t v = 0;
    for (uint64_t j = i; j < n; ++j) v |= static_cast<uint32_t>(codes[j]) << (6 * (j - i));
    for (uint64_t b = 0; b < ((n - i) * 6 + 7) / 8; ++b) out[b] = static_cast<uint8_t>(v >> (8 * b));
  }
}

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() (see soft_kernels.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// codes[k] = lut[w[k] >> drop] for n (a multiple of 32) words with 32-bit gathers; the table has
// two spare entries so that the 4-byte load of its last entry stays inside it.
__attribute__((target("avx512f,avx512bw"))) void lut_gather(const uint16_t* lut, int drop, const uint16_t* w,
                                                            uint64_t n, uint16_t* codes) {
  const __m128i sh = _mm_cvtsi32_si128(drop);
  for (uint64_t i = 0; i < n; i += 32) {
    const __m512i x = _mm512_srl_epi16(_mm512_loadu_si512(w + i), sh);
    const __m512i lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(x));
    const __m512i hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(x, 1));
    const __m512i g0 = _mm512_i32gather_epi32(lo, lut, 2), g1 = _mm512_i32gather_epi32(hi, lut, 2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes + i), _mm512_cvtepi32_epi16(g0));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes + i + 16), _mm512_cvtepi32_epi16(g1));
  }
}
#pragma GCC diagnostic pop

bool have_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return ok;
}

void convert_plain(const Tables& tb, const uint16_t* w, uint64_t n, uint8_t* out) {
  uint16_t codes[256];
  const uint16_t* lut = tb.lut.data();
  const bool simd = have_avx512();
  for (uint64_t i = 0; i < n; i += 256) {
    const uint64_t c = std::min<uint64_t>(256, n - i), v = simd ? c / 32 * 32 : 0;
    if (v) lut_gather(lut, tb.drop, w + i, v, codes);
    for (uint64_t k = v; k < c; ++k) codes[k] = lut[w[i + k] >> tb.drop];
    pack(codes, c, tb.code_bits, out + i * static_cast<uint64_t>(tb.code_bits) / 8);  // 256 codes: whole bytes
  }
}

// Shared exponent of one bf16 MX group (view applied); INT_MIN marks a NaN/Inf group.
int mx_shared(const Tables& tb, const uint16_t* v, int count) {
  int emax = INT_MIN + 1;
  bool any = false;
  for (int i = 0; i < count; ++i) {
    const int e = (v[i] >> 7) & 0xFF;
    if (e == 255) return INT_MIN;
    const int man = v[i] & 0x7F;
    if (!e && !man) continue;
    emax = std::max(emax, e ? e - 127 : static_cast<int>(std::bit_width(static_cast<unsigned>(man))) - 1 - 133);
    any = true;
  }
  return any ? std::clamp(emax - tb.emax_elem, -127, 127) : -127;
}

// One MX group of 32 bf16 words with AVX-512 (two halves of 16 lanes): scale byte and codes to out.
// False, with nothing written, for a group holding NaN/Inf or subnormals (the scalar path does it).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((target("avx512f,avx512bw"))) bool mx_group_avx512(const Tables& tb, const uint16_t* w, uint8_t* out) {
  const __m512i vmask = _mm512_set1_epi32(static_cast<int>(0xFFFFu << tb.drop & 0xFFFF));
  __m512i x[2], e[2];
  __mmask16 bad = 0;
  uint32_t emax = 0;
  for (int h = 0; h < 2; ++h) {
    x[h] = _mm512_and_si512(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16 * h))), vmask);
    e[h] = _mm512_and_si512(_mm512_srli_epi32(x[h], 7), _mm512_set1_epi32(0xFF));
    const __m512i man = _mm512_and_si512(x[h], _mm512_set1_epi32(0x7F));
    bad |= _mm512_cmpeq_epi32_mask(e[h], _mm512_set1_epi32(0xFF)) |
           (_mm512_cmpeq_epi32_mask(e[h], _mm512_setzero_si512()) & _mm512_test_epi32_mask(man, man));
    emax = std::max(emax, _mm512_reduce_max_epu32(e[h]));
  }
  if (bad) return false;
  const int shared = emax ? std::clamp(static_cast<int>(emax) - 127 - tb.emax_elem, -127, 127) : -127;
  *out++ = static_cast<uint8_t>(shared + 127);
  const __m512i base = _mm512_set1_epi32(127 + shared), dlo = _mm512_set1_epi32(kDLo);
  const __m128i t = _mm_cvtsi32_si128(tb.t), drop = _mm_cvtsi32_si128(tb.drop);
  for (int h = 0; h < 2; ++h) {
    const __m512i d = _mm512_max_epi32(_mm512_sub_epi32(e[h], base), dlo);
    const __m512i idx = _mm512_or_si512(_mm512_sll_epi32(_mm512_sub_epi32(d, dlo), t),
                                        _mm512_srl_epi32(_mm512_and_si512(x[h], _mm512_set1_epi32(0x7F)), drop));
    __m512i code = _mm512_and_si512(_mm512_i32gather_epi32(idx, tb.mx_lut.data(), 1), _mm512_set1_epi32(0xFF));
    code = _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(e[h], e[h]), code);  // zeros: magnitude 0
    code = _mm512_mask_or_epi32(code, _mm512_test_epi32_mask(x[h], _mm512_set1_epi32(0x8000)), code,
                                _mm512_set1_epi32(tb.sign_bit));
    if (tb.code_bits == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * h), _mm512_cvtepi32_epi8(code));
    } else {  // 4: element 2i in the low nibble, 2i + 1 in the high one
      const __m512i pair = _mm512_or_si512(code, _mm512_srli_epi64(code, 28));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 8 * h), _mm512_cvtepi64_epi8(pair));
    }
  }
  return true;
}
#pragma GCC diagnostic pop

void convert_mx(const Tables& tb, const Region& r, const uint16_t* w, uint64_t n, uint8_t* out) {
  const uint16_t vmask = static_cast<uint16_t>(0xFFFFu << tb.drop);
  const uint8_t* lut = tb.mx_lut.data();
  const int t = tb.t, drop = tb.drop;
  const uint16_t sb = tb.sign_bit;
  const bool simd = have_avx512();
  uint16_t v[32], codes[32];
  for (uint64_t g = 0; g < n; g += 32) {
    const int count = static_cast<int>(std::min<uint64_t>(32, n - g));
    const uint64_t bytes = (static_cast<uint64_t>(count) * tb.code_bits + 7) / 8;
    if (simd && count == 32 && mx_group_avx512(tb, w + g, out)) {
      out += 1 + bytes;
      continue;
    }
    for (int i = 0; i < count; ++i) v[i] = w[g + i] & vmask;
    const int shared = mx_shared(tb, v, count);
    if (shared == INT_MIN) {
      *out++ = 0xFF;
      std::memset(out, 0, bytes);
      out += bytes;
      continue;
    }
    *out++ = static_cast<uint8_t>(shared + 127);
    // Branch-free: d <= emax_elem always; d < kDLo reads the all-zero lowest row; exponent 0 gives
    // magnitude 0 (zeros), and subnormals are redone below.
    bool subnormal = false;
    for (int i = 0; i < count; ++i) {
      const uint32_t x = v[i], e = (x >> 7) & 0xFF;
      const int d = std::max(static_cast<int>(e) - 127 - shared, kDLo);
      const uint32_t mag = lut[(static_cast<uint32_t>(d - kDLo) << t) | ((x & 0x7F) >> drop)];
      codes[i] = static_cast<uint16_t>((x >> 15 ? sb : 0) | (e ? mag : 0));
      subnormal |= !e && (x & 0x7F);
    }
    if (subnormal)
      for (int i = 0; i < count; ++i)
        if (!((v[i] >> 7) & 0xFF) && (v[i] & 0x7F))
          codes[i] = static_cast<uint16_t>(convert_mx_element(r, DType::kBF16, v[i], shared));
    pack(codes, static_cast<uint64_t>(count), tb.code_bits, out);
    out += bytes;
  }
}

}  // namespace

bool assemble16(const Region& r, DType src, const uint16_t* words, uint64_t n, uint8_t* out) {
  const std::shared_ptr<const Tables> tb = tables(r, src);
  if (!tb->ok) return false;
  if (tb->mx)
    convert_mx(*tb, r, words, n, out);
  else
    convert_plain(*tb, words, n, out);
  return true;
}

}  // namespace ndp::drv
