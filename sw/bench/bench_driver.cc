// libndp (docs/driver.md, results in docs/results/driver.md): software NDP decode speed per core
// (dax backend over an image in memory) for the full region and narrower formats against memcpy of
// the same output bytes, thread scaling, the emulated node (device model) for reference, and mapped
// regions: the cost of one fault (4 KiB and 2 MiB units) and the throughput of a sequential scan.
// Input: GPT-2 attention q/k/v/proj weights of ../shared/data as BF16 (the demo model when absent).
// Bytes processed = output (region) bytes.
//   build/sw/bench/bench_driver --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <regex>

#include "ndp/convert.h"
#include "ndp/demo_model.h"
#include "ndp/driver.h"
#include "ndp/model_reader.h"
#include "ndp/soft_ndp.h"
#include "../driver/src/soft_kernels.h"

namespace {

using namespace ndp;

// The packed image (built once) and where it came from.
struct Input {
  std::vector<uint8_t> image, big;  // big: one 8M-element BF16 tensor (16 MiB region) for 2 MiB faults
  std::string what;
};
const Input& input() {
  static Input in = [] {
    Input r;
    auto m = read_model(std::string(NDP_DATA_DIR) + "/gpt2-small-attn");
    Model model;
    if (m.ok()) {
      convert_model_to_bf16(m.value());
      const std::regex re("att\\.(query|key|value|proj)\\.w");
      for (auto& t : m.value().tensors)
        if (std::regex_search(t.name, re)) model.tensors.push_back(std::move(t));
      r.what = "GPT-2 attention q/k/v/proj, 24 tensors";
    } else {
      model = make_demo_model();
      r.what = "demo model (../shared/data absent)";
    }
    ImageWriter w;
    for (const auto& t : model.tensors) (void)w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size());
    r.image = w.finish().value();
    std::mt19937_64 rng(7);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    std::vector<uint16_t> big(uint64_t{8} << 20);
    for (auto& v : big) v = fp32_to_bf16_rne(f32_bits(nd(rng)));
    ImageWriter wb;
    (void)wb.add_tensor("big", DType::kBF16, {big.size()}, reinterpret_cast<const uint8_t*>(big.data()), 2 * big.size());
    r.big = wb.finish().value();
    return r;
  }();
  return in;
}

// A device with the image loaded, kept for the whole run per backend name.
struct Loaded {
  std::unique_ptr<drv::Device> dev;
  uint32_t img = 0, big = 0;
  std::string dax_path;
  ~Loaded() {
    dev.reset();
    if (!dax_path.empty()) unlink(dax_path.c_str());
  }
};
Loaded& loaded(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<Loaded>> all;
  auto& slot = all[backend];
  if (!slot) {
    slot = std::make_unique<Loaded>();
    std::string uri = backend;
    if (backend == "dax") {
      char tmpl[] = "/tmp/ndp-bench-dax-XXXXXX";
      const int fd = mkstemp(tmpl);
      if (fd < 0 || ftruncate(fd, 256 << 20) != 0) std::abort();
      close(fd);
      slot->dax_path = tmpl;
      uri = "dax:" + slot->dax_path;
    }
    slot->dev = drv::Device::open(uri).value();
    slot->img = slot->dev->load(input().image.data(), input().image.size()).value();
    slot->big = slot->dev->load(input().big.data(), input().big.size()).value();
  }
  return *slot;
}

