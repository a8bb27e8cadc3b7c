// The simulated replay: a FIFO copy channel whose transfer times come from the tier model, and
// the buffer plan of 10Cache's Algorithms 1-2 (prefetch.h).
#include <algorithm>
#include <map>
#include <random>

#include "scheduler.h"

namespace ndp::pf {

Result<std::vector<rt::PoolClass>> plan_buffers(const AccessTrace& t, uint64_t budget) {
  std::map<uint64_t, uint64_t> sizes;
  for (const Tensor& x : t.tensors) ++sizes[x.bytes];
  std::vector<rt::SizeCount> in;
  for (auto [size, count] : sizes) in.push_back({size, count});
  if (in.empty()) return Status::Error("prefetch: the trace has no tensors");
  const uint64_t largest = in.back().size;
  if (largest > budget)
    return Status::Error("prefetch: the buffer budget (" + std::to_string(budget) + " B) is smaller than the largest tensor (" +
                         std::to_string(largest) + " B)");
  auto plan = rt::plan_buffer_pool(in, budget);
  if (!plan.ok()) return plan.status();
  for (auto& c : plan.value()) c.buffers = std::max<uint64_t>(c.buffers, 1);  // every size can be fetched
  return plan;
}

namespace {

class SimEngine final : public Engine {
 public:
  SimEngine(const TierModel& tier, size_t tensors, uint64_t seed) : tier_(tier), ready_(tensors, 0), rng_(seed) {}
  double now() override { return now_; }
  void issue(uint32_t tensor, uint64_t bytes, uint64_t) override {
    const double start = std::max(now_, channel_free_);
    const double dur = tier_.transfer_s(bytes, start, uni_(rng_));
    ready_[tensor] = channel_free_ = start + dur;
    pending_.push_back({tensor, bytes, tier_.transfer_s(bytes, 0, 0.5), dur, ready_[tensor]});
  }
  bool done(uint32_t tensor) override { return ready_[tensor] <= now_; }
  void wait(uint32_t tensor) override { now_ = std::max(now_, ready_[tensor]); }
  void compute(uint64_t, double seconds) override { now_ += seconds; }
  std::vector<Completion> drain() override {
    std::vector<Completion> out;
    while (!pending_.empty() && pending_.front().ready <= now_) {
      const auto& p = pending_.front();
      out.push_back({p.tensor, p.bytes, p.predicted, p.seconds});
      pending_.erase(pending_.begin());
    }
    return out;
  }

 private:
  struct Pending {
    uint32_t tensor;
    uint64_t bytes;
    double predicted, seconds, ready;
  };
  TierModel tier_;
  std::vector<double> ready_;
  std::vector<Pending> pending_;
  double now_ = 0, channel_free_ = 0;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uni_{0.0, 1.0};
};

}  // namespace

Result<ReplayResult> replay_simulated(const AccessTrace& t, WindowPolicy& p, const ReplayOptions& o) {
  if (o.iterations == 0) return Status::Error("prefetch: iterations must be at least 1");
  auto plan = plan_buffers(t, o.budget_bytes);
  if (!plan.ok()) return plan.status();
  const auto table = build_prefetch_table(t, o.iterations);
  ClassBuffers buffers(plan.value());
  SimEngine engine(o.tier, t.tensors.size(), o.seed);
  Scheduler s(table, t.tensors.size(), p, engine, buffers);
  return s.run();
}

}  // namespace ndp::pf
