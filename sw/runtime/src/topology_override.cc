// Topology override files: a JSON description of nodes, capacities, performance and distances.
#include "json_util.h"
#include "ndp/file.h"
#include "ndp/runtime/topology.h"
#include "sysfs.h"

namespace ndp::rt {

namespace {

using detail::Json;

Result<std::vector<int>> parse_cpus(const Json& v, const std::string& where) {
  if (v.is_string()) {
    auto r = detail::parse_cpulist(v.get<std::string>());
    if (!r.ok()) return Status(r.status()).prepend(where + ": ");
    return r;
  }
  if (!v.is_array()) return Status::Error(where + ": expected a cpu list (\"0-3\" or [0,1,2,3])");
  std::vector<int> out;
  for (const auto& c : v) {
    if (!c.is_number_integer() || c.get<int64_t>() < 0 || c.get<int64_t>() > detail::kMaxCpuId)
      return Status::Error(where + ": cpu ids must be integers 0.." + std::to_string(detail::kMaxCpuId));
    if (!out.empty() && c.get<int>() <= out.back()) return Status::Error(where + ": cpu ids must be ascending");
    out.push_back(c.get<int>());
  }
  return out;
}

Status parse_perf(const Json& o, const std::string& where, MemNode& n) {
  struct F {
    const char* key;
    uint64_t* dst;
  } fields[] = {{"read_bw_mbps", &n.read_bw_mbps},
                {"write_bw_mbps", &n.write_bw_mbps},
                {"read_lat_ns", &n.read_lat_ns},
                {"write_lat_ns", &n.write_lat_ns}};
  for (auto& f : fields) {
    auto v = detail::get_int(o, f.key, where, 0, INT64_MAX);
    if (!v.ok()) return v.status();
    if (!v.value()) continue;
    *f.dst = static_cast<uint64_t>(*v.value());
    n.perf_source = "override";
  }
  return Status::Ok();
}

Result<MemNode> parse_node(const Json& o, const std::string& where) {
  if (!o.is_object()) return Status::Error(where + ": expected an object");
  MemNode n;
  auto id = detail::get_int(o, "id", where, 0, 1 << 20);  // NUMA node ids are small non-negative ints
  if (!id.ok()) return id.status();
  if (!id.value()) return Status::Error(where + ": missing \"id\"");
  n.id = static_cast<int>(*id.value());
  if (auto it = o.find("cpus"); it != o.end()) {
    auto c = parse_cpus(*it, where + ".cpus");
    if (!c.ok()) return c.status();
    n.cpus = c.value();
  }
  n.kind = n.cpus.empty() ? NodeKind::kCpuless : NodeKind::kDram;
  auto kind = detail::get_string(o, "kind", where);
  if (!kind.ok()) return kind.status();
  if (kind.value()) {
    const std::string& k = *kind.value();
    bool dram = k == "dram";
    if (!dram && k != "cpuless" && k != "cxl")
      return Status::Error(where + ".kind: '" + k + "' is not dram, cpuless or cxl");
    if (dram != !n.cpus.empty())
      return Status::Error(where + ".kind: '" + k + "' contradicts cpus (dram nodes have cpus, cxl nodes none)");
  }
  auto total = detail::get_size(o, "total", where);
  if (!total.ok()) return total.status();
  if (!total.value() || *total.value() == 0) return Status::Error(where + ": missing or zero \"total\"");
  n.total_bytes = *total.value();
  auto fr = detail::get_size(o, "free", where);
  if (!fr.ok()) return fr.status();
  n.free_bytes = fr.value().value_or(n.total_bytes);
  NDP_RETURN_IF_ERROR(parse_perf(o, where, n));
  return n;
}

}  // namespace

Result<Topology> parse_topology_override(const std::string& text, const std::string& origin) {
  auto j = detail::parse_json(text, origin);
  if (!j.ok()) return j.status();
  const Json& root = j.value();
  Topology t;
  t.source = "override:" + origin;
  auto nodes = root.find("nodes");
  if (nodes == root.end() || !nodes->is_array() || nodes->empty())
    return Status::Error(origin + ": \"nodes\" must be a non-empty array");
  if (nodes->size() > 1024) return Status::Error(origin + ": more than 1024 nodes (ids are 0..1023)");
  size_t cpus = 0;  // a CPU belongs to one node: at most kMaxCpuId + 1 in all, however the lists are written
  for (size_t i = 0; i < nodes->size(); ++i) {
    auto n = parse_node((*nodes)[i], origin + ": nodes[" + std::to_string(i) + "]");
    if (!n.ok()) return n.status();
    cpus += n.value().cpus.size();
    if (cpus > static_cast<size_t>(detail::kMaxCpuId) + 1)
      return Status::Error(origin + ": nodes[" + std::to_string(i) + "]: more than " +
                           std::to_string(detail::kMaxCpuId + 1) + " CPUs in all");
    t.nodes.push_back(std::move(n.value()));
  }
  if (auto d = root.find("distance"); d != root.end()) {
    if (!d->is_array()) return Status::Error(origin + ": \"distance\" must be an array of rows");
    for (const auto& row : *d) {
      if (!row.is_array()) return Status::Error(origin + ": \"distance\" rows must be arrays");
      std::vector<int> r;
      for (const auto& v : row) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 255)
          return Status::Error(origin + ": distances must be integers 0..255");
        r.push_back(v.get<int>());
      }
      t.distance.push_back(r);
    }
  }
  NDP_RETURN_IF_ERROR(t.validate());
  return t;
}

Result<Topology> load_topology_override(const std::string& path) {
  auto text = read_text_file(path);  // at most kMaxJsonFileBytes
  if (!text.ok()) return text.status();
  return parse_topology_override(text.value(), path);
}

}  // namespace ndp::rt
