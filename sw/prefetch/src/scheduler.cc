// Scheduler (scheduler.h): prefetch ahead within the window, fetch on demand, evict behind.
#include "scheduler.h"

#include <algorithm>

namespace ndp::pf {

ClassBuffers::ClassBuffers(const std::vector<rt::PoolClass>& c) {
  for (const auto& k : c) {
    size_.push_back(k.size), free_.push_back(k.buffers);
    capacity_ += k.size * k.buffers;
  }
}

bool ClassBuffers::acquire(uint64_t bytes, uint64_t& handle, uint64_t& held) {
  for (size_t i = 0; i < size_.size(); ++i) {
    if (size_[i] < bytes || free_[i] == 0) continue;
    --free_[i];
    handle = i, held = size_[i];
    return true;
  }
  return false;
}

void ClassBuffers::release(uint64_t handle) { ++free_[handle]; }

void Scheduler::absorb() {
  for (const Completion& c : e_.drain()) {
    if (state_[c.tensor] == kInFlight) state_[c.tensor] = kPresent;
    p_.on_transfer(c.bytes, c.predicted_s, c.seconds);
  }
}

// The present tensor whose next use is furthest away, outside [use, keep_until]; none: false.
bool Scheduler::evict_one(uint64_t use, uint64_t keep_until) {
  int64_t victim = -1;
  uint64_t furthest = 0;
  for (size_t k = 0; k < state_.size(); ++k) {
    if (state_[k] != kPresent || k == t_[use].tensor) continue;
    if (next_[k] != ~0ull && next_[k] <= keep_until) continue;
    if (victim < 0 || next_[k] > furthest) victim = int64_t(k), furthest = next_[k];
  }
  if (victim < 0) return false;
  b_.release(handle_[victim]);
  in_use_ -= held_[victim];
  state_[victim] = kAbsent;
  ++r_.evictions;
  return true;
}

bool Scheduler::fetch(uint32_t tensor, uint64_t use, uint64_t keep_until, uint64_t bytes, uint64_t first_use) {
  uint64_t h = 0, held = 0;
  while (!b_.acquire(bytes, h, held))
    if (!evict_one(use, keep_until)) return ++r_.refused, false;
  handle_[tensor] = h, held_[tensor] = held, next_[tensor] = first_use;
  in_use_ += held;
  r_.peak_buffer_bytes = std::max(r_.peak_buffer_bytes, in_use_);
  state_[tensor] = kInFlight;
  e_.issue(tensor, bytes, h);
  return true;
}

// Every buffer may be held by copies still in flight: wait for them one by one until one frees.
Status Scheduler::demand_fetch(uint64_t use) {
  const uint32_t k = t_[use].tensor;
  while (!fetch(k, use, use, t_[use].bytes, use)) {
    --r_.refused;  // not refused: waited for
    int64_t inflight = -1;
    for (size_t x = 0; x < state_.size() && inflight < 0; ++x)
      if (state_[x] == kInFlight) inflight = int64_t(x);
    if (inflight < 0) return Status::Error("prefetch: no buffer of " + std::to_string(t_[use].bytes) + " B can be freed");
    e_.wait(uint32_t(inflight));
    absorb();
    state_[inflight] = kPresent;
  }
  return Status::Ok();
}

Result<ReplayResult> Scheduler::run() {
  r_.policy = p_.name();
  r_.buffer_capacity = b_.capacity();
  double window_sum = 0;
  const double t_start = e_.now();
  for (uint64_t use = 0; use < t_.size(); ++use) {
    absorb();
    const uint64_t w = p_.window(use), horizon = std::min<uint64_t>(t_.size() - 1, use + w);
    window_sum += double(w);
    for (uint64_t j = use + 1; j <= horizon; ++j) {
      const uint32_t k = t_[j].tensor;
      if (state_[k] != kAbsent) continue;
      if (!fetch(k, use, horizon, t_[j].bytes, j)) break;
      ++r_.prefetches;
    }
    const uint32_t k = t_[use].tensor;
    const bool fetched = state_[k] != kAbsent;
    if (!fetched) {
      NDP_RETURN_IF_ERROR(demand_fetch(use));
      ++r_.demand_fetches;
    }
    const bool hit = fetched && e_.done(k);  // present when the use began
    const double t0 = e_.now();
    e_.wait(k);
    state_[k] = kPresent;
    r_.stall_s += e_.now() - t0;
    r_.hits += hit;
    const double c0 = e_.now();
    e_.compute(use, t_[use].compute_s);
    p_.on_compute(use, e_.now() - c0);
    r_.compute_s += t_[use].compute_s;
    next_[k] = t_[use].next_use;
    if (next_[k] == ~0ull || next_[k] > horizon) {  // evict behind
      b_.release(handle_[k]);
      in_use_ -= held_[k];
      state_[k] = kAbsent;
      ++r_.evictions;
    }
  }
  r_.uses = t_.size();
  r_.total_s = e_.now() - t_start;
  r_.mean_window = t_.empty() ? 0 : window_sum / double(t_.size());
  return r_;
}

}  // namespace ndp::pf
