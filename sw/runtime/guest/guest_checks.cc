// The guest checks: placement per policy, weighted ratios, migration, faults, plans, pools, DAX.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "guest.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/plan_exec.h"
#include "ndp/runtime/planner.h"
#include "ndp/runtime/size.h"
#include "ndp/runtime/slab.h"
#include "ndp/runtime/stripes.h"

namespace ndp::rt::guest {

void Ctx::check(const std::string& name, bool ok, const std::string& detail) {
  std::printf("CHECK %s %s %s\n", name.c_str(), ok ? "PASS" : "FAIL", detail.c_str());
  std::fflush(stdout);
  (ok ? passed : failed)++;
}

void Ctx::skip(const std::string& name, const std::string& why) {
  std::printf("CHECK %s SKIP %s\n", name.c_str(), why.c_str());
  ++skipped;
}

void Ctx::result(const std::string& policy, const Allocation& a) {
  auto w = rt->where(a);
  std::printf("RESULT %s mechanism=%s pages=%llu %s\n", policy.c_str(), mechanism_name(a.mechanism()),
              static_cast<unsigned long long>(a.size() / rt->page_size()),
              w.ok() ? w.value().describe().c_str() : w.status().message().c_str());
}

namespace {

uint64_t pages_on(Ctx& c, const Allocation& a, int node) {
  auto w = c.rt->where(a);
  if (!w.ok()) return UINT64_MAX;
  auto it = w.value().per_node.find(node);
  return it == w.value().per_node.end() ? 0 : it->second;
}

std::string counts(Ctx& c, const Allocation& a) {
  auto w = c.rt->where(a);
  return w.ok() ? w.value().describe() : w.status().message();
}

// Allocate, check every page is on `node`, print the RESULT line.
void expect_all_on(Ctx& c, const std::string& name, const Placement& p, int node) {
  auto a = c.rt->allocate(c.bytes, p);
  if (!a.ok()) return c.check(name, false, a.status().message());
  c.result(p.describe(), a.value());
  uint64_t pages = a.value().size() / c.rt->page_size();
  c.check(name, pages_on(c, a.value(), node) == pages, counts(c, a.value()));
}

}  // namespace

void check_topology(Ctx& c) {
  const auto& t = c.rt->topology();
  const MemNode* cx = t.find(c.cxl);
  c.check("topology_cpuless_node", cx && cx->kind == NodeKind::kCpuless && cx->total_bytes > 0,
          "node " + std::to_string(c.cxl) + (cx ? " " + format_size(cx->total_bytes) : " missing"));
  int d = t.node_distance(c.dram, c.cxl);
  c.check("topology_distance", d > 10, "distance " + std::to_string(d));
  if (c.expect_hmat) {
    const MemNode* dr = t.find(c.dram);
    bool ok = cx && dr && cx->read_bw_mbps > 0 && dr->read_bw_mbps > cx->read_bw_mbps && cx->read_lat_ns > dr->read_lat_ns;
    c.check("topology_hmat", ok,
            cx && dr ? "dram " + std::to_string(dr->read_bw_mbps) + " MB/s " + std::to_string(dr->read_lat_ns) +
                           " ns, cxl " + std::to_string(cx->read_bw_mbps) + " MB/s " + std::to_string(cx->read_lat_ns) + " ns"
                     : "node missing");
  }
}

void check_policies(Ctx& c) {
  expect_all_on(c, "bind_cxl", Placement::on_node(c.cxl), c.cxl);
  expect_all_on(c, "bind_dram", Placement::on_node(c.dram), c.dram);
  expect_all_on(c, "preferred_cxl", Placement::preferred(c.cxl), c.cxl);
  auto a = c.rt->allocate(c.bytes, Placement::interleave({c.dram, c.cxl}));
  if (!a.ok()) return c.check("interleave_1_1", false, a.status().message());
  c.result("interleave:1:1", a.value());
  uint64_t pages = a.value().size() / c.rt->page_size();
  uint64_t on = pages_on(c, a.value(), c.cxl);
  c.check("interleave_1_1", a.value().mechanism() == Mechanism::kKernelInterleave && (on == pages / 2 || on == (pages + 1) / 2),
          std::string(mechanism_name(a.value().mechanism())) + " " + counts(c, a.value()));
}

void check_weighted(Ctx& c) {
  const auto& caps = kernel_caps();
  AllocOptions o;
  o.set_kernel_weights = true;  // the guest is a throwaway machine; we are root there
  const std::vector<uint32_t> w = {1, 3};
  auto a = c.rt->allocate(c.bytes, Placement::interleave({c.dram, c.cxl}, w), o);
  if (!a.ok()) return c.check("weighted_1_3_auto", false, a.status().message());
  c.result("weighted:1:3", a.value());
  uint64_t pages = a.value().size() / c.rt->page_size();
  double frac = static_cast<double>(pages_on(c, a.value(), c.cxl)) / static_cast<double>(pages);
  bool mech_ok = caps.weighted_interleave ? a.value().mechanism() == Mechanism::kKernelWeighted
                                          : a.value().mechanism() == Mechanism::kStripes;
  if (c.expect_weighted == "yes") mech_ok = mech_ok && caps.weighted_interleave;
  if (c.expect_weighted == "no") mech_ok = mech_ok && !caps.weighted_interleave;
  // Tolerance: one interleave period (4 pages) over the allocation, i.e. well under 0.1 %.
  bool ratio_ok = std::fabs(frac - 0.75) <= 4.0 / static_cast<double>(pages);
  char buf[96];
  std::snprintf(buf, sizeof buf, " cxl share %.5f (want 0.75)", frac);
  c.check("weighted_1_3_auto", mech_ok && ratio_ok,
          std::string(mechanism_name(a.value().mechanism())) + buf + " " + counts(c, a.value()));
  a.value().release();

  o.interleave = InterleaveMode::kStripes;
  auto s = c.rt->allocate(c.bytes, Placement::interleave({c.dram, c.cxl}, w), o);
  if (!s.ok()) return c.check("weighted_1_3_stripes", false, s.status().message());
  c.result("weighted:1:3(stripes)", s.value());
  auto q = split_by_weights(pages, {1, 3});
  c.check("weighted_1_3_stripes", pages_on(c, s.value(), c.cxl) == q[1] && pages_on(c, s.value(), c.dram) == q[0],
          counts(c, s.value()) + " want node" + std::to_string(c.cxl) + "=" + std::to_string(q[1]));
  s.value().release();

  // Weights from the published bandwidths (HMAT), as the planner derives them.
  const MemNode* dr = c.rt->topology().find(c.dram);
  const MemNode* cx = c.rt->topology().find(c.cxl);
  auto bw = bandwidth_weights({dr->read_bw_mbps, cx->read_bw_mbps});
  o.interleave = InterleaveMode::kAuto;
  auto h = c.rt->allocate(c.bytes, Placement::interleave({c.dram, c.cxl}, bw), o);
  if (!h.ok()) return c.check("weighted_hmat", false, h.status().message());
  c.result("weighted:" + std::to_string(bw[0]) + ":" + std::to_string(bw[1]) + "(hmat)", h.value());
  double want = static_cast<double>(bw[1]) / static_cast<double>(bw[0] + bw[1]);
  double got = static_cast<double>(pages_on(c, h.value(), c.cxl)) / static_cast<double>(pages);
  c.check("weighted_hmat", std::fabs(got - want) <= static_cast<double>(bw[0] + bw[1]) / static_cast<double>(pages),
          std::string(mechanism_name(h.value().mechanism())) + " " + counts(c, h.value()));
  // Quotas: exact bytes per node.
  const uint64_t ps = c.rt->page_size();
  uint64_t size = align_up(c.bytes, ps);
  uint64_t q0 = align_down(size / 5, ps);
  auto qa = c.rt->allocate(size, Placement::quotas({c.dram, c.cxl}, {q0, size - q0}));
  if (!qa.ok()) return c.check("quota_exact", false, qa.status().message());
  c.result("quota", qa.value());
  c.check("quota_exact", pages_on(c, qa.value(), c.dram) == q0 / ps && pages_on(c, qa.value(), c.cxl) == (size - q0) / ps,
          counts(c, qa.value()));
}

void check_migration(Ctx& c) {
  auto a = c.rt->allocate(c.bytes, Placement::on_node(c.dram));
  if (!a.ok()) return c.check("migrate_dram_to_cxl", false, a.status().message());
  auto* p = static_cast<uint64_t*>(a.value().data());
  const uint64_t n = a.value().size() / 8;
  for (uint64_t i = 0; i < n; ++i) p[i] = i * 0x9E3779B97F4A7C15ull;
  Status s = c.rt->migrate(a.value(), Placement::on_node(c.cxl));
  uint64_t pages = a.value().size() / c.rt->page_size();
  bool data_ok = true;
  for (uint64_t i = 0; i < n && data_ok; ++i) data_ok = p[i] == i * 0x9E3779B97F4A7C15ull;
  auto acc = c.rt->accounting();
  c.result("migrated:bind" + std::to_string(c.dram) + "->bind" + std::to_string(c.cxl), a.value());
  c.check("migrate_dram_to_cxl",
          s.ok() && pages_on(c, a.value(), c.cxl) == pages && data_ok && acc.bytes_per_node[c.cxl] == a.value().size(),
          (s.ok() ? "" : s.message() + " ") + counts(c, a.value()) + (data_ok ? " data intact" : " DATA CHANGED"));
  s = c.rt->migrate(a.value(), Placement::interleave({c.dram, c.cxl}, {1, 1}));
  uint64_t on = pages_on(c, a.value(), c.dram);
  c.check("migrate_cxl_to_interleave", s.ok() && (on == pages / 2 || on == (pages + 1) / 2),
          (s.ok() ? "" : s.message() + " ") + counts(c, a.value()));
}

void check_faults(Ctx& c) {
  auto before = c.rt->accounting();
  auto missing = c.rt->allocate(c.bytes, Placement::on_node(7));
  c.check("fault_missing_node", !missing.ok() && missing.status().message().find("node 7") != std::string::npos,
          missing.ok() ? "allocated?!" : missing.status().message());
  auto fr = node_free_bytes(c.cxl);
  uint64_t too_much = (fr.ok() ? fr.value() : 0) + (64ull << 20);
  auto big = c.rt->allocate(too_much, Placement::on_node(c.cxl));
  c.check("fault_node_too_small", !big.ok() && big.status().message().find("free") != std::string::npos,
          big.ok() ? "allocated?!" : big.status().message());
  AllocOptions kern;
  kern.interleave = InterleaveMode::kKernel;
  auto wk = c.rt->allocate(c.bytes, Placement::interleave({c.dram, c.cxl}, {2, 5}), kern);
  if (kernel_caps().weighted_interleave)
    c.check("fault_kernel_weights_mismatch", !wk.ok(), wk.ok() ? "kernel mode accepted foreign weights" : wk.status().message());
  else
    c.check("fault_no_weighted_interleave", !wk.ok() && wk.status().message().find("6.9") != std::string::npos,
            wk.ok() ? "allocated?!" : wk.status().message());
  auto after = c.rt->accounting();
  c.check("fault_nothing_charged", after.live_bytes == before.live_bytes && after.allocations_total == before.allocations_total,
          "live bytes " + std::to_string(after.live_bytes));
}

void check_plan(Ctx& c) {
  PlannerOptions po;
  po.dram_node = c.dram;
  po.dram_limit = 3 * c.bytes;  // force spills: DRAM holds three test-size tensors
  po.cxl_nodes = {c.cxl};
  std::string src;
  auto in = planner_input(c.rt->topology(), po, &src);
  if (!in.ok()) return c.check("plan_execute", false, in.status().message());
  std::vector<TensorReq> ts = {{"opt", 1, 2 * c.bytes}, {"master", 1, 2 * c.bytes}, {"act", 3, c.bytes}, {"grad", 4, c.bytes / 2}};
  auto plan = plan_latency_first(ts, in.value());
  if (!plan.ok()) return c.check("plan_execute", false, plan.status().message());
  auto allocs = execute_plan(*c.rt, plan.value());
  if (!allocs.ok()) return c.check("plan_execute", false, allocs.status().message());
  bool ok = true;
  std::string detail;
  for (size_t i = 0; i < plan.value().items.size(); ++i) {
    const auto& it = plan.value().items[i];
    const Allocation& a = allocs.value()[i];
    for (const auto& part : it.parts) ok = ok && pages_on(c, a, part.node) * c.rt->page_size() == part.bytes;
    detail += it.name + "(" + plan_policy_name(it.policy) + ":" + counts(c, a) + ") ";
    c.result("plan:" + it.name + ":" + plan_policy_name(it.policy), a);
  }
  c.check("plan_execute", ok, detail);
}

void check_pools(Ctx& c) {
  SlabOptions so;
  so.placement = Placement::on_node(c.cxl);
  so.block_bytes = {2ull << 20, 8ull << 20, 32ull << 20};
  ObjectAllocator oa(*c.rt, so);
  std::vector<void*> ptrs;
  bool ok = true;
  for (int i = 0; i < 300 && ok; ++i) {
    auto p = oa.allocate(16 << 10);
    ok = p.ok();
    if (ok) ptrs.push_back(p.value());
  }
  auto big = oa.allocate(40ull << 20);
  ok = ok && big.ok();
  std::vector<int> nodes;
  bool placed = ok;
  for (void* p : ptrs) {
    Status s = detail::query_page_nodes(p, 16 << 10, nodes);
    for (int n : nodes) placed = placed && s.ok() && n == c.cxl;
  }
  if (big.ok()) {
    Status s = detail::query_page_nodes(big.value(), 40ull << 20, nodes);
    for (int n : nodes) placed = placed && s.ok() && n == c.cxl;
  }
  auto st = oa.stats();
  for (void* p : ptrs) ok = ok && oa.free(p).ok();
  if (big.ok()) ok = ok && oa.free(big.value()).ok();
  auto st2 = oa.stats();
  c.check("slab_on_cxl_node", ok && placed && st.cls[0].used == 300 && st2.cls[0].used == 0 && st2.large_count == 0,
          "16KiB blocks=" + std::to_string(st.cls[0].blocks) + " util=" + std::to_string(st.utilisation()) +
              " blocks after free=" + std::to_string(st2.cls[0].blocks));
}

void check_dax(Ctx& c) {
  if (c.dax.empty()) return;
  int fd = open(c.dax.c_str(), O_RDWR);
  if (fd < 0) return c.check("devdax_map", false, c.dax + ": " + std::strerror(errno));
  const uint64_t len = 2ull << 20;  // one devdax alignment unit
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return c.check("devdax_map", false, c.dax + ": mmap: " + std::strerror(errno));
  }
  auto* q = static_cast<uint64_t*>(p);
  for (uint64_t i = 0; i < len / 8; ++i) q[i] = ~i;
  msync(p, len, MS_SYNC);
  munmap(p, len);
  p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  bool ok = p != MAP_FAILED;
  for (uint64_t i = 0; ok && i < len / 8; ++i) ok = static_cast<uint64_t*>(p)[i] == ~i;
  if (p != MAP_FAILED) munmap(p, len);
  close(fd);
  c.check("devdax_map", ok, c.dax + " 2 MiB written and read back through a fresh mapping");
}

}  // namespace ndp::rt::guest
