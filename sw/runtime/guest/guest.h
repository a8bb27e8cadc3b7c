// Self-checking placement tests run inside the QEMU guest (statically linked, no hwloc/GTest).
// Each check prints "CHECK <name> PASS|FAIL|SKIP <detail>"; page placements print
// "RESULT <policy> mechanism=<m> <node>=<pages> ..." lines that docs/results/runtime.md tabulates.
#pragma once

#include <cstdint>
#include <string>

#include "ndp/runtime/runtime.h"

namespace ndp::rt::guest {

struct Ctx {
  Runtime* rt = nullptr;
  int dram = 0;             // DRAM node
  int cxl = 1;              // CPU-less node under test
  uint64_t bytes = 32 << 20;  // size of each test allocation
  std::string expect_weighted = "auto";  // "yes": kernel path required, "no": fallback required
  bool expect_hmat = false;              // the guest firmware publishes HMAT for the CXL node
  std::string dax;                       // /dev/daxX.Y to map, if any
  int passed = 0, failed = 0, skipped = 0;

  void check(const std::string& name, bool ok, const std::string& detail);
  void skip(const std::string& name, const std::string& why);
  void result(const std::string& policy, const Allocation& a);
};

void check_topology(Ctx& c);
void check_policies(Ctx& c);
void check_weighted(Ctx& c);
void check_migration(Ctx& c);
void check_faults(Ctx& c);
void check_plan(Ctx& c);
void check_pools(Ctx& c);
void check_dax(Ctx& c);

}  // namespace ndp::rt::guest
