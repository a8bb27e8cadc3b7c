// End-to-end serving model behind `ndp serve-model` (docs/serving.md): the decode throughput and the
// longest context an LLM reaches on one GPU whose weights and KV overflow into a CXL memory tier,
// for a byte-level tier (the baseline) and for the NDP device in each precision mode.
//
// Every number the model uses is a named Input carrying its source: a measured figure of this
// project (with the command that produced it), a datasheet value, a config.json field, the command
// line, or a stated assumption. The arithmetic is closed-form (no simulation); docs/serving.md
// gives each formula.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ndp/status.h"

namespace ndp::serve {

// One input: its value, unit and source.
struct Input {
  double value = 0;
  std::string unit;
  std::string source;
};

// Every input by name: "model.*", "gpu.*", "cxl.*", "ndp.*", "ratio.*", "serve.*" and, per
// precision mode M, "mode.M.link_bits" and "mode.M.dram_fraction" (docs/serving.md lists them).
using Inputs = std::map<std::string, Input>;

// ---- Presets and readers: each sets a group of inputs, with their sources -----------------------

// LLM geometry: "llama3.1-8b" or "llama3.1-70b" (values of Meta's Hugging Face config.json).
Status set_model_preset(std::string_view name, Inputs& in);
// LLM geometry from the text of a Hugging Face config.json (Llama-family decoder: hidden_size,
// intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
// vocab_size, tie_word_embeddings). Weights and KV are modelled as BF16 whatever torch_dtype says
// (the device stores BF16; the source string records torch_dtype). Errors name `origin` and the field.
Status set_model_from_hf_config(const std::string& text, const std::string& origin, Inputs& in);
// GPU: "h100" (H100 SXM5 80 GB datasheet values).
Status set_gpu_preset(std::string_view name, Inputs& in);
// CXL tier of capacity_gb (decimal GB): PCIe 5.0 x16 link and the 4-channel DDR5-4800 device DRAM
// of sw/dram.
void set_tier_defaults(double capacity_gb, Inputs& in);
// Batch 1, 32-token KV pages, 2 staging layers in HBM.
void set_serving_defaults(Inputs& in);

// Which compression figures and which device timing are used.
enum class FigureSet { kProject, kPaper };

// Precision modes: "5bit" or any region a BF16 source exposes (docs/spec.md section 5: full, e8m0..
// e8m7, fp8-e4m3, fp8-e5m2, fp6-e3m2, fp6-e2m3, fp4-e2m1, mxfp8, mxfp4). Error names the mode.
Status check_mode(std::string_view mode);
// Bits per weight element on the link for a mode (the region's output format, MX scales included;
// 5 for "5bit"). 0 for an invalid mode.
double mode_link_bits(std::string_view mode);
// The analyze region whose planes a mode fetches from DRAM ("5bit" is a
// 5-bit E2M2 element: the planes of fp6-e3m2).
std::string mode_fetch_region(std::string_view mode);

// Weight and KV ratios and the DRAM fraction of every mode (guard planes `guard`):
//  kPaper: the paper's 25.2 % weight and 46.9 % KV savings; a mode fetches (element bits + guard)
//          of 16 planes, compressed by the weight ratio (the paper's plane-proportional fetch).
//  kProject: this project's measured figures, built in with the command that produced each
//          (docs/results/serving.md): `ndp analyze` on the GPT-2 attention weights, `ndp analyze-kv`
//          on the stories260K trace.
Status set_figures(FigureSet f, const std::vector<std::string>& modes, int guard, Inputs& in);
// Device controller rate and chunk latency: kProject = the ndp_device RTL figures of
// docs/results/device.md at the pre-layout clock of docs/results/synth.md; kPaper = the paper's
// 2 TB/s codec complex at 2 GHz and its 398 ns 5-bit chunk read.
void set_device(FigureSet f, Inputs& in);
// Weight ratio and per-mode DRAM fractions from the output of `ndp analyze --json` (its last line).
Status set_weights_from_analyze_json(const std::string& text, const std::string& origin,
                                     const std::vector<std::string>& modes, int guard, Inputs& in);
// KV ratio from the output of `ndp analyze-kv --json` (the device image ratio of its total).
Status set_kv_from_analyze_kv_json(const std::string& text, const std::string& origin, Inputs& in);
// "name=value[,name=value...]": override existing inputs (source "command line"). Unknown names and
// malformed numbers are errors naming them.
Status set_overrides(std::string_view list, Inputs& in);

// ---- The model ----------------------------------------------------------------------------------

enum class Policy : uint8_t { kWeightsFirst, kKvFirst };
const char* policy_name(Policy p);
enum class Overlap : uint8_t { kFull, kSerial };

// One design: the byte-level baseline tier or the NDP tier in one precision mode. Fractions are of
// the BF16 bytes involved.
struct Design {
  std::string name;  // "baseline" or the mode
  bool ndp = false;
  double w_link = 1, w_dram = 1, w_store = 1;     // weights: link, device DRAM read, stored bytes
  double kv_link = 1, kv_dram = 1, kv_store = 1;  // KV: the same
  bool fp8_compute = false;                       // the GPU computes in FP8 (fp8 modes)
};

// The validated inputs in SI units (bytes, bytes/s, FLOP/s, s).
struct Config {
  double layers = 0, hidden = 0, intermediate = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0;
  bool tied = false;
  double hbm_bytes = 0, hbm_bps = 0, bf16_flops = 0, fp8_flops = 0, staging_layers = 0;
  double tier_bytes = 0, link_bps = 0, dram_bps = 0;
  double ndp_elems_per_s = 0, ndp_latency_s = 0;
  double weight_ratio = 1, kv_ratio = 1;
  double batch = 1, page_tokens = 1;
  bool tier_weight_copy = false;  // the tier stores every weight (HBM caches some), not just the rest
  std::vector<Design> designs;    // baseline first, then the modes in order

