// MX regions (docs/spec.md section 5.4) against a simple reference: decode the group's fetch views to
// double, shared exponent from the largest floor(log2|x|), elements x / 2^X by nearest-code search.
// Random groups over the whole exponent range of each source plus directed groups (zeros, NaN/Inf
// inside, max exponents, subnormal sources, saturation, partial last group).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ndp/precision.h"
#include "ref_float.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

ref::Fmt src_fmt(DType t) {
  return t == DType::kBF16 ? ref::kBF16 : t == DType::kFP16 ? ref::kFP16 : ref::kFP32;
}

struct MxRef {
  uint8_t scale = 0;
  std::vector<uint32_t> codes;
};

MxRef reference_mx(const Region& r, DType src, const std::vector<uint32_t>& bits) {
  const ref::Fmt s = src_fmt(src);
  const bool fp8 = r.kind == RegionKind::kMXFP8;
  const ref::Fmt elem = fp8 ? ref::kE4M3 : ref::kE2M1;
  const int emax_elem = fp8 ? 8 : 2;
  const int t = std::min(s.m, elem.m + r.guard);
  MxRef out;
  out.codes.assign(bits.size(), 0);
  std::vector<double> x(bits.size());
  bool any_nonzero = false;
  int emax = -100000;
  for (size_t i = 0; i < bits.size(); ++i) {
    x[i] = ref::decode(s, ref::view(s, bits[i], t));
    if (!std::isfinite(x[i])) {
      out.scale = 0xFF;
      return out;  // NaN scale, zero elements
    }
    if (x[i] != 0) {
      any_nonzero = true;
      emax = std::max(emax, std::ilogb(x[i]));  // floor(log2|x|), exact for these doubles
    }
  }
  const int X = any_nonzero ? std::clamp(emax - emax_elem, -127, 127) : -127;
  out.scale = static_cast<uint8_t>(X + 127);
  for (size_t i = 0; i < bits.size(); ++i) {
    const bool neg = (bits[i] >> (s.e + s.m)) & 1;
    out.codes[i] = ref::convert_value(elem, std::ldexp(x[i], -X), neg, 0);
  }
  return out;
}

// The region bytes of a tensor of groups, packed per spec 5.1 by the reference.
std::vector<uint8_t> reference_bytes(const Region& r, DType src, const std::vector<uint32_t>& all) {
  std::vector<uint8_t> out;
  const int bits = r.kind == RegionKind::kMXFP8 ? 8 : 4;
  for (size_t g = 0; g < all.size(); g += 32) {
    const std::vector<uint32_t> grp(all.begin() + g, all.begin() + std::min(all.size(), g + 32));
    const MxRef m = reference_mx(r, src, grp);
    out.push_back(m.scale);
    std::vector<uint8_t> packed((grp.size() * bits + 7) / 8, 0);
    for (size_t i = 0; i < grp.size(); ++i)
      for (int b = 0; b < bits; ++b)
        if ((m.codes[i] >> b) & 1) packed[(i * bits + b) / 8] |= static_cast<uint8_t>(1u << ((i * bits + b) % 8));
    out.insert(out.end(), packed.begin(), packed.end());
  }
  return out;
}

// Random element of format f around biased exponent `center` (spread down by up to 12 binades, so
// groups mix magnitudes, reach subnormals and zero), random sign and mantissa; never NaN/Inf.
uint32_t random_elem(const ref::Fmt& f, int center, std::mt19937_64& rng) {
  const int top_finite = (1 << f.e) - 2;
  int e = center - static_cast<int>(rng() % 13);
  if (rng() % 16 == 0) e = 0;  // subnormal or zero
  e = std::clamp(e, 0, top_finite);
  const uint32_t man = static_cast<uint32_t>(rng()) & ((1u << f.m) - 1);
  const uint32_t sign = static_cast<uint32_t>(rng() & 1);
  return sign << (f.e + f.m) | static_cast<uint32_t>(e) << f.m | man;
}

class MxTest : public ::testing::TestWithParam<DType> {};

void check_group(const Region& r, DType src, const std::vector<uint32_t>& bits, const std::string& what) {
  const MxRef want = reference_mx(r, src, bits);
  uint8_t codes[32];
  const uint8_t scale = convert_mx_group(r, src, bits.data(), static_cast<int>(bits.size()), codes);
  ASSERT_EQ(scale, want.scale) << what << " " << region_name(r, src) << " g=" << r.guard;
  for (size_t i = 0; i < bits.size(); ++i)
    ASSERT_EQ(codes[i], want.codes[i]) << what << " " << region_name(r, src) << " g=" << r.guard << " element " << i
                                       << " source 0x" << std::hex << bits[i];
}

