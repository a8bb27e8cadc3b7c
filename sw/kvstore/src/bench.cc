// `ndp kvstore bench`: forked worker processes against a pool, an index-service process that also
// serves the Unix-socket baseline, phases separated by barriers in a shared anonymous mapping.
#include "ndp/kvstore/bench.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "ndp/kvstore/rpc.h"

namespace ndp::kv {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kMaxProcs = 64, kPhases = 8;

struct alignas(64) WorkerResult {
  uint64_t puts = 0, gets = 0, put_ns = 0, get_ns = 0, quota = 0;
  double ops_qd = 0, ops_qd1 = 0, unix_ops = 0;
  int32_t error = 0;
};
struct BenchShared {
  std::atomic<uint32_t> arrive[kPhases];
  std::atomic<uint32_t> service_ready, stop_service;
  double rpc_p50, rpc_p99, unix_p50, unix_p99, lookup_p50;
  WorkerResult w[kMaxProcs];
};

double secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
Clock::time_point after(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

void barrier(BenchShared* sh, uint32_t phase, uint32_t n) {
  sh->arrive[phase].fetch_add(1);
  while (sh->arrive[phase].load() < n) std::this_thread::sleep_for(std::chrono::microseconds(50));
}

Key bench_key(uint32_t w, uint64_t i) {
  const uint64_t in[2] = {w, i};
  const XXH128_hash_t h = XXH3_128bits(in, sizeof in);
  return Key{h.low64 | 1, h.high64};
}

struct Percentiles {
  double p50 = 0, p99 = 0;
};
template <typename F>
Percentiles time_calls(uint64_t n, F&& call) {
  std::vector<double> us(n);
  for (uint64_t i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    if (!call()) return {};
    us[i] = secs(Clock::now() - t0) * 1e6;
  }
  std::sort(us.begin(), us.end());
  return Percentiles{us[n / 2], us[std::min(n - 1, n * 99 / 100)]};
}

class BenchWorker {
 public:
  BenchWorker(const BenchOptions& o, BenchShared* sh, uint32_t wid, KvStore& st)
      : o_(o), sh_(sh), wid_(wid), st_(st), rng_(wid + 1), res_(sh->w[wid]) {}
  int run();

 private:
  void put_phase();
  void get_phase();
  void latency_phase(ShmRpcClient& c, UnixRpcClient& u);
  double ops_phase(ShmRpcClient& c, bool pipelined);
  double unix_ops_phase(UnixRpcClient& u);
  RpcMessage lookup_msg() {
    const uint32_t w = uint32_t(rng_() % o_.procs);
    const Key k = bench_key(w, rng_() % std::max<uint64_t>(1, sh_->w[w].quota));
    return RpcMessage{uint32_t(RpcOp::kLookup), 0, 0, k.lo, k.hi};
  }
  const BenchOptions& o_;
  BenchShared* sh_;
  uint32_t wid_;
  KvStore& st_;
  std::mt19937_64 rng_;
  WorkerResult& res_;
};

// Each process puts its share of the pool, times only the puts, removes them (untimed) and goes
// again until the phase time is used; the last round stays for the get phase.
void BenchWorker::put_phase() {
  const Geometry& g = o_.geometry;
  std::vector<std::vector<uint8_t>> pages(2 * g.layers, std::vector<uint8_t>(g.slice_bytes()));
  std::vector<ConstSlice> gather;
  for (auto& p : pages) {
    for (auto& b : p) b = uint8_t(rng_());
    gather.push_back({p.data(), p.size()});
  }
  const uint64_t quota = std::max<uint64_t>(1, st_.blocks() * 9 / 10 / o_.procs);
  const auto end = after(o_.seconds);
  for (uint64_t round = 0;; ++round) {
    for (uint64_t i = 0; i < quota; ++i) {
      std::memcpy(pages[0].data(), &i, sizeof i);  // distinct content per block
      const auto t0 = Clock::now();
      auto r = st_.put(bench_key(wid_, i), gather);
      res_.put_ns += uint64_t(std::chrono::nanoseconds(Clock::now() - t0).count());
      if (!r.ok()) return (void)(res_.error = 1);
      ++res_.puts;
    }
    if (Clock::now() >= end) break;
    for (uint64_t i = 0; i < quota; ++i) (void)st_.remove(bench_key(wid_, i));
  }
  res_.quota = quota;
}

void BenchWorker::get_phase() {
  const Geometry& g = o_.geometry;
  std::vector<std::vector<uint8_t>> pages(2 * g.layers, std::vector<uint8_t>(g.slice_bytes()));
  std::vector<Slice> scatter;
  for (auto& p : pages) scatter.push_back({p.data(), p.size()});
  const auto end = after(o_.seconds);
  while (Clock::now() < end) {
    const uint32_t w = uint32_t(rng_() % o_.procs);
    const Key k = bench_key(w, rng_() % sh_->w[w].quota);
    const auto t0 = Clock::now();
    auto r = st_.get(k, scatter);
    res_.get_ns += uint64_t(std::chrono::nanoseconds(Clock::now() - t0).count());
    if (!r.ok() || !r.value()) return (void)(res_.error = 2);
    ++res_.gets;
  }
}

void BenchWorker::latency_phase(ShmRpcClient& c, UnixRpcClient& u) {
  const RpcMessage ping{uint32_t(RpcOp::kPing), 0, 1};
  for (int i = 0; i < 2000; ++i) (void)c.call(ping), (void)u.call(ping);  // warm up both paths
  const Percentiles shm = time_calls(o_.rpc_calls, [&] { return c.call(ping).ok(); });
  const Percentiles unx = time_calls(o_.rpc_calls, [&] { return u.call(ping).ok(); });
  const Percentiles look = time_calls(o_.rpc_calls, [&] { return c.call(lookup_msg()).ok(); });
  sh_->rpc_p50 = shm.p50, sh_->rpc_p99 = shm.p99, sh_->unix_p50 = unx.p50, sh_->unix_p99 = unx.p99;
  sh_->lookup_p50 = look.p50;
}

double BenchWorker::ops_phase(ShmRpcClient& c, bool pipelined) {
  std::vector<RpcMessage> req(pipelined ? st_.rpc_depth() : 1), resp(req.size());
  uint64_t n = 0;
  const auto t0 = Clock::now(), end = after(o_.seconds / 2);
  while (Clock::now() < end) {
    for (auto& r : req) r = lookup_msg();
    if (!c.call_batch(req, resp).ok()) return 0;
    n += req.size();
  }
  return double(n) / secs(Clock::now() - t0);
}

double BenchWorker::unix_ops_phase(UnixRpcClient& u) {
  uint64_t n = 0;
  const auto t0 = Clock::now(), end = after(o_.seconds / 2);
  while (Clock::now() < end) {
    if (!u.call(lookup_msg()).ok()) return 0;
    ++n;
  }
  return double(n) / secs(Clock::now() - t0);
}

int BenchWorker::run() {
  auto c = ShmRpcClient::connect(st_);
  auto u = UnixRpcClient::connect(o_.pool + ".sock");
  if (!c.ok() || !u.ok()) return 3;
  barrier(sh_, 0, o_.procs);
  put_phase();
  barrier(sh_, 1, o_.procs);
  get_phase();
  barrier(sh_, 2, o_.procs);
  if (wid_ == 0) latency_phase(*c.value(), *u.value());
  barrier(sh_, 3, o_.procs);
  res_.ops_qd = ops_phase(*c.value(), true);
  barrier(sh_, 4, o_.procs);
  res_.ops_qd1 = ops_phase(*c.value(), false);
  barrier(sh_, 5, o_.procs);
  res_.unix_ops = unix_ops_phase(*u.value());
  return res_.error ? 4 : 0;
}

[[noreturn]] void bench_service(const BenchOptions& o, BenchShared* sh) {
  auto st = KvStore::open(o.pool);
  if (!st.ok()) _exit(3);
  IndexService svc(*st.value());
  auto unix_srv = UnixRpcServer::start(*st.value(), o.pool + ".sock");
  if (!svc.start().ok() || !unix_srv.ok()) _exit(4);
  sh->service_ready.store(1);
  while (!sh->stop_service.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  svc.stop();
  _exit(0);
}

[[noreturn]] void bench_worker(const BenchOptions& o, BenchShared* sh, uint32_t wid) {
  auto st = KvStore::open(o.pool, OpenOptions{false, o.coherence});
  if (!st.ok()) _exit(3);
  BenchWorker w(o, sh, wid, *st.value());
  _exit(w.run());
}

BenchReport aggregate(const BenchOptions& o, const BenchShared* sh, const KvStore& st, double put_wall) {
  BenchReport r;
  r.procs = o.procs, r.block_bytes = o.geometry.block_bytes(), r.blocks = st.blocks();
  r.coherence = coherence_name(o.coherence);
  double put_s = 0, get_s = 0;
  for (uint32_t w = 0; w < o.procs; ++w) {
    const WorkerResult& x = sh->w[w];
    r.puts += x.puts, r.gets += x.gets;
    put_s = std::max(put_s, x.put_ns * 1e-9), get_s = std::max(get_s, x.get_ns * 1e-9);
    r.put_us += x.puts ? x.put_ns * 1e-3 / double(x.puts) / o.procs : 0;
    r.get_us += x.gets ? x.get_ns * 1e-3 / double(x.gets) / o.procs : 0;
    r.ops_per_s += x.ops_qd, r.ops_per_s_qd1 += x.ops_qd1, r.unix_ops_per_s += x.unix_ops;
  }
  (void)put_wall;
  // Aggregate bandwidth: all bytes over the busiest process's time spent in the calls.
  r.put_gbps = put_s > 0 ? double(r.puts) * double(r.block_bytes) / put_s / 1e9 : 0;
  r.get_gbps = get_s > 0 ? double(r.gets) * double(r.block_bytes) / get_s / 1e9 : 0;
  r.rpc_rtt_us = sh->rpc_p50, r.rpc_rtt_p99_us = sh->rpc_p99;
  r.unix_rtt_us = sh->unix_p50, r.unix_rtt_p99_us = sh->unix_p99, r.lookup_rtt_us = sh->lookup_p50;
  return r;
}

Status wait_children(std::vector<pid_t>& pids, const char* what) {
  int failed = 0;
  for (pid_t p : pids) {
    int st = 0;
    waitpid(p, &st, 0);
    failed += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  if (failed) return Status::Error(std::string("bench: ") + std::to_string(failed) + " " + what + " process(es) failed");
  return Status::Ok();
}

}  // namespace

Result<BenchReport> run_bench(const BenchOptions& o) {
  if (o.procs == 0 || o.procs > kMaxProcs) return Status::Error("bench: --procs must be 1.." + std::to_string(kMaxProcs));
  CreateOptions co;
  co.geometry = o.geometry, co.pool_bytes = o.pool_bytes, co.coherence = o.coherence, co.overwrite = true;
  co.populate = true;
  co.rpc_channels = std::max<uint32_t>(16, o.procs + 2), co.rpc_depth = 16;
  auto st = KvStore::create(o.pool, co);
  if (!st.ok()) return st.status();
  if (st.value()->blocks() < o.procs)
    return Status::Error("bench: the pool holds " + std::to_string(st.value()->blocks()) + " blocks, fewer than --procs");
  void* m = mmap(nullptr, sizeof(BenchShared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return Status::Error("bench: mmap of the shared results failed");
  auto* sh = new (m) BenchShared();
  std::vector<pid_t> svc{fork()};
  if (svc[0] == 0) bench_service(o, sh);
  while (!sh->service_ready.load()) {
    int stv = 0;
    if (waitpid(svc[0], &stv, WNOHANG) == svc[0]) return Status::Error("bench: the index service did not start");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<pid_t> workers;
  const auto t0 = Clock::now();
  for (uint32_t w = 0; w < o.procs; ++w) {
    const pid_t p = fork();
    if (p == 0) bench_worker(o, sh, w);
    workers.push_back(p);
  }
  Status ws = wait_children(workers, "worker");
  sh->stop_service.store(1);
  Status ss = wait_children(svc, "service");
  const BenchReport r = aggregate(o, sh, *st.value(), secs(Clock::now() - t0));
  munmap(m, sizeof(BenchShared));
  if (!st.value()->path().starts_with("/dev/dax")) ::unlink(o.pool.c_str());  // a scratch pool
  NDP_RETURN_IF_ERROR(ws);
  NDP_RETURN_IF_ERROR(ss);
  return r;
}

std::string bench_report_json(const BenchReport& r) {
  nlohmann::ordered_json j;
  j["procs"] = r.procs, j["block_bytes"] = r.block_bytes, j["blocks"] = r.blocks, j["coherence"] = r.coherence;
  j["put_gbps"] = r.put_gbps, j["get_gbps"] = r.get_gbps, j["put_us"] = r.put_us, j["get_us"] = r.get_us;
  j["puts"] = r.puts, j["gets"] = r.gets;
  j["rpc_rtt_us"] = r.rpc_rtt_us, j["rpc_rtt_p99_us"] = r.rpc_rtt_p99_us;
  j["unix_rtt_us"] = r.unix_rtt_us, j["unix_rtt_p99_us"] = r.unix_rtt_p99_us, j["lookup_rtt_us"] = r.lookup_rtt_us;
  j["ops_per_s"] = r.ops_per_s, j["ops_per_s_qd1"] = r.ops_per_s_qd1, j["unix_ops_per_s"] = r.unix_ops_per_s;
  return j.dump();
}

}  // namespace ndp::kv
