// Quantized bases (ndp/quantize.h): the scalar conversions against brute-force nearest-value
// searches, and quantize_model's FP8 per-tensor and INT8/INT4 per-group results against their
// definitions (scales, error bounds, packing, which tensors are touched).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ndp/convert.h"
#include "ndp/quantize.h"

namespace ndp {
namespace {

uint64_t test_seed() {
  const char* s = std::getenv("NDP_SEED");
  const uint64_t seed = s ? std::strtoull(s, nullptr, 0) : 20240611;
  std::printf("[seed] NDP_SEED=%llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

// Nearest finite code by exhaustive search over `codes` (values from `value`), ties to the even code,
// magnitudes beyond the largest finite value saturate (E4M3) - the definition, not the algorithm.
template <class Value>
uint32_t brute_nearest(double x, uint32_t codes, Value value, uint32_t sign_bit) {
  const double a = std::fabs(x);
  uint32_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (uint32_t c = 0; c < codes; ++c) {
    const double v = value(c);
    if (!std::isfinite(v)) continue;
    const double d = std::fabs(v - a);
    if (d < best_d || (d == best_d && (c & 1) == 0)) best = c, best_d = d;
  }
  return (std::signbit(x) ? sign_bit : 0) | best;
}

TEST(Quantize, E4m3MatchesBruteForceNearestEven) {
  std::mt19937_64 rng(test_seed());
  auto value = [](uint32_t c) { return static_cast<double>(e4m3_to_fp32(static_cast<uint8_t>(c))); };
  // Every code round-trips; every midpoint between neighbours goes to the even code.
  for (uint32_t c = 0; c < 0x7F; ++c) {
    EXPECT_EQ(fp32_to_e4m3_sat(e4m3_to_fp32(static_cast<uint8_t>(c))), c);
    EXPECT_EQ(fp32_to_e4m3_sat(-e4m3_to_fp32(static_cast<uint8_t>(c))), c | 0x80);
    if (c + 1 < 0x7F) {
      const float mid = static_cast<float>((value(c) + value(c + 1)) / 2);
      EXPECT_EQ(fp32_to_e4m3_sat(mid), (c & 1) ? c + 1 : c) << "midpoint after code " << c;
    }
  }
  std::uniform_real_distribution<double> lg(-14, 10);
  for (int i = 0; i < 20000; ++i) {
    const float x = static_cast<float>(std::exp2(lg(rng)) * ((rng() & 1) ? -1 : 1));
    ASSERT_EQ(fp32_to_e4m3_sat(x), brute_nearest(x, 0x7F, value, 0x80)) << x;
  }
  EXPECT_EQ(fp32_to_e4m3_sat(448.0f), 0x7E);
  EXPECT_EQ(fp32_to_e4m3_sat(1e9f), 0x7E);  // saturates
  EXPECT_EQ(fp32_to_e4m3_sat(-INFINITY), 0xFE);
  EXPECT_EQ(fp32_to_e4m3_sat(NAN), 0x7F);
  EXPECT_EQ(fp32_to_e4m3_sat(-0.0f), 0x80);
  EXPECT_EQ(fp32_to_e4m3_sat(std::ldexp(1.0f, -10)), 0x00);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(fp32_to_e4m3_sat(std::ldexp(1.5f, -10)), 0x01);
  EXPECT_TRUE(std::isnan(e4m3_to_fp32(0x7F)));
}

TEST(Quantize, Fp16MatchesBruteForceNearestEven) {
  std::mt19937_64 rng(test_seed() + 1);
  auto value = [](uint32_t c) { return static_cast<double>(bits_f32(fp16_to_fp32(static_cast<uint16_t>(c)))); };
  std::uniform_real_distribution<double> lg(-26, 17);
  for (int i = 0; i < 1500; ++i) {
    const float x = static_cast<float>(std::exp2(lg(rng)) * ((rng() & 1) ? -1 : 1));
    if (std::fabs(x) > 65504) continue;  // beyond the largest finite value: infinity, checked below
    ASSERT_EQ(fp32_to_fp16_rne(x), brute_nearest(x, 0x7C00, value, 0x8000)) << x;
  }
  for (uint32_t c = 0; c < 0x7C00; c += 37) EXPECT_EQ(fp32_to_fp16_rne(static_cast<float>(value(c))), c);
  EXPECT_EQ(fp32_to_fp16_rne(65520.0f), 0x7C00);  // rounds past 65504: infinity
  EXPECT_EQ(fp32_to_fp16_rne(-1e10f), 0xFC00);
  EXPECT_EQ(fp32_to_fp16_rne(NAN) & 0x7C00, 0x7C00);
}

Tensor f32_tensor(const std::string& name, std::vector<uint64_t> shape, const std::vector<float>& v) {
  Tensor t{name, DType::kFP32, std::move(shape), v.size(), std::vector<uint8_t>(4 * v.size())};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

Model small_model(std::mt19937_64& rng) {
  std::normal_distribution<float> n(0.0f, 0.05f);
  std::vector<float> w(4 * 300), norm(300), emb(16 * 8);
  for (auto& x : w) x = n(rng);
  for (int i = 0; i < 128; ++i) w[300 + i] = 0.0f;  // row 1, group 0: all zero
  w[7] = 1.25f;                                      // the tensor's largest magnitude
  for (auto& x : norm) x = 1.0f + n(rng);
  for (auto& x : emb) x = n(rng);
  Model m;
  m.tensors.push_back(f32_tensor("tok_embeddings.weight", {16, 8}, emb));
  m.tensors.push_back(f32_tensor("layers.0.attention.wq.weight", {4, 300}, w));
  m.tensors.push_back(f32_tensor("layers.0.attention_norm.weight", {300}, norm));
  return m;
}

float f32_at(const Tensor& t, uint64_t i) {
  float f;
  std::memcpy(&f, t.data.data() + 4 * i, 4);
  return f;
}

TEST(Quantize, Fp8PerTensorScale) {
  std::mt19937_64 rng(test_seed() + 2);
  Model m = small_model(rng);
  const Tensor w = m.tensors[1];
  ASSERT_TRUE(quantize_model(m, {DType::kFP8E4M3, 128}).ok());
  ASSERT_EQ(m.tensors.size(), 4u);  // embedding, weight, its scale, norm
  EXPECT_EQ(m.tensors[0].dtype, DType::kBF16);  // embeddings stay in 16 bits
  EXPECT_EQ(m.tensors[3].dtype, DType::kBF16);  // norms too
  const Tensor& q = m.tensors[1];
  const Tensor& s = m.tensors[2];
  ASSERT_EQ(q.dtype, DType::kFP8E4M3);
  ASSERT_EQ(q.data.size(), 1200u);
  EXPECT_EQ(s.name, "layers.0.attention.wq.weight_scale");
  ASSERT_EQ(s.dtype, DType::kFP32);
  const float scale = f32_at(s, 0);
  EXPECT_FLOAT_EQ(scale, 1.25f / 448.0f);
  EXPECT_EQ(q.data[7], 0x7E);  // the amax element is 448 exactly
  for (uint64_t i = 0; i < w.elements; ++i)
    ASSERT_EQ(q.data[i], fp32_to_e4m3_sat(f32_at(w, i) / scale)) << i;
}

TEST(Quantize, IntPerGroupSymmetric) {
  for (DType target : {DType::kINT8, DType::kINT4}) {
    std::mt19937_64 rng(test_seed() + 3);
    Model m = small_model(rng);
    const Tensor w = m.tensors[1];
    ASSERT_TRUE(quantize_model(m, {target, 128}).ok());
    const Tensor& q = m.tensors[1];
    const Tensor& s = m.tensors[2];
    const int qmax = target == DType::kINT8 ? 127 : 7;
    ASSERT_EQ(q.dtype, target);
    ASSERT_EQ(q.data.size(), target == DType::kINT8 ? 1200u : 600u);
    ASSERT_EQ(s.dtype, DType::kFP16);
    ASSERT_EQ(s.shape, (std::vector<uint64_t>{4, 3}));  // 300 = 128 + 128 + 44 per row
    for (uint64_t r = 0; r < 4; ++r)
      for (uint64_t g = 0; g < 3; ++g) {
        uint16_t h;
        std::memcpy(&h, s.data.data() + 2 * (r * 3 + g), 2);
        const float sc = bits_f32(fp16_to_fp32(h));
        const uint64_t first = r * 300 + g * 128, n = g == 2 ? 44 : 128;
        float amax = 0;
        int qabs = 0;
        for (uint64_t i = 0; i < n; ++i) {
          const uint64_t k = first + i;
          int v = target == DType::kINT8 ? static_cast<int8_t>(q.data[k])
                                         : static_cast<int8_t>(((q.data[k / 2] >> (4 * (k & 1))) & 0xF) << 4) >> 4;
          amax = std::max(amax, std::fabs(f32_at(w, k)));
          qabs = std::max(qabs, std::abs(v));
          ASSERT_LE(std::abs(v), qmax);
          if (sc > 0) ASSERT_LE(std::fabs(f32_at(w, k) - v * sc), sc * 0.5f * (1 + 1e-3f)) << r << " " << g << " " << i;
          else ASSERT_EQ(v, 0);
        }
        if (r == 1 && g == 0) EXPECT_EQ(h, 0) << "all-zero group";
        else EXPECT_EQ(qabs, qmax) << "the group's largest element reaches qmax";
        EXPECT_EQ(h, fp32_to_fp16_rne(amax / static_cast<float>(qmax)));
      }
  }
}

TEST(Quantize, TargetsAndErrors) {
  EXPECT_EQ(parse_quantize_target("fp8-e4m3").value(), DType::kFP8E4M3);
  EXPECT_EQ(parse_quantize_target("int4").value(), DType::kINT4);
  EXPECT_FALSE(parse_quantize_target("fp8-e5m2").ok());
  Model m;
  EXPECT_FALSE(quantize_model(m, {DType::kFP16, 128}).ok());
  EXPECT_FALSE(quantize_model(m, {DType::kINT8, 0}).ok());
  // bf16: everything floating becomes BF16, nothing is added.
  std::mt19937_64 rng(5);
  Model b = small_model(rng);
  ASSERT_TRUE(quantize_model(b, {DType::kBF16, 128}).ok());
  ASSERT_EQ(b.tensors.size(), 3u);
  for (const Tensor& t : b.tensors) EXPECT_EQ(t.dtype, DType::kBF16);
}

}  // namespace
}  // namespace ndp
