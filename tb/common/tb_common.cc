#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tb_report.h"
#include "tb_rng.h"
#include "tb_sim.h"

namespace ndp::tb {

namespace {
uint64_t g_failures = 0;
}

void fail(const std::string& msg) {
  ++g_failures;
  if (::testing::UnitTest::GetInstance()->current_test_info()) {
    ADD_FAILURE() << msg;
  } else {
    std::fprintf(stderr, "ndp-rtl: %s\n", msg.c_str());
  }
}

uint64_t failure_count() { return g_failures; }

uint64_t test_seed() {
  const ::testing::TestInfo* ti = ::testing::UnitTest::GetInstance()->current_test_info();
  // Default: a fixed seed per test (FNV-1a of "Suite.Name"), so a plain ctest run is deterministic;
  // NDP_SEED replaces it (scripts/seed-sweep.sh, run by `make fuzz`, draws random ones).
  uint64_t seed = 0xcbf29ce484222325ull;
  const std::string id = ti ? std::string(ti->test_suite_name()) + "." + ti->name() : std::string("rtl");
  for (unsigned char ch : id) seed = (seed ^ ch) * 0x100000001b3ull;
  const char* env = std::getenv("NDP_SEED");
  if (env && *env) seed = std::strtoull(env, nullptr, 10);
  std::fprintf(ti ? stdout : stderr, "[seed] NDP_SEED=%llu (%s.%s)\n", static_cast<unsigned long long>(seed),
              ti ? ti->test_suite_name() : "?", ti ? ti->name() : "?");
  if (ti) ::testing::Test::RecordProperty("ndp_seed", std::to_string(seed));
  return seed;
}

Rng::Rng() : Rng(test_seed()) {}

void run_with_waves(const std::function<void(const std::string& fst_path)>& body) {
  const ::testing::TestInfo* ti = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = ti ? std::string(ti->test_suite_name()) + "." + ti->name() : "rtl";
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const char* dir = std::getenv("NDP_FST_DIR");
  std::string path = (dir && *dir ? std::string(dir) + "/" : std::string()) + name + ".fst";
  const char* force = std::getenv("NDP_FST");
  if (force && *force && std::string(force) != "0") {
    body(path);
    std::printf("[waves] %s\n", path.c_str());
    return;
  }
  body("");
  if (!::testing::Test::HasFailure()) return;
  std::printf("[waves] test failed: re-running with the same seed to write %s\n", path.c_str());
  ::testing::TestPartResultArray swallowed;
  {
    ::testing::ScopedFakeTestPartResultReporter rep(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &swallowed);
    body(path);
  }
  std::printf("[waves] wrote %s (%d failures in the rerun)\n", path.c_str(), swallowed.size());
}

}  // namespace ndp::tb
