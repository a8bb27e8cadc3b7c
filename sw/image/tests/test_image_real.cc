// Device ratio of real BF16 weights (FP32 -> BF16 RNE) against the exponent-entropy reference
// 16 / (1 + 7 + H), H = zeroth-order entropy of the exponent byte over the whole set.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "ndp/image.h"
#include "real_data.h"

namespace ndp {
namespace {

struct Measured {
  double device_ratio = 0, reference = 0, entropy = 0;
  uint64_t raw = 0, image = 0;
};

Measured build_and_check(const std::vector<testdata::NamedTensor>& ts, const char* label) {
  Measured m;
  uint64_t hist[256] = {0}, n = 0;
  ImageWriter w;
  for (const auto& t : ts) {
    for (uint16_t x : t.bf16) hist[(x >> 7) & 0xFF]++;
    n += t.bf16.size();
    Status st = w.add_tensor(t.name, DType::kBF16, t.shape, reinterpret_cast<const uint8_t*>(t.bf16.data()),
                             2 * t.bf16.size());
    EXPECT_TRUE(st.ok()) << st.message();
  }
  for (uint64_t c : hist)
    if (c) m.entropy -= static_cast<double>(c) / static_cast<double>(n) * std::log2(static_cast<double>(c) / static_cast<double>(n));
  m.reference = 16.0 / (1 + 7 + m.entropy);
  // Per plane id over all tensors: raw -> stored bytes (headers included) and codec mix.
  std::map<int, PlaneStats> per;
  for (const TensorStats& s : w.stats())
    for (const PlaneStats& p : s.planes) {
      PlaneStats& a = per[p.plane_id];
      a.plane_id = p.plane_id;
      a.blocks += p.blocks;
      a.raw_bytes += p.raw_bytes;
      a.stored_bytes += p.stored_bytes;
      a.huffman_blocks += p.huffman_blocks;
      for (int c = 0; c < 4; ++c) a.codec_blocks[c] += p.codec_blocks[c];
    }
  for (auto it = per.rbegin(); it != per.rend(); ++it) {
    const PlaneStats& a = it->second;
    std::printf("  %s plane 0x%02x: %6llu blocks, %9llu -> %9llu B (x%.3f), raw/const/lz4/zstd blocks "
                "%llu/%llu/%llu/%llu, Huffman frames %llu\n",
                label, a.plane_id, static_cast<unsigned long long>(a.blocks),
                static_cast<unsigned long long>(a.raw_bytes), static_cast<unsigned long long>(a.stored_bytes),
                static_cast<double>(a.raw_bytes) / static_cast<double>(a.stored_bytes),
                static_cast<unsigned long long>(a.codec_blocks[0]), static_cast<unsigned long long>(a.codec_blocks[1]),
                static_cast<unsigned long long>(a.codec_blocks[2]), static_cast<unsigned long long>(a.codec_blocks[3]),
                static_cast<unsigned long long>(a.huffman_blocks));
  }
  m.raw = 2 * n;
  auto img = w.finish();
  EXPECT_TRUE(img.ok());
  m.image = img->size();
  m.device_ratio = static_cast<double>(m.raw) / static_cast<double>(m.image);
  // Read everything back bit-exact.
  auto r = ImageReader::open_bytes(std::move(img.value()));
  EXPECT_TRUE(r.ok()) << r.status().message();
  for (size_t i = 0; i < ts.size(); ++i) {
    std::vector<uint8_t> out;
    Status st = r.value()->read_tensor(i, out);
    EXPECT_TRUE(st.ok()) << ts[i].name << ": " << st.message();
    // Sizes first: a short (or empty) output must not pass a memcmp over its own length.
    const size_t want = 2 * ts[i].bf16.size();
    EXPECT_EQ(out.size(), want) << ts[i].name;
    EXPECT_TRUE(out.size() == want && std::memcmp(out.data(), ts[i].bf16.data(), want) == 0) << ts[i].name;
  }
  std::printf("%s: %zu tensors, %llu elements, raw %llu B, image %llu B: device ratio %.4f; exponent "
              "entropy H = %.4f bits, reference 16/(8+H) = %.4f; device/reference = %.2f%%\n",
              label, ts.size(), static_cast<unsigned long long>(n), static_cast<unsigned long long>(m.raw),
              static_cast<unsigned long long>(m.image), m.device_ratio, m.entropy, m.reference,
              100.0 * m.device_ratio / m.reference);
  return m;
}

TEST(ImageReal, Gpt2AttentionDeviceRatioReachesEntropyReference) {
  std::string why;
  auto ts = testdata::load_gpt2_attention(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  const Measured m = build_and_check(ts, "gpt2-attn");
  EXPECT_GE(m.device_ratio, 0.99 * m.reference);
}

TEST(ImageReal, Stories260kDeviceRatio) {
  std::string why;
  auto ts = testdata::load_stories260k(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  const Measured m = build_and_check(ts, "stories260K");
  // Small model: 13 tensors, several of 64..320 elements whose fixed costs weigh more.
  EXPECT_GE(m.device_ratio, 0.98 * m.reference);
}

TEST(ImageReal, Stories260kEveryPolicyLayoutAndDtype) {
  std::string why;
  auto ts = testdata::load_stories260k(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  for (DType t : {DType::kBF16, DType::kFP32})
    for (Layout l : {Layout::kExpByte, Layout::kBitplane})
      for (CodecPolicy pol : {CodecPolicy::kAuto, CodecPolicy::kLz4, CodecPolicy::kZstd, CodecPolicy::kRaw}) {
        ImageWriter w;
        std::vector<std::vector<uint8_t>> src;
        for (const auto& x : ts) {
          const uint8_t* p = t == DType::kBF16 ? reinterpret_cast<const uint8_t*>(x.bf16.data())
                                               : reinterpret_cast<const uint8_t*>(x.fp32.data());
          src.emplace_back(p, p + dtype_bytes(t, x.fp32.size()));
          Status st = w.add_tensor(x.name, t, x.shape, src.back().data(), src.back().size(), {16384, l, pol});
          ASSERT_TRUE(st.ok()) << st.message();
        }
        auto r = ImageReader::open_bytes(w.finish().value());
        ASSERT_TRUE(r.ok()) << r.status().message();
        for (size_t i = 0; i < ts.size(); ++i) {
          std::vector<uint8_t> out;
          ASSERT_TRUE(r.value()->read_tensor(i, out).ok());
          ASSERT_EQ(out, src[i]) << ts[i].name << " " << dtype_info(t).name << " layout " << int(l);
        }
      }
}

}  // namespace
}  // namespace ndp
