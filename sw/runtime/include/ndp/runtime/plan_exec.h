// Executing a plan: one Allocation per plan item, placed exactly as the plan says.
#pragma once

#include <vector>

#include "ndp/runtime/planner.h"
#include "ndp/runtime/runtime.h"

namespace ndp::rt {

// Placement for one item: a single part binds; parts in the plan's exact CXL weight ratio (and
// no DRAM share) become a weighted interleave (kernel MPOL_WEIGHTED_INTERLEAVE when usable);
// anything else becomes exact per-node quotas laid out as mbind stripes.
Placement placement_for(const PlanItem& item, const PlannerInput& in);

// Allocate every item; on any error the allocations made so far are freed and the error names
// the item. `o` applies to every allocation.
Result<std::vector<Allocation>> execute_plan(Runtime& rt, const Plan& plan, const AllocOptions& o = {});

}  // namespace ndp::rt
