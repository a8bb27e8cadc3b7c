// Inputs of the serving model: presets (LLM geometry, GPU, CXL tier, serving defaults), a Hugging
// Face config.json reader, the command-line overrides and the validation into a Config.
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ndp/llama.h"
#include "ndp/serving.h"
#include "serving_internal.h"

namespace ndp::serve {
namespace {

struct Geometry {
  const char* name;
  double layers, hidden, intermediate, heads, kv_heads, head_dim, vocab;
  bool tied;
  const char* source;
};

// Meta's released configurations (config.json of the Hugging Face repositories).
constexpr Geometry kModels[] = {
    {"llama3.1-8b", 32, 4096, 14336, 32, 8, 128, 128256, false, "meta-llama/Llama-3.1-8B config.json (Hugging Face)"},
    {"llama3.1-70b", 80, 8192, 28672, 64, 8, 128, 128256, false, "meta-llama/Llama-3.1-70B config.json (Hugging Face)"},
};

void set_geometry(const Geometry& g, const std::string& src, Inputs& in) {
  in["model.layers"] = {g.layers, "", src + ": num_hidden_layers"};
  in["model.hidden"] = {g.hidden, "", src + ": hidden_size"};
  in["model.intermediate"] = {g.intermediate, "", src + ": intermediate_size"};
  in["model.heads"] = {g.heads, "", src + ": num_attention_heads"};
  in["model.kv_heads"] = {g.kv_heads, "", src + ": num_key_value_heads"};
  in["model.head_dim"] = {g.head_dim, "", src + ": head_dim (hidden_size / num_attention_heads if absent)"};
  in["model.vocab"] = {g.vocab, "", src + ": vocab_size"};
  in["model.tied_embeddings"] = {g.tied ? 1.0 : 0.0, "bool", src + ": tie_word_embeddings"};
}

// Validation rule of one required input.
struct Rule {
  const char* name;
  double lo, hi;
  bool integer;
};

// Capacities, rates and FLOPs only need to be positive (unit tests use byte-sized machines).
constexpr double kTiny = 1e-15;
constexpr Rule kRules[] = {
    {"model.layers", 1, 1e4, true},
    {"model.hidden", 1, 1e6, true},
    {"model.intermediate", 1, 1e7, true},
    {"model.heads", 1, 1e5, true},
    {"model.kv_heads", 1, 1e5, true},
    {"model.head_dim", 1, 1e5, true},
    {"model.vocab", 1, 1e8, true},
    {"model.tied_embeddings", 0, 1, true},
    {"gpu.hbm_gb", kTiny, 1e6, false},
    {"gpu.hbm_gbps", kTiny, 1e7, false},
    {"gpu.bf16_tflops", kTiny, 1e7, false},
    {"gpu.fp8_tflops", kTiny, 1e7, false},
    {"gpu.staging_layers", 0, 1e4, false},
    {"cxl.capacity_gb", 0, 1e9, false},
    {"cxl.link_gbps", kTiny, 1e6, false},
    {"cxl.dram_channels", 1, 1e4, true},
    {"cxl.dram_channel_gbps", kTiny, 1e6, false},
    {"ndp.elems_per_cycle", kTiny, 1e9, false},
    {"ndp.clock_mhz", kTiny, 1e6, false},
    {"ndp.engines", 1, 1e6, true},
    {"ndp.chunk_latency_cycles", 0, 1e12, false},
    {"ratio.weights", 0.01, 1e4, false},
    {"ratio.kv", 0.01, 1e4, false},
    {"serve.batch", 1, 1e6, true},
    {"serve.page_tokens", 1, 1e6, true},
    {"serve.tier_weight_copy", 0, 1, true},
};

Status check(const Inputs& in, const std::string& name, double lo, double hi, bool integer, double& out) {
  auto it = in.find(name);
  if (it == in.end()) return Status::Error("input " + name + " is not set");
  const double v = it->second.value;
  if (!std::isfinite(v) || v < lo || v > hi || (integer && v != std::floor(v)))
    return Status::Error("input " + name + " = " + fmt_num(v) + " is out of range (" + (integer ? "an integer " : "") +
                         fmt_num(lo) + ".." + fmt_num(hi) + ")");
  out = v;
  return Status::Ok();
}

}  // namespace

std::string fmt_num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

Status set_model_preset(std::string_view name, Inputs& in) {
  for (const auto& g : kModels)
    if (name == g.name) {
      set_geometry(g, g.source, in);
      return Status::Ok();
    }
  return Status::Error("unknown model preset '" + std::string(name) + "' (llama3.1-8b or llama3.1-70b)");
}

Status set_model_from_hf_config(const std::string& text, const std::string& origin, Inputs& in) {
  LlamaConfig c;
  Status s = parse_hf_llama_config(text, c);
  if (!s.ok()) return Status::Error(origin + ": " + s.message());
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  bool tied = false;
  if (auto it = j.find("tie_word_embeddings"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return Status::Error(origin + ": field tie_word_embeddings is not a boolean");
    tied = it->get<bool>();
  }
  std::string dtype = "bfloat16 assumed, torch_dtype absent";
  if (auto it = j.find("torch_dtype"); it != j.end() && it->is_string())
    dtype = "torch_dtype " + it->get<std::string>() + ", modelled as BF16";
  const Geometry g{"",
                   double(c.n_layers),
                   double(c.dim),
                   double(c.hidden_dim),
                   double(c.n_heads),
                   double(c.n_kv_heads),
                   double(c.head_size),
                   double(c.vocab_size),
                   tied,
                   ""};
  set_geometry(g, origin + " (" + dtype + ")", in);
  return Status::Ok();
}

Status set_gpu_preset(std::string_view name, Inputs& in) {
  if (name != "h100") return Status::Error("unknown GPU preset '" + std::string(name) + "' (h100)");
  const std::string ds = "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM";
  in["gpu.hbm_gb"] = {80, "GB", ds + ": GPU memory 80 GB"};
  in["gpu.hbm_gbps"] = {3350, "GB/s", ds + ": GPU memory bandwidth 3.35 TB/s"};
  in["gpu.bf16_tflops"] = {989.5, "TFLOP/s", ds + ": BF16 Tensor Core 1,979 TFLOPS with sparsity, dense = half"};
  in["gpu.fp8_tflops"] = {1979, "TFLOP/s", ds + ": FP8 Tensor Core 3,958 TFLOPS with sparsity, dense = half"};
  return Status::Ok();
}

void set_tier_defaults(double capacity_gb, Inputs& in) {
  in["cxl.capacity_gb"] = {capacity_gb, "GB", "command line (--cxl-gb; the paper's tier is 256 GB)"};
  in["cxl.link_gbps"] = {32.0 * 16 * 128 / 130 / 8, "GB/s",
                         "PCIe Base Specification 5.0: x16 at 32 GT/s per lane, 128b/130b encoding, per "
                         "direction (TLP/DLLP overhead not deducted)"};
  in["cxl.dram_channels"] = {4, "", "docs/dram.md: Ddr5Config default, 4 DDR5-4800 sub-channels (sw/dram)"};
  in["cxl.dram_channel_gbps"] = {64.0 / (8 * 0.416), "GB/s",
                                 "docs/dram.md: DDR5-4800 (JEDEC JESD79-5), 64 B per 8 tCK of 416 ps per sub-channel"};
}

void set_serving_defaults(Inputs& in) {
  in["serve.batch"] = {1, "sequences", "assumption: one sequence (the paper does not state its batch)"};
  in["serve.page_tokens"] = {32, "tokens", "paper section IV-A: KV pages are 32 tokens"};
  in["serve.tier_weight_copy"] = {0, "bool", "assumption: the tier stores only the weights HBM does not hold"};
  in["gpu.staging_layers"] = {2, "layers",
                              "assumption: streamed layers are double-buffered in HBM, as offloading engines do"};
}

Status set_overrides(std::string_view list, Inputs& in) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return Status::Error("--set item '" + std::string(item) + "' is not name=value");
    const std::string name(item.substr(0, eq));
    const std::string_view val = item.substr(eq + 1);
    auto it = in.find(name);
    if (it == in.end()) return Status::Error("--set: no input named '" + name + "' (the JSON 'inputs' lists them)");
    double v = 0;
    auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (ec != std::errc() || p != val.data() + val.size())
      return Status::Error("--set " + name + ": '" + std::string(val) + "' is not a number");
    it->second.value = v;
    it->second.source = "command line (--set " + name + ")";
  }
  return Status::Ok();
}

