// analyze_kv: sizes add up, the device image reads back bit-exact, the window transform helps on
// channel-structured data, and bad options are errors.
#include <gtest/gtest.h>

#ifdef NDP_MODEL_HAVE_IMAGE
#include <cmath>
#include <fstream>
#include <iterator>
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

  // Per-plane bytes add up to the device bytes less the index and table; the chosen base's device
  // column is the device image.
  uint64_t plane_stored = 0;
  for (const auto& [id, p] : a.total.planes) plane_stored += p.stored;
  EXPECT_EQ(a.total.planes.size(), 10u);  // KVBASE, sign, EXPBYTE, 7 mantissa planes
  EXPECT_LT(plane_stored, a.total.device);
  EXPECT_EQ(a.total.device_by_base[static_cast<int>(a.options.base)], a.total.device);
  // Every channel has its own scale here, so a per-channel base removes most of the exponent's
  // entropy: max and median far below the raw exponents (zero), min in between (the noise spreads it).
  const double raw_bits = a.total.exp_entropy(ndp::KvBase::kZero);
  EXPECT_LT(a.total.exp_entropy(ndp::KvBase::kMax), raw_bits - 1.5);
  EXPECT_LT(a.total.exp_entropy(ndp::KvBase::kMedian), raw_bits - 1.5);
  EXPECT_LT(a.total.exp_entropy(ndp::KvBase::kMax), a.total.exp_entropy(ndp::KvBase::kMin));
  EXPECT_LT(a.total.device_by_base[0], a.total.device_by_base[static_cast<int>(ndp::KvBase::kZero)]);
  EXPECT_GT(a.total.entropy_reference(ndp::KvBase::kMax), ndp::kv_ratio(a.total.raw, a.total.device_by_base[0]));

  const std::string j = ndp::kv_analysis_json(a);
  for (const char* key : {"\"lz4_token_major\"", "\"zstd_token_major\"", "\"lz4_window\"", "\"zstd_window\"",
                          "\"device\"", "\"total\"", "\"layers\"", "\"planes\"", "\"bases\"", "\"expbyte\"",
                          "\"exp_entropy_bits\"", "\"default_geometry\": true"})
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
  EXPECT_EQ(a.value().options.base, ndp::KvBase::kMax);  // auto: the layout's reference choice
  EXPECT_EQ(b.value().options.base, ndp::KvBase::kMin);
  EXPECT_EQ(a.value().total.raw, b.value().total.raw);
  EXPECT_EQ(a.value().total.lz4_token_major, b.value().total.lz4_token_major);  // independent of W/H
  EXPECT_NE(a.value().total.lz4_window, b.value().total.lz4_window);
}

// Incompressible data: the device image is never larger than the raw KV plus the metadata of
// docs/spec.md section 6 (per window: a KVBASE block of 12 + N bytes, 12 header bytes per plane
// block, an index entry of 8 + 4 x slots; per stream a tensor-table entry; one 64-byte file header).
TEST(KvAnalysis, NeverLargerThanRawPlusMetadata) {
  ndp::KvTrace t = channel_structured(200, 8, 4, 2, 4);
  std::mt19937 rng(5);
  for (auto& x : t.kv) x = static_cast<uint16_t>(rng());
  for (uint32_t window : {0u, 32u, 7u}) {
    ndp::KvAnalysisOptions o;
    o.window = window;
    auto r = ndp::analyze_kv(t, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const ndp::KvAnalysis& a = r.value();
    const uint64_t N = uint64_t{a.options.heads} * a.head_dim, slots = 1 + 9;  // KVBASE + bf16 expbyte planes
    const uint64_t windows_per_stream = (t.n_tokens + a.options.window - 1) / a.options.window;
    const uint64_t streams = uint64_t{t.n_layers} * 2 * (t.n_kv_heads / a.options.heads);
    const uint64_t bound = a.total.raw + streams * windows_per_stream * (12 * slots + N + 8 + 4 * slots) +
                           streams * 256 + 64;  // a table entry of these names is under 256 bytes
    EXPECT_LE(a.total.device, bound) << "W=" << a.options.window;
    EXPECT_GT(a.total.device, a.total.raw);  // random bits do not compress
  }
}

TEST(KvAnalysis, DefaultGeometryAndPlot) {
  const ndp::KvTrace t = channel_structured(300, 8, 4, 2, 6);
  auto r = ndp::analyze_kv(t, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.value().default_geometry);
  EXPECT_EQ(r.value().options.window, 128u);  // C = 8, 4 KV heads: H = 4, W = 4096 / 32
  EXPECT_EQ(r.value().options.heads, 4u);
  ndp::KvAnalysisOptions o;
  o.heads = 2;  // W follows H: 4096 / 16 = 256
  auto h2 = ndp::analyze_kv(t, o);
  ASSERT_TRUE(h2.ok());
  EXPECT_EQ(h2.value().options.window, 256u);
  EXPECT_FALSE(h2.value().default_geometry);
  const std::string path = ::testing::TempDir() + "kv_plot.svg";
  ASSERT_TRUE(ndp::write_kv_plot_svg(r.value(), path).ok());
  std::ifstream f(path);
  const std::string svg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find(">1V<"), std::string::npos);       // layer 1, V bar group
  EXPECT_NE(svg.find(">expbyte<"), std::string::npos);  // per-plane group
  EXPECT_FALSE(ndp::write_kv_plot_svg(r.value(), "/nonexistent-dir/x.svg").ok());
}

TEST(KvAnalysis, RejectsBadOptions) {
  const ndp::KvTrace t = channel_structured(16, 8, 4, 1, 3);
  ndp::KvAnalysisOptions o;
  o.heads = 3;  // does not divide 4
  EXPECT_FALSE(ndp::analyze_kv(t, o).ok());
  o = {};
  o.window = 65537;
  EXPECT_FALSE(ndp::analyze_kv(t, o).ok());
  o = {};
  o.base = static_cast<ndp::KvBase>(9);
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
