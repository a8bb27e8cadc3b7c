// Human and JSON reports for `ndp place topo|plan|bench`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/runtime/planner.h"
#include "ndp/runtime/runtime.h"
#include "ndp/runtime/topology.h"

namespace ndp::rt {

// Nodes, distances and what the kernel and CUDA offer, as text or JSON.
std::string topology_text(const Topology& t);
std::string topology_json(const Topology& t);

// Plan grouped by tensor component (the name up to the first '.'): level, total bytes, bytes per
// node and the policies used, then node totals.
std::string plan_summary(const Plan& p);

// Allocation latency of one allocate+free pair, nanoseconds (median of `rounds` rounds of
// `iters` pairs each), for the slab/large-block allocator, malloc and numa_alloc_onnode.
struct LatencyRow {
  uint64_t bytes = 0;
  double slab_ns = 0, malloc_ns = 0, numa_ns = 0;
};
Result<std::vector<LatencyRow>> measure_alloc_latency(Runtime& rt, int node, const std::vector<uint64_t>& sizes,
                                                      int iters, int rounds = 5);

}  // namespace ndp::rt
