// Allocation latency of the placement runtime against malloc and numa_alloc_onnode, for the
// TOCP object sizes (16 KiB, 1 MiB, 16 MiB). Each iteration is one allocate + free pair; memory is
// not touched (TOCP's figure is allocation latency). Node: $NDP_BENCH_NODE or the first node.
//   build/sw/bench/bench_runtime --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <numa.h>

#include <cstdlib>
#include <memory>

#include "ndp/runtime/buffer_pool.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/slab.h"

using namespace ndp::rt;

namespace {

int bench_node() {
  const char* e = std::getenv("NDP_BENCH_NODE");
  if (e && *e) return std::atoi(e);
  auto n = allowed_memory_nodes();
  return n.empty() ? 0 : n.front();
}

Runtime& runtime() {
  static Runtime rt = [] {
    auto t = discover_sysfs("/sys");
    if (!t.ok()) std::abort();
    return Runtime(t.value());
  }();
  return rt;
}

void BM_SlabAllocFree(benchmark::State& st) {
  const uint64_t n = static_cast<uint64_t>(st.range(0));
  SlabOptions o;
  o.placement = Placement::on_node(bench_node());
  ObjectAllocator oa(runtime(), o);
  auto warm = oa.allocate(n);  // the class's first block is mapped once, outside the timing
  if (!warm.ok() || !oa.free(warm.value()).ok()) return st.SkipWithError("slab warm-up failed");
  for (auto _ : st) {
    auto p = oa.allocate(n);
    benchmark::DoNotOptimize(p);
    if (!p.ok() || !oa.free(p.value()).ok()) return st.SkipWithError("slab allocate failed");
  }
  st.counters["node"] = bench_node();
}

void BM_Malloc(benchmark::State& st) {
  const size_t n = static_cast<size_t>(st.range(0));
  for (auto _ : st) {
    void* p = std::malloc(n);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

void BM_NumaAllocOnnode(benchmark::State& st) {
  const size_t n = static_cast<size_t>(st.range(0));
  const int node = bench_node();
  for (auto _ : st) {
    void* p = numa_alloc_onnode(n, node);
    benchmark::DoNotOptimize(p);
    if (!p) return st.SkipWithError("numa_alloc_onnode failed");
    numa_free(p, n);
  }
}

// The runtime's direct path: aligned mmap + mbind + (no populate) + accounting.
void BM_RuntimeAllocate(benchmark::State& st) {
  const uint64_t n = static_cast<uint64_t>(st.range(0));
  AllocOptions o;
  o.populate = false;
  for (auto _ : st) {
    auto a = runtime().allocate(n, Placement::on_node(bench_node()), o);
    benchmark::DoNotOptimize(a);
    if (!a.ok()) return st.SkipWithError("runtime allocate failed");
  }
}

// The 10Cache-style pool: acquire + release of a pre-allocated pinned buffer.
void BM_BufferPoolAcquire(benchmark::State& st) {
  const uint64_t n = static_cast<uint64_t>(st.range(0));
  BufferPoolOptions o;
  o.placement = Placement::on_node(bench_node());
  o.lock = false;
  auto pool = BufferPool::create(runtime(), {{n, 4, 1.0, 4}}, o);
  if (!pool.ok()) return st.SkipWithError("buffer pool create failed");
  for (auto _ : st) {
    auto p = pool.value()->acquire(n);
    benchmark::DoNotOptimize(p);
    if (!p.ok() || !pool.value()->release(p.value()).ok()) return st.SkipWithError("acquire failed");
  }
}

}  // namespace

#define SIZES Arg(16 << 10)->Arg(1 << 20)->Arg(16 << 20)
BENCHMARK(BM_SlabAllocFree)->SIZES;
BENCHMARK(BM_Malloc)->SIZES;
BENCHMARK(BM_NumaAllocOnnode)->SIZES;
BENCHMARK(BM_RuntimeAllocate)->SIZES;
BENCHMARK(BM_BufferPoolAcquire)->SIZES;
