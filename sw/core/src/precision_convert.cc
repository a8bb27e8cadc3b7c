// Public element-level entry points of the precision datapath (docs/spec.md 5.2 and 5.4); the staged
// datapath itself is in precision_internal.h.
#include <algorithm>
#include <bit>

#include "precision_internal.h"

namespace ndp {
namespace detail {

ElementConverter::ElementConverter(const Region& r, DType s) {
  src = source_format(s);
  dst = target_format(r, s);
  t = fetched_mantissa(r, s);
  emk = r.kind == RegionKind::kEmK;
  if (emk) {
    // Output word: BF16 (bf16/fp32 sources) or FP16 (fp16 source), the K-bit code at the top.
    const int word_man = s == DType::kFP16 ? 10 : 7;
    word_shift = word_man - dst.man_bits;
    sign_pos = 15;
    nan_out = s == DType::kFP16 ? 0x7E00u : 0x7FC0u;  // canonical quiet NaN
    inf_out = dst.inf_code() << word_shift;
    return;
  }
  sign_pos = dst.exp_bits + dst.man_bits;
  switch (dst.special) {
    case Special::kE4M3:  // S.1111.111; Inf saturates
      nan_out = 0x7F;
      inf_out = dst.max_code();
      break;
    case Special::kIeee:  // E5M2: S.11111.10, Inf
      nan_out = dst.inf_code() | 1u << (dst.man_bits - 1);
      inf_out = dst.inf_code();
      break;
    case Special::kNone:  // FP6/FP4: both saturate
      nan_out = inf_out = dst.max_code();
      break;
  }
}

int mx_elem_max_exp(RegionKind k) { return k == RegionKind::kMXFP8 ? 8 : 2; }

uint8_t mx_group(const ElementConverter& cv, RegionKind kind, const uint32_t* bits, int count, uint8_t* codes) {
  Fields x[32];
  bool any_nonzero = false;
  int emax = 0;
  for (int i = 0; i < count; ++i) {
    x[i] = decode_view(cv.src, bits[i], cv.t);
    if (x[i].cls == Class::kNaN || x[i].cls == Class::kInf) {  // NaN scale, zero elements
      for (int k = 0; k < count; ++k) codes[k] = 0;
      return 0xFF;
    }
    if (x[i].cls != Class::kFinite) continue;
    const int e = std::bit_width(x[i].sig) - 1 + x[i].lsb_exp;  // true exponent, subnormals included
    emax = any_nonzero ? std::max(emax, e) : e;
    any_nonzero = true;
  }
  // All-zero group: X = -127 (scale byte 0); the elements convert to (signed) zeros.
  const int shared = any_nonzero ? std::clamp(emax - mx_elem_max_exp(kind), -127, 127) : -127;
  for (int i = 0; i < count; ++i) codes[i] = static_cast<uint8_t>(cv.convert_fields_scaled(x[i], shared));
  return static_cast<uint8_t>(shared + 127);
}

}  // namespace detail

namespace {
bool is_mx(RegionKind k) { return k == RegionKind::kMXFP8 || k == RegionKind::kMXFP4; }
uint32_t width_mask(DType src) {
  const int bits = dtype_info(src).bits;
  return bits >= 32 ? ~0u : (1u << bits) - 1;
}
}  // namespace

uint32_t region_view(const Region& r, DType src, uint32_t bits) {
  bits &= width_mask(src);
  if (r.kind == RegionKind::kFull || !dtype_info(src).is_float || !detail::region_ok(r, src)) return bits;
  const int drop = dtype_info(src).man_bits - detail::fetched_mantissa(r, src);
  return bits & ~((1u << drop) - 1);
}

uint32_t convert_element(const Region& r, DType src, uint32_t bits) {
  if (!detail::region_ok(r, src)) return 0;
  bits &= width_mask(src);
  if (r.kind == RegionKind::kFull) return bits;
  return detail::ElementConverter(r, src).convert(bits);
}

uint32_t convert_mx_element(const Region& r, DType src, uint32_t bits, int shared_exp) {
  if (!detail::region_ok(r, src) || !is_mx(r.kind)) return 0;
  return detail::ElementConverter(r, src).convert_scaled(bits & width_mask(src), std::clamp(shared_exp, -127, 127));
}

uint8_t convert_mx_group(const Region& r, DType src, const uint32_t* bits, int count, uint8_t* codes) {
  count = std::clamp(count, 0, 32);
  if (!detail::region_ok(r, src) || !is_mx(r.kind)) {
    for (int i = 0; i < count; ++i) codes[i] = 0;
    return 0xFF;
  }
  const uint32_t mask = width_mask(src);
  uint32_t masked[32];
  for (int i = 0; i < count; ++i) masked[i] = bits[i] & mask;
  return detail::mx_group(detail::ElementConverter(r, src), r.kind, masked, count, codes);
}

}  // namespace ndp
