// The crash-injection campaign (crash.h): forked workers, SIGKILL at random moments, recovery and
// a full check against what the workers logged in a shared anonymous mapping.
#include "ndp/kvstore/crash.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "ndp/kvstore/rpc.h"

namespace ndp::kv {
namespace {

constexpr uint32_t kMaxWorkers = 1024, kLogCap = 4096;
enum Phase : uint32_t { kIdle, kAlloc, kWrite, kSeal, kIndex, kLog, kRead, kRemove, kStart, kPick, kFill, kPhases };
const char* kPhaseNames[kPhases] = {"idle", "alloc", "write", "seal", "index", "log", "read", "remove", "start", "pick", "fill"};
enum EntryStatus : uint32_t { kNone, kCommitted, kRemoving, kRemoved };

struct alignas(64) WorkerSlot {
  std::atomic<uint32_t> phase, pid, logged, pad;
  std::atomic<uint64_t> ops, reads_ok, torn, read_errors, full_errors;
};
struct LogEntry {
  std::atomic<uint32_t> seq, status;
};
struct Shared {
  std::atomic<uint32_t> stop, stop_service, spawned, pad;
  std::atomic<uint64_t> reaped_blocks, reaped_channels;  // by the index service (rpc mode)
  WorkerSlot w[kMaxWorkers];
  LogEntry log[kMaxWorkers][kLogCap];
};

Key key_of(uint64_t seed, uint32_t wid, uint32_t seq) {
  const uint64_t in[3] = {seed, wid, seq};
  const XXH128_hash_t h = XXH3_128bits(in, sizeof in);
  return Key{h.low64 | 1, h.high64};
}

void phase_hook(FaultPoint p, void* ctx) {
  auto* w = static_cast<WorkerSlot*>(ctx);
  static const Phase map[] = {kWrite, kWrite, kSeal, kIndex, kLog, kRemove};
  w->phase.store(map[static_cast<int>(p)], std::memory_order_relaxed);
}

struct Worker {
  const CrashOptions& o;
  Shared* sh;
  uint32_t wid;
  KvStore& st;
  std::mt19937_64 rng;
  std::vector<uint8_t> data, back;
  uint32_t next = 0;

