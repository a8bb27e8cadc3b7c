// KV window transform (docs/spec.md section 6): channel-major order, base exponents and deltas
// against a direct element-by-element reference, and bit-exact inverse on adversarial data.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ndp/kv.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

struct Field {
  int shift;
  uint32_t mask;
};
Field field_of(DType t) { return t == DType::kBF16 ? Field{7, 0xFF} : Field{10, 0x1F}; }

// Direct reading of section 6, one element at a time, with the base chosen per `choice`.
void reference_forward(DType t, const KvGeometry& g, uint32_t w, const std::vector<uint16_t>& tm,
                       std::vector<uint16_t>& cm, std::vector<uint8_t>& base, KvBase choice) {
  const Field f = field_of(t);
  const uint32_t C = g.channels, H = g.heads;
  cm.assign(size_t{w} * C * H, 0);
  base.assign(size_t{C} * H, 0);
  for (uint32_t h = 0; h < H; ++h)
    for (uint32_t c = 0; c < C; ++c) {
      auto at = [&](uint32_t tok) { return tm[(size_t{tok} * H + h) * C + c]; };  // [t][h][c]
      std::vector<uint32_t> e;
      for (uint32_t tok = 0; tok < w; ++tok) e.push_back((at(tok) >> f.shift) & f.mask);
      std::sort(e.begin(), e.end());
      uint32_t b = 0;
      if (choice == KvBase::kMin) b = e.front();
      if (choice == KvBase::kMax) b = e.back();
      if (choice == KvBase::kMedian) b = e[(w + 1) / 2 - 1];  // the ceil(w/2)-th smallest
      base[size_t{h} * C + c] = static_cast<uint8_t>(b);
      for (uint32_t tok = 0; tok < w; ++tok) {
        const uint32_t x = at(tok);
        const uint32_t ex = (x >> f.shift) & f.mask;
        const uint32_t delta = (ex - b) & f.mask;  // mod 2^E
        cm[(size_t{h} * C + c) * w + tok] =
            static_cast<uint16_t>((x & ~(f.mask << f.shift)) | delta << f.shift);
      }
    }
}

// Adversarial element mix: zeros, subnormals, NaN/Inf, normals with wide exponents.
uint16_t random_value(DType t, std::mt19937_64& rng) {
  const Field f = field_of(t);
  const uint16_t sign = (rng() & 1) ? 0x8000 : 0;
  const uint16_t man = static_cast<uint16_t>(rng() & ((1u << f.shift) - 1));
  switch (rng() % 8) {
    case 0: return sign;                                                            // +-0
    case 1: return sign | man;                                                      // subnormal
    case 2: return static_cast<uint16_t>(sign | f.mask << f.shift | (rng() % 2 ? man : 0));  // NaN/Inf
    default: return static_cast<uint16_t>(sign | (rng() % f.mask) << f.shift | man);
  }
}

void check_window(DType t, const KvGeometry& g, uint32_t w, const std::vector<uint16_t>& tm, const std::string& what) {
  for (int b = 0; b < kKvBaseCount; ++b) {
    const KvBase choice = static_cast<KvBase>(b);
    SCOPED_TRACE(what + " " + dtype_info(t).name + " W=" + std::to_string(g.window) + " C=" + std::to_string(g.channels) +
                 " H=" + std::to_string(g.heads) + " w=" + std::to_string(w) + " base " + kv_base_name(choice));
    ASSERT_TRUE(kv_window_check(t, g, w).ok());
    std::vector<uint16_t> cm(tm.size() + 4, 0xDEAD), want_cm, back(tm.size() + 4, 0xBEEF);
    std::vector<uint8_t> base(size_t{g.channels} * g.heads + 4, 0xAA), want_base;
    kv_window_forward(t, g, w, tm.data(), cm.data(), base.data(), choice);
    reference_forward(t, g, w, tm, want_cm, want_base, choice);
    ASSERT_EQ(std::vector<uint16_t>(cm.begin(), cm.begin() + tm.size()), want_cm);
    ASSERT_EQ(std::vector<uint8_t>(base.begin(), base.begin() + want_base.size()), want_base);
    for (size_t i = tm.size(); i < cm.size(); ++i) ASSERT_EQ(cm[i], 0xDEAD) << "overrun";
    for (size_t i = want_base.size(); i < base.size(); ++i) ASSERT_EQ(base[i], 0xAA) << "overrun";
    kv_window_inverse(t, g, w, cm.data(), base.data(), back.data());
    ASSERT_EQ(std::vector<uint16_t>(back.begin(), back.begin() + tm.size()), tm);
    for (size_t i = tm.size(); i < back.size(); ++i) ASSERT_EQ(back[i], 0xBEEF) << "overrun";
  }
}