Status read_scalars(const Inputs& in, Config& c) {
  std::map<std::string, double> v;
  for (const auto& r : kRules) NDP_RETURN_IF_ERROR(check(in, r.name, r.lo, r.hi, r.integer, v[r.name]));
  c.layers = v["model.layers"];
  c.hidden = v["model.hidden"];
  c.intermediate = v["model.intermediate"];
  c.heads = v["model.heads"];
  c.kv_heads = v["model.kv_heads"];
  c.head_dim = v["model.head_dim"];
  c.vocab = v["model.vocab"];
  c.tied = v["model.tied_embeddings"] != 0;
  c.hbm_bytes = v["gpu.hbm_gb"] * 1e9;
  c.hbm_bps = v["gpu.hbm_gbps"] * 1e9;
  c.bf16_flops = v["gpu.bf16_tflops"] * 1e12;
  c.fp8_flops = v["gpu.fp8_tflops"] * 1e12;
  c.staging_layers = v["gpu.staging_layers"];
  c.tier_bytes = v["cxl.capacity_gb"] * 1e9;
  c.link_bps = v["cxl.link_gbps"] * 1e9;
  c.dram_bps = v["cxl.dram_channels"] * v["cxl.dram_channel_gbps"] * 1e9;
  const double clock_hz = v["ndp.clock_mhz"] * 1e6;
  c.ndp_elems_per_s = v["ndp.elems_per_cycle"] * clock_hz * v["ndp.engines"];
  c.ndp_latency_s = v["ndp.chunk_latency_cycles"] / clock_hz;
  c.weight_ratio = v["ratio.weights"];
  c.kv_ratio = v["ratio.kv"];
  c.batch = v["serve.batch"];
  c.page_tokens = v["serve.page_tokens"];
  c.tier_weight_copy = v["serve.tier_weight_copy"] != 0;
  return Status::Ok();
}

