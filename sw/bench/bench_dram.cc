// Simulation speed of the DDR5 model (ndp_dram): wall time to simulate a sequential read stream
// (4 KiB requests over 4 channels) and uniformly random 64-byte reads. bytes_per_second = simulated
// DRAM bytes per wall-clock second; the counters report the simulated bandwidth and row hit rate.
//   build/sw/bench/bench_dram --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ndp/dram.h"

namespace {

void report(benchmark::State& state, const ndp::Ddr5Stats& s, uint64_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["sim_GBps"] = s.bandwidth_gbps();
  state.counters["row_hit_rate"] = s.row_hit_rate();
  state.counters["sim_us"] = s.elapsed_ps / 1e6;
}

void BM_Ddr5SequentialRead(benchmark::State& state) {
  const uint64_t bytes = static_cast<uint64_t>(state.range(0)) << 20;
  ndp::Ddr5Stats last;
  for (auto _ : state) {
    auto r = ndp::ddr5_run_reads(ndp::Ddr5Config(), {ndp::Ddr5Access{0, bytes}});
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    last = r.value();
  }
  report(state, last, bytes);
}
BENCHMARK(BM_Ddr5SequentialRead)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_Ddr5RandomRead64(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  ndp::Ddr5Config cfg;
  std::mt19937_64 rng(1);
  std::vector<ndp::Ddr5Access> reads;
  reads.reserve(n);
  for (uint64_t i = 0; i < n; ++i) reads.push_back({(rng() % (cfg.capacity_bytes() / 64)) * 64, 64});
  ndp::Ddr5Stats last;
  for (auto _ : state) {
    auto r = ndp::ddr5_run_reads(cfg, reads);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    last = r.value();
  }
  report(state, last, n * 64);
}
BENCHMARK(BM_Ddr5RandomRead64)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
