// Internal: target formats of the precision regions and the integer conversion datapath of
// docs/spec.md sections 5.2/5.4, shared by precision.cc (regions, packing) and precision_convert.cc
// (public per-element and MX-group entry points). The datapath is staged as the RTL bp_assembler
// computes it:
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
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "ndp/dtype.h"
#include "ndp/precision.h"

namespace ndp::detail {

// How a format uses its top exponent code.
enum class Special : uint8_t {
  kIeee,  // all-ones exponent = Inf (mantissa 0) / NaN; overflow gives Inf (eEmK, E5M2, bf16/fp16/fp32)
  kE4M3,  // OCP E4M3: only S.1111.111 is NaN, no Inf; overflow saturates to 448
  kNone,  // OCP FP6/FP4: every code finite; overflow saturates
};

struct FloatFormat {
  int exp_bits;
  int man_bits;
  int bias;
  Special special;

  int width() const { return 1 + exp_bits + man_bits; }
  // Largest biased exponent of a finite value.
  uint32_t max_biased_exp() const {
    return special == Special::kIeee ? (1u << exp_bits) - 2 : (1u << exp_bits) - 1;
  }
  // Largest finite magnitude code (sign excluded).
  uint32_t max_code() const {
    if (special == Special::kE4M3) return (1u << (exp_bits + man_bits)) - 2;
    return (max_biased_exp() << man_bits) | ((1u << man_bits) - 1);
  }
  uint32_t inf_code() const { return ((1u << exp_bits) - 1) << man_bits; }
};

// region_valid(r, src).ok() without building a message.
bool region_ok(const Region& r, DType src);

// Format of a source dtype (floating types only).
FloatFormat source_format(DType t);

// Output element format of a region (eEmK: the source exponent with K mantissa bits; MX: the element
// format). Requires a valid floating region other than kFull.
FloatFormat target_format(const Region& r, DType src);

// Mantissa bits the region keeps (m) and fetches (t = min(M, m + g)); M for kFull.
int kept_mantissa(const Region& r, DType src);
int fetched_mantissa(const Region& r, DType src);

enum class Class : uint8_t { kZero, kFinite, kInf, kNaN };

// Stage 1 result: |v'| = sig * 2^lsb_exp (sig includes the hidden bit of a normal source).
struct Fields {
  uint32_t sign = 0;
  Class cls = Class::kZero;
  uint32_t sig = 0;
  int lsb_exp = 0;
};

// Stage 1: fields of the fetch view of `bits` (t mantissa bits kept) in source format f.
inline Fields decode_view(const FloatFormat& f, uint32_t bits, int t) {
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
inline Aligned align(uint64_t sig, int d) {
  if (d <= 0) return {sig << -d, 0, 0};
  if (d > 63) return {0, 0, sig != 0};
  const uint64_t kept = sig >> d;
  const uint32_t round = static_cast<uint32_t>((sig >> (d - 1)) & 1);
  const uint32_t sticky = (sig & ((uint64_t{1} << (d - 1)) - 1)) != 0;
  return {kept, round, sticky};
}

// Stages 2-5 for a finite non-zero magnitude sig * 2^lsb_exp: the target magnitude code (on overflow
// already Inf or the saturated maximum).
inline uint32_t round_to_format(const FloatFormat& f, uint32_t sig, int lsb_exp) {
  const int msb = std::bit_width(sig) - 1;
  const int value_exp = msb + lsb_exp;       // floor(log2 |v'|)
  const int emin = 1 - f.bias;               // smallest normal exponent
  const int qe = std::max(value_exp, emin);  // exponent that sets the target quantum
  const uint32_t overflow = f.special == Special::kIeee ? f.inf_code() : f.max_code();
  if (qe + f.bias > static_cast<int>(f.max_biased_exp())) return overflow;  // >= 2^(emax+1)
  const Aligned a = align(sig, (qe - f.man_bits) - lsb_exp);
  uint64_t code = (static_cast<uint64_t>(qe + f.bias - 1) << f.man_bits) + a.kept;
  code += a.round & (a.sticky | static_cast<uint32_t>(code & 1));
  if (code > f.max_code()) return overflow;
  return static_cast<uint32_t>(code);
}

// One region's element conversion with everything that depends only on (region, source) worked out
// once: what assemble_region runs per element and convert_element runs for one.
struct ElementConverter {
  FloatFormat src{}, dst{};
  int t = 0;            // fetched mantissa bits
  bool emk = false;     // output is a BF16/FP16 word (eEmK) rather than a sign+code of dst
  int word_shift = 0;   // eEmK: left shift of the code inside the output word
  uint32_t nan_out = 0, inf_out = 0;  // outputs for NaN / Inf sources (sign excluded)
  int sign_pos = 0;     // sign bit position of the output

  ElementConverter(const Region& r, DType s);

  // Stages 1-5 for one element (bits: natural encoding of the source element).
  uint32_t convert(uint32_t bits) const {
    const Fields x = decode_view(src, bits, t);
    const uint32_t sign = x.sign << sign_pos;
    switch (x.cls) {
      case Class::kNaN: return sign | nan_out;
      case Class::kInf: return sign | inf_out;
      case Class::kZero: return sign;
      case Class::kFinite: break;
    }
    return sign | round_to_format(dst, x.sig, x.lsb_exp) << word_shift;
  }
  // MX element with shared exponent X: v' / 2^X, saturating; NaN/Inf give 0 (the group is 0xFF).
  uint32_t convert_scaled(uint32_t bits, int shared_exp) const {
    return convert_fields_scaled(decode_view(src, bits, t), shared_exp);
  }
  uint32_t convert_fields_scaled(const Fields& x, int shared_exp) const {
    if (x.cls == Class::kNaN || x.cls == Class::kInf) return 0;
    const uint32_t sign = x.sign << sign_pos;
    if (x.cls == Class::kZero) return sign;
    return sign | round_to_format(dst, x.sig, x.lsb_exp - shared_exp);
  }
};

// emax_elem of section 5.4: 8 for the E4M3 elements of mxfp8, 2 for the E2M1 elements of mxfp4.
int mx_elem_max_exp(RegionKind k);

// One MX group of count (1..32) elements (bits already masked to the element width): the scale byte,
// and the element codes in codes[0..count).
uint8_t mx_group(const ElementConverter& cv, RegionKind kind, const uint32_t* bits, int count, uint8_t* codes);

}  // namespace ndp::detail
