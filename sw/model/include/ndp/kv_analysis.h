// Compression of a recorded KV cache through the device codecs (ndp_codec / ndp_image), with and
// without the channel-major window and exponent delta of docs/spec.md section 6. Needs ndp_image
// (available when NDP_MODEL_HAVE_IMAGE is defined).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ndp/kv.h"
#include "ndp/kvtrace.h"
#include "ndp/planes.h"
#include "ndp/status.h"

namespace ndp {

struct KvAnalysisOptions {
  uint32_t window = 0;         // W: tokens per window (0: kv_default_geometry of the trace)
  uint32_t heads = 0;          // H: KV heads co-packed in one window, must divide n_kv_heads (0: default)
  uint32_t block_bytes = 4096; // token-major baseline block size
  Layout layout = Layout::kExpByte;
  KvBase base = KvBase::kAuto; // base exponent choice of the window and device columns (kAuto: the
                               // layout's reference choice; resolved in KvAnalysis::options)
  bool verify = true;          // read the device image back and compare bit for bit
};

// Decoded and stored bytes (12-byte headers included) of one plane id in the device image.
struct KvPlaneBytes {
  uint64_t raw = 0, stored = 0;
};

// Stored bytes of one set of KV data under each scheme (12-byte block headers included everywhere).
struct KvSizes {
  uint64_t raw = 0;                  // element bytes
  uint64_t lz4_token_major = 0;      // token-major bytes (serving-system layout) in block_bytes blocks, LZ4
  uint64_t zstd_token_major = 0;     // same, ZSTD level 3
  uint64_t lz4_planes = 0;           // token-major, plane layout in window-sized chunks, no transform, LZ4
  uint64_t zstd_planes = 0;          // same, ZSTD
  uint64_t lz4_window = 0;           // channel-major windows with base/delta (KVBASE blocks counted), LZ4
  uint64_t zstd_window = 0;          // same, ZSTD
  uint64_t device = 0;               // device image, codec auto: blocks + plane index + tensor table
                                     // (the total also counts the 64-byte file header)
  std::map<uint8_t, KvPlaneBytes> planes;  // the device image's blocks by plane id
  // Base choice comparison (indexed by KvBase): the device stored bytes (blocks + index + table) with
  // that base, and the exponent field's order-0 entropy summed over windows (sum of n x H0 in bits;
  // per window because the device codes each window's exponent plane on its own). kZero is the raw
  // exponents (order-0 entropy does not depend on the element order).
  std::array<uint64_t, kKvBaseCount> device_by_base{};
  std::array<double, kKvBaseCount> exp_bits{};
  uint64_t elems = 0;                // elements (= raw / 2)
  uint64_t sign_mantissa_bits = 0;   // elements x (1 + M)
  void add(const KvSizes& o);
  // Exponent entropy in bits per element under base b, and the entropy reference ratio: raw bits over
  // (1 + M) bits per element plus that entropy (sign and mantissa stored as they are, exponents coded
  // at their per-window order-0 entropy, no metadata).
  double exp_entropy(KvBase b) const;
  double entropy_reference(KvBase b) const;
};

struct KvLayerAnalysis {
  uint32_t layer = 0;
  KvSizes k, v, both;
};

struct KvAnalysis {
  KvAnalysisOptions options;         // as run: window and heads resolved
  bool default_geometry = false;     // window/heads came from kv_default_geometry
  std::string model_name;
  uint32_t n_layers = 0, n_kv_heads = 0, head_dim = 0, n_tokens = 0;
  uint32_t planes_chunk_elems = 0;   // chunk size used for the "planes" rows
  std::vector<KvLayerAnalysis> layers;
  KvSizes total;
  bool verified = false;             // the device image read back bit-exact
};

// Analyse a trace. Errors: geometry the spec rejects (bf16/fp16 only, H must divide n_kv_heads,
// W >= 1), codec or image failures, and a read-back mismatch (names the stream).
Result<KvAnalysis> analyze_kv(const KvTrace& t, const KvAnalysisOptions& o);

// Ratio raw / stored (0 when stored is 0).
double kv_ratio(uint64_t raw, uint64_t stored);

// JSON report: {"trace": ..., "options": ..., "layers": [...], "total": {"raw_bytes", "stored_bytes",
// "ratio": {"lz4_token_major", "zstd_token_major", "lz4_planes_token_major", "zstd_planes_token_major",
// "lz4_window", "zstd_window", "device"}, "planes": {...}, "bases": {...}}}.
std::string kv_analysis_json(const KvAnalysis& a);
// Human-readable table.
std::string kv_analysis_text(const KvAnalysis& a);
// SVG figure: per layer and K/V the device, ZSTD token-major and ZSTD planes ratios, and the
// per-plane ratios of the device image for K and V (the paper's Figs. 13-14). Errors name the path.
Status write_kv_plot_svg(const KvAnalysis& a, const std::string& path);

}  // namespace ndp
