// Backend registry: scheme -> factory. emu and dax are built in; other backends (rtl) register
// themselves from their own object files (BackendRegistrar).
#include <map>
#include <mutex>

#include "backends.h"

namespace ndp::drv {

namespace {

struct Entry {
  BackendFactory make;
  std::string usage;
};

struct Registry {
  std::mutex mu;
  std::map<std::string, Entry> map;
  Registry() {
    map["emu"] = {make_emu_backend,
                  "emu[:inproc|:SOCKET]  emulated CXL node (device model daemon; inproc: in this process)"};
    map["dax"] = {make_dax_backend,
                  "dax:PATH|dax:numa:N   CXL memory as devdax device, file or NUMA node (software NDP)"};
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void CallStats::add(const CallStats& o) {
  host_bytes += o.host_bytes;
  link_bytes += o.link_bytes;
  device_bytes += o.device_bytes;
  blocks += o.blocks;
  errors += o.errors;
  seconds += o.seconds;
}

void register_backend(const std::string& scheme, BackendFactory f, const std::string& usage) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.map[scheme] = {std::move(f), usage};
}

bool backend_registered(const std::string& scheme) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.map.count(scheme) != 0;
}

std::vector<std::pair<std::string, std::string>> backend_list() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, e] : r.map) out.push_back({k, e.usage});
  return out;
}

Result<std::unique_ptr<Backend>> make_backend(const std::string& uri, const OpenOptions& o) {
  const size_t colon = uri.find(':');
  const std::string scheme = uri.substr(0, colon), arg = colon == std::string::npos ? "" : uri.substr(colon + 1);
  BackendFactory f;
  std::string known;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.map.find(scheme);
    if (it != r.map.end()) f = it->second.make;
    for (const auto& [k, e] : r.map) known += (known.empty() ? "" : ", ") + k;
  }
  if (!f) {
    std::string hint = scheme == "rtl" ? " (this build has no rtl backend: configure with -DNDP_BUILD_RTL=ON)" : "";
    return Status::Error("unknown device '" + uri + "': backends are " + known + hint);
  }
  return f(arg, o);
}

}  // namespace ndp::drv