// Whole-region reads of every tensor: bytes = output bytes.
void BM_Read(benchmark::State& state, const char* backend, const char* region, int g) {
  Loaded& l = loaded(backend);
  const auto& ts = *l.dev->tensors(l.img);
  std::vector<Region> rs;
  uint64_t bytes = 0;
  for (const auto& t : ts) {
    rs.push_back(parse_region(region, t.dtype, g).value());
    bytes += region_output_bytes(rs.back(), t.dtype, t.elems);
  }
  std::vector<uint8_t> out;
  for (auto _ : state)
    for (size_t t = 0; t < ts.size(); ++t) {
      Status s = l.dev->read_region(l.img, t, rs[t], out);
      if (!s.ok()) state.SkipWithError(s.message().c_str());
      benchmark::DoNotOptimize(out.data());
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetLabel(input().what + ", " + drv::SoftReader::kernel_name());
}

// memcpy of the full region's bytes (the same output volume as BM_Read full).
void BM_MemcpyFull(benchmark::State& state) {
  Loaded& l = loaded("dax");
  uint64_t bytes = 0;
  for (const auto& t : *l.dev->tensors(l.img)) bytes += dtype_bytes(t.dtype, t.elems);
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// Thread scaling: each benchmark thread reads its share of the tensors (full region).
void BM_ReadThreads(benchmark::State& state) {
  Loaded& l = loaded("dax");
  const auto& ts = *l.dev->tensors(l.img);
  uint64_t bytes = 0;
  std::vector<uint8_t> out;
  for (auto _ : state)
    for (size_t t = static_cast<size_t>(state.thread_index()); t < ts.size(); t += static_cast<size_t>(state.threads())) {
      Status s = l.dev->read_region(l.img, t, Region{}, out);
      if (!s.ok()) state.SkipWithError(s.message().c_str());
      bytes += out.size();
    }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// Faults: each iteration maps the 16 MiB full region of the big tensor (not timed) and touches one
// byte per unit (timed); us_per_fault = touch time / units. Manual time: the handler thread works.
void BM_MapFault(benchmark::State& state, const char* backend, uint64_t unit) {
  Loaded& l = loaded(backend);
  const uint64_t n = l.dev->region_bytes(l.big, 0, Region{}).value();
  const uint64_t units = n / unit;
  double touched = 0;
  for (auto _ : state) {
    auto m = l.dev->map(l.big, 0, Region{}, 0, units * unit, unit).value();
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t u = 0; u < units; ++u) {
      const uint8_t v = *static_cast<const volatile uint8_t*>(m->data() + u * unit);
      benchmark::DoNotOptimize(v);
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(dt);
    touched += dt;
    if (m->faults() != units) state.SkipWithError("fault count");
  }
  state.counters["us_per_fault"] = touched * 1e6 / static_cast<double>(state.iterations() * units);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * units * unit));
}

// Sequential scan (8-byte loads) through a fresh mapping of every tensor's region, faults included.
void BM_MapScan(benchmark::State& state, const char* region, int g, uint64_t unit) {
  Loaded& l = loaded("dax");
  const auto& ts = *l.dev->tensors(l.img);
  uint64_t bytes = 0, sum = 0;
  for (auto _ : state)
    for (size_t t = 0; t < ts.size(); ++t) {
      const Region r = parse_region(region, ts[t].dtype, g).value();
      const uint64_t n = l.dev->region_bytes(l.img, t, r).value();
      auto m = l.dev->map(l.img, t, r, 0, n, unit).value();
      const uint8_t* p = m->data();
      for (uint64_t i = 0; i + 8 <= n; i += 8) {
        uint64_t v;
        std::memcpy(&v, p + i, 8);
        sum += v;
      }
      bytes += n;
    }
  benchmark::DoNotOptimize(sum);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// One 32768-element chunk of the first tensor: golden assemble_region against the driver's tables.
void BM_Assemble(benchmark::State& state, const char* region, bool tables) {
  Loaded& l = loaded("dax");
  std::vector<uint8_t> w;
  (void)l.dev->read_region(l.img, 0, Region{}, w);
  w.resize(2 * kDefaultChunkElems);
  const Region r = parse_region(region, DType::kBF16, 1).value();
  std::vector<uint8_t> out(region_output_bytes(r, DType::kBF16, kDefaultChunkElems));
  for (auto _ : state) {
    if (tables)
      drv::assemble16(r, DType::kBF16, reinterpret_cast<const uint16_t*>(w.data()), kDefaultChunkElems, out.data());
    else
      (void)assemble_region(r, DType::kBF16, w.data(), kDefaultChunkElems, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}

BENCHMARK_CAPTURE(BM_Assemble, golden_fp8e4m3, "fp8-e4m3", false);
BENCHMARK_CAPTURE(BM_Assemble, tables_fp8e4m3, "fp8-e4m3", true);
BENCHMARK_CAPTURE(BM_Assemble, golden_mxfp8, "mxfp8", false);
BENCHMARK_CAPTURE(BM_Assemble, tables_mxfp8, "mxfp8", true);
BENCHMARK_CAPTURE(BM_Assemble, golden_mxfp4, "mxfp4", false);
BENCHMARK_CAPTURE(BM_Assemble, tables_mxfp4, "mxfp4", true);
BENCHMARK(BM_MemcpyFull)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_full, "dax", "full", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_e8m3_g1, "dax", "e8m3", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_fp8e4m3_g1, "dax", "fp8-e4m3", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_fp8e5m2_g1, "dax", "fp8-e5m2", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_fp4e2m1_g1, "dax", "fp4-e2m1", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_mxfp8_g1, "dax", "mxfp8", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, dax_mxfp4_g1, "dax", "mxfp4", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, emu_full, "emu:inproc", "full", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Read, emu_fp8e4m3_g1, "emu:inproc", "fp8-e4m3", 1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadThreads)->ThreadRange(1, 16)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MapFault, dax_4k, "dax", uint64_t{4096})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MapFault, dax_2m, "dax", uint64_t{2} << 20)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MapFault, emu_4k, "emu:inproc", uint64_t{4096})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MapScan, dax_full_4k, "full", 0, uint64_t{4096})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MapScan, dax_full_2m, "full", 0, uint64_t{2} << 20)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MapScan, dax_fp8e4m3_4k, "fp8-e4m3", 1, uint64_t{4096})->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
