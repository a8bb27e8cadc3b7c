// Seeds of the randomized software tests (ctest). Each call site keeps its fixed default seed, so a
// plain ctest run is deterministic; NDP_SEED=<n> (decimal) mixes n into every seed to explore other
// inputs (NDP_SEED=0, or unset, gives the defaults). The value in effect is printed once per test as
// "[seed] NDP_SEED=<n> (Suite.Test)" and recorded as the test property ndp_seed, so a failure seen in
// a log is repeated with `NDP_SEED=<n> ctest -R <test>`. scripts/seed-sweep.sh (make fuzz) runs the
// suite with random values.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ndp::testing {

// NDP_SEED, or 0 when unset.
inline uint64_t seed_base() {
  static const uint64_t base = [] {
    const char* env = std::getenv("NDP_SEED");
    return env && *env ? std::strtoull(env, nullptr, 10) : uint64_t{0};
  }();
  return base;
}

// The seed of a call site whose default is `k`: k itself unless NDP_SEED is set.
inline uint64_t test_seed(uint64_t k) {
  const uint64_t base = seed_base();
  const ::testing::TestInfo* ti = ::testing::UnitTest::GetInstance()->current_test_info();
  static std::string printed_for;
  const std::string name = ti ? std::string(ti->test_suite_name()) + "." + ti->name() : "?";
  if (name != printed_for) {
    printed_for = name;
    std::printf("[seed] NDP_SEED=%llu (%s)\n", static_cast<unsigned long long>(base), name.c_str());
    if (ti) ::testing::Test::RecordProperty("ndp_seed", std::to_string(base));
  }
  if (base == 0) return k;
  uint64_t z = k ^ (base * 0x9E3779B97F4A7C15ull);  // splitmix64 finalizer: distinct sites stay distinct
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace ndp::testing