TEST(KvWindow, RandomWindowsPartialAndMultiHead) {
  std::mt19937_64 rng(ndp::testing::test_seed(99));
  const KvGeometry geoms[] = {{32, 128, 1}, {32, 64, 4}, {8, 3, 2}, {1, 5, 1}, {17, 16, 3}};
  for (DType t : {DType::kBF16, DType::kFP16})
    for (const KvGeometry& g : geoms)
      for (uint32_t w : {g.window, (g.window + 1) / 2, 1u}) {
        std::vector<uint16_t> tm(size_t{w} * g.channels * g.heads);
        for (auto& x : tm) x = random_value(t, rng);
        check_window(t, g, w, tm, "random");
        if (HasFatalFailure()) return;
      }
}

TEST(KvWindow, DirectedWindows) {
  const KvGeometry g{16, 8, 2};
  for (DType t : {DType::kBF16, DType::kFP16}) {
    const Field f = field_of(t);
    const size_t n = size_t{16} * 8 * 2;
    check_window(t, g, 16, std::vector<uint16_t>(n, 0), "all zero");
    check_window(t, g, 16, std::vector<uint16_t>(n, 0x8000), "all -0");
    std::vector<uint16_t> same(n);
    std::mt19937_64 rng(ndp::testing::test_seed(5));
    for (auto& x : same) x = static_cast<uint16_t>((rng() & 0x8000) | 13u << f.shift | (rng() & ((1u << f.shift) - 1)));
    check_window(t, g, 16, same, "all-equal exponents");
    std::vector<uint16_t> specials(n);
    for (size_t i = 0; i < n; ++i)
      specials[i] = static_cast<uint16_t>(f.mask << f.shift | (i % 3 == 0 ? 1 : 0) | (i % 2 ? 0x8000 : 0));
    check_window(t, g, 16, specials, "NaN/Inf only");
    std::vector<uint16_t> wrap(n);  // one zero and one Inf per channel: delta spans the whole field
    for (size_t i = 0; i < n; ++i) wrap[i] = static_cast<uint16_t>(i < n / 2 ? 0x0001 : f.mask << f.shift);
    check_window(t, g, 16, wrap, "zero/Inf spread");
  }
  // All-equal exponents give all-zero deltas and base = that exponent.
  std::vector<uint16_t> tm(4 * 2, 0x3F80), cm(8);
  std::vector<uint8_t> base(2);
  kv_window_forward(DType::kBF16, KvGeometry{4, 2, 1}, 4, tm.data(), cm.data(), base.data());
  EXPECT_EQ(base, (std::vector<uint8_t>{127, 127}));
  for (uint16_t x : cm) EXPECT_EQ(x, 0);
}

