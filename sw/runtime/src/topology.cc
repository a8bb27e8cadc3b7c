// Topology helpers and sysfs discovery (no hwloc; usable in the static guest binary).
#include <algorithm>
#include <sstream>

#include "ndp/runtime/topology.h"
#include "sysfs.h"

namespace ndp::rt {

const char* node_kind_name(NodeKind k) { return k == NodeKind::kDram ? "dram" : "cpuless"; }

const MemNode* Topology::find(int id) const {
  for (const auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

MemNode* Topology::find(int id) {
  for (auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

std::vector<int> Topology::dram_nodes() const {
  std::vector<int> v;
  for (const auto& n : nodes)
    if (n.kind == NodeKind::kDram) v.push_back(n.id);
  return v;
}

std::vector<int> Topology::cpuless_nodes() const {
  std::vector<int> v;
  for (const auto& n : nodes)
    if (n.kind == NodeKind::kCpuless) v.push_back(n.id);
  return v;
}

int Topology::node_distance(int a, int b) const {
  int ia = -1, ib = -1;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id == a) ia = static_cast<int>(i);
    if (nodes[i].id == b) ib = static_cast<int>(i);
  }
  if (ia < 0 || ib < 0 || distance.empty()) return -1;
  return distance[static_cast<size_t>(ia)][static_cast<size_t>(ib)];
}

Status Topology::validate() const {
  if (nodes.empty()) return Status::Error(source + ": no memory nodes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (n.id < 0 || n.id > 1023) return Status::Error(source + ": node id " + std::to_string(n.id) + " out of range");
    if (i > 0 && nodes[i - 1].id >= n.id)
      return Status::Error(source + ": node ids must be unique and ascending (node " + std::to_string(n.id) + ")");
    if (n.free_bytes > n.total_bytes)
      return Status::Error(source + ": node " + std::to_string(n.id) + " has free > total");
    if ((n.kind == NodeKind::kDram) == n.cpus.empty())
      return Status::Error(source + ": node " + std::to_string(n.id) + " kind " + node_kind_name(n.kind) +
                           " contradicts its cpu list");
  }
  if (!distance.empty()) {
    if (distance.size() != nodes.size())
      return Status::Error(source + ": distance matrix has " + std::to_string(distance.size()) + " rows for " +
                           std::to_string(nodes.size()) + " nodes");
    for (const auto& row : distance)
      if (row.size() != nodes.size()) return Status::Error(source + ": distance matrix is not square");
  }
  return Status::Ok();
}

namespace {

void read_hmat(const std::string& dir, MemNode& n) {
  const std::string a = dir + "/access0/initiators/";
  auto rb = detail::read_u64(a + "read_bandwidth");
  auto wb = detail::read_u64(a + "write_bandwidth");
  auto rl = detail::read_u64(a + "read_latency");
  auto wl = detail::read_u64(a + "write_latency");
  n.read_bw_mbps = rb.value_or(0);
  n.write_bw_mbps = wb.value_or(0);
  n.read_lat_ns = rl.value_or(0);
  n.write_lat_ns = wl.value_or(0);
  if (n.read_bw_mbps || n.write_bw_mbps || n.read_lat_ns || n.write_lat_ns) n.perf_source = "hmat-sysfs";
}

}  // namespace

Result<Topology> discover_sysfs(const std::string& sysfs_root) {
  const std::string base = sysfs_root + "/devices/system/node";
  Topology t;
  t.source = "sysfs:" + sysfs_root;
  std::vector<int> all = detail::list_numbered(base, "node");
  if (all.empty()) return Status::Error(base + ": no node directories (kernel without NUMA sysfs?)");
  std::vector<std::vector<int>> dist_raw;  // rows over `all`
  for (int id : all) {
    const std::string dir = base + "/node" + std::to_string(id);
    auto mi = detail::read_text(dir + "/meminfo");
    if (!mi.ok()) return mi.status();
    MemNode n;
    n.id = id;
    n.total_bytes = detail::meminfo_bytes(mi.value(), "MemTotal").value_or(0);
    n.free_bytes = detail::meminfo_bytes(mi.value(), "MemFree").value_or(0);
    auto cl = detail::read_text(dir + "/cpulist");
    if (cl.ok()) {
      auto cpus = detail::parse_cpulist(cl.value());
      if (!cpus.ok()) return Status(cpus.status()).prepend(dir + "/cpulist: ");
      n.cpus = cpus.value();
    }
    n.kind = n.cpus.empty() ? NodeKind::kCpuless : NodeKind::kDram;
    read_hmat(dir, n);
    std::vector<int> row;
    if (auto d = detail::read_text(dir + "/distance"); d.ok()) {
      std::stringstream ss(d.value());
      int v;
      while (ss >> v) row.push_back(v);
    }
    dist_raw.push_back(row);
    if (n.total_bytes > 0) t.nodes.push_back(n);  // memoryless CPU nodes hold nothing to place
  }
  // Distance rows list every online node in ascending order; keep the nodes with memory.
  bool dist_ok = true;
  for (const auto& r : dist_raw) dist_ok = dist_ok && r.size() == all.size();
  if (dist_ok) {
    for (const auto& n : t.nodes) {
      size_t ri = static_cast<size_t>(std::find(all.begin(), all.end(), n.id) - all.begin());
      std::vector<int> row;
      for (const auto& m : t.nodes) {
        size_t ci = static_cast<size_t>(std::find(all.begin(), all.end(), m.id) - all.begin());
        row.push_back(dist_raw[ri][ci]);
      }
      t.distance.push_back(row);
    }
  }
  NDP_RETURN_IF_ERROR(t.validate());
  return t;
}

}  // namespace ndp::rt
