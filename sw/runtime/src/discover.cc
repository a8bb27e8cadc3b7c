// Full topology discovery: override file, or sysfs + hwloc memory attributes.
#include <cstdlib>

#include "ndp/runtime/topology.h"

namespace ndp::rt {

Result<Topology> discover_topology(const std::string& override_path) {
  std::string path = override_path;
  if (path.empty()) {
    const char* env = std::getenv(kTopologyEnv);
    if (env && *env) path = env;
  }
  if (!path.empty()) return load_topology_override(path);
  auto t = discover_sysfs("/sys");
  if (!t.ok()) return t;
  auto filled = enrich_with_hwloc(t.value());
  if (filled.ok() && filled.value() > 0) t.value().source += "+hwloc";
  return t;
}

}  // namespace ndp::rt
