// kv_unwindow against the golden model (ndp::kv_window_inverse of ndp::kv_window_forward's
// windows) at three parameter points: random sequences of every mix with partial windows, random
// gaps on both input streams and output backpressure, a real stories260K KV cache, and full rate.
// Every restored element must equal what went into the window, bit for bit.
#include <gtest/gtest.h>

#include <cstdio>

#include "Vkv_unwindow_odd.h"
#include "Vkv_unwindow_ref.h"
#include "Vkv_unwindow_s260.h"
#include "kv_data.h"
#include "kv_env.h"
#include "tb_report.h"

namespace ndp::tb {
namespace {

uint64_t budget(const KvGeo& g, uint64_t tokens) { return 4 * uint64_t{g.P} * tokens * g.NB() + 100000; }

// Windows of a sequence; checks the golden inverse restores the sequence (the scoreboard then
// compares the DUT against that).
std::vector<KvGoldenWindow> windows_of(const KvGeo& g, const std::vector<uint16_t>& seq,
                                       KvBase base = KvBase::kMax) {
  auto win = kv_golden_windows(g, seq, base);
  EXPECT_EQ(kv_golden_inverse(g, win), seq);
  return win;
}

template <class M>
void random_windows(const KvGeo& g, double gap, double bp, KvBase base = KvBase::kMax) {
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x554e);
    KvUnwindowEnv<M> env(g, seed, fst, gap, bp);
    uint64_t tokens = 0;
    int s = 0;
    for (uint64_t len : {uint64_t{1}, uint64_t{g.W}, uint64_t{g.W + 1}, rng.range(2, 5 * g.W), uint64_t{3 * g.W}}) {
      for (KvMix mix : {KvMix::kKvLike, KvMix::kUniform, KvMix::kEqualExp, KvMix::kZeros, KvMix::kSpecials}) {
        if (rng.chance(0.5) && mix != KvMix::kKvLike) continue;
        env.push_windows(windows_of(g, kv_random(rng, len, g.N(), mix), base), "seq " + std::to_string(s++));
        tokens += len;
      }
    }
    EXPECT_TRUE(env.run(budget(g, tokens) * 4));
    EXPECT_TRUE(env.finish());
  });
}

TEST(KvUnwindow, RandomRef) { random_windows<Vkv_unwindow_ref>(kKvRef, 0.25, 0.3); }
TEST(KvUnwindow, RandomS260) { random_windows<Vkv_unwindow_s260>(kKvS260, 0.25, 0.3); }
TEST(KvUnwindow, RandomOdd) { random_windows<Vkv_unwindow_odd>(kKvOdd, 0.25, 0.3); }
TEST(KvUnwindow, RandomOddNoStalls) { random_windows<Vkv_unwindow_odd>(kKvOdd, 0.0, 0.0); }
// The decoder adds back whatever base is stored: windows made with every base choice.
TEST(KvUnwindow, RandomRefOtherBases) {
  for (KvBase b : {KvBase::kMin, KvBase::kMedian, KvBase::kZero}) random_windows<Vkv_unwindow_ref>(kKvRef, 0.25, 0.3, b);
}

template <class M>
void full_rate(const KvGeo& g, uint32_t windows) {
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xf1);
    for (double bp : {0.0, 0.3}) {
      KvUnwindowEnv<M> env(g, seed, fst, 0.0, bp);
      env.push_windows(windows_of(g, kv_random(rng, uint64_t{windows} * g.W, g.N(), KvMix::kKvLike)), "rate");
      EXPECT_TRUE(env.run(budget(g, uint64_t{windows} * g.W)));
      EXPECT_TRUE(env.finish());
      const KvRates& r = env.rates();
      std::printf("[rate] kv_unwindow %s (C=%u H=%u W=%u P=%u), backpressure %.1f: %llu cycles, in %.3f B/cycle, "
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

TEST(KvUnwindow, FullRateRef) { full_rate<Vkv_unwindow_ref>(kKvRef, 16); }
TEST(KvUnwindow, FullRateS260) { full_rate<Vkv_unwindow_s260>(kKvS260, 16); }

TEST(KvUnwindow, RealTraceStories260K) {
  const KvTrace* t = nullptr;
  std::string why;
  if (!stories_kv_trace(&t, &why)) GTEST_SKIP() << why;
  const uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    {  // one Verilator model alive at a time (Verilator 5.006 deadlocks destroying a second one)
      KvUnwindowEnv<Vkv_unwindow_s260> env(kKvS260, seed, fst, 0.2, 0.3);
      for (uint32_t l = 0; l < t->n_layers; ++l)
        for (uint32_t kind = 0; kind < 2; ++kind)
          env.push_windows(windows_of(kKvS260, kv_trace_group(*t, l, kind, 0, 4)),
                           "layer " + std::to_string(l) + (kind ? " V" : " K"));
      EXPECT_TRUE(env.run(budget(kKvS260, 10ull * t->n_tokens) * 2));
      EXPECT_TRUE(env.finish());
    }
    {
      KvUnwindowEnv<Vkv_unwindow_odd> odd(kKvOdd, seed, fst, 0.2, 0.2);
      for (uint32_t h = 0; h < t->n_kv_heads; ++h)
        odd.push_windows(windows_of(kKvOdd, kv_trace_group(*t, h % t->n_layers, h & 1, h, 1)),
                         "head " + std::to_string(h));
      EXPECT_TRUE(odd.run(budget(kKvOdd, 4ull * t->n_tokens) * 4));
      EXPECT_TRUE(odd.finish());
    }
  });
}

}  // namespace
}  // namespace ndp::tb
