// Precision regions of docs/spec.md section 5: names, validity, fetched planes, output sizes, GUARD
// flags and the packing of a converted chunk (the per-element datapath is in precision_convert.cc).
#include "ndp/precision.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "precision_internal.h"

namespace ndp {
namespace detail {

FloatFormat source_format(DType t) {
  const auto& i = dtype_info(t);
  const Special sp = t == DType::kFP8E4M3 ? Special::kE4M3 : Special::kIeee;
  return {i.exp_bits, i.man_bits, i.bias, sp};
}

FloatFormat target_format(const Region& r, DType src) {
  switch (r.kind) {
    case RegionKind::kEmK: {
      const auto& i = dtype_info(src);
      return {i.exp_bits, r.k, i.bias, Special::kIeee};
    }
    case RegionKind::kFP8E4M3:
    case RegionKind::kMXFP8: return {4, 3, 7, Special::kE4M3};
    case RegionKind::kFP8E5M2: return {5, 2, 15, Special::kIeee};
    case RegionKind::kFP6E3M2: return {3, 2, 3, Special::kNone};
    case RegionKind::kFP6E2M3: return {2, 3, 1, Special::kNone};
    case RegionKind::kFP4E2M1:
    case RegionKind::kMXFP4:
    case RegionKind::kFull: break;
  }
  return {2, 1, 1, Special::kNone};
}

int kept_mantissa(const Region& r, DType src) {
  if (r.kind == RegionKind::kFull) return dtype_info(src).man_bits;
  return target_format(r, src).man_bits;
}

int fetched_mantissa(const Region& r, DType src) {
  const int M = dtype_info(src).man_bits;
  return std::min(M, kept_mantissa(r, src) + (r.kind == RegionKind::kFull ? 0 : r.guard));
}

}  // namespace detail

namespace {

// Largest K of eEmK for a source (-1: no eEmK family): BF16 words for bf16/fp32, FP16 words for fp16.
int emk_max_k(DType src) {
  switch (src) {
    case DType::kBF16:
    case DType::kFP32: return 7;
    case DType::kFP16: return 10;
    default: return -1;
  }
}

struct NamedKind {
  const char* name;
  RegionKind kind;
};
constexpr NamedKind kNamedKinds[] = {
    {"fp8-e4m3", RegionKind::kFP8E4M3}, {"fp8-e5m2", RegionKind::kFP8E5M2}, {"fp6-e3m2", RegionKind::kFP6E3M2},
    {"fp6-e2m3", RegionKind::kFP6E2M3}, {"fp4-e2m1", RegionKind::kFP4E2M1}, {"mxfp8", RegionKind::kMXFP8},
    {"mxfp4", RegionKind::kMXFP4},
};

bool is_mx(RegionKind k) { return k == RegionKind::kMXFP8 || k == RegionKind::kMXFP4; }

// Bits of one packed output element (MX: the element, scale bytes counted separately).
int output_elem_bits(const Region& r, DType src) {
  switch (r.kind) {
    case RegionKind::kFull: return dtype_info(src).bits;
    case RegionKind::kEmK: return 16;
    case RegionKind::kFP8E4M3:
    case RegionKind::kFP8E5M2:
    case RegionKind::kMXFP8: return 8;
    case RegionKind::kFP6E3M2:
    case RegionKind::kFP6E2M3: return 6;
    case RegionKind::kFP4E2M1:
    case RegionKind::kMXFP4: return 4;
  }
  return 0;
}

// Element word of 1, 2 or 4 little-endian bytes.
inline uint32_t load_elem(const uint8_t* p, int bytes) {
  if (bytes == 1) return p[0];
  if (bytes == 2) return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8;
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

// Pack `count` codes of `bits` (4, 6, 8 or 16) bits LSB-first (section 5.1); zero padding.
void pack_codes(const uint32_t* codes, uint64_t count, int bits, uint8_t* out) {
  if (bits == 8) {
    for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<uint8_t>(codes[i]);
  } else if (bits == 16) {
    for (uint64_t i = 0; i < count; ++i) {
      out[2 * i] = static_cast<uint8_t>(codes[i]);
      out[2 * i + 1] = static_cast<uint8_t>(codes[i] >> 8);
    }
  } else {
    std::memset(out, 0, (count * bits + 7) / 8);
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t bit = i * bits;
      const uint32_t v = codes[i] << (bit % 8);  // spans at most two bytes for 4/6-bit codes
      out[bit / 8] = static_cast<uint8_t>(out[bit / 8] | v);
      if ((bit % 8) + bits > 8) out[bit / 8 + 1] = static_cast<uint8_t>(out[bit / 8 + 1] | v >> 8);
    }
  }
}

// Convert n elements of EB bytes and pack the codes, in blocks of 64 elements (a multiple of the
// 4-element FP6 and 2-element FP4 packing groups, so every block starts on a byte boundary).
template <int EB>
void convert_codes(const detail::ElementConverter& cv, const uint8_t* src, uint64_t n, int code_bits, uint8_t* out) {
  uint32_t codes[64];
  for (uint64_t i = 0; i < n; i += 64) {
    const uint64_t count = std::min<uint64_t>(64, n - i);
    for (uint64_t k = 0; k < count; ++k) codes[k] = cv.convert(load_elem(src + (i + k) * EB, EB));
    pack_codes(codes, count, code_bits, out + i * code_bits / 8);
  }
}

// For sources of at most 16 bits the output depends only on the top 1 + E + t bits of the element
// (sign, exponent, fetched mantissa), so assemble_region converts through a table indexed by
// `bits >> (M - t)`. The table is filled by the same ElementConverter for every view pattern, built
// once per (source, kind, K, t) and cached for the life of the process (at most a few hundred KiB
// per entry, 2^(1+E+t) entries of 16 bits).
class ViewTables {
 public:
  std::shared_ptr<const std::vector<uint16_t>> get(const Region& r, DType src) {
    const int t = detail::fetched_mantissa(r, src);
    const auto key = std::make_tuple(static_cast<int>(src), static_cast<int>(r.kind), r.k, t);
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = tables_[key];
    if (!slot) {
      const auto& info = dtype_info(src);
      const int drop = info.man_bits - t;
      const detail::ElementConverter cv(r, src);
      auto table = std::make_shared<std::vector<uint16_t>>(size_t{1} << (info.bits - drop));
      for (uint32_t i = 0; i < table->size(); ++i) (*table)[i] = static_cast<uint16_t>(cv.convert(i << drop));
      slot = std::move(table);
    }
    return slot;
  }

