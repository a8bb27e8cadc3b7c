// Internal SWAR kernels for the bit-plane transform (docs/golden-model.md, "pack/unpack").
//
// A block of 64 elements of B bytes is handled as B "byte lanes" (lane j = byte j of every element).
// For one lane, 64 bytes are 8 words X_g (elements 8g..8g+7). An 8x8 bit transpose of X_g yields a
// word whose byte b holds bit b of those 8 elements, LSB first - one byte of plane 8j+b. An 8x8 byte
// transpose over the 8 transposed words then gathers, for each bit b, the 8 bytes of plane 8j+b into one
// 64-bit word: the plane's bits for all 64 elements (bit k = element k, the spec's LSB-first order on a
// little-endian host). Both transposes are involutions, so unpack runs the same steps in reverse.
// Everything is branch-free shifts, masks and xors on independent words, which the compiler keeps in
// registers and vectorizes (planes.cc is built with -O3).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ndp::detail {

static_assert(std::endian::native == std::endian::little, "plane words assume a little-endian host");

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void store64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// A vector of L 64-bit words. GCC and Clang lower it to the SIMD registers the target has (SSE2 at
// the x86-64 baseline) and to plain scalar code elsewhere; every operation below is element-wise.
template <int L>
struct Vec {
  typedef uint64_t type __attribute__((vector_size(8 * L)));
};

// 8x8 bit-matrix transpose of every 64-bit word: bit (8*r + c) moves to bit (8*c + r).
// Hacker's Delight 7-3, 64-bit form. Vectors are passed by reference (internal code; by-value
// vectors wider than the baseline registers draw GCC's -Wpsabi note).
template <typename W>
inline void transpose8x8(W& x) {
  W t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x ^= t ^ (t << 28);
}

// 8x8 byte-matrix transpose over 8 words: byte c of w[r] moves to byte r of w[c] (in every lane).
// Three stages swap 4-, 2- and 1-byte blocks between the words of a pair (r, r + S).
template <typename W>
inline void transpose_bytes8x8(W* w) {
  constexpr uint64_t kLo32 = 0x00000000FFFFFFFFull;
  constexpr uint64_t kLo16 = 0x0000FFFF0000FFFFull;
  constexpr uint64_t kLo8 = 0x00FF00FF00FF00FFull;
  for (int r : {0, 1, 2, 3}) {
    W t = ((w[r] >> 32) ^ w[r + 4]) & kLo32;
    w[r + 4] ^= t;
    w[r] ^= t << 32;
  }
  for (int r : {0, 1, 4, 5}) {
    W t = ((w[r] >> 16) ^ w[r + 2]) & kLo16;
    w[r + 2] ^= t;
    w[r] ^= t << 16;
  }
  for (int r : {0, 2, 4, 6}) {
    W t = ((w[r] >> 8) ^ w[r + 1]) & kLo8;
    w[r + 1] ^= t;
    w[r] ^= t << 8;
  }
}

// Conversions between the element image of 8 elements (element k, byte j at k*B + j) and the lane
// image (word j holds byte j of the 8 elements, element k in byte k). Written with width conversions,
// which GCC and Clang lower to mask/pack/unpack instructions (general byte shuffles lower badly
// without SSSE3).
typedef uint8_t u8x8 __attribute__((vector_size(8)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));

inline void split16(u16x8 x, uint64_t& lo, uint64_t& hi) {
  lo = reinterpret_cast<uint64_t>(__builtin_convertvector(x & 0xFF, u8x8));
  hi = reinterpret_cast<uint64_t>(__builtin_convertvector(x >> 8, u8x8));
}
inline u16x8 join16(uint64_t lo, uint64_t hi) {
  return __builtin_convertvector(reinterpret_cast<u8x8>(lo), u16x8) |
         (__builtin_convertvector(reinterpret_cast<u8x8>(hi), u16x8) << 8);
}

// The transposes run on two byte lanes at a time (one 128-bit register per group of 8 elements, 8
// groups: register pressure stays within the 16 SSE registers). A 16-bit half of the element feeds
// one lane pair: B = 2 has one pair; B = 4 has two (low half: lanes 0-1, high half: lanes 2-3).
using Pair = Vec<2>::type;

// Lane pair P of 8 elements of B bytes at src.
template <int B, int P>
inline void load_pair(const uint8_t* src, Pair& w) {
  u16x8 h;
  if constexpr (B == 2) {
    std::memcpy(&h, src, 16);
  } else {
    u32x8 x;
    std::memcpy(&x, src, 32);
    h = P == 0 ? __builtin_convertvector(x & 0xFFFF, u16x8) : __builtin_convertvector(x >> 16, u16x8);
  }
  uint64_t lo, hi;
  split16(h, lo, hi);
  w = Pair{lo, hi};
}

// Transpose 8 lane words (w[g]: one byte lane of elements 8g..8g+7) into 8 plane words (w[b]: plane b
// of the lane for all 64 elements). Self-inverse up to the order of the two steps.
template <typename V>
inline void lanes_to_planes(V* w) {
  for (int g = 0; g < 8; ++g) transpose8x8(w[g]);
  transpose_bytes8x8(w);
}
template <typename V>
inline void planes_to_lanes(V* w) {
  transpose_bytes8x8(w);
  for (int g = 0; g < 8; ++g) transpose8x8(w[g]);
}

// Split 64 elements of B bytes (64*B bytes at src) into 8*B plane words; out[b] = bit-plane b.
template <int B>
inline void pack_block64(const uint8_t* src, uint64_t* out) {
  if constexpr (B == 1) {
    uint64_t w[8];
    for (int g = 0; g < 8; ++g) w[g] = load64(src + 8 * g);
    lanes_to_planes(w);
    for (int b = 0; b < 8; ++b) out[b] = w[b];
  } else {
    auto pair = [&](auto p) {
      constexpr int P = decltype(p)::value;
      Pair w[8];
      for (int g = 0; g < 8; ++g) load_pair<B, P>(src + 8 * B * g, w[g]);
      lanes_to_planes(w);
      for (int b = 0; b < 8; ++b) {
        out[16 * P + b] = w[b][0];
        out[16 * P + 8 + b] = w[b][1];
      }
    };
    pair(std::integral_constant<int, 0>());
    if constexpr (B == 4) pair(std::integral_constant<int, 1>());
  }
}

// Inverse of pack_block64: 8*B plane words -> 64 elements of B bytes at dst.
template <int B>
inline void unpack_block64(const uint64_t* in, uint8_t* dst) {
  if constexpr (B == 1) {
    uint64_t w[8];
    for (int b = 0; b < 8; ++b) w[b] = in[b];
    planes_to_lanes(w);
    for (int g = 0; g < 8; ++g) store64(dst + 8 * g, w[g]);
  } else {
    u16x8 half[B / 2][8];  // half[P][g]: 16-bit half P of elements 8g..8g+7
    for (int p = 0; p < B / 2; ++p) {
      Pair w[8];
      for (int b = 0; b < 8; ++b) w[b] = Pair{in[16 * p + b], in[16 * p + 8 + b]};
      planes_to_lanes(w);
      for (int g = 0; g < 8; ++g) half[p][g] = join16(w[g][0], w[g][1]);
    }
    for (int g = 0; g < 8; ++g) {
      if constexpr (B == 2) {
        std::memcpy(dst + 16 * g, &half[0][g], 16);
      } else {
        const u32x8 y = __builtin_convertvector(half[0][g], u32x8) |
                        (__builtin_convertvector(half[1][g], u32x8) << 16);
        std::memcpy(dst + 32 * g, &y, 32);
      }
    }
  }
}

}  // namespace ndp::detail
