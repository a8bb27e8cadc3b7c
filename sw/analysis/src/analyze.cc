// analyze_model: baselines, exponent entropy, device image and per-region DRAM bytes.
#include <chrono>
#include <cmath>

#include "baseline.h"
#include "device.h"
#include "ndp/analysis.h"

namespace ndp {

double Figures::exponent_entropy_bits() const {
  uint64_t n = 0;
  for (auto c : exp_hist) n += c;
  if (n == 0) return 0.0;
  double h = 0;
  for (auto c : exp_hist)
    if (c) {
      double p = double(c) / double(n);
      h -= p * std::log2(p);
    }
  return h;
}

double Figures::entropy_reference_ratio() const {
  // Bits per element over (sign + mantissa stored raw + exponent at its zeroth-order entropy);
  // integer elements count at their full width.
  double denom = double(sign_mantissa_bits) + exponent_entropy_bits() * double(float_elements);
  return denom > 0 ? double(bytes) * 8.0 / denom : 0.0;
}

namespace {

uint32_t exponent_of(DType t, const uint8_t* p, uint64_t i) {
  const auto& info = dtype_info(t);
  uint32_t w = 0;
  switch (info.bits) {
    case 32: w = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 | uint32_t(p[4 * i + 3]) << 24; break;
    case 16: w = uint32_t(p[2 * i]) | uint32_t(p[2 * i + 1]) << 8; break;
    default: w = p[i]; break;
  }
  return (w >> info.man_bits) & ((1u << info.exp_bits) - 1);
}

void add_figures(Figures& to, const Figures& f) {
  to.elements += f.elements;
  to.bytes += f.bytes;
  to.lz4_raw += f.lz4_raw;
  to.zstd_raw += f.zstd_raw;
  to.lz4_bitplane += f.lz4_bitplane;
  to.zstd_bitplane += f.zstd_bitplane;
  to.device += f.device;
  for (int i = 0; i < 256; ++i) to.exp_hist[i] += f.exp_hist[i];
  to.float_elements += f.float_elements;
  to.sign_mantissa_bits += f.sign_mantissa_bits;
}

// Raw-byte and bit-plane baselines for one tensor; fills plane figures (raw, lz4, zstd) too.
void tensor_baselines(const Tensor& t, const AnalyzeOptions& opt, BlockCodecs& codecs, Figures& f,
                      std::map<int, PlaneFigures>& planes) {
  const auto& info = dtype_info(t.dtype);
  f.elements = t.elements;
  f.bytes = t.data.size();
  codecs.raw_bytes(t.data.data(), t.data.size(), opt.block_bytes, f.lz4_raw, f.zstd_raw);
  if (info.is_float) {
    f.float_elements = t.elements;
    f.sign_mantissa_bits = t.elements * uint64_t(1 + info.man_bits);
    for (uint64_t i = 0; i < t.elements; ++i) ++f.exp_hist[exponent_of(t.dtype, t.data.data(), i)];
  } else {
    f.sign_mantissa_bits = t.elements * uint64_t(info.bits);
  }
  const uint64_t chunk = uint64_t(opt.block_bytes) * 8;
  const auto order = plane_order(t.dtype, Layout::kBitplane);
  std::vector<std::vector<uint8_t>> pl;
  for (uint64_t first = 0; first < t.elements; first += chunk) {
    uint64_t n = std::min(chunk, t.elements - first);
    pack_chunk(t.dtype, Layout::kBitplane, t.data.data() + dtype_bytes(t.dtype, first), n, pl);
    for (size_t i = 0; i < order.size(); ++i) {
      auto& pf = planes[order[i]];
      uint64_t l = codecs.lz4(pl[i].data(), pl[i].size()), z = codecs.zstd(pl[i].data(), pl[i].size());
      pf.raw += pl[i].size();
      pf.lz4 += l;
      pf.zstd += z;
      f.lz4_bitplane += l;
      f.zstd_bitplane += z;
    }
  }
}

}  // namespace

Result<Report> analyze_model(const Model& m, const AnalyzeOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  if (opt.block_bytes < 8 || opt.block_bytes % 8 || opt.block_bytes > 65536)
    return Status::Error("block size " + std::to_string(opt.block_bytes) +
                         " must be a multiple of 8 bytes in [8, 65536]");
  Report r;
  r.path = m.path;
  r.format = model_format_name(m.format);
  r.opt = opt;
  BlockCodecs codecs(opt.zstd_level);
  for (const auto& t : m.tensors) {
    TensorReport tr{t.name, t.dtype, t.shape, {}};
    tensor_baselines(t, opt, codecs, tr.fig, r.planes[dtype_info(t.dtype).name]);
    r.tensors.push_back(std::move(tr));
  }
  for (const auto& tr : r.tensors) add_figures(r.total, tr.fig);
  if (opt.device) {
    NDP_RETURN_IF_ERROR(add_device_figures(m, opt, r));
  }
  for (const auto& tr : r.tensors) add_figures(r.by_dtype[dtype_info(tr.dtype).name], tr.fig);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace ndp