 private:
  std::mutex mu_;
  std::map<std::tuple<int, int, int, int>, std::shared_ptr<const std::vector<uint16_t>>> tables_;
};

template <int EB>
void convert_codes_table(const Region& r, DType src, const uint8_t* in, uint64_t n, int code_bits, uint8_t* out) {
  static ViewTables tables;
  const auto table = tables.get(r, src);
  const uint16_t* lut = table->data();
  const int drop = dtype_info(src).man_bits - detail::fetched_mantissa(r, src);
  uint32_t codes[64];
  for (uint64_t i = 0; i < n; i += 64) {
    const uint64_t count = std::min<uint64_t>(64, n - i);
    for (uint64_t k = 0; k < count; ++k) codes[k] = lut[load_elem(in + (i + k) * EB, EB) >> drop];
    pack_codes(codes, count, code_bits, out + i * code_bits / 8);
  }
}

Status assemble_mx(const Region& r, DType src, const uint8_t* src_elems, uint64_t n, uint8_t* out) {
  const int eb = dtype_info(src).bits / 8;
  const int cb = output_elem_bits(r, src);
  const detail::ElementConverter cv(r, src);
  uint32_t bits[32], codes32[32];
  uint8_t codes[32];
  for (uint64_t g = 0; g < n; g += 32) {
    const int count = static_cast<int>(std::min<uint64_t>(32, n - g));
    for (int i = 0; i < count; ++i) bits[i] = load_elem(src_elems + (g + i) * eb, eb);
    *out++ = detail::mx_group(cv, r.kind, bits, count, codes);
    for (int i = 0; i < count; ++i) codes32[i] = codes[i];
    pack_codes(codes32, static_cast<uint64_t>(count), cb, out);
    out += (static_cast<uint64_t>(count) * cb + 7) / 8;
  }
  return Status::Ok();
}

}  // namespace

bool detail::region_ok(const Region& r, DType src) {
  if (static_cast<uint8_t>(r.kind) > static_cast<uint8_t>(RegionKind::kMXFP4)) return false;
  if (r.guard < 0 || r.guard > 2) return false;
  if (r.kind == RegionKind::kFull) return true;
  if (!dtype_info(src).is_float) return false;
  return r.kind != RegionKind::kEmK || (r.k >= 0 && r.k <= emk_max_k(src));
}

Status region_valid(const Region& r, DType src) {
  if (detail::region_ok(r, src)) return Status::Ok();
  const auto& info = dtype_info(src);
  const std::string where = " (source " + std::string(info.name) + ")";
  if (static_cast<uint8_t>(r.kind) > static_cast<uint8_t>(RegionKind::kMXFP4))
    return Status::Error("region kind " + std::to_string(static_cast<int>(r.kind)) + " is not defined" + where);
  if (r.guard < 0 || r.guard > 2)
    return Status::Error("region " + region_name(r, src) + ": guard " + std::to_string(r.guard) +
                         " out of range 0..2" + where);
  if (!info.is_float)
    return Status::Error("region " + region_name(r, src) + " is not available for integer sources" + where);
  if (emk_max_k(src) < 0) return Status::Error("eEmK regions are not available" + where);
  return Status::Error("region e" + std::to_string(info.exp_bits) + "m" + std::to_string(r.k) + ": K must be 0.." +
                       std::to_string(emk_max_k(src)) + where);
}

Result<Region> parse_region(std::string_view name, DType src, int guard) {
  const auto& info = dtype_info(src);
  const std::string quoted = "region '" + std::string(name) + "'";
  Region r;
  r.guard = guard;
  if (name == "full") {
    r.guard = 0;
  } else if (auto it = std::find_if(std::begin(kNamedKinds), std::end(kNamedKinds),
                                    [&](const NamedKind& k) { return name == k.name; });
             it != std::end(kNamedKinds)) {
    r.kind = it->kind;
  } else if (name.size() >= 4 && name[0] == 'e') {
    // eXmY: X must be the source's exponent width.
    const size_t mpos = name.find('m');
    int e = -1, k = -1;
    const char* b = name.data();
    const bool ok = mpos != std::string_view::npos && mpos > 1 && mpos + 1 < name.size() &&
                    std::from_chars(b + 1, b + mpos, e).ptr == b + mpos &&
                    std::from_chars(b + mpos + 1, b + name.size(), k).ptr == b + name.size();
    if (!ok) return Status::Error("unknown " + quoted + " for source " + info.name);
    if (emk_max_k(src) < 0 || e != info.exp_bits)
      return Status::Error(quoted + " is not available for source " + info.name +
                           (emk_max_k(src) < 0 ? "" : " (its family is e" + std::to_string(info.exp_bits) + "mK)"));
    r.kind = RegionKind::kEmK;
    r.k = k;
  } else {
    return Status::Error("unknown " + quoted + " for source " + info.name);
  }
  Status st = region_valid(r, src);
  if (!st.ok()) return st.prepend(quoted + ": ");
  return r;
}

std::string region_name(const Region& r, DType src) {
  if (r.kind == RegionKind::kFull) return "full";
  if (r.kind == RegionKind::kEmK) return "e" + std::to_string(dtype_info(src).exp_bits) + "m" + std::to_string(r.k);
  for (const auto& k : kNamedKinds)
    if (k.kind == r.kind) return k.name;
  return "?";
}

std::vector<Region> all_regions(DType src, int guard) {
  std::vector<Region> out{Region{RegionKind::kFull, 0, 0}};
  if (!dtype_info(src).is_float) return out;
  for (int k = 0; k <= emk_max_k(src); ++k) out.push_back(Region{RegionKind::kEmK, k, guard});
  for (const auto& k : kNamedKinds) out.push_back(Region{k.kind, 0, guard});
  return out;
}

int region_kept_mantissa(const Region& r, DType src) { return detail::kept_mantissa(r, src); }
int region_fetched_mantissa(const Region& r, DType src) { return detail::fetched_mantissa(r, src); }

std::vector<uint8_t> region_planes(const Region& r, DType src, Layout l) {
  if (!detail::region_ok(r, src)) return {};
  std::vector<uint8_t> order = plane_order(src, l);
  if (r.kind == RegionKind::kFull) return order;
  const int M = dtype_info(src).man_bits;
  const int lowest = M - detail::fetched_mantissa(r, src);  // lowest fetched mantissa plane
  std::erase_if(order, [&](uint8_t p) { return p < M && p < lowest; });
  return order;
}

bool plane_is_guard(DType t, uint8_t plane) {
  const auto& info = dtype_info(t);
  if (!info.is_float || plane >= info.man_bits) return false;
  const int rank = info.man_bits - 1 - plane;  // 0 = mantissa MSB
  for (int g = 1; g <= 2; ++g)
    for (const Region& r : all_regions(t, g)) {
      const int m = detail::kept_mantissa(r, t);
      if (r.kind != RegionKind::kFull && m < info.man_bits && rank >= m &&
          rank < detail::fetched_mantissa(r, t))
        return true;
    }
  return false;
}

uint64_t region_output_bytes(const Region& r, DType src, uint64_t n) {
  if (!detail::region_ok(r, src)) return 0;
  if (r.kind == RegionKind::kFull) return dtype_bytes(src, n);
  const uint64_t bits = static_cast<uint64_t>(output_elem_bits(r, src));
  if (!is_mx(r.kind)) return (n * bits + 7) / 8;
  const uint64_t full = n / 32, rest = n % 32;
  return full * (1 + 32 * bits / 8) + (rest ? 1 + (rest * bits + 7) / 8 : 0);
}

Status assemble_region(const Region& r, DType src, const uint8_t* src_elems, uint64_t n, uint8_t* out) {
  NDP_RETURN_IF_ERROR(region_valid(r, src));
  if (n == 0) return Status::Ok();
  if (!src_elems || !out) return Status::Error("assemble_region " + region_name(r, src) + ": null buffer");
  if (r.kind == RegionKind::kFull) {
    std::memcpy(out, src_elems, dtype_bytes(src, n));
    return Status::Ok();
  }
  if (is_mx(r.kind)) return assemble_mx(r, src, src_elems, n, out);
  const int code_bits = output_elem_bits(r, src);
  switch (dtype_info(src).bits) {
    case 8: convert_codes_table<1>(r, src, src_elems, n, code_bits, out); break;
    case 16:
      if (n >= 1024) {  // worth a (cached) table; tiny calls convert directly
        convert_codes_table<2>(r, src, src_elems, n, code_bits, out);
        break;
      }
      convert_codes<2>(detail::ElementConverter(r, src), src_elems, n, code_bits, out);
      break;
    default: convert_codes<4>(detail::ElementConverter(r, src), src_elems, n, code_bits, out); break;
  }
  return Status::Ok();
}

}  // namespace ndp
