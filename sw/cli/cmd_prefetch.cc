// ndp prefetch replay: profile a model's forward pass, scale it to a 7B/12B shape, and replay its
// tensor accesses through the prefetch scheduler with no prefetch, fixed windows and DAP.
#if defined(HAVE_NDP_PREFETCH) && defined(NDP_MODEL_HAVE_IO)
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "command.h"
#include "ndp/llama_file.h"
#include "ndp/prefetch/prefetch.h"
#include "ndp/runtime/size.h"

namespace ndp::cli {
namespace {

using namespace ndp::pf;

bool num(const Args& a, const char* k, double& v) {
  if (!a.has(k)) return true;
  char* end = nullptr;
  v = std::strtod(a.get(k).c_str(), &end);
  if (a.get(k).empty() || *end || !(v >= 0)) return fail(a, std::string(k) + " expects a non-negative number"), false;
  return true;
}

bool windows_arg(const Args& a, std::vector<uint32_t>& w) {
  if (!a.has("--windows")) return true;
  w.clear();
  std::stringstream ss(a.get("--windows"));
  for (std::string item; std::getline(ss, item, ',');) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v <= 0 || v > 4096) return fail(a, "--windows expects positive integers, e.g. 1,2,4,8"), false;
    w.push_back(uint32_t(v));
  }
  return true;
}

bool tier_args(const Args& a, TierModel& t) {
  double cxl_lat_ns = t.cxl.latency_s * 1e9, h2d_lat_us = t.h2d.latency_s * 1e6, period_ms = t.period_s * 1e3;
  if (!num(a, "--cxl-gbps", t.cxl.gbps) || !num(a, "--cxl-lat-ns", cxl_lat_ns) || !num(a, "--h2d-gbps", t.h2d.gbps) ||
      !num(a, "--h2d-lat-us", h2d_lat_us) || !num(a, "--jitter", t.jitter) || !num(a, "--interference", t.interference) ||
      !num(a, "--period-ms", period_ms))
    return false;
  if (!(t.cxl.gbps > 0) || !(t.h2d.gbps > 0) || t.jitter >= 1 || t.interference >= 1)
    return fail(a, "link rates must be positive, --jitter and --interference below 1"), false;
  t.cxl.latency_s = cxl_lat_ns * 1e-9, t.h2d.latency_s = h2d_lat_us * 1e-6, t.period_s = period_ms * 1e-3;
  return true;
}

Result<AccessTrace> trace_from_args(const Args& a, const LlamaModel& m, bool& ok) {
  ok = false;
  const auto steps = a.get_int("--profile-steps", 4, 1, 1000);
  if (!steps) return Status::Error("");
  auto prof = profile_llama(m, int(*steps));
  if (!prof.ok()) return prof.status();
  prof.value().model = a.pos.empty() ? a.get("--model") : a.pos[0];
  ScaleOptions so;
  double tokens = double(so.tokens);
  if (!num(a, "--tokens", tokens) || !num(a, "--gpu-tflops", so.gpu_tflops)) return Status::Error("");
  so.tokens = uint64_t(tokens), so.backward = !a.has("--forward-only");
  ok = true;
  const std::string shape = a.get("--shape", "qwen2.5-7b");
  if (shape == "profiled") return so.backward ? with_backward(prof.value()) : prof.value();
  auto s = find_shape(shape);
  if (!s.ok()) return s.status();
  return scale_trace(prof.value(), s.value(), so);
}

nlohmann::ordered_json run_policies(const Args& a, const AccessTrace& t, const ReplayOptions& o,
                                    const std::vector<uint32_t>& windows, std::string& err) {
  const auto table = build_prefetch_table(t, o.iterations);
  std::vector<std::unique_ptr<WindowPolicy>> ps;
  ps.push_back(fixed_window(0));
  for (uint32_t w : windows) ps.push_back(fixed_window(w));
  DapOptions dop;
  dop.budget_bytes = o.budget_bytes;
  ps.push_back(dap_window(table, o.tier, dop));
  nlohmann::ordered_json stall, hit, total, peak, mean_w, demand, evict, refused;
  for (auto& p : ps) {
    Result<ReplayResult> r = Status::Error("");
    if (a.get("--execute", "sim") == "cpu") {
      CpuReplayOptions c;
      c.budget_bytes = o.budget_bytes, c.iterations = o.iterations;
      r = replay_cpu(t, *p, c);
    } else {
      r = replay_simulated(t, *p, o);
    }
    if (!r.ok()) return err = r.status().message(), nlohmann::ordered_json();
    const std::string n = r->policy;
    stall[n] = r->stall_s / o.iterations, hit[n] = r->hit_rate(), total[n] = r->total_s / o.iterations;
    peak[n] = r->peak_buffer_bytes, mean_w[n] = r->mean_window, demand[n] = r->demand_fetches;
    evict[n] = r->evictions, refused[n] = r->refused;
  }
  nlohmann::ordered_json j;
  j["stall_s"] = stall, j["hit_rate"] = hit, j["iteration_s"] = total, j["peak_buffer_bytes"] = peak;
  j["mean_window"] = mean_w, j["demand_fetches"] = demand, j["evictions"] = evict, j["refused"] = refused;
  return j;
}

