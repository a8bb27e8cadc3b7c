// Seeded randomness for the RTL testbenches. Every test takes its seed from NDP_SEED when set
// (decimal), otherwise a fixed per-test default (FNV-1a of the test's name), so ctest runs are
// deterministic; the seed is printed and recorded as a GoogleTest property so a failing run can be
// repeated exactly with `NDP_SEED=<seed> ctest -R <test>`. scripts/seed-sweep.sh varies it.
#pragma once

#include <cstdint>
#include <random>

namespace ndp::tb {

class Rng {
 public:
  // Seed from NDP_SEED or the test's fixed default; prints "[seed] NDP_SEED=<s>" for the running test.
  Rng();
  explicit Rng(uint64_t seed) : seed_(seed), gen_(seed) {}

  uint64_t seed() const { return seed_; }
  // True with probability p (0 <= p <= 1).
  bool chance(double p) { return p > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(gen_) < p; }
  // Uniform integer in [lo, hi].
  uint64_t range(uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(gen_); }
  uint32_t u32() { return static_cast<uint32_t>(gen_()); }
  uint64_t u64() { return gen_(); }
  std::mt19937_64& engine() { return gen_; }

 private:
  uint64_t seed_;
  std::mt19937_64 gen_;
};

// The seed a test uses: NDP_SEED when set, else the test's fixed default.
uint64_t test_seed();

}  // namespace ndp::tb
