// Placement on this machine's real NUMA node(s): bind, verification with move_pages, accounting,
// migration, faults. Multi-node placements run in the QEMU guest test (label qemu); they run here
// too when the host has two memory nodes.
#include <gtest/gtest.h>

#include "numa_skip.h"

#include <cstring>
#include <thread>

#include "ndp/runtime/gpu.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/plan_exec.h"
#include "ndp/runtime/runtime.h"
#include "ndp/runtime/size.h"

using namespace ndp::rt;
using ndp::Status;

namespace {

Runtime host_runtime() {
  auto t = discover_sysfs("/sys");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return Runtime(t.value());
}

int first_node() {
  auto n = allowed_memory_nodes();
  return n.empty() ? -1 : n.front();
}

uint64_t pages_on(Runtime& rt, const Allocation& a, int node) {
  auto w = rt.where(a);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() && w.value().per_node.count(node) ? w.value().per_node.at(node) : 0;
}

}  // namespace

TEST(RtKernelCaps, Consistent) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  const auto& c = kernel_caps();
  EXPECT_FALSE(c.release.empty());
  EXPECT_GE(c.page_size, 4096u);
  ASSERT_TRUE(c.numa) << "libnuma reports NUMA unavailable";
  if (c.weighted_interleave) {
    EXPECT_TRUE(c.weighted_sysfs) << "MPOL_WEIGHTED_INTERLEAVE without its sysfs weights";
  }
  if (c.weighted_interleave) {
    auto w = read_kernel_weights({first_node()});
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_GE(w.value()[0], 1u);
  } else {
    auto w = read_kernel_weights({first_node()});
    EXPECT_FALSE(w.ok());
  }
  std::printf("kernel %s: weighted interleave %s\n", c.release.c_str(), c.weighted_interleave ? "yes" : "no (stripes)");
}

TEST(RtRuntime, BindVerifiedAndAccountedExactly) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  const int n = first_node();
  {
    auto a = rt.allocate(8 * 1024 * 1024 + 1, Placement::on_node(n));
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(a.value().requested(), 8u * 1024 * 1024 + 1);
    EXPECT_EQ(a.value().size(), 8u * 1024 * 1024 + rt.page_size());
    EXPECT_EQ(a.value().mechanism(), Mechanism::kBind);
    EXPECT_EQ(pages_on(rt, a.value(), n), a.value().size() / rt.page_size());
    std::memset(a.value().data(), 0x5a, a.value().size());
    auto acc = rt.accounting();
    EXPECT_EQ(acc.live_allocations, 1u);
    EXPECT_EQ(acc.live_bytes, a.value().size());
    EXPECT_EQ(acc.bytes_per_node[n], a.value().size());
    EXPECT_EQ(a.value().charged().at(n), a.value().size());
  }
  auto acc = rt.accounting();
  EXPECT_EQ(acc.live_allocations, 0u);
  EXPECT_EQ(acc.live_bytes, 0u);
  EXPECT_TRUE(acc.bytes_per_node.empty());
  EXPECT_EQ(acc.allocations_total, 1u);
  EXPECT_EQ(acc.frees_total, 1u);
}

TEST(RtRuntime, UnpopulatedPagesAreAbsentUntilTouched) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  AllocOptions o;
  o.populate = false;
  auto a = rt.allocate(1 << 20, Placement::on_node(first_node()), o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  auto w = rt.where(a.value());
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value().not_present, 256u * 4096 / rt.page_size());
  static_cast<char*>(a.value().data())[0] = 1;
  EXPECT_EQ(pages_on(rt, a.value(), first_node()), 1u);
  EXPECT_EQ(rt.accounting().bytes_per_node[first_node()], a.value().size()) << "plan is charged when not populated";
}

