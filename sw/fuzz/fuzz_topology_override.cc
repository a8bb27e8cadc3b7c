// libFuzzer target: parse_topology_override (docs/runtime.md) on arbitrary text. Oracle: an error names
// the origin; an accepted topology passes validate(), has at most 1024 nodes and 65536 CPUs, free <=
// total > 0 on every node, a square distance matrix or none, and survives a write/parse round trip
// (nodes, kinds, CPUs, capacities, performance and distances unchanged).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ndp/runtime/topology.h"

namespace {

using ndp::rt::MemNode;
using ndp::rt::Topology;

void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_topology_override: %s\n", why.c_str());
  std::abort();
}

std::string to_json(const Topology& t) {
  std::string j = "{\"nodes\": [";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const MemNode& n = t.nodes[i];
    j += i ? ", " : "";
    j += "{\"id\": " + std::to_string(n.id) + ", \"kind\": \"" + ndp::rt::node_kind_name(n.kind) + "\", \"cpus\": [";
    for (size_t c = 0; c < n.cpus.size(); ++c) j += (c ? ", " : "") + std::to_string(n.cpus[c]);
    j += "], \"total\": " + std::to_string(n.total_bytes) + ", \"free\": " + std::to_string(n.free_bytes) +
         ", \"read_bw_mbps\": " + std::to_string(n.read_bw_mbps) +
         ", \"write_bw_mbps\": " + std::to_string(n.write_bw_mbps) +
         ", \"read_lat_ns\": " + std::to_string(n.read_lat_ns) +
         ", \"write_lat_ns\": " + std::to_string(n.write_lat_ns) + "}";
  }
  j += "]";
  if (!t.distance.empty()) {
    j += ", \"distance\": [";
    for (size_t r = 0; r < t.distance.size(); ++r) {
      j += r ? ", [" : "[";
      for (size_t c = 0; c < t.distance[r].size(); ++c) j += (c ? ", " : "") + std::to_string(t.distance[r][c]);
      j += "]";
    }
    j += "]";
  }
  return j + "}";
}

void check(const Topology& t) {
  if (!t.validate().ok()) fail("accepted topology fails validate()");
  if (t.nodes.size() > 1024) fail("more than 1024 nodes");
  size_t cpus = 0;
  for (const MemNode& n : t.nodes) {
    cpus += n.cpus.size();
    if (n.total_bytes == 0 || n.free_bytes > n.total_bytes) fail("bad capacities");
  }
  if (cpus > 65536) fail("more than 65536 CPUs");
  if (!t.distance.empty() && t.distance.size() != t.nodes.size()) fail("distance rows != nodes");
}

bool same(const Topology& a, const Topology& b) {
  if (a.nodes.size() != b.nodes.size() || a.distance != b.distance) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const MemNode &x = a.nodes[i], &y = b.nodes[i];
    if (x.id != y.id || x.kind != y.kind || x.cpus != y.cpus || x.total_bytes != y.total_bytes ||
        x.free_bytes != y.free_bytes || x.read_bw_mbps != y.read_bw_mbps || x.write_bw_mbps != y.write_bw_mbps ||
        x.read_lat_ns != y.read_lat_ns || x.write_lat_ns != y.write_lat_ns)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto t = ndp::rt::parse_topology_override(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!t.ok()) {
    if (t.status().message().find("fuzz.json") == std::string::npos) fail("error does not name the file");
    return 0;
  }
  check(t.value());
  auto back = ndp::rt::parse_topology_override(to_json(t.value()), "back.json");
  if (!back.ok()) fail("written topology does not parse: " + back.status().message());
  if (!same(t.value(), back.value())) fail("topology differs after a write/parse round trip");
  return 0;
}
