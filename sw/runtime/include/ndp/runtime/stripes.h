// Exact page-level splitting used by the mbind-stripe fallback, the planner and migration.
#pragma once

#include <cstdint>
#include <vector>

namespace ndp::rt {

// Split `total` units over weights with the largest-remainder rule: result sums to `total`
// exactly; each share is floor(total*w/W) or one more. Weights must be non-empty and sum > 0.
std::vector<uint64_t> split_by_weights(uint64_t total, const std::vector<uint64_t>& weights);

// Reduce weights by their gcd (3:6 -> 1:2); zero-free input expected.
std::vector<uint64_t> reduce_weights(const std::vector<uint64_t>& w);

struct Run {
  uint64_t first_page;
  uint64_t pages;
  int node;
};

// Lay out `quota[i]` pages on nodes[i] as stripes of at most `unit_pages`, interleaved in
// proportion to the quotas (smooth weighted round robin), adjacent runs of one node merged.
// Every node receives exactly its quota; runs cover [0, sum(quota)).
std::vector<Run> plan_runs(const std::vector<int>& nodes, const std::vector<uint64_t>& quota, uint64_t unit_pages);

// Node of each page according to `runs`.
std::vector<int> runs_to_pages(const std::vector<Run>& runs);

}  // namespace ndp::rt
