// Precision modes and the compression / device figures the serving model reads: the paper's, this
// project's measured ones (built in, with the command that produced each), or those of a JSON file
// written by `ndp analyze --json` / `ndp analyze-kv --json`.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "ndp/planes.h"
#include "ndp/precision.h"
#include "ndp/serving.h"
#include "serving_internal.h"

namespace ndp::serve {
namespace {

using json = nlohmann::json;

// ---- This project's measurements (docs/results/serving.md) ----------------------------------------

// `ndp analyze` of the GPT-2 attention matrices (no LLaMA weights are available here; these are the
// largest real BF16 matrices the shared data holds): stored bytes of each plane of the device image.
constexpr const char* kWeightsCmd =
    "ndp analyze ../shared/data/gpt2-small-attn --as bf16 --match 'att\\.(query|key|value|proj)\\.w' --json";
constexpr const char* kWeightsData = "GPT-2 124M attention q/k/v/proj, layers 1-6, BF16 by RNE, 28,311,552 B";
struct PlaneBytes {
  uint8_t plane;
  double stored;
};
constexpr double kWeightsRaw = 28311552;
constexpr double kWeightsImage = 19044546;  // total.stored_bytes: the whole image
constexpr PlaneBytes kWeightsPlanes[] = {
    // total.planes.bf16[*].device_bytes (headers included)
    {15, 1774656}, {kPlaneExpByte, 4826132},
    {6, 1774656},  {5, 1774656},
    {4, 1774656},  {3, 1774656},
    {2, 1774656},  {1, 1774656},
    {0, 1774656},
};

// `ndp analyze-kv` of the stories260K KV trace: 32-token windows (the paper's page), the model's four
// KV heads co-packed (1024 elements per window; a LLaMA head of 128 channels gives 4096), base
// exponent = the window minimum (the spec's rule when this figure was measured; the reference base
// is now the maximum: 1.2765 at this geometry, 1.436 at analyze-kv's default W = 128: docs/results/kv.md).
constexpr const char* kKvCmd =
    "ndp kvtrace ../shared/data/stories260K/stories260K.bin -o s260.nkvt --seed 1 && "
    "ndp analyze-kv s260.nkvt --window 32 --heads 4 --base min --json";
constexpr double kKvRaw = 327680, kKvStored = 267771;  // total.raw_bytes, total.stored_bytes.device

// The ndp_device RTL (docs/results/device.md, 8 lanes, GPT-2 attention image, DDR5-4800 model) and
// its pre-layout clock (docs/results/synth.md).
constexpr double kRtlHostBytesPerCycle = 35.54;  // `full` region, 24 tensors read back to back
constexpr double kRtlChunkCycles = 11142;        // one 32768-element chunk, cold, no prefetch, `full`
constexpr double kRtlClockMhz = 267;            // lz4_decoder, the slowest engine of a lane

// ---- Modes ---------------------------------------------------------------------------------------

// Precision bits of a mode's element (1 + exponent + kept mantissa; MX scales not counted).
double mode_precision_bits(std::string_view mode) {
  if (mode == "5bit") return 5;
  auto r = parse_region(mode, DType::kBF16, 0);
  if (!r.ok()) return 0;
  if (r->kind == RegionKind::kFull) return 16;
  if (r->kind == RegionKind::kEmK) return 9 + r->k;
  return std::floor(mode_link_bits(mode));
}

Region fetch_region(std::string_view mode, int guard) {
  auto r = parse_region(mode_fetch_region(mode), DType::kBF16, guard);
  return r.ok() ? r.value() : Region{};
}

double project_dram_fraction(std::string_view mode, int guard) {
  double bytes = 0;
  for (uint8_t p : region_planes(fetch_region(mode, guard), DType::kBF16, Layout::kExpByte))
    for (const auto& pb : kWeightsPlanes)
      if (pb.plane == p) bytes += pb.stored;
  return bytes / kWeightsRaw;
}

std::string region_label(std::string_view mode, int guard) {
  const Region r = fetch_region(mode, guard);
  return mode_fetch_region(mode) + " g=" + std::to_string(r.guard);
}

void set_link_bits(const std::string& m, Inputs& in) {
  in["mode." + m + ".link_bits"] = {
      mode_link_bits(m), "bits/weight",
      m == "5bit" ? "paper section IV-A: the 5 bit/weight mode (a 5-bit element; docs/spec.md has no 5-bit region)"
                  : "docs/spec.md section 5.1: output format of region " + m + " (ndp::region_output_bytes)"};
}

}  // namespace

Status check_mode(std::string_view mode) {
  if (mode == "5bit") return Status::Ok();
  auto r = parse_region(mode, DType::kBF16, 0);
  if (!r.ok())
    return Status::Error("unknown mode '" + std::string(mode) + "' (5bit or a BF16 region: " + r.status().message() +
                         ")");
  return Status::Ok();
}

double mode_link_bits(std::string_view mode) {
  if (mode == "5bit") return 5;
  auto r = parse_region(mode, DType::kBF16, 0);
  if (!r.ok()) return 0;
  constexpr uint64_t n = uint64_t{1} << 20;
  return double(region_output_bytes(r.value(), DType::kBF16, n)) * 8 / double(n);
}

std::string mode_fetch_region(std::string_view mode) { return mode == "5bit" ? "fp6-e3m2" : std::string(mode); }

Status set_figures(FigureSet f, const std::vector<std::string>& modes, int guard, Inputs& in) {
  if (guard < 0 || guard > 2) return Status::Error("--guard must be 0, 1 or 2");
  for (const auto& m : modes) NDP_RETURN_IF_ERROR(check_mode(m));
  if (f == FigureSet::kPaper) {
    const double wr = 1 / (1 - 0.252), kr = 1 / (1 - 0.469);
    in["ratio.weights"] = {wr, "raw/stored", "paper abstract and IV-B2: weights 25.2% smaller (1 / 0.748)"};
    in["ratio.kv"] = {kr, "raw/stored", "paper abstract and IV-B1: KV cache 46.9% smaller (1 / 0.531)"};
    for (const auto& m : modes) {
      set_link_bits(m, in);
      const double planes = std::min(16.0, mode_precision_bits(m) + (m == "full" ? 0 : guard));
      in["mode." + m + ".dram_fraction"] = {
          planes / 16 / wr, "of BF16 bytes",
          "paper's plane-proportional fetch: " + fmt_num(planes) + " of 16 planes / weight ratio " + fmt_num(wr)};
    }
    return Status::Ok();
  }
  in["ratio.weights"] = {kWeightsRaw / kWeightsImage, "raw/stored",
                         std::string(kWeightsCmd) + ": total.bytes / total.stored_bytes (" + kWeightsData + ")"};
  in["ratio.kv"] = {kKvRaw / kKvStored, "raw/stored",
                    std::string(kKvCmd) +
                        ": total.raw_bytes / total.stored_bytes.device (stories260K: 5 layers, "
                        "4 KV heads of 8 channels, 512 tokens)"};
  for (const auto& m : modes) {
    set_link_bits(m, in);
    in["mode." + m + ".dram_fraction"] = {project_dram_fraction(m, guard), "of BF16 bytes",
                                          std::string(kWeightsCmd) + ": stored bytes of the planes of region " +
                                              region_label(m, guard) + " / total.bytes (" + kWeightsData + ")"};
  }
  return Status::Ok();
}

void set_device(FigureSet f, Inputs& in) {
  if (f == FigureSet::kPaper) {
    const std::string p = "paper section III timing note: 32 lanes at 2 GHz sustain 2 TB/s";
    in["ndp.elems_per_cycle"] = {500, "BF16 elements/cycle", p + " (1e12 BF16 elements/s)"};
    in["ndp.clock_mhz"] = {2000, "MHz", p};
    in["ndp.engines"] = {1, "", p + " (one codec complex)"};
    in["ndp.chunk_latency_cycles"] = {796, "cycles", "paper Fig. 11: 398 ns for a 16 KB 5-bit chunk (LZ4), at 2 GHz"};
    return;
  }
  const std::string d = "docs/results/device.md (ndp-rtl device, 8 lanes, GPT-2 attention image, region full)";
  in["ndp.elems_per_cycle"] = {kRtlHostBytesPerCycle / 2, "BF16 elements/cycle",
                               d + ": " + fmt_num(kRtlHostBytesPerCycle) + " host B/cycle over the whole region = " +
                                   fmt_num(kRtlHostBytesPerCycle / 2) + " BF16 elements/cycle"};
  in["ndp.clock_mhz"] = {kRtlClockMhz, "MHz",
                         "docs/results/synth.md: pre-layout ASAP7 Fmax of lz4_decoder, the slowest lane engine"};
  in["ndp.engines"] = {1, "", "rtl/device: one ndp_device (one chunk engine, 6 chunks in flight at 8 lanes)"};
  in["ndp.chunk_latency_cycles"] = {kRtlChunkCycles, "cycles", d + ": one cold 64 KiB chunk read, " + fmt_num(kRtlChunkCycles) + " cycles"};
}

namespace {
// The member `key` of `o`, or null when `o` is no object or lacks it (nlohmann's const operator[]
// on a missing key is undefined behaviour: ASan caught it on a truncated analyze-kv JSON).
const json& member(const json& o, const char* key) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  const auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}
}  // namespace