TEST_P(MxTest, RandomGroupsAndTensorBytes) {
  const DType src = GetParam();
  const ref::Fmt f = src_fmt(src);
  std::mt19937_64 rng(ndp::testing::test_seed(static_cast<uint64_t>(src) * 1000003));
  const int groups = 1500;
  std::vector<uint32_t> all;
  for (int g = 0; g < groups; ++g) {
    const int center = static_cast<int>(rng() % ((1u << f.e) - 1));
    for (int i = 0; i < 32; ++i) {
      uint32_t v = random_elem(f, center, rng);
      if (g % 10 == 9) v = static_cast<uint32_t>(rng() & ((uint64_t{1} << (1 + f.e + f.m)) - 1));  // any pattern
      all.push_back(v);
    }
  }
  all.resize(all.size() - 5);  // partial last group of 27
  uint64_t compared = 0;
  for (int guard = 0; guard <= 2; ++guard)
    for (RegionKind k : {RegionKind::kMXFP8, RegionKind::kMXFP4}) {
      const Region r{k, 0, guard};
      for (size_t g = 0; g < all.size(); g += 32) {
        check_group(r, src, std::vector<uint32_t>(all.begin() + g, all.begin() + std::min(all.size(), g + 32)),
                    "group " + std::to_string(g / 32));
        if (HasFatalFailure()) return;
      }
      const int eb = dtype_info(src).bits / 8;
      std::vector<uint8_t> elems(all.size() * eb);
      for (size_t i = 0; i < all.size(); ++i) std::memcpy(&elems[i * eb], &all[i], eb);
      std::vector<uint8_t> out(region_output_bytes(r, src, all.size()));
      ASSERT_TRUE(assemble_region(r, src, elems.data(), all.size(), out.data()).ok());
      ASSERT_EQ(out, reference_bytes(r, src, all)) << region_name(r, src) << " g=" << guard;
      compared += all.size();
    }
  std::printf("%s: %llu MX elements compared\n", dtype_info(src).name, static_cast<unsigned long long>(compared));
}

TEST_P(MxTest, DirectedGroups) {
  const DType src = GetParam();
  const ref::Fmt f = src_fmt(src);
  const uint32_t sign = 1u << (f.e + f.m);
  const uint32_t top = ((1u << f.e) - 1) << f.m;        // Inf
  const uint32_t max = top - 1;                          // largest finite
  const uint32_t one = static_cast<uint32_t>(f.bias) << f.m;
  const uint32_t min_sub = 1, max_sub = (1u << f.m) - 1;
  std::vector<std::pair<std::string, std::vector<uint32_t>>> cases;
  cases.push_back({"all +0", std::vector<uint32_t>(32, 0)});
  std::vector<uint32_t> zeros(32, 0);
  for (int i = 0; i < 32; i += 3) zeros[i] = sign;
  cases.push_back({"signed zeros", zeros});
  std::vector<uint32_t> ones(32, one);
  ones[17] = top | 1;  // NaN inside
  cases.push_back({"NaN inside", ones});
  ones[17] = top | (1u << (f.m - 1));
  cases.push_back({"quiet NaN inside", ones});
  ones[17] = one;
  ones[0] = sign | top;  // -Inf
  cases.push_back({"-Inf inside", ones});
  ones[0] = top | 1u;  // NaN whose payload is below every view: reads as Inf, still a 0xFF group
  cases.push_back({"low-payload NaN", ones});
  cases.push_back({"all max", std::vector<uint32_t>(32, max)});
  std::vector<uint32_t> mix(32, min_sub);
  mix[5] = max;
  mix[6] = sign | max;
  cases.push_back({"max and tiny", mix});
  std::vector<uint32_t> subs(32);
  for (int i = 0; i < 32; ++i) subs[i] = (i % 2 ? sign : 0) | ((max_sub * (i + 1) / 32) & max_sub);
  cases.push_back({"subnormal sources", subs});
  cases.push_back({"single min subnormal", std::vector<uint32_t>(1, min_sub)});
  std::vector<uint32_t> single(32, 0);
  single[31] = sign | one;
  cases.push_back({"one nonzero", single});
  // Saturation of E4M3: the group maximum 1.11..1 * 2^e scales to just under 512 (> 448).
  std::vector<uint32_t> sat(32, one | ((1u << f.m) - 1));
  sat[1] = one;
  cases.push_back({"near-2 maxima", sat});
  std::vector<uint32_t> partial(7, one + (3u << f.m));
  cases.push_back({"partial group of 7", partial});
  uint64_t compared = 0;
  for (int guard = 0; guard <= 2; ++guard)
    for (RegionKind k : {RegionKind::kMXFP8, RegionKind::kMXFP4})
      for (const auto& [name, bits] : cases) {
        check_group(Region{k, 0, guard}, src, bits, name);
        if (HasFatalFailure()) return;
        compared += bits.size();
      }
  EXPECT_GT(compared, 0u);
  // Spot values from the spec text: an all-zero group has scale byte 0; NaN groups 0xFF and zeros.
  uint8_t codes[32];
  const Region mx8{RegionKind::kMXFP8, 0, 0};
  EXPECT_EQ(convert_mx_group(mx8, src, cases[0].second.data(), 32, codes), 0);
  EXPECT_EQ(convert_mx_group(mx8, src, cases[2].second.data(), 32, codes), 0xFF);
  for (uint8_t c : codes) EXPECT_EQ(c, 0);
  const uint32_t two = one + (1u << f.m);  // 2.0: emax 1, X = 1 - 8 = -7, element 2 / 2^-7 = 256
  std::vector<uint32_t> g2(32, two);
  EXPECT_EQ(convert_mx_group(mx8, src, g2.data(), 32, codes), 127 - 7);
  EXPECT_EQ(codes[0], 0x78);  // 256 = 2^8: E4M3 exponent 15, mantissa 0
}

INSTANTIATE_TEST_SUITE_P(Sources, MxTest, ::testing::Values(DType::kBF16, DType::kFP16, DType::kFP32),
                         [](const auto& p) { return std::string(p.param == DType::kBF16   ? "bf16"
                                                                   : p.param == DType::kFP16 ? "fp16"
                                                                                                : "fp32"); });

}  // namespace
}  // namespace ndp