Result<Config> make_config(const Inputs& in, const std::vector<std::string>& modes) {
  Config c;
  NDP_RETURN_IF_ERROR(read_scalars(in, c));
  if (std::fmod(c.heads, c.kv_heads) != 0) return Status::Error("model.heads must be a multiple of model.kv_heads");
  if (c.hbm_usable() <= 0)
    return Status::Error("HBM (" + fmt_num(c.hbm_bytes / 1e9) + " GB) does not hold gpu.staging_layers = " +
                         fmt_num(c.staging_layers) + " layers of " + fmt_num(2 * c.layer_params() / 1e9) + " GB");
  c.designs.push_back(Design{"baseline"});
  for (const auto& m : modes) {
    NDP_RETURN_IF_ERROR(check_mode(m));
    for (const auto& d : c.designs)
      if (d.name == m) return Status::Error("mode " + m + " is given twice");
    Design d{m, true};
    double link_bits = 0;
    NDP_RETURN_IF_ERROR(check(in, "mode." + m + ".link_bits", 0.5, 16, false, link_bits));
    NDP_RETURN_IF_ERROR(check(in, "mode." + m + ".dram_fraction", 1e-4, 4, false, d.w_dram));
    d.w_link = link_bits / 16;
    d.w_store = 1 / c.weight_ratio;
    d.kv_dram = d.kv_store = 1 / c.kv_ratio;
    d.fp8_compute = m.rfind("fp8", 0) == 0 || m == "mxfp8";
    c.designs.push_back(d);
  }
  return c;
}

}  // namespace ndp::serve
