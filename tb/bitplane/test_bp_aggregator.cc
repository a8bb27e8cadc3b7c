// bp_aggregator against the golden model (ndp::pack_chunk): random tensors and chunk sizes in both
// layouts with random valid gaps and backpressure, chunk-boundary and partial-chunk corners, reset
// in the middle of a stream, the full-rate reference point (no input stall at 32 B/cycle), and the
// real stories260K weights (BF16 by RNE).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "agg_env.h"
#include "tb_data.h"
#include "tb_report.h"

namespace ndp::tb {
namespace {

std::vector<uint8_t> random_bf16(Rng& rng, uint64_t n) {
  std::vector<uint8_t> v(2 * n);
  for (auto& b : v) b = static_cast<uint8_t>(rng.u32());
  return v;
}

// Realistic-looking weights: small normal-ish values, so exponent planes are not uniform noise.
std::vector<uint8_t> weightlike_bf16(Rng& rng, uint64_t n) {
  std::vector<uint8_t> v(2 * n);
  std::normal_distribution<float> d(0.0f, 0.02f);
  for (uint64_t i = 0; i < n; ++i) {
    float f = d(rng.engine());
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint16_t h = static_cast<uint16_t>(u >> 16);
    v[2 * i] = static_cast<uint8_t>(h);
    v[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  return v;
}

uint64_t budget(uint64_t elems) { return 40 * elems + 200000; }

TEST(BpAggregator, RandomTensorsBothLayoutsWithGapsAndBackpressure) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x5eed);
    AggEnv env(seed, fst, 0.25, 0.3);
    uint64_t total = 0;
    for (int t = 0; t < 12; ++t) {
      uint32_t chunk = 64u * static_cast<uint32_t>(rng.range(1, 24));
      uint64_t n = rng.range(1, 4000);
      Layout l = rng.chance(0.5) ? Layout::kExpByte : Layout::kBitplane;
      auto data = (t % 2) ? random_bf16(rng, n) : weightlike_bf16(rng, n);
      env.push_tensor(data.data(), n, chunk, l, "tensor " + std::to_string(t));
      total += n;
    }
    EXPECT_TRUE(env.run(budget(total)));
    EXPECT_TRUE(env.finish());
  });
}

TEST(BpAggregator, ChunkBoundariesAndPartialChunks) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xb0);
    AggEnv env(seed, fst, 0.1, 0.1);
    const uint32_t chunk = 512;
    // exact multiples, one beat more/less, single elements, sub-byte and sub-beat tails
    const uint64_t sizes[] = {1, 7, 8, 9, 15, 16, 17, 63, 64, 511, 512, 513, 1024, 1023, 1040, 2 * 512 + 1};
    int t = 0;
    for (uint64_t n : sizes) {
      for (Layout l : {Layout::kBitplane, Layout::kExpByte}) {
        auto data = random_bf16(rng, n);
        env.push_tensor(data.data(), n, chunk, l, "n=" + std::to_string(n) + " #" + std::to_string(t++));
      }
    }
    // the largest chunk the buffers hold, with a partial tail
    auto big = weightlike_bf16(rng, 32768 + 100);
    env.push_tensor(big.data(), big.size() / 2, 32768, Layout::kExpByte, "max chunk");
    EXPECT_TRUE(env.run(budget(100000)));
    EXPECT_TRUE(env.finish());
  });
}

TEST(BpAggregator, ResetMidStream) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x77);
    AggEnv env(seed, fst, 0.2, 0.2);
    auto a = random_bf16(rng, 5000);
    env.push_tensor(a.data(), 5000, 1024, Layout::kExpByte, "abandoned");
    env.run_for(rng.range(50, 700));  // stop part-way through, in either buffer state
    env.reset_midstream();
    auto b = weightlike_bf16(rng, 3000);
    env.push_tensor(b.data(), 3000, 1024, Layout::kExpByte, "after reset");
    env.push_tensor(b.data(), 3000, 256, Layout::kBitplane, "after reset bitplane");
    EXPECT_TRUE(env.run(budget(6000)));
    EXPECT_TRUE(env.finish());
  });
}

// Reference point: BF16, 16 elements (32 B) per cycle, 32768-element chunks, no gaps and no
// backpressure: the input must never stall (double buffering hides the plane-order read-out).
TEST(BpAggregator, FullRateNoBubbles) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xf0);
    for (Layout l : {Layout::kExpByte, Layout::kBitplane}) {
      AggEnv env(seed, fst, 0.0, 0.0);
      const uint64_t n = 4 * 32768;
      auto data = weightlike_bf16(rng, n);
      env.push_tensor(data.data(), n, 32768, l, l == Layout::kExpByte ? "expbyte" : "bitplane");
      EXPECT_TRUE(env.run(budget(n)));
      EXPECT_TRUE(env.finish());
      const StreamStats& s = env.stats();
      std::printf("[rate] layout %s: %llu cycles, in %.3f B/cycle, out %.3f B/cycle, %llu input stalls\n",
                  l == Layout::kExpByte ? "expbyte" : "bitplane", static_cast<unsigned long long>(s.cycles),
                  s.in_rate(), s.out_rate(), static_cast<unsigned long long>(s.in_stalls));
      EXPECT_EQ(s.in_stalls, 0u);
      EXPECT_DOUBLE_EQ(s.in_rate(), 32.0);
      EXPECT_DOUBLE_EQ(s.out_rate(), 32.0);
    }
  });
}

TEST(BpAggregator, RealWeightsStories260K) {
  std::vector<Bf16Tensor> tensors;
  std::string why;
  if (!load_stories260k_bf16(&tensors, &why)) GTEST_SKIP() << why;
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    AggEnv env(seed, fst, 0.1, 0.3);
    uint64_t total = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      Layout l = (i % 3 == 2) ? Layout::kBitplane : Layout::kExpByte;
      env.push_tensor(tensors[i].bytes.data(), tensors[i].elements(), 32768, l, tensors[i].name);
      total += tensors[i].elements();
    }
    EXPECT_TRUE(env.run(budget(total)));
    EXPECT_TRUE(env.finish());
  });
}

}  // namespace
}  // namespace ndp::tb
