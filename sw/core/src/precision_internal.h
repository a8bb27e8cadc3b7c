// Internal: target formats of the precision regions and the integer conversion datapath shared by
// precision.cc (regions, packing) and precision_convert.cc (per-element conversion, MX groups).
#pragma once

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

}  // namespace ndp::detail
