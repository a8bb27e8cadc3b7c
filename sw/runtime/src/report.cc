// Reports for the CLI.
#include "ndp/runtime/report.h"

#include <numa.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "ndp/runtime/gpu.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/size.h"
#include "ndp/runtime/slab.h"

namespace ndp::rt {

namespace {

std::string cpus_text(const std::vector<int>& c) {
  if (c.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < c.size();) {
    size_t j = i;
    while (j + 1 < c.size() && c[j + 1] == c[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(c[i]) + (j > i ? "-" + std::to_string(c[j]) : "");
    i = j + 1;
  }
  return s;
}

std::string perf(uint64_t v, const char* unit) { return v ? std::to_string(v) + " " + unit : "-"; }

}  // namespace

std::string topology_text(const Topology& t) {
  std::string out = "topology: " + t.source + "\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-5s %-8s %-10s %12s %12s %14s %10s %s\n", "node", "kind", "cpus", "total", "free",
                "read bw", "read lat", "perf source");
  out += buf;
  for (const auto& n : t.nodes) {
    std::snprintf(buf, sizeof buf, "%-5d %-8s %-10s %12s %12s %14s %10s %s\n", n.id, node_kind_name(n.kind),
                  cpus_text(n.cpus).c_str(), format_size(n.total_bytes).c_str(), format_size(n.free_bytes).c_str(),
                  perf(n.read_bw_mbps, "MB/s").c_str(), perf(n.read_lat_ns, "ns").c_str(),
                  n.perf_source.empty() ? "not published" : n.perf_source.c_str());
    out += buf;
  }
  if (!t.distance.empty()) {
    out += "distances:";
    for (const auto& n : t.nodes) out += " " + std::to_string(n.id);
    out += "\n";
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      out += "  node " + std::to_string(t.nodes[i].id) + ":";
      for (int d : t.distance[i]) out += " " + std::to_string(d);
      out += "\n";
    }
  }
  const auto& k = kernel_caps();
  out += "kernel " + k.release + ": weighted interleave " +
         (k.weighted_interleave ? std::string("yes (MPOL_WEIGHTED_INTERLEAVE)") : std::string("no (mbind stripes fallback)")) +
         ", populate " + (k.populate_write ? "MADV_POPULATE_WRITE" : "page touch") + "\n";
  const auto& c = probe_cuda();
  out += "cuda: " + (c.usable() ? c.library + ", " + std::to_string(c.devices) + " device(s)" : "not available: " + c.detail) + "\n";
  return out;
}

std::string topology_json(const Topology& t) {
  nlohmann::json j;
  j["source"] = t.source;
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : t.nodes)
    j["nodes"].push_back({{"id", n.id}, {"kind", node_kind_name(n.kind)}, {"cpus", n.cpus}, {"total", n.total_bytes},
                          {"free", n.free_bytes}, {"read_bw_mbps", n.read_bw_mbps}, {"write_bw_mbps", n.write_bw_mbps},
                          {"read_lat_ns", n.read_lat_ns}, {"write_lat_ns", n.write_lat_ns}, {"perf_source", n.perf_source}});
  j["distance"] = t.distance;
  const auto& k = kernel_caps();
  j["kernel"] = {{"release", k.release}, {"weighted_interleave", k.weighted_interleave}, {"weighted_sysfs", k.weighted_sysfs}};
  j["cuda"] = {{"usable", probe_cuda().usable()}, {"detail", probe_cuda().detail}};
  return j.dump(1) + "\n";
}

std::string plan_summary(const Plan& p) {
  struct Group {
    int level = 0;
    uint64_t items = 0, bytes = 0;
    std::map<int, uint64_t> nodes;
    std::map<std::string, uint64_t> policies;
  };
  std::vector<std::string> order;
  std::map<std::string, Group> groups;
  for (const auto& it : p.items) {
    std::string g = it.name.substr(0, it.name.find('.'));
    if (!groups.count(g)) order.push_back(g);
    Group& G = groups[g];
    G.level = it.level;
    ++G.items;
    G.bytes += it.bytes;
    for (const auto& nb : it.parts) G.nodes[nb.node] += nb.bytes;
    ++G.policies[plan_policy_name(it.policy)];
  }
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-26s %5s %6s %11s  %-40s %s\n", "tensor", "level", "items", "size", "bytes per node",
                "policies");
  out += buf;
  for (const auto& name : order) {
    const Group& G = groups[name];
    std::string nodes, pols;
    for (const auto& [n, b] : G.nodes) nodes += (nodes.empty() ? "" : ", ") + ("n" + std::to_string(n)) + "=" + format_size(b);
    for (const auto& [pn, c] : G.policies) pols += (pols.empty() ? "" : ", ") + pn + " x" + std::to_string(c);
    std::snprintf(buf, sizeof buf, "%-26s %5d %6llu %11s  %-40s %s\n", name.c_str(), G.level,
                  static_cast<unsigned long long>(G.items), format_size(G.bytes).c_str(), nodes.c_str(), pols.c_str());
    out += buf;
  }
  out += "totals:";
  for (const auto& nb : p.node_totals) out += " node" + std::to_string(nb.node) + "=" + format_size(nb.bytes);
  out += "; DRAM capacity " + format_size(p.input.dram_capacity) + ", left " + format_size(p.dram_left);
  out += "\nCXL weights:";
  for (const auto& c : p.input.cxl) out += " node" + std::to_string(c.node) + "*" + std::to_string(c.weight);
  if (p.input.cxl.empty()) out += " none";
  out += " (" + p.weight_source + ")\n";
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double median_ns(int rounds, int iters, F&& pair) {
  std::vector<double> r;
  for (int k = 0; k < rounds; ++k) {
    auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) pair();
    r.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / iters);
  }
  std::sort(r.begin(), r.end());
  return r[r.size() / 2];
}

}  // namespace

Result<std::vector<LatencyRow>> measure_alloc_latency(Runtime& rt, int node, const std::vector<uint64_t>& sizes,
                                                      int iters, int rounds) {
  if (iters < 1 || rounds < 1) return Status::Error("measure_alloc_latency: iters and rounds must be >= 1");
  SlabOptions so;
  so.placement = Placement::on_node(node);
  ObjectAllocator oa(rt, so);
  std::vector<LatencyRow> out;
  for (uint64_t sz : sizes) {
    // Warm the class once so the timed loop measures the steady state (the pool is pre-sized).
    auto warm = oa.allocate(sz);
    if (!warm.ok()) return warm.status();
    NDP_RETURN_IF_ERROR(oa.free(warm.value()));
    LatencyRow row;
    row.bytes = sz;
    Status err;
    row.slab_ns = median_ns(rounds, iters, [&] {
      auto p = oa.allocate(sz);
      if (p.ok()) (void)oa.free(p.value());
      else err = p.status();
    });
    NDP_RETURN_IF_ERROR(err);
    row.malloc_ns = median_ns(rounds, iters, [&] {
      void* p = std::malloc(sz);
      asm volatile("" : : "r"(p) : "memory");
      std::free(p);
    });
    row.numa_ns = median_ns(rounds, iters, [&] {
      void* p = numa_alloc_onnode(sz, node);
      asm volatile("" : : "r"(p) : "memory");
      if (p) numa_free(p, sz);
    });
    out.push_back(row);
  }
  return out;
}

}  // namespace ndp::rt
