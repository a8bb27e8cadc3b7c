// Prefetch and eviction from a slow tier (CXL memory) into size-class pinned buffers, ahead of
// use, after ../shared/papers/10cache.txt (the prefetch table, Algorithms 3-4: prefetch the next
// tensors of the table into free buffers, evict behind) with the prefetch window either fixed or
// tuned at run time by TOCP's Dynamic Adaptive Pipelining (../shared/papers/tocp-cxl-pool.txt,
// section D: the window follows measured transfer and compute times, damped by a stability score).
//
// The scheduler runs against an engine: a simulated one whose slow tier is the papers' CXL and
// PCIe figures (deterministic; the replay), or the CPU engine, which copies real bytes from a
// slow-tier allocation into a real rt::BufferPool on a copy thread (the path CI runs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ndp/prefetch/trace.h"
#include "ndp/runtime/buffer_pool.h"

namespace ndp::pf {

struct Link {
  double gbps = 0;       // 1e9 B/s
  double latency_s = 0;
};

// Slow tier -> pinned host buffer -> device, as one pipelined path (chunked: the slower link sets
// the rate, the latencies add). Background traffic takes `interference` of the bandwidth during
// the first half of every period (Beluga Exp. 4's background load); `jitter` scales each
// transfer's rate by a uniform factor in [1 - jitter, 1 + jitter].
struct TierModel {
  Link cxl{30.0, 380e-9};     // TOCP Table I, the JTCXL expander sample: 30 GB/s, 380 ns
  Link h2d{10.36, 10e-6};     // 10Cache Table 1, CPU -> GPU: 10.36 GB/s (latency: a copy launch)
  double interference = 0.0;
  double period_s = 0.2;
  double jitter = 0.0;
  // Seconds to move `bytes` starting at time `t` (u in [0,1) draws the jitter).
  double transfer_s(uint64_t bytes, double t, double u) const;
};

// 10Cache's prefetch table over `iterations` repetitions of the trace: for every use its tensor,
// bytes, compute time and the next use of the same tensor.
struct PrefetchRow {
  uint32_t tensor = 0;
  uint64_t bytes = 0;
  double compute_s = 0;
  Role role = Role::kEmbedding;
  uint64_t next_use = ~0ull;  // ~0: not used again
};
std::vector<PrefetchRow> build_prefetch_table(const AccessTrace& t, uint32_t iterations);

// What a window policy is told and asked.
class WindowPolicy {
 public:
  virtual ~WindowPolicy() = default;
  virtual std::string name() const = 0;
  // Uses after `use` to keep fetched or in flight.
  virtual uint32_t window(uint64_t use) = 0;
  virtual void on_transfer(uint64_t bytes, double predicted_s, double seconds) {}
  virtual void on_compute(uint64_t use, double seconds) {}
};
std::unique_ptr<WindowPolicy> fixed_window(uint32_t n);  // 0 = no prefetch (fetch on demand)

struct DapOptions {
  uint32_t max_window = 64;
  uint32_t history = 16;           // N of the stability score: the latest N operations
  double alpha = 0.5, beta = 0.5;  // weights of its two terms (TOCP fits them offline)
  double margin_min = 0.1, margin_max = 1.0;  // lead-time safety: stable -> min, unstable -> max
  double ewma = 0.2;               // weight of a new bandwidth observation
  // Memory: the window stops where its tensors would take more than memory_share of the buffer
  // budget (TOCP's DAP also follows GPU memory use; 0 budget: no limit).
  uint64_t budget_bytes = 0;
  double memory_share = 0.5;
};
// DAP: the window reaches the last use whose data must be issued now to be in time: the transfer
// time of the distinct tensors up to it, x (1 + margin), exceeds the compute that runs between the
// end of the current use (the next decision) and its start; it stops at memory_share of the budget. Transfer times come from the link model corrected by the
// measured/predicted ratio (EWMA); the margin grows as the stability score falls.
std::unique_ptr<WindowPolicy> dap_window(const std::vector<PrefetchRow>& table, const TierModel& tier, DapOptions o = {});

struct ReplayOptions {
  TierModel tier;
  uint64_t budget_bytes = 4ull << 30;  // pinned buffer pool (10Cache Algorithms 1-2 size it)
  uint32_t iterations = 3;
  uint64_t seed = 1;
};

struct ReplayResult {
  std::string policy;
  double stall_s = 0;     // compute waiting for data, all iterations
  double compute_s = 0;
  double total_s = 0;
  uint64_t uses = 0, hits = 0;  // hit: the tensor was present when its use began
  uint64_t prefetches = 0, demand_fetches = 0, evictions = 0, refused = 0;  // refused: no buffer
  uint64_t buffer_capacity = 0, peak_buffer_bytes = 0;
  double mean_window = 0;
  double hit_rate() const { return uses ? double(hits) / double(uses) : 0; }
};

// The buffer classes the replay uses: rt::plan_buffer_pool over the trace's size distribution
// within the budget, at least one buffer per size. Error when one buffer of the largest tensor
// does not fit the budget.
Result<std::vector<rt::PoolClass>> plan_buffers(const AccessTrace& t, uint64_t budget);

// Replay on the simulated tier model.
Result<ReplayResult> replay_simulated(const AccessTrace& t, WindowPolicy& p, const ReplayOptions& o);

// Replay with real copies: tensors live in one slow-tier allocation (`slow_node`, or the first
// CPU-less node, else the first node), buffers in a real rt::BufferPool; a copy thread moves the
// bytes (real transfer times; the tier model is not used); compute is a timed wait of each use's
// compute time x compute_scale.
struct CpuReplayOptions {
  uint64_t budget_bytes = 64ull << 20;
  uint32_t iterations = 2;
  int slow_node = -1;
  double compute_scale = 1.0;
};
Result<ReplayResult> replay_cpu(const AccessTrace& t, WindowPolicy& p, const CpuReplayOptions& o);

}  // namespace ndp::pf
