// Latency-first greedy planner with bandwidth-weighted CXL shares and exact spill rules.
#include <algorithm>
#include <map>
#include <numeric>

#include "ndp/runtime/planner.h"
#include "ndp/runtime/size.h"
#include "ndp/runtime/stripes.h"

namespace ndp::rt {

const char* plan_policy_name(PlanPolicy p) {
  switch (p) {
    case PlanPolicy::kPureLocal: return "pure_local";
    case PlanPolicy::kLocalCxl: return "local_cxl";
    case PlanPolicy::kPureCxl: return "pure_cxl";
  }
  return "?";
}

std::vector<uint32_t> bandwidth_weights(const std::vector<uint64_t>& bw, uint32_t max_weight) {
  max_weight = std::clamp<uint32_t>(max_weight, 1, 255);
  std::vector<uint32_t> w(bw.size(), 1);
  uint64_t mx = 0;
  for (uint64_t b : bw) {
    if (b == 0) return w;
    mx = std::max(mx, b);
  }
  std::vector<uint64_t> r(bw.size());
  for (size_t i = 0; i < bw.size(); ++i) {
    unsigned __int128 num = static_cast<unsigned __int128>(bw[i]) * max_weight * 2 + mx;  // round half up
    r[i] = std::max<uint64_t>(1, static_cast<uint64_t>(num / (2 * static_cast<unsigned __int128>(mx))));
  }
  r = reduce_weights(r);
  for (size_t i = 0; i < r.size(); ++i) w[i] = static_cast<uint32_t>(r[i]);
  return w;
}

namespace {

Status check_input(const PlannerInput& in) {
  if (in.align == 0 || (in.align & (in.align - 1)))
    return Status::Error("planner: align " + std::to_string(in.align) + " is not a power of two");
  if (in.dram_node < 0) return Status::Error("planner: no DRAM node");
  for (const auto& c : in.cxl) {
    if (c.node < 0 || c.node == in.dram_node)
      return Status::Error("planner: CXL node " + std::to_string(c.node) + " is invalid or equals the DRAM node");
    if (c.weight < 1 || c.weight > 255)
      return Status::Error("planner: CXL node " + std::to_string(c.node) + " weight must be 1..255");
    for (const auto& d : in.cxl)
      if (&d != &c && d.node == c.node) return Status::Error("planner: CXL node " + std::to_string(c.node) + " listed twice");
  }
  return Status::Ok();
}

// Split `units` over CXL targets by weight, filling any node whose capacity left is short and
// re-splitting the excess. `left` is in align units and is updated.
Result<std::vector<uint64_t>> split_cxl(uint64_t units, const PlannerInput& in, std::vector<uint64_t>& left,
                                        const std::string& item) {
  std::vector<uint64_t> got(in.cxl.size(), 0);
  uint64_t cap = std::accumulate(left.begin(), left.end(), uint64_t{0});
  if (units > cap)
    return Status::Error("planner: tensor '" + item + "' needs " + format_size(units * in.align) +
                         " on CXL but only " + format_size(cap * in.align) + " is left (short by " +
                         format_size((units - cap) * in.align) + ")");
  std::vector<size_t> active;
  for (size_t i = 0; i < left.size(); ++i)
    if (left[i] > 0) active.push_back(i);
  uint64_t remaining = units;
  while (remaining > 0) {
    std::vector<uint64_t> w;
    for (size_t i : active) w.push_back(in.cxl[i].weight);
    std::vector<uint64_t> s = split_by_weights(remaining, w);
    bool capped = false;
    std::vector<size_t> next;
    for (size_t k = 0; k < active.size(); ++k) {
      size_t i = active[k];
      if (s[k] > left[i]) {
        got[i] += left[i];
        remaining -= left[i];
        left[i] = 0;
        capped = true;
      } else {
        next.push_back(i);
      }
    }
    if (!capped) {
      for (size_t k = 0; k < active.size(); ++k) {
        got[active[k]] += s[k];
        left[active[k]] -= s[k];
      }
      remaining = 0;
    }
    active = next;
  }
  return got;
}

}  // namespace

Result<Plan> plan_latency_first(const std::vector<TensorReq>& tensors, const PlannerInput& in) {
  NDP_RETURN_IF_ERROR(check_input(in));
  Plan plan;
  plan.input = in;
  const uint64_t a = in.align;
  uint64_t remain = in.dram_capacity / a;  // S_remain in align units
  std::vector<uint64_t> cxl_left;
  for (const auto& c : in.cxl) cxl_left.push_back(c.capacity / a);
  std::map<int, uint64_t> totals;
  for (const auto& t : tensors) {
    if (t.level < 1 || t.level > 4)
      return Status::Error("planner: tensor '" + t.name + "' has level " + std::to_string(t.level) + " (1..4)");
    if (t.bytes == 0) return Status::Error("planner: tensor '" + t.name + "' has size 0");
    if (t.bytes > (UINT64_MAX >> 1)) return Status::Error("planner: tensor '" + t.name + "' is too large");
  }
  for (int level = 1; level <= 4; ++level) {
    for (const auto& t : tensors) {
      if (t.level != level) continue;
      PlanItem it{t.name, t.level, t.bytes, PlanPolicy::kPureLocal, {}};
      uint64_t units = align_up(t.bytes, a) / a;
      uint64_t local = 0;
      if (remain >= units) {
        local = units;
      } else if (remain > 0) {
        it.policy = PlanPolicy::kLocalCxl;
        local = remain;
      } else {
        it.policy = PlanPolicy::kPureCxl;
      }
      remain -= local;
      if (local) it.parts.push_back({in.dram_node, local * a});
      if (units > local) {
        auto got = split_cxl(units - local, in, cxl_left, t.name);
        if (!got.ok()) return got.status();
        for (size_t i = 0; i < in.cxl.size(); ++i)
          if (got.value()[i]) it.parts.push_back({in.cxl[i].node, got.value()[i] * a});
      }
      for (const auto& p : it.parts) totals[p.node] += p.bytes;
      plan.items.push_back(std::move(it));
    }
  }
  plan.node_totals.push_back({in.dram_node, totals[in.dram_node]});
  for (const auto& c : in.cxl) plan.node_totals.push_back({c.node, totals[c.node]});
  plan.dram_left = remain * a;
  return plan;
}

Result<PlannerInput> planner_input(const Topology& topo, const PlannerOptions& opt, std::string* weight_source) {
  PlannerInput in;
  in.dram_node = opt.dram_node;
  if (in.dram_node < 0) {
    auto d = topo.dram_nodes();
    if (d.empty()) return Status::Error("planner: topology (" + topo.source + ") has no DRAM node");
    in.dram_node = d.front();
  }
  const MemNode* dram = topo.find(in.dram_node);
  if (!dram) return Status::Error("planner: DRAM node " + std::to_string(in.dram_node) + " is not in the topology");
  auto usable = [&](const MemNode& n) {
    uint64_t b = opt.use_free ? n.free_bytes : n.total_bytes;
    b = b > opt.reserve ? b - opt.reserve : 0;
    return align_down(b, in.align);
  };
  in.dram_capacity = usable(*dram);
  if (opt.dram_limit) in.dram_capacity = std::min(in.dram_capacity, align_down(opt.dram_limit, in.align));
  std::vector<int> cxl = opt.cxl_nodes.empty() ? topo.cpuless_nodes() : opt.cxl_nodes;
  std::vector<uint64_t> bw;
  for (int id : cxl) {
    const MemNode* n = topo.find(id);
    if (!n) return Status::Error("planner: CXL node " + std::to_string(id) + " is not in the topology");
    if (id == in.dram_node) return Status::Error("planner: node " + std::to_string(id) + " cannot be DRAM and CXL");
    in.cxl.push_back({id, usable(*n), 1});
    bw.push_back(n->read_bw_mbps ? n->read_bw_mbps : n->write_bw_mbps);
  }
  std::string src = cxl.empty() ? "no CXL nodes" : "even (single CXL node)";
  if (cxl.size() > 1) {
    bool known = std::all_of(bw.begin(), bw.end(), [](uint64_t b) { return b > 0; });
    if (opt.even_cxl) {
      src = "even (requested)";
    } else if (!known) {
      src = "even (bandwidth not published for every CXL node)";
    } else {
      auto w = bandwidth_weights(bw);
      src = "read bandwidth";
      for (size_t i = 0; i < w.size(); ++i) {
        in.cxl[i].weight = w[i];
        src += (i ? ", " : " ") + std::to_string(bw[i]) + " MB/s";
      }
    }
  }
  if (weight_source) *weight_source = src;
  return in;
}

Result<std::vector<TensorReq>> tensors_from_config(const TrainConfig& c) {
  if (!c.params || !c.layers || !c.hidden || !c.context || !c.batch || !c.gpus)
    return Status::Error("train config: params, layers, hidden, context, batch and gpus must all be > 0");
  if (c.params > (UINT64_MAX / 16)) return Status::Error("train config: params too large");
  // per_layer makes 6 items per layer: bound the list (real models have at most a few hundred layers).
  if (c.per_layer && c.layers > kMaxTrainLayers)
    return Status::Error("train config: " + std::to_string(c.layers) + " layers with per_layer (at most " +
                         std::to_string(kMaxTrainLayers) + ")");
  unsigned __int128 act = static_cast<unsigned __int128>(2) * c.gpus * c.batch * c.context;
  act *= c.layers;
  act *= c.hidden;
  if (act > (UINT64_MAX >> 1)) return Status::Error("train config: activation size overflows");
  struct Comp {
    const char* name;
    int level;
    uint64_t bytes;
  } comps[] = {
      {"fp32_optimizer_states", 1, 8 * c.params}, {"fp32_master_params", 1, 4 * c.params},
      {"fp32_master_grads", 1, 4 * c.params},     {"bf16_params", 2, 2 * c.params},
      {"checkpointed_activations", 3, static_cast<uint64_t>(act)}, {"bf16_grads", 4, 2 * c.params},
  };
  std::vector<TensorReq> out;
  for (const auto& k : comps) {
    if (!c.per_layer) {
      out.push_back({k.name, k.level, k.bytes});
      continue;
    }
    std::vector<uint64_t> share = split_by_weights(k.bytes, std::vector<uint64_t>(c.layers, 1));
    for (uint64_t l = 0; l < c.layers; ++l)
      if (share[l]) out.push_back({std::string(k.name) + "." + std::to_string(l), k.level, share[l]});
  }
  return out;
}

}  // namespace ndp::rt
