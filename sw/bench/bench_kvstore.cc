// KV block store: put (gather-write) and get (scatter-read) of one block by block size and
// coherence mode, the index lookup, and the index RPC round trip over shared memory against a
// Unix-domain socket. In-process (threads); `ndp kvstore bench` measures the same with processes.
//   build/sw/bench/bench_kvstore --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ndp/kvstore/rpc.h"

using namespace ndp::kv;

namespace {

// Llama-3.1-8B K/V (32 layers, 8 KV heads x 128 channels, BF16): 128 KiB per token.
Geometry llama8b(uint32_t tokens) { return Geometry{tokens, 32, 8, 128, 2}; }

std::unique_ptr<KvStore> bench_pool(uint32_t tokens, Coherence c, uint64_t bytes = 320ull << 20) {
  CreateOptions o;
  o.geometry = llama8b(tokens), o.pool_bytes = bytes, o.coherence = c, o.populate = true;
  auto s = KvStore::create_memfd("bench", o);
  return s.ok() ? std::move(s.value()) : nullptr;
}

struct Pages {
  std::vector<std::vector<uint8_t>> pages;
  std::vector<ConstSlice> in;
  std::vector<Slice> out;
  explicit Pages(const Geometry& g) : pages(2 * g.layers, std::vector<uint8_t>(g.slice_bytes())) {
    std::mt19937_64 rng(7);
    for (auto& p : pages) {
      for (auto& b : p) b = uint8_t(rng());
      in.push_back({p.data(), p.size()});
      out.push_back({p.data(), p.size()});
    }
  }
};

Key key_of(uint64_t i) { return Key{0x9e3779b97f4a7c15ull * (i + 1), i + 1}; }

// Puts distinct keys; when the pool is full the timer stops while every block is removed.
void BM_Put(benchmark::State& st) {
  const auto c = static_cast<Coherence>(st.range(1));
  auto s = bench_pool(uint32_t(st.range(0)), c);
  if (!s) return st.SkipWithError("pool create failed");
  Pages p(s->geometry());
  uint64_t i = 0, base = 0;
  for (auto _ : st) {
    if (i - base == s->blocks()) {
      st.PauseTiming();
      for (uint64_t k = base; k < i; ++k) (void)s->remove(key_of(k));
      base = i;
      st.ResumeTiming();
    }
    auto r = s->put(key_of(i++), p.in);
    if (!r.ok()) return st.SkipWithError(r.status().message().c_str());
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(s->geometry().block_bytes()));
  st.SetLabel(coherence_name(c));
}

void BM_Get(benchmark::State& st) {
  const auto c = static_cast<Coherence>(st.range(1));
  auto s = bench_pool(uint32_t(st.range(0)), c);
  if (!s) return st.SkipWithError("pool create failed");
  Pages p(s->geometry());
  for (uint64_t i = 0; i < s->blocks(); ++i) (void)s->put(key_of(i), p.in);
  uint64_t i = 0;
  for (auto _ : st) {
    auto r = s->get(key_of(i++ % s->blocks()), p.out);
    if (!r.ok() || !r.value()) return st.SkipWithError("get failed");
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(s->geometry().block_bytes()));
  st.SetLabel(coherence_name(c));
}

void BM_IndexLookupLocal(benchmark::State& st) {
  auto s = bench_pool(16, Coherence::kHost);
  if (!s) return st.SkipWithError("pool create failed");
  Pages p(s->geometry());
  for (uint64_t i = 0; i < s->blocks(); ++i) (void)s->put(key_of(i), p.in);
  uint64_t i = 0;
  for (auto _ : st) {
    BlockRef r;
    benchmark::DoNotOptimize(s->find(key_of(i++ % (2 * s->blocks())), r));
  }
}

void BM_RpcRoundTripShm(benchmark::State& st) {
  auto s = bench_pool(16, Coherence::kHost, 64ull << 20);
  if (!s) return st.SkipWithError("pool create failed");
  IndexService svc(*s);
  if (!svc.start().ok()) return st.SkipWithError("service start failed");
  auto c = ShmRpcClient::connect(*s);
  if (!c.ok()) return st.SkipWithError("connect failed");
  const RpcMessage ping{uint32_t(RpcOp::kPing), 0, 1};
  for (auto _ : st)
    if (!c.value()->call(ping).ok()) return st.SkipWithError("call failed");
}

void BM_RpcRoundTripUnix(benchmark::State& st) {
  auto s = bench_pool(16, Coherence::kHost, 64ull << 20);
  if (!s) return st.SkipWithError("pool create failed");
  const std::string path = "/tmp/ndp-bench-kv-" + std::to_string(getpid()) + ".sock";
  auto srv = UnixRpcServer::start(*s, path);
  if (!srv.ok()) return st.SkipWithError(srv.status().message().c_str());
  auto c = UnixRpcClient::connect(path);
  if (!c.ok()) return st.SkipWithError("connect failed");
  const RpcMessage ping{uint32_t(RpcOp::kPing), 0, 1};
  for (auto _ : st)
    if (!c.value()->call(ping).ok()) return st.SkipWithError("call failed");
}

}  // namespace

// Block sizes: 16 tokens (vLLM), 32 tokens, 256 tokens (LMCache chunk); modes host, nt, flush.
BENCHMARK(BM_Put)->ArgsProduct({{16, 32, 256}, {0, 1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Get)->ArgsProduct({{16, 32, 256}, {0, 1, 2}})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_IndexLookupLocal);
BENCHMARK(BM_RpcRoundTripShm)->UseRealTime();
BENCHMARK(BM_RpcRoundTripUnix)->UseRealTime();
