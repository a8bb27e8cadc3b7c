// Planner: the latency-first greedy rules, bandwidth weights, exact spills, Table I sizes.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "ndp/runtime/planner.h"
#include "ndp/runtime/size.h"

using namespace ndp::rt;

namespace {

constexpr uint64_t kG = 1ull << 30;
constexpr uint64_t kM = 1ull << 20;

PlannerInput two_cxl(uint64_t dram, uint64_t c1, uint64_t c2, uint32_t w1 = 1, uint32_t w2 = 1) {
  PlannerInput in;
  in.dram_node = 0;
  in.dram_capacity = dram;
  in.cxl = {{1, c1, w1}, {2, c2, w2}};
  return in;
}

uint64_t part(const PlanItem& it, int node) {
  uint64_t b = 0;
  for (const auto& p : it.parts)
    if (p.node == node) b += p.bytes;
  return b;
}

const PlanItem& item(const Plan& p, const std::string& name) {
  for (const auto& it : p.items)
    if (it.name == name) return it;
  throw std::runtime_error("no item " + name);
}

}  // namespace

TEST(RtPlanner, EverythingFitsInDram) {
  auto p = plan_latency_first({{"a", 1, 10 * kM}, {"b", 4, 5 * kM}}, two_cxl(1 * kG, kG, kG));
  ASSERT_TRUE(p.ok()) << p.status().message();
  for (const auto& it : p.value().items) {
    EXPECT_EQ(it.policy, PlanPolicy::kPureLocal);
    EXPECT_EQ(part(it, 0), it.bytes);
  }
  EXPECT_EQ(p.value().dram_left, kG - 15 * kM);
}

TEST(RtPlanner, LevelOrderBeatsInputOrder) {
  // The level-4 item comes first in the input but must not take the DRAM the level-1 item needs.
  auto p = plan_latency_first({{"grads", 4, 60 * kM}, {"optim", 1, 60 * kM}}, two_cxl(100 * kM, kG, kG));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value().items[0].name, "optim");
  EXPECT_EQ(item(p.value(), "optim").policy, PlanPolicy::kPureLocal);
  const auto& g = item(p.value(), "grads");
  EXPECT_EQ(g.policy, PlanPolicy::kLocalCxl);
  EXPECT_EQ(part(g, 0), 40 * kM);  // exactly what DRAM had left
  EXPECT_EQ(part(g, 1) + part(g, 2), 20 * kM);
  EXPECT_EQ(part(g, 1), 10 * kM);  // even weights
  EXPECT_EQ(p.value().dram_left, 0u);
}

TEST(RtPlanner, SpillRulesAreExact) {
  // DRAM 100 MiB; items 70, 50, 30 MiB at level 1, then 20 MiB at level 2.
  auto p = plan_latency_first({{"a", 1, 70 * kM}, {"b", 1, 50 * kM}, {"c", 1, 30 * kM}, {"d", 2, 20 * kM}},
                              two_cxl(100 * kM, kG, kG, 3, 1));
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Plan& pl = p.value();
  EXPECT_EQ(item(pl, "a").policy, PlanPolicy::kPureLocal);
  const auto& b = item(pl, "b");
  EXPECT_EQ(b.policy, PlanPolicy::kLocalCxl);
  EXPECT_EQ(part(b, 0), 30 * kM);
  EXPECT_EQ(part(b, 1), 15 * kM);  // 20 MiB over CXL at 3:1
  EXPECT_EQ(part(b, 2), 5 * kM);
  const auto& c = item(pl, "c");
  EXPECT_EQ(c.policy, PlanPolicy::kPureCxl);  // DRAM is exhausted: even small items go to CXL
  EXPECT_EQ(part(c, 0), 0u);
  EXPECT_EQ(part(c, 1) + part(c, 2), 30 * kM);
  EXPECT_EQ(item(pl, "d").policy, PlanPolicy::kPureCxl);
  std::map<int, uint64_t> tot;
  for (const auto& nb : pl.node_totals) tot[nb.node] = nb.bytes;
  EXPECT_EQ(tot[0], 100 * kM);
  EXPECT_EQ(tot[0] + tot[1] + tot[2], 170 * kM);
}

TEST(RtPlanner, SizesRoundToAlignAndPartsSumExactly) {
  PlannerInput in = two_cxl(10 * 4096, kG, kG, 2, 1);
  auto p = plan_latency_first({{"odd", 1, 4097}, {"big", 1, 12345678}}, in);
  ASSERT_TRUE(p.ok());
  for (const auto& it : p.value().items) {
    uint64_t sum = 0;
    for (const auto& nb : it.parts) {
      EXPECT_EQ(nb.bytes % 4096, 0u);
      EXPECT_GT(nb.bytes, 0u);
      sum += nb.bytes;
    }
    EXPECT_EQ(sum, align_up(it.bytes, 4096)) << it.name;
  }
  EXPECT_EQ(part(item(p.value(), "odd"), 0), 8192u);
  EXPECT_EQ(part(item(p.value(), "big"), 0), 8 * 4096u);
}

