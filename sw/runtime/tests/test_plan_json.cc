// Plan JSON round trip and plan requests.
#include <gtest/gtest.h>

#include "ndp/runtime/planner.h"

using namespace ndp::rt;

TEST(RtPlanJson, RoundTrip) {
  PlannerInput in;
  in.dram_capacity = 100 << 20;
  in.cxl = {{1, 1ull << 30, 2}, {2, 1ull << 30, 1}};
  auto p = plan_latency_first({{"a", 1, 70 << 20}, {"b", 1, 50 << 20}, {"c", 3, 12345}}, in);
  ASSERT_TRUE(p.ok());
  p.value().weight_source = "test";
  std::string j = plan_to_json(p.value());
  auto back = plan_from_json(j, "plan.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(plan_to_json(back.value()), j);
  ASSERT_EQ(back.value().items.size(), 3u);
  EXPECT_EQ(back.value().items[1].policy, PlanPolicy::kLocalCxl);
  EXPECT_EQ(back.value().input.cxl[0].weight, 2u);
}

TEST(RtPlanJson, RejectsInconsistentPlans) {
  struct Case {
    const char* json;
    const char* needle;
  } cases[] = {
      {R"({"version": 2})", "version"},
      {R"({"version": 1, "align": 4096, "dram": {"node": 0, "capacity": 0}, "items": [
          {"name": "x", "level": 1, "bytes": 8192, "policy": "pure_local", "parts": [{"node": 0, "bytes": 4096}]}]})",
       "parts sum"},
      {R"({"version": 1, "align": 4096, "dram": {"node": 0, "capacity": 0}, "items": [
          {"name": "x", "level": 1, "bytes": 4096, "policy": "pure_local", "parts": [{"node": 3, "bytes": 4096}]}]})",
       "node 3"},
      {R"({"version": 1, "align": 4096, "dram": {"node": 0, "capacity": 0}, "items": [
          {"name": "x", "level": 1, "bytes": 4096, "policy": "sideways", "parts": [{"node": 0, "bytes": 4096}]}]})",
       "policy"},
      {R"({"version": 1, "align": 4096, "dram": {"node": 0, "capacity": 0}, "items": [
          {"name": "x", "level": 1, "bytes": 100, "policy": "pure_local", "parts": [{"node": 0, "bytes": 100}]}]})",
       "multiple of align"},
      {R"({"version": 1, "align": 4096, "dram": {"node": 0, "capacity": 0}, "cxl": [{"node": 1, "capacity": 1, "weight": 0}], "items": []})",
       "weight"},
  };
  for (const auto& c : cases) {
    auto p = plan_from_json(c.json, "plan.json");
    ASSERT_FALSE(p.ok()) << c.json;
    EXPECT_NE(p.status().message().find(c.needle), std::string::npos) << p.status().message();
  }
}

TEST(RtPlanRequest, ConfigAndTensorsForms) {
  auto r = parse_plan_request(R"({"model": {"name": "7B", "params": 7.6e9, "layers": 28, "hidden": 3584},
      "train": {"context": "32K", "batch": 2, "gpus": 1, "per_layer": false},
      "topology": "topo.json", "planner": {"dram_limit": "64G", "reserve": "1G", "even_cxl": true, "cxl_nodes": [1]}})",
                              "req.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.value().from_config);
  EXPECT_EQ(r.value().config.params, 7600000000ull);
  EXPECT_EQ(r.value().config.context, 32768u);
  EXPECT_EQ(r.value().config.batch, 2u);
  EXPECT_FALSE(r.value().config.per_layer);
  EXPECT_EQ(r.value().topology_path, "topo.json");
  EXPECT_EQ(r.value().options.dram_limit, 64ull << 30);
  EXPECT_TRUE(r.value().options.even_cxl);
  EXPECT_EQ(r.value().options.cxl_nodes, std::vector<int>{1});
  auto t = parse_plan_request(R"({"tensors": [{"name": "w", "level": 2, "bytes": "1G"}],
      "topology": {"nodes": [{"id": 0, "cpus": [0], "total": "2G"}]}})", "req.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t.value().tensors.at(0).bytes, 1ull << 30);
  EXPECT_FALSE(t.value().topology_inline.empty());
  for (const char* bad : {R"({"model": {"params": 1}})", R"({"tensors": []})", R"({"tensors": [{"level": 1}]})",
                          R"({"tensors": [{"level": 1, "bytes": 1}], "planner": {"use_free": "yes"}})",
                          R"({"model": {"params": 1, "layers": 1}, "train": {"context": 1}})"}) {
    auto b = parse_plan_request(bad, "req.json");
    EXPECT_FALSE(b.ok()) << bad;
  }
}

#include "ndp/runtime/plan_exec.h"

TEST(RtPlanExec, PlacementForItems) {
  PlannerInput in;
  in.dram_capacity = 10 << 20;
  in.cxl = {{1, 1ull << 30, 2}, {2, 1ull << 30, 1}};
  auto p = plan_latency_first({{"a", 1, 8 << 20}, {"b", 1, 6 << 20}, {"c", 2, 30 << 20}}, in);
  ASSERT_TRUE(p.ok());
  const auto& items = p.value().items;
  Placement a = placement_for(items[0], in);
  EXPECT_EQ(a.describe(), "bind:0");
  Placement b = placement_for(items[1], in);  // 2 MiB DRAM + 4 MiB CXL: exact quotas
  EXPECT_EQ(b.nodes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(b.quota_bytes.size(), 3u);
  EXPECT_EQ(b.quota_bytes[0], 2u << 20);
  Placement c = placement_for(items[2], in);  // pure_cxl at exactly 2:1: a weighted interleave
  EXPECT_TRUE(c.quota_bytes.empty());
  EXPECT_EQ(c.weights, (std::vector<uint32_t>{2, 1}));
  // A capped node breaks the ratio: quotas again.
  PlannerInput capped = in;
  capped.dram_capacity = 0;
  capped.cxl[0].capacity = 4 << 20;
  auto q = plan_latency_first({{"x", 1, 30 << 20}}, capped);
  ASSERT_TRUE(q.ok());
  Placement x = placement_for(q.value().items[0], capped);
  EXPECT_EQ(x.quota_bytes, (std::vector<uint64_t>{4u << 20, 26u << 20}));
}