TEST(KvWindow, TinyHandChecked) {
  // W = 2 tokens, C = 2, H = 2 (bf16): token-major [t][h][c] -> channel-major [h][c][t].
  const uint16_t tm[] = {
      0x3F80, 0x4000, 0xC040, 0x0000,  // t0: h0c0=1.0 h0c1=2.0 h1c0=-3.0 h1c1=0
      0x4080, 0x3F00, 0x7F80, 0x0001,  // t1: h0c0=4.0 h0c1=0.5 h1c0=Inf  h1c1=subnormal
  };
  uint16_t cm[8];
  uint8_t base[4];
  kv_window_forward(DType::kBF16, KvGeometry{2, 2, 2}, 2, tm, cm, base, KvBase::kMin);
  EXPECT_EQ(base[0], 127);  // min(127, 129)
  EXPECT_EQ(base[1], 126);  // min(128, 126)
  EXPECT_EQ(base[2], 128);  // min(128, 255)
  EXPECT_EQ(base[3], 0);
  const uint16_t want[] = {0x0000, 0x0100, 0x0100, 0x0000, 0x8040, 0x3F80, 0x0000, 0x0001};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(cm[i], want[i]) << i;
  // FP16: 5-bit exponent, delta mod 32 (NaN e = 31 minus base 1 = 30).
  const uint16_t th[] = {0x0400, 0x7E00};  // W = 2, C = 1: 2^-14, NaN
  uint16_t ch[2];
  uint8_t bh[1];
  kv_window_forward(DType::kFP16, KvGeometry{2, 1, 1}, 2, th, ch, bh, KvBase::kMin);
  EXPECT_EQ(bh[0], 1);
  EXPECT_EQ(ch[0], 0x0000);
  EXPECT_EQ(ch[1], (30u << 10) | 0x200);
  // Base max: Inf counts as 255, so -3.0 in that channel gets delta (128 - 255) mod 256 = 129.
  kv_window_forward(DType::kBF16, KvGeometry{2, 2, 2}, 2, tm, cm, base, KvBase::kMax);
  EXPECT_EQ(base[0], 129);  // max(127, 129)
  EXPECT_EQ(base[1], 128);  // max(128, 126)
  EXPECT_EQ(base[2], 255);  // max(128, 255)
  EXPECT_EQ(base[3], 0);
  const uint16_t want_max[] = {0x7F00, 0x0000, 0x0000, 0x7F00, 0xC0C0, 0x0000, 0x0000, 0x0001};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(cm[i], want_max[i]) << i;
  // Median of two tokens is the smaller (ceil(2/2) = 1st smallest); zero keeps the exponents.
  kv_window_forward(DType::kBF16, KvGeometry{2, 2, 2}, 2, tm, cm, base, KvBase::kMedian);
  EXPECT_EQ(base[0], 127);
  EXPECT_EQ(base[2], 128);
  kv_window_forward(DType::kBF16, KvGeometry{2, 2, 2}, 2, tm, cm, base, KvBase::kZero);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(base[i], 0);
  const uint16_t want_zero[] = {0x3F80, 0x4080, 0x4000, 0x3F00, 0xC040, 0x7F80, 0x0000, 0x0001};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(cm[i], want_zero[i]) << i;
}

