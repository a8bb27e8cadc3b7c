// Element conversion of docs/spec.md sections 5.2 and 5.4, in integer arithmetic, staged the way the
// RTL bp_assembler computes it:
//   1. fields:  sign, biased exponent, mantissa of the source; the fetch view clears the mantissa bits
//               below the top t; classify zero / finite / Inf / NaN on the view.
//   2. align:   significand sig (hidden bit included) and the exponent of its LSB; find the target
//               quantum (the target's LSB weight at this magnitude, never below the subnormal one) and
//               shift sig right to it, keeping the round bit and the sticky OR of what fell off.
//   3. pack:    pre-rounded magnitude code = ((qe + bias - 1) << m) + kept; the hidden bit of `kept`
//               adds the 1 that makes the biased exponent, and a subnormal result has kept < 2^m.
//   4. round:   code += round & (sticky | code[0]) - ties go to the even code; a carry out of the
//               mantissa moves into the exponent (subnormal -> normal, binade -> next, max -> Inf).
//   5. range:   a code above the largest finite one becomes Inf (IEEE-style targets) or saturates.
#include <algorithm>
#include <bit>

#include "precision_internal.h"

namespace ndp {
namespace detail {
namespace {

enum class Class : uint8_t { kZero, kFinite, kInf, kNaN };

// Stage 1 result: |v'| = sig * 2^lsb_exp (sig includes the hidden bit of a normal source).
struct Fields {
  uint32_t sign = 0;
  Class cls = Class::kZero;
  uint32_t sig = 0;
  int lsb_exp = 0;
};

Fields decode_view(DType src, uint32_t bits, int t) {
  const FloatFormat f = source_format(src);
  const int M = f.man_bits;
  Fields x;
  x.sign = (bits >> (f.exp_bits + M)) & 1;
  const uint32_t e = (bits >> M) & ((1u << f.exp_bits) - 1);
  const uint32_t drop = static_cast<uint32_t>(M - t);
  const uint32_t man = (bits & ((1u << M) - 1)) >> drop << drop;  // fetch view
  const uint32_t e_top = (1u << f.exp_bits) - 1;
  if (f.special == Special::kIeee && e == e_top) {
    x.cls = man ? Class::kNaN : Class::kInf;
    return x;
  }
  if (f.special == Special::kE4M3 && e == e_top && man == (1u << M) - 1) {
    x.cls = Class::kNaN;
    return x;
  }
  x.sig = e ? (1u << M) | man : man;
  x.lsb_exp = static_cast<int>(e ? e : 1) - f.bias - M;
  x.cls = x.sig ? Class::kFinite : Class::kZero;
  return x;
}

// Stage 2: sig >> d with round bit and sticky (d may exceed the width, or be <= 0 = exact shift left).
struct Aligned {
  uint64_t kept;
  uint32_t round;
  uint32_t sticky;
};
Aligned align(uint64_t sig, int d) {
  if (d <= 0) return {sig << -d, 0, 0};
  if (d > 63) return {0, 0, sig != 0};
  const uint64_t kept = sig >> d;
  const uint32_t round = static_cast<uint32_t>((sig >> (d - 1)) & 1);
  const uint32_t sticky = (sig & ((uint64_t{1} << (d - 1)) - 1)) != 0;
  return {kept, round, sticky};
}

// Stages 2-5 for a finite non-zero magnitude sig * 2^lsb_exp: the target magnitude code, and whether it
// overflowed (then the code is already Inf or the saturated maximum).
uint32_t round_to_format(const FloatFormat& f, uint32_t sig, int lsb_exp) {
  const int msb = std::bit_width(sig) - 1;
  const int value_exp = msb + lsb_exp;          // floor(log2 |v'|)
  const int emin = 1 - f.bias;                  // smallest normal exponent
  const int qe = std::max(value_exp, emin);     // exponent that sets the target quantum
  const uint32_t overflow = f.special == Special::kIeee ? f.inf_code() : f.max_code();
  if (qe + f.bias > static_cast<int>(f.max_biased_exp())) return overflow;  // >= 2^(emax+1)
  const Aligned a = align(sig, (qe - f.man_bits) - lsb_exp);
  uint64_t code = (static_cast<uint64_t>(qe + f.bias - 1) << f.man_bits) + a.kept;
  code += a.round & (a.sticky | static_cast<uint32_t>(code & 1));
  if (code > f.max_code()) return overflow;
  return static_cast<uint32_t>(code);
}

int mx_elem_max_exp(RegionKind k) { return k == RegionKind::kMXFP8 ? 8 : 2; }

}  // namespace
}  // namespace detail

using detail::Class;
using detail::FloatFormat;

uint32_t region_view(const Region& r, DType src, uint32_t bits) {
  const auto& info = dtype_info(src);
  const uint32_t width_mask = info.bits >= 32 ? ~0u : (1u << info.bits) - 1;
  bits &= width_mask;
  if (r.kind == RegionKind::kFull || !info.is_float || !detail::region_ok(r, src)) return bits;
  const int drop = info.man_bits - detail::fetched_mantissa(r, src);
  return bits & ~((1u << drop) - 1);
}

uint32_t convert_element(const Region& r, DType src, uint32_t bits) {
  if (!detail::region_ok(r, src)) return 0;
  const auto& info = dtype_info(src);
  if (r.kind == RegionKind::kFull) return info.bits >= 32 ? bits : bits & ((1u << info.bits) - 1);
  const detail::Fields x = detail::decode_view(src, bits, detail::fetched_mantissa(r, src));
  const FloatFormat f = detail::target_format(r, src);
  if (r.kind == RegionKind::kEmK) {
    // Output word: BF16 (bf16/fp32 sources) or FP16 (fp16 source), K mantissa bits at the top.
    const int word_man = src == DType::kFP16 ? 10 : 7;
    const uint32_t sign = x.sign << 15;
    if (x.cls == Class::kNaN) return sign | (src == DType::kFP16 ? 0x7E00u : 0x7FC0u);
    if (x.cls == Class::kInf) return sign | f.inf_code() << (word_man - f.man_bits);
    if (x.cls == Class::kZero) return sign;
    return sign | detail::round_to_format(f, x.sig, x.lsb_exp) << (word_man - f.man_bits);
  }
  const uint32_t sign = x.sign << (f.exp_bits + f.man_bits);
  switch (x.cls) {
    case Class::kNaN:
      if (f.special == detail::Special::kE4M3) return sign | 0x7F;                            // S.1111.111
      if (f.special == detail::Special::kIeee) return sign | f.inf_code() | 1u << (f.man_bits - 1);  // S.11111.10
      return sign | f.max_code();
    case Class::kInf:
      return sign | (f.special == detail::Special::kIeee ? f.inf_code() : f.max_code());
    case Class::kZero:
      return sign;
    case Class::kFinite:
      break;
  }
  return sign | detail::round_to_format(f, x.sig, x.lsb_exp);
}

uint32_t convert_mx_element(const Region& r, DType src, uint32_t bits, int shared_exp) {
  if (!detail::region_ok(r, src) || (r.kind != RegionKind::kMXFP8 && r.kind != RegionKind::kMXFP4)) return 0;
  const detail::Fields x = detail::decode_view(src, bits, detail::fetched_mantissa(r, src));
  const FloatFormat f = detail::target_format(r, src);
  const uint32_t sign = x.sign << (f.exp_bits + f.man_bits);
  if (x.cls == Class::kNaN || x.cls == Class::kInf) return 0;
  if (x.cls == Class::kZero) return sign;
  return sign | detail::round_to_format(f, x.sig, x.lsb_exp - std::clamp(shared_exp, -127, 127));
}

uint8_t convert_mx_group(const Region& r, DType src, const uint32_t* bits, int count, uint8_t* codes) {
  count = std::clamp(count, 0, 32);
  for (int i = 0; i < count; ++i) codes[i] = 0;
  if (!detail::region_ok(r, src) || (r.kind != RegionKind::kMXFP8 && r.kind != RegionKind::kMXFP4))
    return 0xFF;
  const int t = detail::fetched_mantissa(r, src);
  bool any_nonzero = false;
  int emax = 0;
  for (int i = 0; i < count; ++i) {
    const detail::Fields x = detail::decode_view(src, bits[i], t);
    if (x.cls == Class::kNaN || x.cls == Class::kInf) return 0xFF;  // NaN scale, zero elements
    if (x.cls != Class::kFinite) continue;
    const int e = std::bit_width(x.sig) - 1 + x.lsb_exp;  // true exponent, subnormals included
    emax = any_nonzero ? std::max(emax, e) : e;
    any_nonzero = true;
  }
  // All-zero group: X = -127 (scale byte 0); the elements convert to (signed) zeros.
  const int shared = any_nonzero ? std::clamp(emax - detail::mx_elem_max_exp(r.kind), -127, 127) : -127;
  for (int i = 0; i < count; ++i) codes[i] = static_cast<uint8_t>(convert_mx_element(r, src, bits[i], shared));
  return static_cast<uint8_t>(shared + 127);
}

}  // namespace ndp