TEST(RtRuntime, FaultsAreClearErrorsAndChargeNothing) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  const int n = first_node();
  struct Case {
    uint64_t bytes;
    Placement p;
    const char* needle;
  } cases[] = {
      {0, Placement::on_node(n), "size 0"},
      {4096, Placement::on_node(999), "node 999 is not in the topology"},
      {4096, Placement{}, "no nodes"},
      {4096, Placement::interleave({n, n}), "twice"},
      {4096, Placement{{n}, {}, {}, false}, ""},  // valid preferred: checked below
      {4096, Placement::interleave({n}, {0}), "1..255"},
      {4096, Placement::interleave({n}, {1, 2}), "one weight per node"},
      {8192, Placement::quotas({n}, {4096}), "quotas sum"},
      {4096, Placement::quotas({n}, {100}), "multiples of the page size"},
      {~0ull, Placement::on_node(n), "too large"},
  };
  for (auto& c : cases) {
    auto a = rt.allocate(c.bytes, c.p);
    if (!*c.needle) {
      EXPECT_TRUE(a.ok()) << a.status().message();
      continue;
    }
    ASSERT_FALSE(a.ok()) << c.p.describe();
    EXPECT_NE(a.status().message().find(c.needle), std::string::npos) << a.status().message();
  }
  auto fr = node_free_bytes(n);
  ASSERT_TRUE(fr.ok());
  auto big = rt.allocate(fr.value() + (1ull << 30), Placement::on_node(n));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("free"), std::string::npos) << big.status().message();
  AllocOptions reserve;
  reserve.reserve_bytes = fr.value();
  auto r = rt.allocate(1 << 20, Placement::on_node(n), reserve);
  ASSERT_FALSE(r.ok()) << "a reserve of all free memory leaves no room";
  EXPECT_NE(r.status().message().find("reserve"), std::string::npos);
  auto acc = rt.accounting();
  EXPECT_EQ(acc.live_allocations, 0u);
  EXPECT_EQ(acc.allocations_total, 1u) << "only the valid preferred allocation counted";
}

TEST(RtRuntime, NodeThatTheOverrideInventsIsRefused) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  auto t = load_topology_override(std::string(NDP_RUNTIME_TESTDATA) + "/host_plus_ghost.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  Runtime rt(t.value());
  auto a = rt.allocate(1 << 20, Placement::on_node(5));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("not an online memory node"), std::string::npos) << a.status().message();
}

TEST(RtRuntime, MigrationKeepsDataAndAccounting) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  const int n = first_node();
  auto a = rt.allocate(4 << 20, Placement::on_node(n));
  ASSERT_TRUE(a.ok());
  auto* p = static_cast<uint32_t*>(a.value().data());
  for (uint32_t i = 0; i < (4u << 20) / 4; ++i) p[i] = i ^ 0xA5A5A5A5u;
  ASSERT_TRUE(rt.migrate(a.value(), Placement::on_node(n)).ok());
  Status bad = rt.migrate(a.value(), Placement::on_node(999));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("migrate"), std::string::npos);
  for (uint32_t i = 0; i < (4u << 20) / 4; ++i) ASSERT_EQ(p[i], i ^ 0xA5A5A5A5u);
  EXPECT_EQ(pages_on(rt, a.value(), n), (4u << 20) / rt.page_size());
  EXPECT_EQ(rt.accounting().bytes_per_node[n], 4u << 20);
  auto nodes = allowed_memory_nodes();
  if (nodes.size() >= 2) {
    ASSERT_TRUE(rt.migrate(a.value(), Placement::on_node(nodes[1])).ok());
    EXPECT_EQ(pages_on(rt, a.value(), nodes[1]), (4u << 20) / rt.page_size());
    EXPECT_EQ(rt.accounting().bytes_per_node[nodes[1]], 4u << 20);
  }
}

TEST(RtRuntime, MultiNodeOnHostWhenAvailable) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  auto nodes = allowed_memory_nodes();
  if (nodes.size() < 2) GTEST_SKIP() << "host has one memory node; the QEMU guest test covers interleave";
  Runtime rt = host_runtime();
  AllocOptions o;
  o.interleave = InterleaveMode::kStripes;
  auto a = rt.allocate(8 << 20, Placement::interleave({nodes[0], nodes[1]}, {1, 3}), o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(pages_on(rt, a.value(), nodes[1]), 3 * (8u << 20) / rt.page_size() / 4);
  AllocOptions huge;
  huge.huge_pages = true;
  auto h = rt.allocate(8 << 20, Placement::on_node(nodes[0]), huge);
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(rt.migrate(h.value(), Placement::interleave({nodes[0], nodes[1]})).ok());
}

