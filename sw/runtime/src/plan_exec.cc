// Plan execution.
#include "ndp/runtime/plan_exec.h"

#include "ndp/runtime/size.h"
#include "ndp/runtime/stripes.h"

namespace ndp::rt {

Placement placement_for(const PlanItem& item, const PlannerInput& in) {
  if (item.parts.size() == 1) return Placement::on_node(item.parts[0].node);
  std::vector<int> nodes;
  std::vector<uint64_t> bytes;
  for (const auto& p : item.parts) {
    nodes.push_back(p.node);
    bytes.push_back(p.bytes);
  }
  if (item.policy == PlanPolicy::kPureCxl) {
    // Same ratio as the weights -> a weighted interleave the kernel may serve itself.
    std::vector<uint64_t> w;
    std::vector<uint32_t> w32;
    for (int n : nodes)
      for (const auto& c : in.cxl)
        if (c.node == n) {
          w.push_back(c.weight);
          w32.push_back(c.weight);
        }
    uint64_t units = 0;
    for (uint64_t b : bytes) units += b / in.align;
    if (w.size() == nodes.size() && w.size() == in.cxl.size()) {
      std::vector<uint64_t> s = split_by_weights(units, w);
      bool same = true;
      for (size_t i = 0; i < s.size(); ++i) same = same && s[i] * in.align == bytes[i];
      if (same) return Placement::interleave(nodes, w32);
    }
  }
  return Placement::quotas(nodes, bytes);
}

Result<std::vector<Allocation>> execute_plan(Runtime& rt, const Plan& plan, const AllocOptions& o) {
  std::vector<Allocation> out;
  if (plan.input.align % rt.page_size())
    return Status::Error("execute_plan: plan align " + std::to_string(plan.input.align) +
                         " is not a multiple of the page size " + std::to_string(rt.page_size()));
  for (const auto& item : plan.items) {
    Placement p = placement_for(item, plan.input);
    // Plan sizes are multiples of align (>= page size), so quotas and allocation sizes agree.
    auto a = rt.allocate(align_up(item.bytes, plan.input.align), p, o);
    if (!a.ok()) return Status(a.status()).prepend("plan item '" + item.name + "': ");
    out.push_back(std::move(a.value()));
  }
  return out;
}

}  // namespace ndp::rt