TEST(KvWindow, BaseNamesAndDefaultGeometry) {
  for (int b = 0; b <= kKvBaseCount; ++b) {  // the four choices and auto
    KvBase back = KvBase::kMin;
    ASSERT_TRUE(kv_base_from_name(kv_base_name(static_cast<KvBase>(b)), &back));
    EXPECT_EQ(static_cast<int>(back), b);
  }
  KvBase x = KvBase::kMax;
  EXPECT_FALSE(kv_base_from_name("mean", &x));
  EXPECT_EQ(kv_reference_base(Layout::kExpByte), KvBase::kMax);
  EXPECT_EQ(kv_reference_base(Layout::kBitplane), KvBase::kMin);
  EXPECT_EQ(kv_resolve_base(KvBase::kAuto, Layout::kBitplane), KvBase::kMin);
  EXPECT_EQ(kv_resolve_base(KvBase::kMedian, Layout::kBitplane), KvBase::kMedian);
  // LLaMA-class head size 128: one head, W = 32 (the paper's point, 4096 elements).
  const KvGeometry llama = kv_default_geometry(128, 8);
  EXPECT_EQ(llama.window, 32u);
  EXPECT_EQ(llama.heads, 1u);
  EXPECT_EQ(llama.channels, 128u);
  // stories260K: head size 8, 4 KV heads -> all four heads (32 channels), W = 128.
  const KvGeometry s260 = kv_default_geometry(8, 4);
  EXPECT_EQ(s260.window, 128u);
  EXPECT_EQ(s260.heads, 4u);
  // Head size 64 with 8 KV heads: two heads reach 128 channels, W = 32.
  EXPECT_EQ(kv_default_geometry(64, 8).heads, 2u);
  EXPECT_EQ(kv_default_geometry(64, 8).window, 32u);
  // 3 KV heads of 32 channels: the divisors are 1 and 3 -> H = 3 (96 channels), W = ceil(4096/96) = 43 -> 48.
  EXPECT_EQ(kv_default_geometry(32, 3).heads, 3u);
  EXPECT_EQ(kv_default_geometry(32, 3).window, 48u);
  // Windows are at least 4096 elements (or 32 tokens) for every shape; inputs of 0 count as 1.
  for (uint32_t c : {0u, 1u, 8u, 48u, 80u, 96u, 128u, 256u})
    for (uint32_t kv : {0u, 1u, 2u, 4u, 5u, 8u, 32u}) {
      const KvGeometry g = kv_default_geometry(c, kv);
      EXPECT_GE(uint64_t{g.window} * g.heads * g.channels, std::min<uint64_t>(4096, uint64_t{32} * g.heads * g.channels));
      EXPECT_EQ(g.window % 16, 0u);
      EXPECT_EQ(std::max(kv, 1u) % g.heads, 0u);
      EXPECT_TRUE(kv_window_check(DType::kBF16, g, g.window).ok());
    }
}

TEST(KvWindow, InverseIsExactForArbitraryInput) {
  // Any channel-major bits and any base bytes (a corrupt or hand-made window): the inverse keeps sign
  // and mantissa and sets e = (delta + base) mod 2^E, transposed back to token-major.
  std::mt19937_64 rng(ndp::testing::test_seed(7));
  const KvGeometry g{8, 4, 1};
  std::vector<uint16_t> cm(32), tm(32);
  std::vector<uint8_t> base(4);
  for (auto& x : cm) x = static_cast<uint16_t>(rng());
  for (auto& b : base) b = static_cast<uint8_t>(rng());
  kv_window_inverse(DType::kBF16, g, 8, cm.data(), base.data(), tm.data());
  for (uint32_t c = 0; c < 4; ++c)
    for (uint32_t t = 0; t < 8; ++t) {
      const uint16_t d = cm[c * 8 + t], x = tm[t * 4 + c];
      EXPECT_EQ(x & 0x807F, d & 0x807F);
      EXPECT_EQ((x >> 7) & 0xFF, ((d >> 7) + base[c]) & 0xFF);
    }
}

TEST(KvWindow, CheckRejectsBadArguments) {
  EXPECT_FALSE(kv_window_check(DType::kFP32, KvGeometry{}, 32).ok());
  EXPECT_FALSE(kv_window_check(DType::kBF16, KvGeometry{}, 0).ok());
  EXPECT_FALSE(kv_window_check(DType::kBF16, KvGeometry{}, 33).ok());
  EXPECT_FALSE(kv_window_check(DType::kBF16, KvGeometry{32, 0, 1}, 1).ok());
  EXPECT_FALSE(kv_window_check(DType::kBF16, KvGeometry{32, 65536, 2}, 1).ok());
  Status st = kv_window_check(DType::kINT8, KvGeometry{}, 1);
  EXPECT_NE(st.message().find("int8"), std::string::npos) << st.message();
  // Invalid arguments write nothing.
  uint16_t tm[4] = {1, 2, 3, 4}, cm[4] = {9, 9, 9, 9};
  uint8_t base[4] = {7, 7, 7, 7};
  kv_window_forward(DType::kFP32, KvGeometry{4, 1, 1}, 4, tm, cm, base);
  EXPECT_EQ(cm[0], 9);
  EXPECT_EQ(base[0], 7);
}

}  // namespace
}  // namespace ndp