TEST(RtPlanner, FullCxlNodeIsFilledAndTheRestGoesElsewhere) {
  // Node 1 weighs 3x but holds only 10 MiB: it is filled and the excess goes to node 2.
  auto p = plan_latency_first({{"x", 1, 100 * kM}}, two_cxl(0, 10 * kM, kG, 3, 1));
  ASSERT_TRUE(p.ok()) << p.status().message();
  const auto& x = p.value().items[0];
  EXPECT_EQ(x.policy, PlanPolicy::kPureCxl);
  EXPECT_EQ(part(x, 1), 10 * kM);
  EXPECT_EQ(part(x, 2), 90 * kM);
  // Next item: node 1 is full now.
  auto q = plan_latency_first({{"x", 1, 100 * kM}, {"y", 2, 8 * kM}}, two_cxl(0, 10 * kM, kG, 3, 1));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(part(item(q.value(), "y"), 2), 8 * kM);
}

TEST(RtPlanner, CxlTooSmallFailsNamingTheItem) {
  auto p = plan_latency_first({{"fits", 1, 50 * kM}, {"huge", 3, 300 * kM}}, two_cxl(60 * kM, 100 * kM, 100 * kM));
  ASSERT_FALSE(p.ok());
  const std::string& m = p.status().message();
  EXPECT_NE(m.find("'huge'"), std::string::npos) << m;
  EXPECT_NE(m.find("short by 90 MiB"), std::string::npos) << m;
  PlannerInput none;
  none.dram_capacity = 10 * kM;
  auto q = plan_latency_first({{"t", 1, 11 * kM}}, none);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("short by 1 MiB"), std::string::npos) << q.status().message();
}

TEST(RtPlanner, BadInput) {
  PlannerInput in = two_cxl(kG, kG, kG);
  EXPECT_FALSE(plan_latency_first({{"t", 0, 1}}, in).ok());
  EXPECT_FALSE(plan_latency_first({{"t", 5, 1}}, in).ok());
  EXPECT_FALSE(plan_latency_first({{"t", 1, 0}}, in).ok());
  PlannerInput bad = in;
  bad.align = 3000;
  EXPECT_FALSE(plan_latency_first({{"t", 1, 1}}, bad).ok());
  bad = in;
  bad.cxl[1].node = 1;
  EXPECT_FALSE(plan_latency_first({{"t", 1, 1}}, bad).ok());
  bad = in;
  bad.cxl[0].weight = 0;
  EXPECT_FALSE(plan_latency_first({{"t", 1, 1}}, bad).ok());
  bad = in;
  bad.cxl[0].node = 0;
  EXPECT_FALSE(plan_latency_first({{"t", 1, 1}}, bad).ok());
}

