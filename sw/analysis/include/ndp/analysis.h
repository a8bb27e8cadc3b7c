// `ndp analyze`: compression and fetch figures for a model under the device format.
//
// Baseline ratios (lz4_raw, zstd_raw, lz4_bitplane, zstd_bitplane) count codec payload bytes only,
// per block of `block_bytes` with raw bypass (a block costs min(compressed, raw)), the convention of the
// reference table in ../shared/data/README.md. The `device` ratio is the real image the device format
// stores (docs/spec.md section 4): file header, tensor table, plane index, block headers and payloads.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ndp/model_reader.h"
#include "ndp/planes.h"
#include "ndp/precision.h"
#include "ndp/status.h"

namespace ndp {

struct AnalyzeOptions {
  uint32_t block_bytes = 4096;       // bit-plane block size; chunk_elems = 8 * block_bytes
  Layout layout = Layout::kExpByte;  // layout of the device image
  std::string codec = "auto";        // device codec policy: auto | lz4 | zstd | raw
  int zstd_level = 3;                // baseline ZSTD level
  bool device = true;                // build the device image (off: baselines only)
};

// Raw and stored bytes of one plane id (aggregated over chunks and tensors of one dtype).
struct PlaneFigures {
  uint64_t raw = 0;      // decoded plane bytes
  uint64_t lz4 = 0;      // bit-plane layout baseline payloads (bit-planes only)
  uint64_t zstd = 0;
  uint64_t device = 0;   // device image: headers + payloads of this plane's blocks
};

struct RegionFigures {
  std::string name;
  int guard = 0;
  uint64_t elements = 0;     // elements of tensors exposing the region
  uint64_t output_bytes = 0; // bytes the host receives
  uint64_t dram_bytes = 0;   // stored bytes of the plane blocks fetched (headers included)
};

struct Figures {
  uint64_t elements = 0;
  uint64_t bytes = 0;  // raw element bytes
  uint64_t lz4_raw = 0, zstd_raw = 0, lz4_bitplane = 0, zstd_bitplane = 0;
  uint64_t device = 0;  // stored bytes (per tensor: its blocks and index; total: the whole image)
  std::array<uint64_t, 256> exp_hist{};  // exponent field histogram (float tensors)
  uint64_t float_elements = 0;
  uint64_t sign_mantissa_bits = 0;       // sum of 1 + M over float elements, + bits of int elements
  double exponent_entropy_bits() const;  // zeroth-order entropy of the exponent field
  double entropy_reference_ratio() const;
  static double ratio(uint64_t raw, uint64_t stored) { return stored ? double(raw) / double(stored) : 0.0; }
};

struct TensorReport {
  std::string name;
  DType dtype;
  std::vector<uint64_t> shape;
  Figures fig;
};

struct Report {
  std::string path;
  std::string format;
  AnalyzeOptions opt;
  std::vector<TensorReport> tensors;
  Figures total;
  // Sum of the tensors' figures per dtype name (device: their blocks and index, no header/table):
  // the figures of one base type when a model mixes types (e.g. --as fp8-e4m3 keeps norms in BF16).
  std::map<std::string, Figures> by_dtype;
  std::map<std::string, std::map<int, PlaneFigures>> planes;  // dtype name -> plane id -> figures
  std::vector<RegionFigures> regions;                          // every region x guard 0..2
  double seconds = 0;
};

// Analyse every tensor of m. Fails only on internal codec errors (the message names the tensor).
Result<Report> analyze_model(const Model& m, const AnalyzeOptions& opt);

// One JSON object (a single line) with "tensors", "total", "planes" and "regions".
std::string report_json(const Report& r);
// Human-readable table.
std::string report_text(const Report& r);
// SVG bar chart of per-plane device and baseline ratios for each dtype.
Status write_plane_plot_svg(const Report& r, const std::string& path);

}  // namespace ndp
