// kv_window against the golden model (ndp::kv_window_forward) at three parameter points, with the
// base maximum (cfg_base_max_i = 1, the expbyte reference) and minimum (0, bitplane): random
// sequences of every mix (zeros, subnormals, NaN/Inf, all-equal and widely spread exponents) with
// partial windows, random valid gaps and backpressure; a real KV cache of stories260K; reset in the
// middle of a stream; the full-rate reference point; and the output fed into bp_aggregator.
#include <gtest/gtest.h>

#include <cstdio>

#include "Vkv_window_odd.h"
#include "Vkv_window_ref.h"
#include "Vkv_window_s260.h"
#include "agg_env.h"
#include "kv_data.h"
#include "kv_env.h"
#include "ndp/planes.h"
#include "tb_report.h"

namespace ndp::tb {
namespace {

uint64_t budget(const KvGeo& g, uint64_t tokens) { return 4 * uint64_t{g.P} * tokens * g.NB() + 100000; }

template <class M>
void random_sequences(const KvGeo& g, double gap, double bp, KvBase base = KvBase::kMax) {
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x4b56);
    KvWindowEnv<M> env(g, seed, fst, gap, bp, base);
    const KvMix mixes[] = {KvMix::kKvLike, KvMix::kUniform, KvMix::kEqualExp, KvMix::kZeros, KvMix::kSpecials};
    uint64_t tokens = 0;
    int s = 0;
    // lengths: one token, just under/over a window, several windows with a partial tail
    for (uint64_t len : {uint64_t{1}, uint64_t{g.W - 1 ? g.W - 1 : 1}, uint64_t{g.W}, uint64_t{g.W + 1},
                         rng.range(2, 5 * g.W), rng.range(2, 5 * g.W), uint64_t{3 * g.W}}) {
      for (KvMix mix : mixes) {
        if (rng.chance(0.5) && mix != KvMix::kKvLike) continue;  // keep the run short
        env.push_sequence(kv_random(rng, len, g.N(), mix), "seq " + std::to_string(s++));
        tokens += len;
      }
    }
    EXPECT_TRUE(env.run(budget(g, tokens) * 4));
    EXPECT_TRUE(env.finish());
  });
}

TEST(KvWindow, RandomRef) { random_sequences<Vkv_window_ref>(kKvRef, 0.25, 0.3); }
TEST(KvWindow, RandomS260) { random_sequences<Vkv_window_s260>(kKvS260, 0.25, 0.3); }
TEST(KvWindow, RandomOdd) { random_sequences<Vkv_window_odd>(kKvOdd, 0.25, 0.3); }
TEST(KvWindow, RandomOddNoStalls) { random_sequences<Vkv_window_odd>(kKvOdd, 0.0, 0.0); }
// cfg_base_max_i = 0: the bitplane layout's reference base (minimum).
TEST(KvWindow, RandomRefMinBase) { random_sequences<Vkv_window_ref>(kKvRef, 0.25, 0.3, KvBase::kMin); }
TEST(KvWindow, RandomOddMinBase) { random_sequences<Vkv_window_odd>(kKvOdd, 0.25, 0.3, KvBase::kMin); }

TEST(KvWindow, CornerWindows) {
  // One window per corner value class, back to back, each a full window and then a 1-token one,
  // with either base.
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    for (KvBase base : {KvBase::kMax, KvBase::kMin}) {  // one Verilator model alive at a time
      Rng rng(seed ^ 0xc0);
      KvWindowEnv<Vkv_window_ref> env(kKvRef, seed, fst, 0.1, 0.1, base);
      int s = 0;
      for (KvMix mix : {KvMix::kZeros, KvMix::kSpecials, KvMix::kEqualExp, KvMix::kUniform}) {
        env.push_sequence(kv_random(rng, kKvRef.W, kKvRef.N(), mix), "full " + std::to_string(s));
        env.push_sequence(kv_random(rng, 1, kKvRef.N(), mix), "single " + std::to_string(s++));
      }
      // exponent 0 next to 255 (NaN/Inf) in one channel: delta 255 from the minimum (base 0), 1
      // from the maximum (base 255)
      std::vector<uint16_t> v(kKvRef.W * kKvRef.N(), 0x0001);
      for (uint32_t n = 0; n < kKvRef.N(); ++n) v[n] = 0x7F80;
      env.push_sequence(v, "zero and Inf");
      // exponents 255 and 254: delta 255 from the maximum
      std::vector<uint16_t> u(kKvRef.W * kKvRef.N(), 0x7F00);
      for (uint32_t n = 0; n < kKvRef.N(); ++n) u[n] = 0xFFC1;
      env.push_sequence(u, "NaN and 2^127");
      EXPECT_TRUE(env.run(budget(kKvRef, 12 * kKvRef.W)));
      EXPECT_TRUE(env.finish());
    }
  });
}