  WorkerSlot& me() { return sh->w[wid]; }
  std::vector<ConstSlice> gather() {
    std::vector<ConstSlice> s;
    for (uint32_t i = 0; i < 2 * o.geometry.layers; ++i)
      s.push_back({data.data() + i * o.geometry.slice_bytes(), o.geometry.slice_bytes()});
    return s;
  }
  std::vector<Slice> scatter() {
    std::vector<Slice> s;
    for (uint32_t i = 0; i < 2 * o.geometry.layers; ++i)
      s.push_back({back.data() + i * o.geometry.slice_bytes(), o.geometry.slice_bytes()});
    return s;
  }
  // A committed entry of any worker, claimed for removal (status committed -> removing).
  bool remove_one() {
    me().phase = kPick;
    const uint32_t n = sh->spawned.load();
    for (int tries = 0; tries < 16; ++tries) {
      const uint32_t v = uint32_t(rng() % n), logged = sh->w[v].logged.load(std::memory_order_acquire);
      if (!logged) continue;
      LogEntry& e = sh->log[v][rng() % logged];
      uint32_t want = kCommitted;
      if (!e.status.compare_exchange_strong(want, kRemoving)) continue;
      me().phase = kRemove;
      (void)st.remove(key_of(o.seed, v, e.seq.load()));
      e.status.store(kRemoved);
      return true;
    }
    return false;
  }
  void put_one() {
    if (me().logged.load() == kLogCap) return (void)remove_one();
    const Key k = key_of(o.seed, wid, next);
    me().phase = kFill;
    fill_payload(k, data.data(), data.size());
    me().phase = kAlloc;
    const auto g = gather();
    auto r = st.put(k, g);
    if (r.ok() && r.value() == PutResult::kStored) {
      const uint32_t n = me().logged.load();
      sh->log[wid][n].seq.store(next);
      sh->log[wid][n].status.store(kCommitted, std::memory_order_release);
      me().logged.store(n + 1, std::memory_order_release);
    } else if (!r.ok() && r.status().message().find("pool full") != std::string::npos) {
      me().full_errors.fetch_add(1);
      remove_one();
    }
    ++next;
  }
  void get_one() {
    const uint32_t v = uint32_t(rng() % sh->spawned.load()), logged = sh->w[v].logged.load(std::memory_order_acquire);
    if (!logged) return;
    const Key k = key_of(o.seed, v, sh->log[v][rng() % logged].seq.load());
    me().phase = kRead;
    const auto s = scatter();
    auto r = st.get(k, s);
    if (!r.ok()) return (void)me().read_errors.fetch_add(1);
    if (!r.value()) return;
    fill_payload(k, data.data(), data.size());
    if (std::memcmp(data.data(), back.data(), data.size()) != 0)
      me().torn.fetch_add(1);
    else
      me().reads_ok.fetch_add(1);
  }
  void run() {
    while (!sh->stop.load(std::memory_order_relaxed)) {
      const uint64_t op = rng() % 100;
      if (op < 40)
        put_one();
      else if (op < 80)
        get_one();
      else
        remove_one();
      me().phase = kIdle;
      me().ops.fetch_add(1, std::memory_order_relaxed);
    }
  }
};

Result<std::unique_ptr<ShmRpcClient>> connect_retry(KvStore& st) {
  for (int i = 0;; ++i) {
    auto c = ShmRpcClient::connect(st);
    if (c.ok() || i == 200) return c;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

[[noreturn]] void worker_main(const CrashOptions& o, Shared* sh, uint32_t wid) {
  auto st = KvStore::open(o.pool, OpenOptions{false, o.coherence});
  if (!st.ok()) _exit(3);
  std::unique_ptr<ShmRpcClient> cl;
  if (o.rpc) {
    auto c = connect_retry(*st.value());
    if (!c.ok()) _exit(4);
    cl = std::move(c.value());
    st.value()->set_meta(cl.get());
  }
  st.value()->set_fault_hook(phase_hook, &sh->w[wid]);
  Worker w{o, sh, wid, *st.value(), std::mt19937_64(o.seed * 1000003 + wid), {}, {}};
  sh->w[wid].phase = kIdle;
  w.data.resize(o.geometry.block_bytes());
  w.back.resize(o.geometry.block_bytes());
  w.run();
  cl.reset();
  _exit(0);
}

[[noreturn]] void service_main(const CrashOptions& o, Shared* sh) {
  auto st = KvStore::open(o.pool, OpenOptions{false, o.coherence});
  if (!st.ok()) _exit(3);
  IndexService svc(*st.value());
  if (!svc.start().ok()) _exit(4);
  while (!sh->stop_service.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  svc.stop();
  sh->reaped_blocks.store(svc.stats().reaped_blocks);
  sh->reaped_channels.store(svc.stats().reaped_channels);
  _exit(0);
}

}  // namespace

void fill_payload(const Key& k, uint8_t* dst, uint64_t n) {
  uint64_t x = k.lo ^ (k.hi * 0x9e3779b97f4a7c15ull) ^ 0x2545f4914f6cdd1dull;
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(dst + i, &x, 8);
  }
  for (; i < n; ++i) dst[i] = uint8_t(x >> (8 * (i & 7)));
}

namespace {

class Campaign {
 public:
  Campaign(const CrashOptions& o, Shared* sh, KvStore& st) : o_(o), sh_(sh), st_(st), rng_(o.seed) {}
  Status run(CrashReport& r);

 private:
  Result<pid_t> spawn_worker();
  Status kill_one(CrashReport& r);
  void verify(CrashReport& r);
  const CrashOptions& o_;
  Shared* sh_;
  KvStore& st_;
  std::mt19937_64 rng_;
  std::vector<std::pair<pid_t, uint32_t>> live_;  // pid, worker id
  pid_t service_ = -1;
  uint64_t worker_failures_ = 0;
};

Result<pid_t> Campaign::spawn_worker() {
  const uint32_t wid = sh_->spawned.load();
  if (wid >= kMaxWorkers) return Status::Error("crash-test: more than " + std::to_string(kMaxWorkers) + " workers");
  sh_->w[wid].phase = kStart;
  sh_->spawned.store(wid + 1);
  const pid_t pid = fork();
  if (pid < 0) return Status::Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) worker_main(o_, sh_, wid);
  sh_->w[wid].pid.store(uint32_t(pid));
  live_.push_back({pid, wid});
  return pid;
}

Status Campaign::kill_one(CrashReport& r) {
  std::uniform_int_distribution<uint32_t> delay(o_.min_delay_us, std::max(o_.min_delay_us, o_.max_delay_us));
  std::this_thread::sleep_for(std::chrono::microseconds(delay(rng_)));
  const size_t i = rng_() % live_.size();
  const auto [pid, wid] = live_[i];
  const uint32_t phase = sh_->w[wid].phase.load();
  ::kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) ++worker_failures_;  // it had exited by itself
  ++r.kill_phases[kPhaseNames[phase < kPhases ? phase : 0]];
  ++r.kills;
  live_.erase(live_.begin() + long(i));
  if (!o_.rpc) {
    auto rec = st_.recover(RecoverMode::kDeadOwners);  // online, beside the live workers
    if (!rec.ok()) return rec.status();
    r.freed_online += rec.value().freed_writing;
  }
  auto p = spawn_worker();
  return p.ok() ? Status::Ok() : p.status();
}

Status Campaign::run(CrashReport& r) {
  if (o_.rpc) {
    service_ = fork();
    if (service_ < 0) return Status::Error(std::string("fork: ") + std::strerror(errno));
    if (service_ == 0) service_main(o_, sh_);
  }
  for (uint32_t i = 0; i < o_.procs; ++i) {
    auto p = spawn_worker();
    if (!p.ok()) return p.status();
  }
  for (uint32_t k = 0; k < o_.kills; ++k) NDP_RETURN_IF_ERROR(kill_one(r));
  sh_->stop.store(1);
  for (auto [pid, wid] : live_) {
    int status = 0;
    waitpid(pid, &status, 0);
    worker_failures_ += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  if (service_ > 0) {
    sh_->stop_service.store(1);
    int status = 0;
    waitpid(service_, &status, 0);
    r.freed_online += sh_->reaped_blocks.load();
    r.reaped_channels = sh_->reaped_channels.load();
  }
  if (worker_failures_) return Status::Error("crash-test: " + std::to_string(worker_failures_) + " worker(s) failed to start or run");
  verify(r);
  return Status::Ok();
}

void Campaign::verify(CrashReport& r) {
  r.leaked_before = st_.check(false).leaked();
  auto rec = st_.recover(RecoverMode::kExclusive, true);
  if (rec.ok()) r.recovery = rec.value();
  const CheckReport post = st_.check(true);
  r.leaked_blocks = post.leaked();
  r.consistent = rec.ok() && post.consistent();
  std::vector<uint8_t> want(o_.geometry.block_bytes()), got(want.size());
  const Slice s{got.data(), got.size()};
  for (uint32_t v = 0; v < sh_->spawned.load(); ++v) {
    const WorkerSlot& w = sh_->w[v];
    r.ops += w.ops, r.reads_verified += w.reads_ok, r.torn_reads += w.torn, r.read_errors += w.read_errors;
    r.full_errors += w.full_errors;
    for (uint32_t e = 0; e < w.logged.load(); ++e) {
      const Key k = key_of(o_.seed, v, sh_->log[v][e].seq.load());
      const uint32_t status = sh_->log[v][e].status.load();
      ++r.blocks_written;
      auto g = st_.get(k, {&s, 1});
      const bool present = g.ok() && g.value();
      if (status == kRemoved && present) ++r.resurrected;
      if (status != kCommitted) continue;
      fill_payload(k, want.data(), want.size());
      if (!present || want != got) ++r.blocks_lost;
    }
  }
}

}  // namespace

Result<CrashReport> run_crash_campaign(const CrashOptions& o) {
  if (o.procs == 0) return Status::Error("crash-test: --procs must be at least 1");
  if (uint64_t{o.procs} + o.kills > kMaxWorkers)
    return Status::Error("crash-test: procs + kills must be at most " + std::to_string(kMaxWorkers));
  CreateOptions co;
  co.geometry = o.geometry, co.blocks = o.blocks, co.coherence = o.coherence, co.overwrite = true;
  auto st = KvStore::create(o.pool, co);
  if (!st.ok()) return st.status();
  void* m = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return Status::Error(std::string("mmap shared log: ") + std::strerror(errno));
  auto* sh = new (m) Shared();
  CrashReport r;
  const auto t0 = std::chrono::steady_clock::now();
  Campaign c(o, sh, *st.value());
  Status s = c.run(r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  munmap(m, sizeof(Shared));
  if (!s.ok()) return s;
  const bool ok = r.consistent && r.blocks_lost == 0 && r.torn_reads == 0 && r.read_errors == 0 &&
                  r.resurrected == 0 && r.leaked_blocks == 0;
  r.status = ok ? "ok" : "fail";
  return r;
}

std::string crash_report_json(const CrashReport& r) {
  nlohmann::ordered_json j;
  j["kills"] = r.kills, j["blocks_written"] = r.blocks_written, j["blocks_lost"] = r.blocks_lost;
  j["torn_reads"] = r.torn_reads, j["leaked_blocks"] = r.leaked_blocks, j["read_errors"] = r.read_errors;
  j["resurrected"] = r.resurrected, j["leaked_before_recovery"] = r.leaked_before;
  j["reads_verified"] = r.reads_verified, j["full_errors"] = r.full_errors, j["ops"] = r.ops;
  j["freed_online"] = r.freed_online, j["reaped_channels"] = r.reaped_channels;
  j["recovered"] = {{"freed_writing", r.recovery.freed_writing}, {"reindexed", r.recovery.reindexed},
                    {"freed_corrupt", r.recovery.freed_corrupt}, {"freed_duplicate", r.recovery.freed_duplicate},
                    {"dropped_entries", r.recovery.dropped_entries}};
  j["kill_phases"] = r.kill_phases;
  j["consistent"] = r.consistent, j["seconds"] = r.seconds, j["status"] = r.status;
  return j.dump();
}

}  // namespace ndp::kv
