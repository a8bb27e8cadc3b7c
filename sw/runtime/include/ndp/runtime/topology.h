// Memory topology as the placement runtime sees it: DRAM nodes (with CPUs) and CPU-less memory
// nodes (the way Linux presents CXL Type-3 memory once it is onlined as system RAM), their
// capacities, free memory, SLIT distances and, where the firmware publishes them (ACPI HMAT, read
// through sysfs access0 or hwloc memory attributes), bandwidth and latency.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp::rt {

enum class NodeKind : uint8_t {
  kDram,     // a node with CPUs
  kCpuless,  // memory only: CXL expanders, HBM/PMEM onlined as RAM
};
const char* node_kind_name(NodeKind k);

struct MemNode {
  int id = -1;
  NodeKind kind = NodeKind::kDram;
  std::vector<int> cpus;
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;
  // Published performance seen from the best initiator; 0 means "not published".
  uint64_t read_bw_mbps = 0, write_bw_mbps = 0;
  uint64_t read_lat_ns = 0, write_lat_ns = 0;
  std::string perf_source;  // "hmat-sysfs", "hwloc", "override" or "" when none
};

struct Topology {
  std::vector<MemNode> nodes;            // ascending id
  std::vector<std::vector<int>> distance;  // [i][j] over positions in `nodes`; empty if unknown
  std::string source;                    // "sysfs:/sys", "override:<file>"

  // Node by id, or nullptr.
  const MemNode* find(int id) const;
  MemNode* find(int id);
  std::vector<int> dram_nodes() const;
  std::vector<int> cpuless_nodes() const;
  // SLIT distance between two node ids; -1 when unknown or either id is absent.
  int node_distance(int a, int b) const;
  // Validate ids unique/ascending, distance matrix shape; used after parsing any source.
  Status validate() const;
};

// Read /sys/devices/system/node under `sysfs_root` (normally "/sys"): nodes with memory, CPUs,
// meminfo (MemTotal/MemFree), distance and access0/initiators HMAT attributes. No hwloc needed
// (this is what the statically linked guest test uses).
Result<Topology> discover_sysfs(const std::string& sysfs_root = "/sys");

// Parse a topology override (JSON, format in docs/runtime.md) for tests and for machines whose
// firmware lies. Errors name the file and the offending field.
Result<Topology> load_topology_override(const std::string& path);
Result<Topology> parse_topology_override(const std::string& json_text, const std::string& origin);

// Environment variable naming an override file that discover_topology() honours.
inline constexpr const char* kTopologyEnv = "NDP_TOPOLOGY";

// Full discovery (ndp_runtime only): an override file when `override_path` is non-empty or
// $NDP_TOPOLOGY is set; otherwise sysfs, then hwloc memory attributes fill in bandwidth/latency
// that sysfs did not publish.
Result<Topology> discover_topology(const std::string& override_path = "");

// Fill bandwidth/latency from hwloc memory attributes (HMAT) for nodes that lack them.
// Returns how many nodes gained a value; an error only when hwloc itself fails to load.
Result<int> enrich_with_hwloc(Topology& topo);

}  // namespace ndp::rt
