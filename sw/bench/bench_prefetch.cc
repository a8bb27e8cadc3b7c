// Prefetch scheduler costs: one DAP window decision, and a whole simulated replay of one training
// iteration of a 7B shape (uses per second of scheduling work). Needs ../shared/data/stories260K
// (the profiled order); skips without it.
//   build/sw/bench/bench_prefetch --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <optional>

#include "ndp/llama_file.h"
#include "ndp/prefetch/prefetch.h"

using namespace ndp::pf;

namespace {

const std::optional<AccessTrace>& qwen7b() {
  static const std::optional<AccessTrace> t = []() -> std::optional<AccessTrace> {
    const std::string path = std::string(NDP_DATA_DIR) + "/stories260K/stories260K.bin";
    if (!std::filesystem::exists(path)) return std::nullopt;
    auto m = ndp::load_llama(path);
    if (!m.ok()) return std::nullopt;
    auto p = profile_llama(m.value().llama, 2);
    if (!p.ok()) return std::nullopt;
    auto s = scale_trace(p.value(), find_shape("qwen2.5-7b").value(), ScaleOptions{});
    if (!s.ok()) return std::nullopt;
    return s.value();
  }();
  return t;
}

void BM_DapWindow(benchmark::State& st) {
  if (!qwen7b()) return st.SkipWithError("stories260K not present");
  const auto table = build_prefetch_table(*qwen7b(), 1);
  DapOptions d;
  d.budget_bytes = 4ull << 30;
  auto dap = dap_window(table, TierModel{}, d);
  uint64_t use = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(dap->window(use));
    use = (use + 1) % table.size();
  }
}

void BM_ReplayIteration(benchmark::State& st) {
  if (!qwen7b()) return st.SkipWithError("stories260K not present");
  ReplayOptions o;
  o.iterations = 1;
  const auto table = build_prefetch_table(*qwen7b(), 1);
  for (auto _ : st) {
    DapOptions d;
    d.budget_bytes = o.budget_bytes;
    auto p = st.range(0) ? dap_window(table, o.tier, d) : fixed_window(8);
    auto r = replay_simulated(*qwen7b(), *p, o);
    if (!r.ok()) return st.SkipWithError(r.status().message().c_str());
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(table.size()));
  st.SetLabel(st.range(0) ? "dap" : "fixed_8");
}

}  // namespace

BENCHMARK(BM_DapWindow);
BENCHMARK(BM_ReplayIteration)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