TEST(RtRuntime, AlignedStart) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  AllocOptions o;
  o.align = 2 << 20;
  for (int i = 0; i < 4; ++i) {
    auto a = rt.allocate(12345, Placement::on_node(first_node()), o);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.value().data()) % (2 << 20), 0u);
    EXPECT_EQ(a.value().size(), align_up(12345, rt.page_size()));
  }
  o.align = 3000;
  EXPECT_FALSE(rt.allocate(4096, Placement::on_node(first_node()), o).ok());
}

TEST(RtRuntime, MoveReleaseAndHooks) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  auto r = rt.allocate(1 << 20, Placement::on_node(first_node()));
  ASSERT_TRUE(r.ok());
  Allocation a = std::move(r.value());
  EXPECT_EQ(r.value().data(), nullptr);
  EXPECT_FALSE(rt.where(r.value()).ok());
  int calls = 0;
  a.add_release_hook([&](void* p, uint64_t n) {
    ++calls;
    static_cast<char*>(p)[n - 1] = 1;  // still mapped when the hook runs
  });
  Allocation b;
  b = std::move(a);
  b.release();
  b.release();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(rt.accounting().live_allocations, 0u);
}

TEST(RtRuntime, ConcurrentAllocationsAccountExactly) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  const int n = first_node();
  std::vector<std::thread> th;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    th.emplace_back([&, t] {
      std::vector<Allocation> keep;
      for (int i = 0; i < 40; ++i) {
        auto a = rt.allocate(static_cast<uint64_t>(4096 * (1 + (i * 7 + t) % 16)), Placement::on_node(n));
        if (!a.ok()) ++failures;
        else if (i % 3) keep.push_back(std::move(a.value()));
      }
    });
  for (auto& x : th) x.join();
  EXPECT_EQ(failures.load(), 0);
  auto acc = rt.accounting();
  EXPECT_EQ(acc.live_allocations, 0u);
  EXPECT_EQ(acc.allocations_total, 160u);
  EXPECT_EQ(acc.frees_total, 160u);
  EXPECT_TRUE(acc.bytes_per_node.empty());
}

TEST(RtRuntime, ExecutePlanAndRollBackOnError) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  const int n = first_node();
  PlannerInput in;
  in.dram_node = n;
  in.dram_capacity = 64 << 20;
  auto plan = plan_latency_first({{"opt", 1, 3 << 20}, {"w", 2, 5 << 20}}, in);
  ASSERT_TRUE(plan.ok());
  {
    auto allocs = execute_plan(rt, plan.value());
    ASSERT_TRUE(allocs.ok()) << allocs.status().message();
    ASSERT_EQ(allocs.value().size(), 2u);
    EXPECT_EQ(pages_on(rt, allocs.value()[1], n), (5u << 20) / rt.page_size());
    EXPECT_EQ(rt.accounting().bytes_per_node[n], 8u << 20);
  }
  Plan bad = plan.value();
  bad.items[1].parts[0].node = 777;
  auto fail = execute_plan(rt, bad);
  ASSERT_FALSE(fail.ok());
  EXPECT_NE(fail.status().message().find("plan item 'w'"), std::string::npos) << fail.status().message();
  EXPECT_EQ(rt.accounting().live_allocations, 0u) << "the first item must have been freed";
}

TEST(RtGpu, RegistrationIsClearWithoutCuda) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  auto a = rt.allocate(1 << 20, Placement::on_node(first_node()));
  ASSERT_TRUE(a.ok());
  const CudaInfo& info = probe_cuda();
  Status s = register_for_gpu(a.value());
  if (!info.usable()) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("not available"), std::string::npos) << s.message();
    EXPECT_FALSE(info.detail.empty());
    EXPECT_FALSE(a.value().has_release_hooks());
    std::memset(a.value().data(), 1, 1 << 20);  // the CPU path is unaffected
  } else {
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(a.value().has_release_hooks());
  }
}
