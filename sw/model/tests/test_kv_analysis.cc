// analyze_kv: sizes add up, the device image reads back bit-exact, the window transform helps on
// channel-structured data, and bad options are errors.
#include <gtest/gtest.h>

#ifdef NDP_MODEL_HAVE_IMAGE
#include <cmath>
#include <random>

#include "ndp/convert.h"
#include "ndp/kv_analysis.h"
#include "ndp/test_seed.h"

namespace {

// KV-like data: every channel has its own scale (so exponents vary across channels within a token
// but little across tokens within a channel), values are noisy around it.
ndp::KvTrace channel_structured(uint32_t T, uint32_t C, uint32_t heads, uint32_t layers, uint32_t seed) {
  ndp::KvTrace t;
  t.n_layers = layers, t.n_kv_heads = heads, t.head_dim = C, t.n_tokens = T, t.n_heads = heads, t.dim = C * heads;
  t.model_name = "synthetic";
  t.tokens.assign(T, 1);
  t.kv.resize(t.streams() * t.stream_elems());
  std::mt19937 rng(static_cast<uint32_t>(ndp::testing::test_seed(seed)));
  std::normal_distribution<float> noise(1.0f, 0.2f);
  for (uint64_t s = 0; s < t.streams(); ++s) {
    std::vector<float> scale(C);
    for (auto& x : scale) x = std::ldexp(1.0f, static_cast<int>(rng() % 24) - 12);
    for (uint32_t tok = 0; tok < T; ++tok)
      for (uint32_t c = 0; c < C; ++c) {
        const float v = scale[c] * noise(rng) * ((rng() & 1) ? 1.0f : -1.0f);
        t.kv[s * t.stream_elems() + uint64_t{tok} * C + c] = ndp::fp32_to_bf16_rne(ndp::f32_bits(v));
      }
  }
  return t;
}

TEST(KvAnalysis, SizesAddUpAndImageReadsBack) {
  const ndp::KvTrace t = channel_structured(100, 64, 2, 3, 1);  // 100 tokens: a partial last window
  ndp::KvAnalysisOptions o;
  auto r = ndp::analyze_kv(t, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ndp::KvAnalysis& a = r.value();
  EXPECT_TRUE(a.verified);
  ASSERT_EQ(a.layers.size(), 3u);
  EXPECT_EQ(a.total.raw, 2 * t.kv.size());
  ndp::KvSizes sum;
  for (const auto& L : a.layers) {
    EXPECT_EQ(L.both.raw, L.k.raw + L.v.raw);
    EXPECT_EQ(L.both.zstd_window, L.k.zstd_window + L.v.zstd_window);
    sum.add(L.both);
  }
  EXPECT_EQ(sum.lz4_token_major, a.total.lz4_token_major);
  EXPECT_EQ(sum.zstd_window, a.total.zstd_window);
  EXPECT_EQ(a.total.device, sum.device + 64);  // the image file header
  // Every stored size is positive and bounded by raw plus headers.
  for (uint64_t v : {a.total.lz4_token_major, a.total.zstd_token_major, a.total.lz4_window, a.total.zstd_window})
    EXPECT_GT(v, 0u);
  EXPECT_LE(a.total.zstd_token_major, a.total.raw + 12 * (a.total.raw / 4096 + 2 * 3 * 2));
  // On this data the channel-major window with exponent deltas beats token-major bytes clearly.
  EXPECT_GT(ndp::kv_ratio(a.total.raw, a.total.zstd_window), 1.1 * ndp::kv_ratio(a.total.raw, a.total.zstd_token_major));
  EXPECT_GT(ndp::kv_ratio(a.total.raw, a.total.lz4_window), 1.1 * ndp::kv_ratio(a.total.raw, a.total.lz4_token_major));
  // The device image (auto codec) is at least as good as either single codec, minus index/table.
  EXPECT_LE(a.total.device, std::min(a.total.lz4_window, a.total.zstd_window) + 4096);

  const std::string j = ndp::kv_analysis_json(a);
  for (const char* key : {"\"lz4_token_major\"", "\"zstd_token_major\"", "\"lz4_window\"", "\"zstd_window\"",
                          "\"device\"", "\"total\"", "\"layers\""})
    EXPECT_NE(j.find(key), std::string::npos) << key;
  EXPECT_NE(ndp::kv_analysis_text(a).find("total"), std::string::npos);
}

TEST(KvAnalysis, HeadsPerWindowAndLayouts) {
  const ndp::KvTrace t = channel_structured(64, 8, 4, 1, 2);
  ndp::KvAnalysisOptions o;
  o.heads = 4;
  auto a = ndp::analyze_kv(t, o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a.value().verified);
  o.layout = ndp::Layout::kBitplane;
  o.heads = 2;
  o.window = 7;
  auto b = ndp::analyze_kv(t, o);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(b.value().verified);
  EXPECT_EQ(a.value().total.raw, b.value().total.raw);
  EXPECT_EQ(a.value().total.lz4_token_major, b.value().total.lz4_token_major);  // independent of W/H
  EXPECT_NE(a.value().total.lz4_window, b.value().total.lz4_window);
}

TEST(KvAnalysis, RejectsBadOptions) {
  const ndp::KvTrace t = channel_structured(16, 8, 4, 1, 3);
  ndp::KvAnalysisOptions o;
  o.heads = 3;  // does not divide 4
  EXPECT_FALSE(ndp::analyze_kv(t, o).ok());
  o = {};
  o.window = 0;
  EXPECT_FALSE(ndp::analyze_kv(t, o).ok());
  o = {};
  o.block_bytes = 10;
  EXPECT_FALSE(ndp::analyze_kv(t, o).ok());
  o = {};
  o.window = 4096;
  o.heads = 4;  // 4096 x 4 x 8 elements > 65536-byte EXPBYTE plane
  EXPECT_FALSE(ndp::analyze_kv(t, o).ok());
  ndp::KvTrace bad = t;
  bad.kv.pop_back();
  EXPECT_FALSE(ndp::analyze_kv(bad, {}).ok());
}

}  // namespace
#else
TEST(KvAnalysis, NeedsImageLibrary) { GTEST_SKIP() << "ndp_image is not built"; }
#endif
