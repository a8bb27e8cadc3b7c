// bp_assembler against the golden model (ndp::unpack_chunk of the fetched planes +
// ndp::assemble_region): all 65536 BF16 patterns for every region and g = 0..2 in both layouts,
// random tensors with partial beats/MX groups, back-to-back commands, gaps and backpressure, reset
// in the middle of a region read, full-rate throughput, and the real stories260K weights.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "asm_env.h"
#include "tb_data.h"

namespace ndp::tb {
namespace {

std::vector<uint8_t> all_patterns() {
  std::vector<uint8_t> v(2 * 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    v[2 * i] = static_cast<uint8_t>(i);
    v[2 * i + 1] = static_cast<uint8_t>(i >> 8);
  }
  return v;
}

std::vector<uint8_t> random_bf16(Rng& rng, uint64_t n, bool weightlike) {
  std::vector<uint8_t> v(2 * n);
  std::normal_distribution<float> d(0.0f, 0.05f);
  for (uint64_t i = 0; i < n; ++i) {
    uint16_t h;
    if (weightlike) {
      float f = d(rng.engine());
      uint32_t u;
      std::memcpy(&u, &f, 4);
      h = static_cast<uint16_t>(u >> 16);
    } else {
      h = static_cast<uint16_t>(rng.u32());
    }
    v[2 * i] = static_cast<uint8_t>(h);
    v[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  return v;
}

Region region(const std::string& name, int g) {
  Result<Region> r = parse_region(name, DType::kBF16, g);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Region{};
}

const char* const kRegions[] = {"full", "e8m0", "e8m1", "e8m2", "e8m3", "e8m4", "e8m5", "e8m6", "e8m7",
                                "fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1", "mxfp8", "mxfp4"};

class Exhaustive : public ::testing::TestWithParam<const char*> {};

// Every BF16 bit pattern (NaNs, infinities, subnormals, both zeros, every carry case), for the
// region with g = 0, 1, 2 and both layouts, as back-to-back commands on one model.
TEST_P(Exhaustive, All65536PatternsG0toG2) {
  const std::vector<uint8_t> pats = all_patterns();
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    AsmEnv env(seed, fst, 0.05, 0.1);
    for (int g = 0; g <= 2; ++g) {
      for (Layout l : {Layout::kExpByte, Layout::kBitplane}) {
        env.push_region(pats.data(), 65536, 32768, l, region(GetParam(), g),
                        l == Layout::kExpByte ? "expbyte" : "bitplane");
      }
    }
    EXPECT_TRUE(env.run(6 * 65536 / 16 * 3 + 100000));
    EXPECT_TRUE(env.finish());
  });
}
INSTANTIATE_TEST_SUITE_P(BpAssembler, Exhaustive, ::testing::ValuesIn(kRegions),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string s = i.param;
                           for (char& c : s) {
                             if (c == '-') c = '_';
                           }
                           return s;
                         });

TEST(BpAssembler, RandomRegionsPartialBeatsGapsBackpressure) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xa5);
    AsmEnv env(seed, fst, 0.3, 0.3);
    uint64_t total = 0;
    for (int t = 0; t < 40; ++t) {
      uint64_t n = rng.range(1, 1500);
      uint32_t chunk = 64u * static_cast<uint32_t>(rng.range(1, 8));
      Layout l = rng.chance(0.5) ? Layout::kExpByte : Layout::kBitplane;
      auto data = random_bf16(rng, n, rng.chance(0.5));
      env.push_region(data.data(), n, chunk, l, region(kRegions[rng.range(0, 15)], static_cast<int>(rng.range(0, 2))),
                      "tensor " + std::to_string(t));
      total += n;
    }
    EXPECT_TRUE(env.run(40 * total + 100000));
    EXPECT_TRUE(env.finish());
  });
}

TEST(BpAssembler, ResetMidRegion) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x3c);
    AsmEnv env(seed, fst, 0.2, 0.2);
    auto a = random_bf16(rng, 4000, true);
    env.push_region(a.data(), 4000, 1024, Layout::kExpByte, region("mxfp8", 1), "abandoned");
    env.run_for(rng.range(20, 200));
    env.reset_midstream();
    env.push_region(a.data(), 4000, 1024, Layout::kExpByte, region("mxfp8", 1), "after reset");
    env.push_region(a.data(), 333, 256, Layout::kBitplane, region("e8m3", 2), "after reset e8m3");
    EXPECT_TRUE(env.run(200000));
    EXPECT_TRUE(env.finish());
  });
}

// One region read of 64K elements with no gaps/backpressure, and with 30% backpressure.
TEST(BpAssembler, Throughput) {
  uint64_t seed = test_seed();
  Rng rng(seed);
  auto data = random_bf16(rng, 65536, true);
  struct Case {
    const char* region;
    double want;  // output bytes per cycle at one beat (16 elements) per cycle
  } cases[] = {{"e8m3", 32.0}, {"fp8-e4m3", 16.0}, {"fp6-e2m3", 12.0}, {"fp4-e2m1", 8.0}, {"mxfp8", 16.5}, {"mxfp4", 8.5}};
  for (const Case& c : cases) {
    for (double bp : {0.0, 0.3}) {
      AsmEnv env(seed, "", 0.0, bp);
      env.push_region(data.data(), 65536, 32768, Layout::kExpByte, region(c.region, 1), c.region);
      EXPECT_TRUE(env.run(1000000));
      EXPECT_TRUE(env.finish());
      const StreamStats& s = env.stats();
      std::printf("[rate] %-9s bp %.1f: %llu cycles, out %.3f B/cycle sustained, %.3f overall\n", c.region, bp,
                  static_cast<unsigned long long>(s.cycles), s.out_rate(), s.overall_rate(s.out_bytes));
      if (bp == 0.0) {
        EXPECT_NEAR(s.out_rate(), c.want, 1e-9) << c.region;
      } else {
        EXPECT_GT(s.out_rate(), 0.6 * c.want) << c.region;
      }
    }
  }
}

TEST(BpAssembler, RealWeightsStories260K) {
  std::vector<Bf16Tensor> tensors;
  std::string why;
  if (!load_stories260k_bf16(&tensors, &why)) GTEST_SKIP() << why;
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    AsmEnv env(seed, fst, 0.1, 0.3);
    const char* regs[] = {"e8m3", "fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp4-e2m1", "mxfp8", "mxfp4", "full"};
    uint64_t total = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const char* r = regs[i % 8];
      int g = static_cast<int>(i % 3);
      Layout l = (i % 2) ? Layout::kBitplane : Layout::kExpByte;
      env.push_region(tensors[i].bytes.data(), tensors[i].elements(), 32768, l, region(r, g), tensors[i].name);
      total += tensors[i].elements();
    }
    EXPECT_TRUE(env.run(20 * total + 100000));
    EXPECT_TRUE(env.finish());
  });
}

}  // namespace
}  // namespace ndp::tb