int cmd_replay(const Args& a) {
  const std::string path = a.has("--model") ? a.get("--model") : (a.pos.empty() ? "" : a.pos[0]);
  if (path.empty()) return fail(a, "missing --model PATH (a llama2.c checkpoint or a safetensors Llama)");
  ReplayOptions o;
  std::vector<uint32_t> windows = {1, 2, 4, 8, 16, 32};
  const auto iters = a.get_int("--iterations", 3, 1, 1000000), seed = a.get_int("--seed", 1, 0, int64_t{0x7FFFFFFFFFFFFFFF});
  if (!iters || !seed || !tier_args(a, o.tier) || !windows_arg(a, windows)) return 1;
  if (*iters <= 0 || *iters > 1000) return fail(a, "--iterations must be 1..1000");
  o.iterations = uint32_t(*iters), o.seed = uint64_t(*seed);
  if (a.has("--budget")) {
    auto b = rt::parse_size(a.get("--budget"));
    if (!b.ok()) return fail(a, "--budget: " + b.status().message());
    o.budget_bytes = b.value();
  }
  auto m = load_llama(path);
  if (!m.ok()) return fail(a, m.status().message());
  bool args_ok = false;
  auto t = trace_from_args(a, m.value().llama, args_ok);
  if (!args_ok && t.status().message().empty()) return 1;
  if (!t.ok()) return fail(a, t.status().message());
  std::string err;
  auto res = run_policies(a, t.value(), o, windows, err);
  if (!err.empty()) return fail(a, err);
  nlohmann::ordered_json j;
  j["model"] = t->model, j["tensors"] = t->tensors.size(), j["uses_per_iteration"] = t->uses.size();
  j["model_bytes"] = t->total_bytes(), j["compute_s_per_iteration"] = t->compute_s();
  j["budget_bytes"] = o.budget_bytes, j["iterations"] = o.iterations, j["execute"] = a.get("--execute", "sim");
  j["tier"] = {{"cxl_gbps", o.tier.cxl.gbps}, {"cxl_lat_ns", o.tier.cxl.latency_s * 1e9}, {"h2d_gbps", o.tier.h2d.gbps},
               {"h2d_lat_us", o.tier.h2d.latency_s * 1e6}, {"jitter", o.tier.jitter}, {"interference", o.tier.interference}};
  for (auto& [k, v] : res.items()) j[k] = v;
  j["status"] = "ok";
  if (!a.has("--json")) {
    std::printf("%s: %zu tensors, %s, %zu uses per iteration, %.3f s of compute per iteration\n", t->model.c_str(),
                t->tensors.size(), rt::format_size(t->total_bytes()).c_str(), t->uses.size(), t->compute_s());
    std::printf("%-10s %12s %9s %12s %14s\n", "policy", "stall s/it", "hit rate", "mean window", "peak buffers");
    for (auto& [k, v] : res["stall_s"].items())
      std::printf("%-10s %12.4f %9.3f %12.1f %14s\n", k.c_str(), v.get<double>(), res["hit_rate"][k].get<double>(),
                  res["mean_window"][k].get<double>(), rt::format_size(res["peak_buffer_bytes"][k].get<uint64_t>()).c_str());
  }
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

NDP_COMMAND("prefetch replay",
            "prefetch replay --model PATH [--shape qwen2.5-7b|llama2-7b|mistral-nemo-12b|profiled] [--tokens N] "
            "[--gpu-tflops F] [--forward-only] [--budget BYTES] [--iterations N] [--windows 1,2,4] [--cxl-gbps G] "
            "[--cxl-lat-ns N] [--h2d-gbps G] [--jitter J] [--interference F] [--execute sim|cpu] [--json]   "
            "10Cache prefetch with fixed windows and TOCP DAP on a real model's access order",
            cmd_replay, {"--json", "--forward-only"});

}  // namespace
}  // namespace ndp::cli
#endif
