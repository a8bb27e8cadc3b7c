// The CPU engine (prefetch.h, replay_cpu): tensors in a placed slow-tier allocation, buffers from a
// real rt::BufferPool, a copy thread moving real bytes, completions timed on the wall clock.
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "ndp/runtime/mempolicy.h"
#include "scheduler.h"

namespace ndp::pf {
namespace {

using Clock = std::chrono::steady_clock;

uint8_t fill_byte(uint32_t tensor) { return uint8_t(tensor * 31u + 7u); }

class CpuEngine final : public Engine {
 public:
  CpuEngine(const std::vector<uint8_t*>& src, const std::vector<uint64_t>& bytes, double compute_scale)
      : src_(src), bytes_(bytes), scale_(compute_scale), done_(src.size(), 1), dst_(src.size(), nullptr),
        t0_(Clock::now()), th_([this] { copier(); }) {}
  ~CpuEngine() override {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    th_.join();
  }
  double now() override { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  void issue(uint32_t tensor, uint64_t, uint64_t buffer) override {
    std::lock_guard<std::mutex> g(mu_);
    done_[tensor] = 0, dst_[tensor] = reinterpret_cast<uint8_t*>(buffer);
    queue_.push_back(tensor);
    cv_.notify_all();
  }
  bool done(uint32_t tensor) override {
    std::lock_guard<std::mutex> g(mu_);
    return done_[tensor];
  }
  void wait(uint32_t tensor) override {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait(g, [&] { return done_[tensor] != 0; });
    // The bytes arrived: both ends of the buffer hold the tensor's fill byte.
    const uint8_t* d = dst_[tensor];
    const uint64_t n = bytes_[tensor], k = std::min<uint64_t>(n, 64);
    for (uint64_t i = 0; i < k; ++i) bad_ += d[i] != fill_byte(tensor) || d[n - 1 - i] != fill_byte(tensor);
  }
  void compute(uint64_t, double seconds) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds * scale_));
  }
  std::vector<Completion> drain() override {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<Completion> out(completed_.begin(), completed_.end());
    completed_.clear();
    return out;
  }
  uint64_t bad() const { return bad_; }

 private:
  void copier() {
    for (;;) {
      std::unique_lock<std::mutex> g(mu_);
      cv_.wait(g, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      const uint32_t k = queue_.front();
      queue_.pop_front();
      uint8_t* d = dst_[k];
      g.unlock();
      const auto a = Clock::now();
      std::memcpy(d, src_[k], bytes_[k]);
      const double s = std::chrono::duration<double>(Clock::now() - a).count();
      g.lock();
      done_[k] = 1;
      completed_.push_back({k, bytes_[k], TierModel{}.transfer_s(bytes_[k], 0, 0.5), s});
      cv_.notify_all();
    }
  }
  std::vector<uint8_t*> src_;
  std::vector<uint64_t> bytes_;
  double scale_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<uint32_t> queue_;
  std::vector<uint8_t> done_;
  std::vector<uint8_t*> dst_;
  std::vector<Completion> completed_;
  bool stop_ = false;
  uint64_t bad_ = 0;
  Clock::time_point t0_;
  std::thread th_;
};

class PoolBuffers final : public Buffers {
 public:
  explicit PoolBuffers(rt::BufferPool& p) : p_(p) {}
  bool acquire(uint64_t bytes, uint64_t& handle, uint64_t& held) override {
    const uint64_t before = p_.stats().in_use_bytes;
    auto r = p_.acquire(bytes);
    if (!r.ok()) return false;
    handle = reinterpret_cast<uint64_t>(r.value()), held = p_.stats().in_use_bytes - before;
    return true;
  }
  void release(uint64_t handle) override { (void)p_.release(reinterpret_cast<void*>(handle)); }
  uint64_t capacity() const override { return p_.stats().capacity; }

 private:
  rt::BufferPool& p_;
};

int slow_node(const rt::Topology& topo, int asked) {
  if (asked >= 0) return asked;
  const auto cpuless = topo.cpuless_nodes();
  if (!cpuless.empty()) return cpuless.front();
  const auto nodes = rt::allowed_memory_nodes();
  return nodes.empty() ? 0 : nodes.front();
}

Result<std::unique_ptr<rt::BufferPool>> make_pool(rt::Runtime& rt, const std::vector<rt::PoolClass>& c) {
  rt::BufferPoolOptions bo;
  const auto nodes = rt::allowed_memory_nodes();
  bo.placement = rt::Placement::on_node(nodes.empty() ? 0 : nodes.front());
  auto p = rt::BufferPool::create(rt, c, bo);  // pinned (mlock)
  if (p.ok()) return p;
  bo.lock = false;  // RLIMIT_MEMLOCK too low: the same buffers, not pinned
  return rt::BufferPool::create(rt, c, bo);
}

}  // namespace

Result<ReplayResult> replay_cpu(const AccessTrace& t, WindowPolicy& p, const CpuReplayOptions& o) {
  if (o.iterations == 0) return Status::Error("prefetch: iterations must be at least 1");
  auto plan = plan_buffers(t, o.budget_bytes);
  if (!plan.ok()) return plan.status();
  auto topo = rt::discover_sysfs("/sys");
  if (!topo.ok()) return topo.status();
  rt::Runtime rt(topo.value());
  auto slow = rt.allocate(std::max<uint64_t>(t.total_bytes(), 1), rt::Placement::on_node(slow_node(topo.value(), o.slow_node)));
  if (!slow.ok()) return Status::Error("prefetch: slow tier: " + slow.status().message());
  std::vector<uint8_t*> src;
  std::vector<uint64_t> bytes;
  uint64_t off = 0;
  for (uint32_t k = 0; k < t.tensors.size(); ++k) {
    src.push_back(static_cast<uint8_t*>(slow.value().data()) + off);
    bytes.push_back(t.tensors[k].bytes);
    std::memset(src.back(), fill_byte(k), t.tensors[k].bytes);
    off += t.tensors[k].bytes;
  }
  auto pool = make_pool(rt, plan.value());
  if (!pool.ok()) return Status::Error("prefetch: buffer pool: " + pool.status().message());
  const auto table = build_prefetch_table(t, o.iterations);
  PoolBuffers buffers(*pool.value());
  Result<ReplayResult> r = Status::Error("");
  uint64_t bad = 0;
  {
    CpuEngine engine(src, bytes, o.compute_scale);
    Scheduler s(table, t.tensors.size(), p, engine, buffers);
    r = s.run();
    bad = engine.bad();
  }
  if (r.ok() && bad) return Status::Error("prefetch: " + std::to_string(bad) + " bytes arrived wrong in the pinned buffers");
  return r;
}

}  // namespace ndp::pf