TEST(RtPlanner, BandwidthWeights) {
  EXPECT_EQ(bandwidth_weights({48000, 24000}), (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(bandwidth_weights({30000, 30000, 30000}), (std::vector<uint32_t>{1, 1, 1}));
  EXPECT_EQ(bandwidth_weights({64000, 0}), (std::vector<uint32_t>{1, 1}));  // unknown -> even
  EXPECT_EQ(bandwidth_weights({20480, 10240}), (std::vector<uint32_t>{2, 1}));
  auto w = bandwidth_weights({100000, 1000});
  EXPECT_EQ(w, (std::vector<uint32_t>{16, 1}));  // floor of 1 for a slow node
  EXPECT_EQ(bandwidth_weights({3, 2}, 255), (std::vector<uint32_t>{3, 2}));  // 255:170 reduced
}

TEST(RtPlanner, InputFromTopology) {
  auto t = load_topology_override(std::string(NDP_RUNTIME_TESTDATA) + "/paper_dual_aic.json");
  ASSERT_TRUE(t.ok());
  std::string src;
  PlannerOptions o;
  o.reserve = 8 * kG;
  auto in = planner_input(t.value(), o, &src);
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_EQ(in.value().dram_node, 0);
  EXPECT_EQ(in.value().dram_capacity, 120 * kG);
  ASSERT_EQ(in.value().cxl.size(), 2u);
  EXPECT_EQ(in.value().cxl[0].capacity, 248 * kG);
  EXPECT_EQ(in.value().cxl[0].weight, 2u);
  EXPECT_EQ(in.value().cxl[1].weight, 1u);
  EXPECT_NE(src.find("read bandwidth"), std::string::npos);
  o.even_cxl = true;
  o.dram_limit = 64 * kG;
  auto even = planner_input(t.value(), o, &src);
  ASSERT_TRUE(even.ok());
  EXPECT_EQ(even.value().cxl[0].weight, 1u);
  EXPECT_EQ(even.value().dram_capacity, 64 * kG);
  o.cxl_nodes = {0};
  EXPECT_FALSE(planner_input(t.value(), o, &src).ok());
  o.cxl_nodes = {9};
  EXPECT_FALSE(planner_input(t.value(), o, &src).ok());
}

TEST(RtTrainConfig, TableOneSizes) {
  // Qwen2.5-7B-like: P = 7.62e9, L = 28, H = 3584, C = 32K, B = 1, one GPU.
  TrainConfig c{"7B", 7615616512ull, 28, 3584, 32768, 1, 1, false};
  auto t = tensors_from_config(c);
  ASSERT_TRUE(t.ok());
  std::map<std::string, TensorReq> by;
  for (const auto& x : t.value()) by[x.name] = x;
  EXPECT_EQ(by["fp32_optimizer_states"].bytes, 8 * c.params);
  EXPECT_EQ(by["fp32_optimizer_states"].level, 1);
  EXPECT_EQ(by["fp32_master_params"].bytes, 4 * c.params);
  EXPECT_EQ(by["fp32_master_grads"].bytes, 4 * c.params);
  EXPECT_EQ(by["bf16_params"].level, 2);
  EXPECT_EQ(by["bf16_params"].bytes, 2 * c.params);
  EXPECT_EQ(by["checkpointed_activations"].level, 3);
  EXPECT_EQ(by["checkpointed_activations"].bytes, 2ull * 1 * 1 * 32768 * 28 * 3584);
  EXPECT_EQ(by["bf16_grads"].level, 4);
  c.per_layer = true;
  c.gpus = 2;
  auto pl = tensors_from_config(c);
  ASSERT_TRUE(pl.ok());
  EXPECT_EQ(pl.value().size(), 6u * 28);
  uint64_t act = 0, opt = 0;
  for (const auto& x : pl.value()) {
    if (x.name.rfind("checkpointed_activations.", 0) == 0) act += x.bytes;
    if (x.name.rfind("fp32_optimizer_states.", 0) == 0) opt += x.bytes;
  }
  EXPECT_EQ(act, 2ull * 2 * 1 * 32768 * 28 * 3584);
  EXPECT_EQ(opt, 8 * c.params);
  c.layers = 0;
  EXPECT_FALSE(tensors_from_config(c).ok());
  // Issue 15: per_layer made 6 items per layer however many layers a request claimed (10^9 layers
  // tried to build 6 x 10^9 items); the list is bounded now, and the per-component form is not.
  c.layers = 1000000000;
  auto huge = tensors_from_config(c);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("at most 65536"), std::string::npos) << huge.status().message();
  c.per_layer = false;
  c.context = 1;
  EXPECT_TRUE(tensors_from_config(c).ok());
}

TEST(RtPlanner, PaperScenarios) {
  auto t = load_topology_override(std::string(NDP_RUNTIME_TESTDATA) + "/paper_dual_aic.json");
  ASSERT_TRUE(t.ok());
  std::string src;
  auto in = planner_input(t.value(), PlannerOptions{}, &src);
  ASSERT_TRUE(in.ok());
  // 7B at 32K: level 1 (16P = 113 GiB) fits in 128 GiB DRAM, the bf16 tensors spill to CXL.
  auto t7 = tensors_from_config({"7B", 7615616512ull, 28, 3584, 32768, 1, 1, true});
  auto p7 = plan_latency_first(t7.value(), in.value());
  ASSERT_TRUE(p7.ok()) << p7.status().message();
  for (const auto& it : p7.value().items)
    if (it.level == 1) {
      EXPECT_EQ(it.policy, PlanPolicy::kPureLocal) << it.name;
    }
  // 12B at 32K: level 1 (16P = 182 GiB) does not fit; exactly one local_cxl item.
  auto t12 = tensors_from_config({"12B", 12247782400ull, 40, 5120, 32768, 1, 1, true});
  auto p12 = plan_latency_first(t12.value(), in.value());
  ASSERT_TRUE(p12.ok()) << p12.status().message();
  int local_cxl = 0;
  bool seen_cxl = false;
  for (const auto& it : p12.value().items) {
    local_cxl += it.policy == PlanPolicy::kLocalCxl;
    if (it.policy != PlanPolicy::kPureLocal) seen_cxl = true;
    if (seen_cxl) {
      EXPECT_NE(it.policy, PlanPolicy::kPureLocal) << "nothing returns to DRAM after the spill: " << it.name;
    }
  }
  EXPECT_EQ(local_cxl, 1);
  EXPECT_EQ(p12.value().dram_left, 0u);
  EXPECT_EQ(p12.value().node_totals[0].bytes, 128 * kG);
}