  double layer_params() const;  // one decoder layer (attention, SwiGLU MLP, two norms)
  double total_params() const;  // layers, embedding, classifier (unless tied), final norm
  double read_params() const;   // weights read per decode step (not the embedding table)
  double weight_bytes() const { return 2 * total_params(); }
  double kv_bytes_per_token() const { return 2 * layers * kv_heads * head_dim * 2; }  // K and V, BF16
  double hbm_usable() const;  // HBM less the staging buffers of the streamed layers
};

// Validate the inputs (every required name present, in range) for the given modes.
Result<Config> make_config(const Inputs& in, const std::vector<std::string>& modes);

struct Placement {
  double w_hbm = 0, w_tier = 0, kv_hbm = 0, kv_tier = 0;  // BF16 bytes
  double tier_stored = 0;                                 // bytes the tier stores for them
  bool fits = false;
};

// Where the weights and the KV of `batch` sequences of `context` tokens (rounded up to whole
// pages) live under a policy: HBM first (weights or KV first), the rest in the tier. With
// tier_weight_copy the tier also stores the weights HBM holds (tier_stored counts every weight).
Placement place(const Config& c, const Design& d, Policy p, uint64_t context);

// One decode step (every sequence of the batch produces one token).
struct Step {
  Policy policy = Policy::kWeightsFirst;
  Placement where;
  double link_read = 0, link_write = 0, dram = 0, hbm = 0, flops = 0, ndp_elems = 0;  // per step
  double t_link_read = 0, t_link_write = 0, t_dram = 0, t_ndp = 0, t_hbm = 0, t_compute = 0;
  double t_latency = 0, t_step = 0;
  std::string bottleneck;  // the largest term: link-read, link-write, cxl-dram, ndp, hbm, compute
  double tok_s = 0;        // batch / t_step
};
Step decode_step(const Config& c, const Design& d, Policy p, uint64_t context, Overlap o);

// Largest context (a multiple of the page size) whose placement fits under a policy; 0 if not even
// one page does.
uint64_t max_context(const Config& c, const Design& d, Policy p);

struct DesignResult {
  std::string name;
  std::vector<std::optional<Step>> steps;  // per context, the (faster) policy; nullopt: tier full
  std::array<uint64_t, 2> max_context_by_policy{};
  uint64_t max_context = 0;  // the larger of the two (the fixed policy's, if any)
  Policy max_context_policy = Policy::kWeightsFirst;
};

struct Report {
  std::string model;  // preset or config name
  Inputs inputs;
  Config config;
  Overlap overlap = Overlap::kFull;
  std::optional<Policy> policy;  // one policy for every design; nullopt: the faster per context
  std::vector<uint64_t> contexts;
  std::vector<DesignResult> designs;
};

// Evaluate every design at every context (contexts must be positive) under `policy`, or under the
// faster of the two policies at each point when it is nullopt.
Result<Report> run_model(const Inputs& in, const std::vector<std::string>& modes, const std::vector<uint64_t>& contexts,
                         Overlap o, std::optional<Policy> policy, const std::string& model_name);
// The step of design d at a context under r.policy (or the faster fitting policy); nullopt when
// the tier is full.
std::optional<Step> best_step(const Report& r, const Design& d, uint64_t context);

// One-line JSON object: tok_s and max_context per design (baseline included), the policy per
// context, the per-token breakdown, every input with its source, and "status": "ok".
std::string report_json(const Report& r);
// The JSON line a failed run prints under --json: {"tool", "status": "error", "error": msg}.
std::string error_json(const std::string& msg);
// Text tables: tokens/s per context and design, then the bytes and time per token.
std::string report_text(const Report& r);
// SVG plot of tokens/s against context (a sweep up to past the last tier-full point) with each
// design's tier-full point marked, like the paper's Fig. 10.
Status write_plot_svg(const Report& r, const std::string& path);

}  // namespace ndp::serve
