// The prefetch/evict scheduler shared by the simulated and the CPU engines (prefetch.h).
#pragma once

#include <cstdint>
#include <vector>

#include "ndp/prefetch/prefetch.h"

namespace ndp::pf {

struct Completion {
  uint32_t tensor;
  uint64_t bytes;
  double predicted_s, seconds;
};

// Where copies run and time passes.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual double now() = 0;
  // Start copying a tensor into a buffer (FIFO behind earlier copies).
  virtual void issue(uint32_t tensor, uint64_t bytes, uint64_t buffer) = 0;
  virtual bool done(uint32_t tensor) = 0;   // its copy has completed by now()
  virtual void wait(uint32_t tensor) = 0;   // until its copy completes
  virtual void compute(uint64_t use, double seconds) = 0;
  virtual std::vector<Completion> drain() = 0;  // completed since the last call
};

// Buffers of the pinned pool, as handles.
class Buffers {
 public:
  virtual ~Buffers() = default;
  virtual bool acquire(uint64_t bytes, uint64_t& handle, uint64_t& held) = 0;  // held: class bytes
  virtual void release(uint64_t handle) = 0;
  virtual uint64_t capacity() const = 0;
};

// 10Cache Algorithms 3-4 over the table: before each use, fetch the tensors of the next `window`
// uses into free buffers (evicting present tensors needed furthest in the future, never one in
// the window), fetch on demand what is missing, wait, compute, and evict behind a tensor whose
// next use lies beyond the window.
class Scheduler {
 public:
  Scheduler(const std::vector<PrefetchRow>& t, size_t tensors, WindowPolicy& p, Engine& e, Buffers& b)
      : t_(t), p_(p), e_(e), b_(b), state_(tensors, kAbsent), handle_(tensors, 0), held_(tensors, 0),
        next_(tensors, ~0ull) {}
  Result<ReplayResult> run();

 private:
  enum State : uint8_t { kAbsent, kInFlight, kPresent };
  bool fetch(uint32_t tensor, uint64_t use, uint64_t keep_until, uint64_t bytes, uint64_t first_use);
  bool evict_one(uint64_t use, uint64_t keep_until);
  Status demand_fetch(uint64_t use);
  void absorb();
  const std::vector<PrefetchRow>& t_;
  WindowPolicy& p_;
  Engine& e_;
  Buffers& b_;
  std::vector<uint8_t> state_;
  std::vector<uint64_t> handle_, held_, next_;
  uint64_t in_use_ = 0;
  ReplayResult r_;
};

// Buffer classes as counts: the acquire rule of rt::BufferPool (the smallest class that fits,
// the next class up when it is exhausted) without mapping any memory, for the simulation.
class ClassBuffers final : public Buffers {
 public:
  explicit ClassBuffers(const std::vector<rt::PoolClass>& c);
  bool acquire(uint64_t bytes, uint64_t& handle, uint64_t& held) override;
  void release(uint64_t handle) override;
  uint64_t capacity() const override { return capacity_; }

 private:
  std::vector<uint64_t> size_, free_;
  uint64_t capacity_ = 0;
};

}  // namespace ndp::pf