TEST(KvWindow, ResetMidStream) {
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x77);
    KvWindowEnv<Vkv_window_ref> env(kKvRef, seed, fst, 0.2, 0.2);
    env.push_sequence(kv_random(rng, 3 * kKvRef.W, kKvRef.N(), KvMix::kKvLike), "abandoned");
    env.run_for(rng.range(50, 600));  // stop part-way, in any buffer state
    env.reset_midstream();
    env.push_sequence(kv_random(rng, 2 * kKvRef.W + 5, kKvRef.N(), KvMix::kKvLike), "after reset");
    EXPECT_TRUE(env.run(budget(kKvRef, 3 * kKvRef.W)));
    EXPECT_TRUE(env.finish());
  });
}

template <class M>
void full_rate(const KvGeo& g, uint32_t windows) {
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xf0);
    for (double bp : {0.0, 0.3}) {
      KvWindowEnv<M> env(g, seed, fst, 0.0, bp);
      env.push_sequence(kv_random(rng, uint64_t{windows} * g.W, g.N(), KvMix::kKvLike), "rate");
      EXPECT_TRUE(env.run(budget(g, uint64_t{windows} * g.W)));
      EXPECT_TRUE(env.finish());
      const KvRates& r = env.rates();
      std::printf("[rate] kv_window %s (C=%u H=%u W=%u P=%u), backpressure %.1f: %llu cycles, in %.3f B/cycle, "
                  "out %.3f B/cycle, %llu input stalls\n",
                  g.name, g.C, g.H, g.W, g.P, bp, static_cast<unsigned long long>(r.cycles()), r.in_rate(),
                  r.out_rate(), static_cast<unsigned long long>(r.in_stalls));
      if (bp == 0.0) {
        EXPECT_EQ(r.in_stalls, 0u);
        EXPECT_DOUBLE_EQ(r.in_rate(), 2.0 * g.P);
        EXPECT_DOUBLE_EQ(r.out_rate(), 2.0 * g.P);
      }
    }
  });
}

// Reference point: C = 128, W = 32, P = 16 BF16 (32 B/cycle): the input never stalls.
TEST(KvWindow, FullRateRef) { full_rate<Vkv_window_ref>(kKvRef, 16); }
TEST(KvWindow, FullRateS260) { full_rate<Vkv_window_s260>(kKvS260, 16); }

TEST(KvWindow, RealTraceStories260K) {
  const KvTrace* t = nullptr;
  std::string why;
  if (!stories_kv_trace(&t, &why)) GTEST_SKIP() << why;
  ASSERT_EQ(t->head_dim, kKvS260.C);
  ASSERT_EQ(t->n_kv_heads, kKvS260.H);
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    // Only one Verilator model is alive at a time: destroying a second one while another context
    // lives deadlocks Verilator 5.006's scope registry.
    {
      // All 4 KV heads of a layer co-packed (H = 4), every layer, K and V.
      KvWindowEnv<Vkv_window_s260> env(kKvS260, seed, fst, 0.1, 0.3);
      for (uint32_t l = 0; l < t->n_layers; ++l)
        for (uint32_t kind = 0; kind < 2; ++kind)
          env.push_sequence(kv_trace_group(*t, l, kind, 0, 4), "layer " + std::to_string(l) + (kind ? " V" : " K"));
      EXPECT_TRUE(env.run(budget(kKvS260, 10ull * t->n_tokens) * 2));
      EXPECT_TRUE(env.finish());
    }
    {
      // One head per window, W = 12 (partial windows at the end of every sequence), base min.
      KvWindowEnv<Vkv_window_odd> odd(kKvOdd, seed, fst, 0.2, 0.2, KvBase::kMin);
      for (uint32_t h = 0; h < t->n_kv_heads; ++h)
        odd.push_sequence(kv_trace_group(*t, h % t->n_layers, h & 1, h, 1), "head " + std::to_string(h));
      EXPECT_TRUE(odd.run(budget(kKvOdd, 4ull * t->n_tokens) * 4));
      EXPECT_TRUE(odd.finish());
    }
  });
}

// The element stream is bp_aggregator's input format: each window, pushed as one chunk of N x w
// elements, comes out of the bp_aggregator model as the golden plane blocks of the transformed window.
TEST(KvWindow, FeedsBpAggregator) {
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xa9);
    std::vector<std::vector<uint16_t>> windows;
    {  // one Verilator model alive at a time (see RealTraceStories260K)
      KvWindowEnv<Vkv_window_ref> env(kKvRef, seed, fst, 0.1, 0.1);
      env.push_sequence(kv_random(rng, 2 * kKvRef.W + 7, kKvRef.N(), KvMix::kKvLike), "seq");
      ASSERT_TRUE(env.run(budget(kKvRef, 3 * kKvRef.W)));
      ASSERT_TRUE(env.finish());
      windows = env.windows_out();
    }
    ASSERT_EQ(windows.size(), 3u);
    AggEnv agg(seed, fst, 0.1, 0.1);
    uint64_t elems = 0;
    for (size_t k = 0; k < windows.size(); ++k) {
      const auto& w = windows[k];
      agg.push_tensor(reinterpret_cast<const uint8_t*>(w.data()), w.size(), static_cast<uint32_t>(w.size()),
                      Layout::kExpByte, "window " + std::to_string(k));
      elems += w.size();
    }
    EXPECT_TRUE(agg.run(40 * elems + 100000));
    EXPECT_TRUE(agg.finish());
  });
}

}  // namespace
}  // namespace ndp::tb
