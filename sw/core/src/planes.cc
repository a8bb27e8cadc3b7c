// Bit-plane layout of docs/spec.md section 2: plane ids, storage order, fast pack/unpack of one chunk.
#include "ndp/planes.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "bit_transpose.h"

namespace ndp {
namespace {

using detail::load64;
using detail::store64;

constexpr int kMaxBitPlanes = 32;

// Where pack writes (or unpack reads) each plane of a chunk: bit-plane b at bits[b] (nullptr: not
// stored / read as zero), the exponent byte plane at exp (nullptr unless the layout is expbyte).
template <typename Byte>
struct PlaneMapT {
  Byte* bits[kMaxBitPlanes] = {};
  Byte* exp = nullptr;
};
using PackMap = PlaneMapT<uint8_t>;
using UnpackMap = PlaneMapT<const uint8_t>;

// Element geometry as template parameters, so the exponent loops compile to constant shifts/masks:
// B bytes per element, exponent field at bit M, E bits wide (E = 0: integer type, no field).
template <int B_, int M_, int E_>
struct Geom {
  static constexpr int B = B_, M = M_;
  static constexpr unsigned kMask = (1u << E_) - 1;
  using Word = std::conditional_t<B == 1, uint8_t, std::conditional_t<B == 2, uint16_t, uint32_t>>;
};

// EXPBYTE values of `count` elements (word-typed loops that the compiler vectorizes).
template <typename G>
inline void extract_exponents(const uint8_t* src, int count, uint8_t* exp) {
  typename G::Word w[64];
  std::memcpy(w, src, static_cast<size_t>(count) * G::B);
  for (int i = 0; i < count; ++i) exp[i] = static_cast<uint8_t>((w[i] >> G::M) & G::kMask);
}
template <typename G>
inline void insert_exponents(typename G::Word* w, int count, const uint8_t* exp) {
  using W = typename G::Word;
  for (int i = 0; i < count; ++i) w[i] = static_cast<W>(w[i] | static_cast<W>(exp[i] & G::kMask) << G::M);
}

// Pack `count` (<= 64) elements starting at element `first` of a chunk; the plane bytes written are
// those of this block only (ceil(count/8) per bit-plane), so padding bits come out zero.
template <typename G>
void pack_block(const uint8_t* src, uint64_t first, int count, const PackMap& m) {
  constexpr int B = G::B;
  uint64_t words[8 * B];
  if (count == 64) {
    detail::pack_block64<B>(src, words);
    for (int b = 0; b < 8 * B; ++b)
      if (m.bits[b]) store64(m.bits[b] + first / 8, words[b]);
    if (m.exp) extract_exponents<G>(src, 64, m.exp + first);  // constant trip count: vectorized
    return;
  }
  uint8_t tmp[64 * B] = {};
  std::memcpy(tmp, src, static_cast<size_t>(count) * B);
  detail::pack_block64<B>(tmp, words);
  const size_t nbytes = (static_cast<size_t>(count) + 7) / 8;
  for (int b = 0; b < 8 * B; ++b)
    if (m.bits[b]) std::memcpy(m.bits[b] + first / 8, &words[b], nbytes);
  if (m.exp) extract_exponents<G>(src, count, m.exp + first);
}

template <typename G>
void unpack_block(uint8_t* dst, uint64_t first, int count, const UnpackMap& m) {
  constexpr int B = G::B;
  uint64_t words[8 * B];
  const size_t nbytes = (static_cast<size_t>(count) + 7) / 8;
  for (int b = 0; b < 8 * B; ++b) {
    words[b] = 0;
    if (!m.bits[b]) continue;
    if (count == 64)
      words[b] = load64(m.bits[b] + first / 8);
    else
      std::memcpy(&words[b], m.bits[b] + first / 8, nbytes);
  }
  if (count < 64) {  // clear the padding bits: decoders may hand unchecked planes
    const uint64_t keep = ~0ull >> (64 - count);
    for (int b = 0; b < 8 * B; ++b) words[b] &= keep;
  }
  if (count == 64 && !m.exp) {
    detail::unpack_block64<B>(words, dst);
    return;
  }
  typename G::Word tmp[64];
  detail::unpack_block64<B>(words, reinterpret_cast<uint8_t*>(tmp));
  if (count == 64) {  // constant trip count and size: vectorized, no library memcpy
    insert_exponents<G>(tmp, 64, m.exp + first);
    std::memcpy(dst, tmp, 64 * B);
    return;
  }
  if (m.exp) insert_exponents<G>(tmp, count, m.exp + first);
  std::memcpy(dst, tmp, static_cast<size_t>(count) * B);
}

template <typename G>
void pack_elems(const uint8_t* src, uint64_t n, const PackMap& m) {
  for (uint64_t i = 0; i < n; i += 64)
    pack_block<G>(src + i * G::B, i, static_cast<int>(std::min<uint64_t>(64, n - i)), m);
}

template <typename G>
void unpack_elems(uint8_t* dst, uint64_t n, const UnpackMap& m) {
  for (uint64_t i = 0; i < n; i += 64)
    unpack_block<G>(dst + i * G::B, i, static_cast<int>(std::min<uint64_t>(64, n - i)), m);
}

using Int8Geom = Geom<1, 0, 0>;

// int4: each 64-element block is widened to one byte per element and handled as int8 (planes 4..7
// of the widened bytes are always zero and are not stored).
void pack_int4(const uint8_t* src, uint64_t n, const PackMap& m) {
  uint8_t wide[64];
  for (uint64_t i = 0; i < n; i += 64) {
    const int count = static_cast<int>(std::min<uint64_t>(64, n - i));
    for (int k = 0; k < count; ++k) {
      const uint64_t e = i + k;
      wide[k] = (src[e / 2] >> (4 * (e & 1))) & 0xF;
    }
    pack_block<Int8Geom>(wide, i, count, m);
  }
}

void unpack_int4(uint8_t* dst, uint64_t n, const UnpackMap& m) {
  uint8_t wide[64];
  std::memset(dst, 0, dtype_bytes(DType::kINT4, n));
  for (uint64_t i = 0; i < n; i += 64) {
    const int count = static_cast<int>(std::min<uint64_t>(64, n - i));
    unpack_block<Int8Geom>(wide, i, count, m);
    for (int k = 0; k < count; ++k) {
      const uint64_t e = i + k;
      dst[e / 2] = static_cast<uint8_t>(dst[e / 2] | (wide[k] & 0xF) << (4 * (e & 1)));
    }
  }
}

// Call f(Geom<...>()) with the geometry of t (int4 is handled by the caller).
template <typename F>
void dispatch(DType t, F&& f) {
  switch (t) {
    case DType::kBF16: f(Geom<2, 7, 8>()); break;
    case DType::kFP16: f(Geom<2, 10, 5>()); break;
    case DType::kFP32: f(Geom<4, 23, 8>()); break;
    case DType::kFP8E4M3: f(Geom<1, 3, 4>()); break;
    case DType::kFP8E5M2: f(Geom<1, 2, 5>()); break;
    default: f(Int8Geom()); break;
  }
}

bool uses_expbyte(DType t, Layout l) { return l == Layout::kExpByte && dtype_info(t).is_float; }

}  // namespace

std::vector<uint8_t> plane_order(DType t, Layout l) {
  const auto& info = dtype_info(t);
  std::vector<uint8_t> order;
  if (!uses_expbyte(t, l)) {
    for (int b = info.bits - 1; b >= 0; --b) order.push_back(static_cast<uint8_t>(b));
    return order;
  }
  order.push_back(static_cast<uint8_t>(info.bits - 1));
  order.push_back(kPlaneExpByte);
  for (int b = info.man_bits - 1; b >= 0; --b) order.push_back(static_cast<uint8_t>(b));
  return order;
}

size_t plane_raw_bytes(uint8_t plane, uint64_t n) {
  if (plane < kMaxBitPlanes) return (n + 7) / 8;
  if (plane == kPlaneExpByte || plane == kPlaneKvBase) return n;
  return 0;
}

bool plane_is_exponent(DType t, uint8_t plane) {
  const auto& info = dtype_info(t);
  if (!info.is_float) return false;
  if (plane == kPlaneExpByte) return true;
  return plane >= info.man_bits && plane < info.man_bits + info.exp_bits;
}

Status check_plane(DType t, Layout l, uint8_t plane, const uint8_t* data, size_t size, uint64_t n) {
  const auto order = plane_order(t, l);
  if (std::find(order.begin(), order.end(), plane) == order.end())
    return Status::Error("plane id " + std::to_string(plane) + " is not a plane of a " +
                         dtype_info(t).name + " chunk");
  const size_t want = plane_raw_bytes(plane, n);
  if (size != want)
    return Status::Error("plane " + std::to_string(plane) + ": " + std::to_string(size) +
                         " bytes, expected " + std::to_string(want) + " for " + std::to_string(n) +
                         " elements");
  if (plane == kPlaneExpByte) {
    const unsigned limit = 1u << dtype_info(t).exp_bits;
    for (size_t i = 0; i < size; ++i)
      if (data[i] >= limit)
        return Status::Error("exponent byte plane: byte " + std::to_string(i) + " = " +
                             std::to_string(data[i]) + " does not fit " +
                             std::to_string(dtype_info(t).exp_bits) + " exponent bits");
    return Status::Ok();
  }
  if (n % 8 != 0 && (data[size - 1] >> (n % 8)) != 0)
    return Status::Error("plane " + std::to_string(plane) + ": padding bits of byte " +
                         std::to_string(size - 1) + " are not zero");
  return Status::Ok();
}

void pack_chunk(DType t, Layout l, const uint8_t* src, uint64_t n,
                std::vector<std::vector<uint8_t>>& planes) {
  const auto order = plane_order(t, l);
  planes.resize(order.size());
  PackMap m;
  for (size_t i = 0; i < order.size(); ++i) {
    planes[i].resize(plane_raw_bytes(order[i], n));
    if (order[i] == kPlaneExpByte)
      m.exp = planes[i].data();
    else
      m.bits[order[i]] = planes[i].data();
  }
  if (n == 0) return;
  if (t == DType::kINT4)
    pack_int4(src, n, m);
  else
    dispatch(t, [&](auto g) { pack_elems<decltype(g)>(src, n, m); });
}

void unpack_chunk(DType t, Layout l, const std::vector<const uint8_t*>& planes, uint64_t n,
                  uint8_t* dst) {
  const auto order = plane_order(t, l);
  UnpackMap m;
  for (size_t i = 0; i < order.size() && i < planes.size(); ++i) {
    if (order[i] == kPlaneExpByte)
      m.exp = planes[i];
    else
      m.bits[order[i]] = planes[i];
  }
  if (n == 0) return;
  if (t == DType::kINT4)
    unpack_int4(dst, n, m);
  else
    dispatch(t, [&](auto g) { unpack_elems<decltype(g)>(dst, n, m); });
}

}  // namespace ndp
