// hwloc memory attributes (HMAT-derived bandwidth/latency) for nodes sysfs left blank.
#include <hwloc.h>

#include "ndp/runtime/topology.h"

namespace ndp::rt {

Result<int> enrich_with_hwloc(Topology& topo) {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return Status::Error("hwloc: topology init failed");
  if (hwloc_topology_load(t) != 0) {
    hwloc_topology_destroy(t);
    return Status::Error("hwloc: topology load failed");
  }
  int filled = 0;
  const int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    MemNode* node = obj ? topo.find(static_cast<int>(obj->os_index)) : nullptr;
    if (!node || node->perf_source == "override") continue;
    struct Attr {
      hwloc_memattr_id_t id;
      uint64_t* dst;
    } attrs[] = {{HWLOC_MEMATTR_ID_READ_BANDWIDTH, &node->read_bw_mbps},
                 {HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, &node->write_bw_mbps},
                 {HWLOC_MEMATTR_ID_READ_LATENCY, &node->read_lat_ns},
                 {HWLOC_MEMATTR_ID_WRITE_LATENCY, &node->write_lat_ns}};
    bool got = false;
    for (auto& a : attrs) {
      if (*a.dst) continue;
      struct hwloc_location init;
      hwloc_uint64_t v = 0;
      if (hwloc_memattr_get_best_initiator(t, a.id, obj, 0, &init, &v) == 0 && v) {
        *a.dst = v;  // hwloc reports MiB/s and ns
        got = true;
      }
    }
    if (got) {
      node->perf_source = node->perf_source.empty() ? "hwloc" : node->perf_source + "+hwloc";
      ++filled;
    }
  }
  hwloc_topology_destroy(t);
  return filled;
}

}  // namespace ndp::rt