Status set_weights_from_analyze_json(const std::string& text, const std::string& origin,
                                     const std::vector<std::string>& modes, int guard, Inputs& in) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {  // the last line, when other text precedes it
    const size_t nl = text.find_last_of('\n', text.size() >= 2 ? text.size() - 2 : 0);
    j = json::parse(nl == std::string::npos ? text : text.substr(nl + 1), nullptr, false);
  }
  if (j.is_discarded() || !j.is_object()) return Status::Error(origin + ": not the JSON of ndp analyze --json");
  const json& t = member(j, "total");
  const json &bytes = member(t, "bytes"), &stored_bytes = member(t, "stored_bytes"), &regions = member(t, "regions");
  if (!bytes.is_number() || !stored_bytes.is_number() || !regions.is_array())
    return Status::Error(origin + ": total.bytes, total.stored_bytes or total.regions missing");
  const double raw = bytes.get<double>(), stored = stored_bytes.get<double>();
  if (!(raw > 0) || !(stored > 0))
    return Status::Error(origin + ": total.bytes and total.stored_bytes must be positive");
  const std::string src = origin + " (ndp analyze --json of " + j.value("path", std::string("?")) + ")";
  in["ratio.weights"] = {raw / stored, "raw/stored", src + ": total.bytes / total.stored_bytes"};
  for (const auto& m : modes) {
    NDP_RETURN_IF_ERROR(check_mode(m));
    const std::string region = mode_fetch_region(m);
    const int g = fetch_region(m, guard).guard;
    auto row = std::find_if(regions.begin(), regions.end(), [&](const json& r) {
      return r.is_object() && r.value("region", std::string()) == region && r.value("guard", -1) == g;
    });
    if (row == regions.end() || !member(*row, "dram_bytes").is_number())
      return Status::Error(origin + ": no total.regions row for " + region + " g=" + std::to_string(g));
    set_link_bits(m, in);
    in["mode." + m + ".dram_fraction"] = {
        member(*row, "dram_bytes").get<double>() / raw, "of BF16 bytes",
        src + ": regions[" + region + " g=" + std::to_string(g) + "].dram_bytes / total.bytes"};
  }
  return Status::Ok();
}

Status set_kv_from_analyze_kv_json(const std::string& text, const std::string& origin, Inputs& in) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Error(origin + ": not the JSON of ndp analyze-kv --json");
  const json& t = member(j, "total");
  const json &raw_bytes = member(t, "raw_bytes"), &device = member(member(t, "stored_bytes"), "device");
  if (!raw_bytes.is_number() || !device.is_number())
    return Status::Error(origin + ": total.raw_bytes or total.stored_bytes.device missing");
  const double raw = raw_bytes.get<double>(), stored = device.get<double>();
  if (!(raw > 0) || !(stored > 0)) return Status::Error(origin + ": KV byte counts must be positive");
  std::string what = "ndp analyze-kv --json";
  const json &trace = member(j, "trace"), &options = member(j, "options");
  if (trace.is_object()) what += " of " + trace.value("model", std::string("?"));
  if (options.is_object())
    what += ", window " + std::to_string(options.value("window", 0)) + " tokens x " +
            std::to_string(options.value("heads_per_window", 0)) + " heads";
  in["ratio.kv"] = {raw / stored, "raw/stored",
                    origin + " (" + what + "): total.raw_bytes / total.stored_bytes.device"};
  return Status::Ok();
}

}  // namespace ndp::serve
