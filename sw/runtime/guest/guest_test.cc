// Entry point of the guest test: `ndp_runtime_guest_test [--cxl-node N] [--mib M]
// [--expect-weighted yes|no|auto] [--expect-hmat] [--dax /dev/daxX.Y] | --dax-only /dev/daxX.Y`. Exit 0 when every check
// passed; the last line is "NDPGUEST PASS ..." or "NDPGUEST FAIL ...".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "guest.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/topology.h"

using namespace ndp::rt;

int main(int argc, char** argv) {
  guest::Ctx c;
  int cxl_arg = -1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--cxl-node") cxl_arg = std::atoi(next().c_str());
    else if (a == "--mib") c.bytes = std::strtoull(next().c_str(), nullptr, 10) << 20;
    else if (a == "--expect-weighted") c.expect_weighted = next();
    else if (a == "--expect-hmat") c.expect_hmat = true;
    else if (a == "--dax") c.dax = next();
    else if (a == "--dax-only") {
      c.dax = next();
      guest::check_dax(c);
      std::printf("NDPGUEST %s devdax passed=%d failed=%d\n", c.failed ? "FAIL" : "PASS", c.passed, c.failed);
      return c.failed ? 1 : 0;
    }
    else {
      std::fprintf(stderr, "ndp_runtime_guest_test: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  auto topo = discover_sysfs("/sys");
  if (!topo.ok()) {
    std::printf("NDPGUEST FAIL topology: %s\n", topo.status().message().c_str());
    return 1;
  }
  const auto& caps = kernel_caps();
  std::printf("NDPGUEST kernel=%s numa=%d weighted_interleave=%d weighted_sysfs=%d populate_write=%d\n",
              caps.release.c_str(), caps.numa, caps.weighted_interleave, caps.weighted_sysfs, caps.populate_write);
  for (const auto& n : topo.value().nodes)
    std::printf("NODE %d kind=%s total=%llu free=%llu read_bw=%llu read_lat=%llu\n", n.id, node_kind_name(n.kind),
                static_cast<unsigned long long>(n.total_bytes), static_cast<unsigned long long>(n.free_bytes),
                static_cast<unsigned long long>(n.read_bw_mbps), static_cast<unsigned long long>(n.read_lat_ns));
  auto cpuless = topo.value().cpuless_nodes();
  auto dram = topo.value().dram_nodes();
  if (dram.empty() || (cpuless.empty() && cxl_arg < 0)) {
    std::printf("NDPGUEST FAIL need a DRAM node and a CPU-less node (found %zu and %zu)\n", dram.size(), cpuless.size());
    return 1;
  }
  c.dram = dram.front();
  c.cxl = cxl_arg >= 0 ? cxl_arg : cpuless.back();
  Runtime rt(topo.value());
  c.rt = &rt;
  guest::check_topology(c);
  guest::check_policies(c);
  guest::check_weighted(c);
  guest::check_migration(c);
  guest::check_faults(c);
  guest::check_plan(c);
  guest::check_pools(c);
  guest::check_dax(c);
  auto acc = rt.accounting();
  c.check("accounting_zero_at_end", acc.live_allocations == 0 && acc.live_bytes == 0 && acc.bytes_per_node.empty(),
          "live=" + std::to_string(acc.live_allocations) + " bytes=" + std::to_string(acc.live_bytes) +
              " allocs=" + std::to_string(acc.allocations_total) + " frees=" + std::to_string(acc.frees_total));
  std::printf("NDPGUEST %s passed=%d failed=%d skipped=%d\n", c.failed ? "FAIL" : "PASS", c.passed, c.failed, c.skipped);
  return c.failed ? 1 : 0;
}
