// Deliberately simple reference for the precision regions (docs/spec.md section 5), independent of
// the library's integer datapath: decode values to double exactly, enumerate every code of the target
// format, pick the nearest code (ties to the even code), then apply the spec's NaN/Inf/saturation
// rules. Used by the exhaustive tests only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace ndp::ref {

enum class Kind { kIeee, kE4M3, kNone };  // Inf+NaN / OCP E4M3 (one NaN code) / no specials

struct Fmt {
  int e, m, bias;
  Kind kind;
  bool operator<(const Fmt& o) const {
    return std::tie(e, m, bias, kind) < std::tie(o.e, o.m, o.bias, o.kind);
  }
};

inline const Fmt kBF16{8, 7, 127, Kind::kIeee};
inline const Fmt kFP16{5, 10, 15, Kind::kIeee};
inline const Fmt kFP32{8, 23, 127, Kind::kIeee};
inline const Fmt kE4M3{4, 3, 7, Kind::kE4M3};
inline const Fmt kE5M2{5, 2, 15, Kind::kIeee};
inline const Fmt kE3M2{3, 2, 3, Kind::kNone};
inline const Fmt kE2M3{2, 3, 1, Kind::kNone};
inline const Fmt kE2M1{2, 1, 1, Kind::kNone};

// Value of a code of format f (sign bit at e + m), NaN/Inf as the IEEE doubles.
inline double decode(const Fmt& f, uint32_t code) {
  const uint32_t s = (code >> (f.e + f.m)) & 1;
  const uint32_t ex = (code >> f.m) & ((1u << f.e) - 1);
  const uint32_t man = code & ((1u << f.m) - 1);
  const double sign = s ? -1.0 : 1.0;
  const uint32_t top = (1u << f.e) - 1;
  if (f.kind == Kind::kIeee && ex == top) return man ? std::nan("") : sign * INFINITY;
  if (f.kind == Kind::kE4M3 && ex == top && man == (1u << f.m) - 1) return std::nan("");
  if (ex == 0) return sign * std::ldexp(static_cast<double>(man), 1 - f.bias - f.m);
  return sign * std::ldexp(static_cast<double>((1u << f.m) + man), static_cast<int>(ex) - f.bias - f.m);
}

// Sorted non-negative finite values of a format, index = magnitude code.
inline const std::vector<double>& finite_values(const Fmt& f) {
  static std::map<Fmt, std::unique_ptr<std::vector<double>>> cache;
  static Fmt last_fmt{-1, -1, 0, Kind::kNone};
  static const std::vector<double>* last = nullptr;
  if (last && !(f < last_fmt) && !(last_fmt < f)) return *last;  // the exhaustive loops reuse one format
  auto& slot = cache[f];
  if (!slot) {
    slot = std::make_unique<std::vector<double>>();
    for (uint32_t c = 0; c < (1u << (f.e + f.m)); ++c) {
      const double v = decode(f, c);
      if (!std::isfinite(v)) break;  // codes are increasing; the specials come last
      slot->push_back(v);
    }
  }
  last_fmt = f;
  last = slot.get();
  return *slot;
}

// Nearest magnitude code for a >= 0 (ties to the even code). Above the largest finite value: Inf code
// for IEEE formats when the rounded result is beyond it (the Inf code stands for 2^(emax+1) in the
// tie-break), else the largest finite code (saturation).
inline uint32_t nearest_code(const Fmt& f, double a) {
  const auto& v = finite_values(f);
  const size_t idx = static_cast<size_t>(std::upper_bound(v.begin(), v.end(), a) - v.begin()) - 1;
  if (v[idx] == a) return static_cast<uint32_t>(idx);
  double hi;
  if (idx + 1 < v.size()) {
    hi = v[idx + 1];
  } else {
    if (f.kind != Kind::kIeee) return static_cast<uint32_t>(idx);
    hi = std::ldexp(1.0, (1 << f.e) - 1 - f.bias);  // 2^(emax+1), the value the Inf code stands for
  }
  const double mid = (v[idx] + hi) / 2;  // exact: both are short binary fractions
  if (a < mid) return static_cast<uint32_t>(idx);
  if (a > mid) return static_cast<uint32_t>(idx + 1);
  return static_cast<uint32_t>(idx % 2 == 0 ? idx : idx + 1);
}

// Full conversion of a decoded value x (sign taken from `negative`, which also covers -0 and -NaN) to a
// code of f (sign bit at e + m), with the spec's rules for NaN (nan_code) and Inf.
inline uint32_t convert_value(const Fmt& f, double x, bool negative, uint32_t nan_code) {
  const uint32_t sign = negative ? 1u << (f.e + f.m) : 0;
  const uint32_t max_code = static_cast<uint32_t>(finite_values(f).size() - 1);
  const uint32_t inf_code = ((1u << f.e) - 1) << f.m;
  if (std::isnan(x)) return sign | nan_code;
  if (std::isinf(x)) return sign | (f.kind == Kind::kIeee ? inf_code : max_code);
  return sign | nearest_code(f, std::fabs(x));
}

// Source word with the mantissa bits below the top t cleared (the fetch view).
inline uint32_t view(const Fmt& src, uint32_t bits, int t) {
  const int drop = src.m - std::min(src.m, t);
  return bits & ~((1u << drop) - 1);
}

}  // namespace ndp::ref
