// Latency-first placement planner (Algorithm 1 of ../shared/papers/cxl-aware-allocation.txt),
// with the even 1:1 CXL interleave replaced by bandwidth-weighted shares and exact spill rules.
//
// Latency levels (1 = least tolerant): 1 CPU-computed optimizer state, fp32 master weights and
// gradients; 2 GPU-fetched bf16 weights; 3 checkpointed activations (fetched and offloaded);
// 4 offloaded bf16 gradients.
//
// Exact rules (sizes are first rounded up to `align`):
//  * items are visited level 1..4, within a level in input order;
//  * an item that fits in the DRAM left (S_remain) is pure_local;
//  * else, if S_remain > 0, it is local_cxl: exactly S_remain bytes on DRAM, the rest on the CXL
//    nodes; S_remain becomes 0 (the paper's even DRAM:CXL ratio could overflow DRAM, this cannot);
//  * else it is pure_cxl;
//  * CXL bytes are split over the CXL nodes in proportion to their weights (largest remainder,
//    in align units); a node whose capacity left is smaller than its share is filled and the
//    excess is re-split over the others by weight; if the CXL capacity left is too small the plan
//    fails naming the item and the shortfall.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/runtime/topology.h"
#include "ndp/status.h"

namespace ndp::rt {

struct TensorReq {
  std::string name;
  int level = 1;       // 1..4
  uint64_t bytes = 0;  // > 0
};

struct CxlTarget {
  int node = -1;
  uint64_t capacity = 0;  // bytes the planner may use on it
  uint32_t weight = 1;    // interleave weight (bandwidth share), 1..255
};

struct PlannerInput {
  int dram_node = 0;
  uint64_t dram_capacity = 0;  // S_local
  std::vector<CxlTarget> cxl;  // may be empty (then anything over DRAM fails)
  uint64_t align = 4096;       // page size; a power of two
};

enum class PlanPolicy : uint8_t { kPureLocal, kLocalCxl, kPureCxl };
const char* plan_policy_name(PlanPolicy p);  // "pure_local", "local_cxl", "pure_cxl"

struct NodeBytes {
  int node;
  uint64_t bytes;
};

struct PlanItem {
  std::string name;
  int level = 1;
  uint64_t bytes = 0;            // requested
  PlanPolicy policy = PlanPolicy::kPureLocal;
  std::vector<NodeBytes> parts;  // sum = bytes rounded up to align; DRAM first, then CXL order
};

struct Plan {
  PlannerInput input;
  std::vector<PlanItem> items;       // in placement order (level, then input order)
  std::vector<NodeBytes> node_totals;  // per node, DRAM first
  uint64_t dram_left = 0;
  std::string weight_source;         // how CXL weights were chosen ("hmat bandwidth", "even", ...)
};

// Run the planner. Errors: bad level/size/align/weight/capacity input, CXL too small.
Result<Plan> plan_latency_first(const std::vector<TensorReq>& tensors, const PlannerInput& in);

// Interleave weights from bandwidths: proportional, scaled so the largest is `max_weight`
// (<= 255), each at least 1, reduced by their gcd. Any unknown (0) bandwidth -> all 1.
std::vector<uint32_t> bandwidth_weights(const std::vector<uint64_t>& bw_mbps, uint32_t max_weight = 16);

struct PlannerOptions {
  int dram_node = -1;              // -1: the first DRAM node
  uint64_t dram_limit = 0;         // cap on S_local (0 = none)
  uint64_t reserve = 0;            // bytes kept free on every node
  bool use_free = true;            // capacities from free memory (false: from total)
  bool even_cxl = false;           // the paper's 1:...:1 instead of bandwidth weights
  std::vector<int> cxl_nodes;      // empty: every CPU-less node
};

// Planner input from a topology: DRAM capacity, CXL nodes and bandwidth weights.
Result<PlannerInput> planner_input(const Topology& topo, const PlannerOptions& opt, std::string* weight_source);

// Training configuration -> the tensors of Table I of the paper (system-memory side).
struct TrainConfig {
  std::string model;       // label only
  uint64_t params = 0;     // P
  uint64_t layers = 0;     // L (transformer blocks)
  uint64_t hidden = 0;     // H
  uint64_t context = 0;    // C (tokens)
  uint64_t batch = 1;      // B per GPU
  uint64_t gpus = 1;       // N_g
  bool per_layer = true;   // one item per block and component (finer spill) or one per component
};
inline constexpr uint64_t kMaxTrainLayers = 65536;  // per_layer: at most 6 x this many items
// Errors on zero/overflowing fields and on more than kMaxTrainLayers layers with per_layer.
// Names: "fp32_optimizer_states[.L]", "fp32_master_params",
// "fp32_master_grads", "bf16_params", "checkpointed_activations", "bf16_grads".
Result<std::vector<TensorReq>> tensors_from_config(const TrainConfig& c);

// JSON. plan_to_json is stable and round-trips through plan_from_json.
std::string plan_to_json(const Plan& p);
Result<Plan> plan_from_json(const std::string& text, const std::string& origin);

// A planning request file (`ndp place plan CONFIG.json`): {"tensors": [...]} or
// {"model": {...}, "train": {...}}, optional "topology" (inline override or file path) and
// "planner" options. Format in docs/runtime.md.
struct PlanRequest {
  std::vector<TensorReq> tensors;
  TrainConfig config;      // when given
  bool from_config = false;
  PlannerOptions options;
  std::string topology_path;  // empty: discover (or inline below)
  std::string topology_inline;  // JSON text of an inline override
};
Result<PlanRequest> parse_plan_request(const std::string& text, const std::string& origin);

}  // namespace ndp::rt
