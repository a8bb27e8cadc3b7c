// KV window streams in images (docs/spec.md section 6): exact token-major round trips, partial last
// windows, KVBASE first, regions.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ndp/image.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

// Token-major KV vectors: per channel a scale (so the channel-major delta exponents are small),
// with occasional zeros, subnormals and Inf/NaN.
std::vector<uint16_t> kv_data(DType t, uint64_t tokens, const KvGeometry& g, uint32_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(ndp::testing::test_seed(seed)));
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const uint64_t per = uint64_t{g.channels} * g.heads;
  std::vector<float> scale(per);
  for (auto& s : scale) s = std::ldexp(1.0f, static_cast<int>(rng() % 10) - 6);
  std::vector<uint16_t> v(tokens * per);
  for (uint64_t i = 0; i < v.size(); ++i) {
    const float f = nd(rng) * scale[i % per];
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint16_t h;
    if (t == DType::kBF16) {
      h = static_cast<uint16_t>(u >> 16);
    } else {
      const int e = static_cast<int>((u >> 23) & 0xFF) - 127 + 15;
      h = static_cast<uint16_t>(((u >> 16) & 0x8000) | (e <= 0 ? 0 : e >= 31 ? 0x7BFF : (e << 10) | ((u >> 13) & 0x3FF)));
    }
    const uint32_t r = rng();
    if (r % 1009 == 0) h = 0;
    if (r % 2003 == 0) h = t == DType::kBF16 ? 0x7F80 : 0x7C00;
    if (r % 3001 == 0) h = t == DType::kBF16 ? 0x7FC1 : 0x7E01;
    if (r % 4001 == 0) h = 0x0003;
    v[i] = h;
  }
  return v;
}

TEST(ImageKv, RoundTripExactWithPartialWindows) {
  uint32_t seed = 1;
  for (DType t : {DType::kBF16, DType::kFP16})
    for (Layout l : {Layout::kExpByte, Layout::kBitplane})
      for (const KvGeometry& g : {KvGeometry{32, 128, 1}, KvGeometry{16, 64, 2}, KvGeometry{5, 24, 3}})
        for (uint64_t tokens : {uint64_t{1}, uint64_t{g.window}, uint64_t{g.window} * 3 + 7, uint64_t{100}}) {
          auto d = kv_data(t, tokens, g, ++seed);
          ImageWriter w;
          Status st = w.add_kv_stream("kv", t, g, d.data(), tokens, {0, l, CodecPolicy::kAuto});
          ASSERT_TRUE(st.ok()) << st.message();
          const TensorStats& s = w.stats()[0];
          EXPECT_EQ(s.planes[0].plane_id, kPlaneKvBase);
          auto img = w.finish();
          ASSERT_TRUE(img.ok());
          auto r = ImageReader::open_bytes(std::move(img.value()));
          ASSERT_TRUE(r.ok()) << r.status().message();
          const TensorInfo& ti = r.value()->tensors()[0];
          EXPECT_EQ(ti.kind, TensorKind::kKvStream);
          EXPECT_EQ(ti.tokens(), tokens);
          EXPECT_EQ(ti.chunks, (tokens + g.window - 1) / g.window);
          EXPECT_EQ(ti.last_window_tokens, tokens - (ti.chunks - 1) * g.window);
          EXPECT_EQ(ti.plane_ids[0], kPlaneKvBase);
          std::vector<uint8_t> back;
          st = r.value()->read_tensor(0, back);
          ASSERT_TRUE(st.ok()) << st.message();
          ASSERT_EQ(back.size(), d.size() * 2);
          ASSERT_EQ(std::memcmp(back.data(), d.data(), back.size()), 0)
              << dtype_info(t).name << " W=" << g.window << " C=" << g.channels << " H=" << g.heads
              << " tokens=" << tokens;
          EXPECT_TRUE(r.value()->verify().empty());
        }
}

TEST(ImageKv, RegionOverWindows) {
  const KvGeometry g{32, 128, 1};
  const uint64_t tokens = 32 * 4 + 8;
  auto d = kv_data(DType::kBF16, tokens, g, 77);
  ImageWriter w;
  ASSERT_TRUE(w.add_kv_stream("k", DType::kBF16, g, d.data(), tokens).ok());
  auto r = ImageReader::open_bytes(w.finish().value());
  ASSERT_TRUE(r.ok());
  for (const char* name : {"e8m3", "fp8-e4m3", "mxfp4"}) {
    auto reg = parse_region(name, DType::kBF16, 1);
    ASSERT_TRUE(reg.ok());
    std::vector<uint8_t> out;
    ReadStats rs;
    ASSERT_TRUE(r.value()->read_region(0, reg.value(), out, &rs).ok());
    // Reference: token-major values with the unfetched mantissa bits cleared.
    const auto planes = region_planes(reg.value(), DType::kBF16, Layout::kExpByte);
    uint16_t keep = 0xFF80;
    for (uint8_t id : planes)
      if (id < 7) keep = static_cast<uint16_t>(keep | (1u << id));
    std::vector<uint16_t> view = d;
    for (auto& x : view) x &= keep;
    std::vector<uint8_t> ref(region_output_bytes(reg.value(), DType::kBF16, d.size()));
    ASSERT_TRUE(assemble_region(reg.value(), DType::kBF16, reinterpret_cast<const uint8_t*>(view.data()),
                                d.size(), ref.data()).ok());
    EXPECT_EQ(out, ref) << name;
    EXPECT_LT(rs.fetched_bytes, r.value()->tensors()[0].stored_bytes);
  }
}

TEST(ImageKv, RejectsBadGeometry) {
  std::vector<uint16_t> d(1024, 0x3F80);
  ImageWriter w;
  EXPECT_FALSE(w.add_kv_stream("a", DType::kBF16, {0, 8, 1}, d.data(), 8).ok());
  EXPECT_FALSE(w.add_kv_stream("a", DType::kBF16, {8, 8, 1}, d.data(), 0).ok());
  EXPECT_FALSE(w.add_kv_stream("a", DType::kFP32, {8, 8, 1}, d.data(), 8).ok());
  EXPECT_FALSE(w.add_kv_stream("a", DType::kBF16, {1024, 128, 1}, d.data(), 8).ok());  // 128K-byte plane
  EXPECT_TRUE(w.add_kv_stream("a", DType::kBF16, {8, 8, 2}, d.data(), 64).ok());
}

}  // namespace
}  // namespace ndp
