// Precision regions (docs/spec.md section 5): names, fetched planes, output sizes, GUARD flags, and
// the element conversion checked EXHAUSTIVELY over every BF16 and FP16 pattern (and every FP8
// pattern), for every region format and g = 0, 1, 2, against the nearest-code reference of ref_float.h.
// FP32 sources: 10^6 random patterns plus edge values.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ndp/convert.h"
#include "ndp/planes.h"
#include "ndp/precision.h"
#include "ref_float.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

ref::Fmt source_fmt(DType t) {
  switch (t) {
    case DType::kBF16: return ref::kBF16;
    case DType::kFP16: return ref::kFP16;
    case DType::kFP32: return ref::kFP32;
    case DType::kFP8E4M3: return ref::kE4M3;
    default: return ref::kE5M2;
  }
}

// Reference conversion of one element to a non-MX region, written from the spec text alone.
uint32_t reference_convert(const Region& r, DType src, uint32_t bits) {
  const ref::Fmt s = source_fmt(src);
  if (r.kind == RegionKind::kFull) return bits;
  ref::Fmt target;
  uint32_t nan_code = 0;
  switch (r.kind) {
    case RegionKind::kEmK: target = {s.e, r.k, s.bias, ref::Kind::kIeee}; break;
    case RegionKind::kFP8E4M3: target = ref::kE4M3; nan_code = 0x7F; break;
    case RegionKind::kFP8E5M2: target = ref::kE5M2; nan_code = 0x7E; break;
    case RegionKind::kFP6E3M2: target = ref::kE3M2; nan_code = 0x1F; break;  // FP6/FP4: NaN -> max
    case RegionKind::kFP6E2M3: target = ref::kE2M3; nan_code = 0x1F; break;
    default: target = ref::kE2M1; nan_code = 0x7; break;
  }
  const int t = std::min(s.m, target.m + r.guard);  // 5.2 step 1
  const uint32_t v = ref::view(s, bits, t);
  const double x = ref::decode(s, v);
  const bool neg = (v >> (s.e + s.m)) & 1;
  if (r.kind != RegionKind::kEmK) return ref::convert_value(target, x, neg, nan_code);
  // eEmK: the code goes into a BF16 (or FP16) word with the low mantissa bits zero; NaN is the
  // source family's canonical quiet NaN.
  const int word_m = src == DType::kFP16 ? 10 : 7;
  const uint32_t word_nan = src == DType::kFP16 ? 0x7E00 : 0x7FC0;
  if (std::isnan(x)) return (neg ? 0x8000u : 0u) | word_nan;
  const uint32_t code = ref::convert_value(target, x, neg, 0);
  const uint32_t sign = (code >> (target.e + target.m)) & 1;
  return sign << 15 | (code & ((1u << (target.e + target.m)) - 1)) << (word_m - r.k);
}

std::vector<Region> element_regions(DType src, int g) {
  std::vector<Region> out;
  for (const Region& r : all_regions(src, g))
    if (r.kind != RegionKind::kFull && r.kind != RegionKind::kMXFP8 && r.kind != RegionKind::kMXFP4)
      out.push_back(r);
  return out;
}

// Spec packing of codes (written independently of the library): 16-bit words little-endian, bytes, or
// a LSB-first bit stream of 6- or 4-bit codes with zero padding.
std::vector<uint8_t> reference_pack(const std::vector<uint32_t>& codes, int bits) {
  std::vector<uint8_t> out((codes.size() * bits + 7) / 8, 0);
  for (size_t i = 0; i < codes.size(); ++i)
    for (int b = 0; b < bits; ++b)
      if ((codes[i] >> b) & 1) {
        const size_t j = i * bits + b;
        out[j / 8] = static_cast<uint8_t>(out[j / 8] | 1u << (j % 8));
      }
  return out;
}

int code_bits(const Region& r) {
  switch (r.kind) {
    case RegionKind::kEmK: return 16;
    case RegionKind::kFP6E3M2:
    case RegionKind::kFP6E2M3: return 6;
    case RegionKind::kFP4E2M1: return 4;
    default: return 8;
  }
}

// Every pattern of a 16- or 8-bit source, every element region, g = 0..2: convert_element and
// assemble_region (whole array, checking the packing) against the reference.
void exhaustive(DType src) {
  const int width = dtype_info(src).bits;
  const uint32_t count = 1u << width;
  std::vector<uint8_t> elems(count * (width / 8));
  for (uint32_t b = 0; b < count; ++b) std::memcpy(&elems[b * (width / 8)], &b, width / 8);
  uint64_t compared = 0;
  for (int g = 0; g <= 2; ++g)
    for (const Region& r : element_regions(src, g)) {
      SCOPED_TRACE(std::string(dtype_info(src).name) + " -> " + region_name(r, src) + " g=" + std::to_string(g));
      std::vector<uint32_t> want(count);
      int bad = 0;
      for (uint32_t b = 0; b < count; ++b) {
        want[b] = reference_convert(r, src, b);
        const uint32_t got = convert_element(r, src, b);
        if (got != want[b] && ++bad <= 5)
          ADD_FAILURE() << "source 0x" << std::hex << b << ": got 0x" << got << " want 0x" << want[b];
      }
      ASSERT_EQ(bad, 0);
      std::vector<uint8_t> out(region_output_bytes(r, src, count));
      Status st = assemble_region(r, src, elems.data(), count, out.data());
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_EQ(out, reference_pack(want, code_bits(r)));
      // A short call (below the size where the library switches to its table) and an odd tail.
      const uint64_t few = count / 2 > 1001 ? 999 : count / 2 - 3;
      std::vector<uint8_t> out_few(region_output_bytes(r, src, few));
      const size_t off = (count / 2) * (width / 8);
      ASSERT_TRUE(assemble_region(r, src, elems.data() + off, few, out_few.data()).ok());
      ASSERT_EQ(out_few, reference_pack(std::vector<uint32_t>(want.begin() + count / 2,
                                                              want.begin() + count / 2 + few), code_bits(r)));
      compared += count;
    }
  std::printf("%s: %llu element conversions compared exhaustively\n", dtype_info(src).name,
              static_cast<unsigned long long>(compared));
  EXPECT_GT(compared, 0u);
}

TEST(PrecisionExhaustive, AllBF16Patterns) { exhaustive(DType::kBF16); }
TEST(PrecisionExhaustive, AllFP16Patterns) { exhaustive(DType::kFP16); }
TEST(PrecisionExhaustive, AllFP8E4M3Patterns) { exhaustive(DType::kFP8E4M3); }
TEST(PrecisionExhaustive, AllFP8E5M2Patterns) { exhaustive(DType::kFP8E5M2); }

TEST(PrecisionFP32, RandomAndEdgeValues) {
  std::vector<uint32_t> samples = {
      0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x00400000, 0x7F7FFFFF,
      0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FFFFFFF, 0x3F800000,
      0x3F808000, 0x3F818000, 0x3F80FFFF, 0x3F7FFFFF, 0x7F7F8000, 0x7F7FC000, 0x43E00000, 0x43E80000,
      0x43F00000, 0x477FE000, 0x47700000, 0x41E00000, 0x40C00000, 0x40E00000, 0x40F00000, 0x3A800000,
      0x3B000000, 0x3B400000, 0x00FFFFFF, 0x01000000, 0x33800000, 0x37800000, 0x387FC000, 0x3E800000};
  // Every tie point of every target: a value halfway between codes at assorted binades.
  for (uint32_t e = 0; e < 255; e += 3)
    for (uint32_t m : {0x000000u, 0x008000u, 0x010000u, 0x018000u, 0x100000u, 0x180000u, 0x0C0000u, 0x7FFFFFu})
      samples.push_back(e << 23 | m);
  std::mt19937_64 rng(ndp::testing::test_seed(20240611));
  for (int i = 0; i < 1000000; ++i) samples.push_back(static_cast<uint32_t>(rng()));
  uint64_t compared = 0;
  for (int g = 0; g <= 2; ++g)
    for (const Region& r : element_regions(DType::kFP32, g)) {
      int bad = 0;
      for (uint32_t b : samples) {
        const uint32_t want = reference_convert(r, DType::kFP32, b);
        const uint32_t got = convert_element(r, DType::kFP32, b);
        if (got != want && ++bad <= 5)
          ADD_FAILURE() << region_name(r, DType::kFP32) << " g=" << g << " source 0x" << std::hex << b
                        << ": got 0x" << got << " want 0x" << want;
        ++compared;
      }
      ASSERT_EQ(bad, 0);
      // assemble_region over the first 4099 samples (odd count: FP6/FP4 tails) with the spec packing.
      const size_t n = 4099;
      std::vector<uint8_t> elems(4 * n), out(region_output_bytes(r, DType::kFP32, n));
      std::vector<uint32_t> want(n);
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(&elems[4 * i], &samples[i], 4);
        want[i] = reference_convert(r, DType::kFP32, samples[i]);
      }
      ASSERT_TRUE(assemble_region(r, DType::kFP32, elems.data(), n, out.data()).ok());
      ASSERT_EQ(out, reference_pack(want, code_bits(r))) << region_name(r, DType::kFP32) << " g=" << g;
    }
  std::printf("fp32: %llu element conversions compared\n", static_cast<unsigned long long>(compared));
}

TEST(PrecisionDirected, SpecExamples) {
  const Region e8m0{RegionKind::kEmK, 0, 0}, e8m3g1{RegionKind::kEmK, 3, 1}, e8m7g0{RegionKind::kEmK, 7, 0};
  const Region e4m3{RegionKind::kFP8E4M3, 0, 2}, e5m2{RegionKind::kFP8E5M2, 0, 1};
  const Region fp4{RegionKind::kFP4E2M1, 0, 2}, fp6b{RegionKind::kFP6E2M3, 0, 2};
  EXPECT_EQ(convert_element(e8m3g1, DType::kBF16, 0x3F8C), 0x3F80u);  // view 1.0625 (bit 2 unseen): tie -> 1.0
  EXPECT_EQ(convert_element(e8m3g1, DType::kBF16, 0x3F88), 0x3F80u);  // 1.0625: tie, to even 1.0
  EXPECT_EQ(convert_element(e8m3g1, DType::kBF16, 0x3F98), 0x3FA0u);  // 1.1875: tie, to even 1.25
  EXPECT_EQ(convert_element(e8m3g1, DType::kBF16, 0x7F7F), 0x7F80u);  // max bf16 carries to Inf
  EXPECT_EQ(convert_element(e8m7g0, DType::kBF16, 0xFF81), 0xFFC0u);  // NaN -> canonical, sign kept
  EXPECT_EQ(convert_element(e8m0, DType::kBF16, 0x7F81), 0x7F80u);    // NaN payload below the view: Inf
  EXPECT_EQ(convert_element(e4m3, DType::kBF16, 0x43E0), 0x7Eu);      // 448
  EXPECT_EQ(convert_element(e4m3, DType::kBF16, 0xC3F0), 0xFEu);      // -480 saturates to -448
  EXPECT_EQ(convert_element(e4m3, DType::kBF16, 0x7F80), 0x7Eu);      // Inf saturates
  EXPECT_EQ(convert_element(e4m3, DType::kBF16, 0xFFC0), 0xFFu);      // NaN
  EXPECT_EQ(convert_element(e5m2, DType::kBF16, 0x7FC0), 0x7Eu);      // NaN S.11111.10
  EXPECT_EQ(convert_element(e5m2, DType::kBF16, 0x4780), 0x7Cu);      // 65536 -> Inf
  EXPECT_EQ(convert_element(e5m2, DType::kBF16, 0x8000), 0x80u);      // -0
  EXPECT_EQ(convert_element(fp4, DType::kBF16, 0x40C0), 0x7u);        // 6
  EXPECT_EQ(convert_element(fp4, DType::kBF16, 0xC120), 0xFu);        // -10 -> -6
  EXPECT_EQ(convert_element(fp4, DType::kBF16, 0x3E80), 0x0u);        // 0.25: tie between 0 and 0.5 -> 0
  EXPECT_EQ(convert_element(fp4, DType::kBF16, 0x3EC0), 0x1u);        // 0.375 -> 0.5 (subnormal)
  EXPECT_EQ(convert_element(fp6b, DType::kBF16, 0x40F0), 0x1Fu);      // 7.5
  EXPECT_EQ(convert_element(fp6b, DType::kBF16, 0xFF80), 0x3Fu);      // -Inf -> -7.5
  // g = 0 truncates: 1.9375 -> e4m3 keeps 1.875 (no rounding up).
  // g = 1 sees 1.9375: a tie between 1.875 (0x3F, odd) and 2.0 (0x40) -> 0x40.
  EXPECT_EQ(convert_element(Region{RegionKind::kFP8E4M3, 0, 0}, DType::kBF16, 0x3FF8), 0x3Fu);
  EXPECT_EQ(convert_element(Region{RegionKind::kFP8E4M3, 0, 1}, DType::kBF16, 0x3FF8), 0x40u);
  // e8m0 ties go to the even code, i.e. the even biased exponent: 1.5 -> 2 (127 odd, 128 even) and
  // 3 -> 2 (128 even, 129 odd).
  EXPECT_EQ(convert_element(Region{RegionKind::kEmK, 0, 1}, DType::kBF16, 0x3FC0), 0x4000u);
  EXPECT_EQ(convert_element(Region{RegionKind::kEmK, 0, 1}, DType::kBF16, 0x4040), 0x4000u);
  // region_view clears the unfetched bits only.
  EXPECT_EQ(region_view(e8m3g1, DType::kBF16, 0xBFFF), 0xBFF8u);
  EXPECT_EQ(region_view(Region{}, DType::kBF16, 0xBFFF), 0xBFFFu);
}

TEST(RegionNames, ParseAndNameRoundTrip) {
  for (DType src : {DType::kBF16, DType::kFP16, DType::kFP32, DType::kFP8E4M3, DType::kFP8E5M2, DType::kINT8,
                    DType::kINT4})
    for (int g = 0; g <= 2; ++g)
      for (const Region& r : all_regions(src, g)) {
        auto p = parse_region(region_name(r, src), src, g);
        ASSERT_TRUE(p.ok()) << region_name(r, src) << ": " << p.status().message();
        EXPECT_EQ(p->kind, r.kind);
        EXPECT_EQ(p->k, r.k);
        EXPECT_EQ(p->guard, r.guard);
      }
  EXPECT_EQ(all_regions(DType::kBF16, 1).size(), 1u + 8 + 7);
  EXPECT_EQ(all_regions(DType::kFP16, 1).size(), 1u + 11 + 7);
  EXPECT_EQ(all_regions(DType::kFP8E4M3, 1).size(), 1u + 7);
  EXPECT_EQ(all_regions(DType::kINT8, 1).size(), 1u);
  EXPECT_EQ(parse_region("full", DType::kBF16, 2)->guard, 0);
}

TEST(RegionNames, Errors) {
  auto expect_error = [](std::string_view name, DType src, int g, const char* needle) {
    auto r = parse_region(name, src, g);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  expect_error("e5m3", DType::kBF16, 0, "bf16");
  expect_error("e8m8", DType::kBF16, 0, "0..7");
  expect_error("e8m8", DType::kFP32, 0, "0..7");
  expect_error("e5m11", DType::kFP16, 0, "0..10");
  expect_error("e4m3", DType::kFP8E4M3, 0, "fp8-e4m3");
  expect_error("fp8-e4m3", DType::kINT8, 0, "integer");
  expect_error("e8m3", DType::kBF16, 3, "guard");
  expect_error("e8m3", DType::kBF16, -1, "guard");
  expect_error("bogus", DType::kBF16, 0, "bogus");
  expect_error("e8mx", DType::kBF16, 0, "e8mx");
  expect_error("em3", DType::kBF16, 0, "em3");
  EXPECT_FALSE(region_valid(Region{static_cast<RegionKind>(42), 0, 0}, DType::kBF16).ok());
  std::vector<uint8_t> buf(16);
  EXPECT_FALSE(assemble_region(Region{RegionKind::kEmK, 9, 0}, DType::kBF16, buf.data(), 4, buf.data()).ok());
  EXPECT_FALSE(assemble_region(Region{RegionKind::kEmK, 3, 0}, DType::kBF16, nullptr, 4, buf.data()).ok());
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kEmK, 9, 0}, DType::kBF16, 4), 0u);
  EXPECT_TRUE(region_planes(Region{RegionKind::kFP4E2M1, 0, 0}, DType::kINT8, Layout::kBitplane).empty());
}

TEST(RegionPlanes, HandComputed) {
  using V = std::vector<uint8_t>;
  const uint8_t X = kPlaneExpByte;
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 3, 0}, DType::kBF16, Layout::kExpByte), (V{15, X, 6, 5, 4}));
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 3, 1}, DType::kBF16, Layout::kExpByte), (V{15, X, 6, 5, 4, 3}));
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 3, 2}, DType::kBF16, Layout::kExpByte), (V{15, X, 6, 5, 4, 3, 2}));
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 0, 0}, DType::kBF16, Layout::kExpByte), (V{15, X}));
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 7, 2}, DType::kBF16, Layout::kExpByte), (V{15, X, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(region_planes(Region{RegionKind::kFP8E4M3, 0, 2}, DType::kBF16, Layout::kExpByte), (V{15, X, 6, 5, 4, 3, 2}));
  EXPECT_EQ(region_planes(Region{RegionKind::kFP4E2M1, 0, 1}, DType::kBF16, Layout::kBitplane),
            (V{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5}));
  EXPECT_EQ(region_planes(Region{RegionKind::kMXFP4, 0, 0}, DType::kBF16, Layout::kExpByte), (V{15, X, 6}));
  EXPECT_EQ(region_planes(Region{RegionKind::kMXFP8, 0, 1}, DType::kFP16, Layout::kExpByte), (V{15, X, 9, 8, 7, 6}));
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 10, 2}, DType::kFP16, Layout::kExpByte),
            (V{15, X, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(region_planes(Region{RegionKind::kEmK, 7, 2}, DType::kFP32, Layout::kExpByte),
            (V{31, X, 22, 21, 20, 19, 18, 17, 16, 15, 14}));
  EXPECT_EQ(region_planes(Region{RegionKind::kFP8E4M3, 0, 0}, DType::kFP8E5M2, Layout::kExpByte), (V{7, X, 1, 0}));
  EXPECT_EQ(region_planes(Region{RegionKind::kFP4E2M1, 0, 0}, DType::kFP8E4M3, Layout::kBitplane), (V{7, 6, 5, 4, 3, 2}));
  EXPECT_EQ(region_planes(Region{}, DType::kINT8, Layout::kExpByte), (V{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(region_kept_mantissa(Region{RegionKind::kFP6E2M3, 0, 2}, DType::kBF16), 3);
  EXPECT_EQ(region_fetched_mantissa(Region{RegionKind::kFP6E2M3, 0, 2}, DType::kBF16), 5);
  EXPECT_EQ(region_fetched_mantissa(Region{RegionKind::kFP6E2M3, 0, 2}, DType::kFP8E5M2), 2);
}

TEST(RegionOutputBytes, HandComputed) {
  const DType b = DType::kBF16;
  EXPECT_EQ(region_output_bytes(Region{}, b, 32768), 65536u);
  EXPECT_EQ(region_output_bytes(Region{}, DType::kINT4, 7), 4u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kEmK, 3, 1}, b, 32768), 65536u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kEmK, 3, 1}, DType::kFP32, 10), 20u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kFP8E4M3, 0, 0}, b, 32768), 32768u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kFP6E3M2, 0, 0}, b, 32768), 24576u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kFP6E2M3, 0, 0}, b, 3), 3u);   // 18 bits
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kFP6E2M3, 0, 0}, b, 5), 4u);   // 30 bits
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kFP4E2M1, 0, 0}, b, 32768), 16384u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kFP4E2M1, 0, 0}, b, 3), 2u);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kMXFP8, 0, 0}, b, 32768), 1024u * 33);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kMXFP8, 0, 0}, b, 33), 33u + 2);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kMXFP4, 0, 0}, b, 32768), 1024u * 17);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kMXFP4, 0, 0}, b, 34), 17u + 2);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kMXFP4, 0, 0}, b, 35), 17u + 3);
  EXPECT_EQ(region_output_bytes(Region{RegionKind::kMXFP4, 0, 0}, b, 1), 2u);
}

TEST(GuardFlag, Section53) {
  for (uint8_t p = 0; p < 16; ++p) EXPECT_EQ(plane_is_guard(DType::kBF16, p), p <= 6) << int(p);
  for (uint8_t p = 0; p < 16; ++p) EXPECT_EQ(plane_is_guard(DType::kFP16, p), p <= 9) << int(p);
  for (uint8_t p = 0; p < 32; ++p) EXPECT_EQ(plane_is_guard(DType::kFP32, p), p >= 14 && p <= 22) << int(p);
  for (uint8_t p = 0; p < 8; ++p) EXPECT_EQ(plane_is_guard(DType::kFP8E4M3, p), p <= 1) << int(p);
  for (uint8_t p = 0; p < 8; ++p) EXPECT_EQ(plane_is_guard(DType::kFP8E5M2, p), p == 0) << int(p);
  for (uint8_t p = 0; p < 8; ++p) EXPECT_FALSE(plane_is_guard(DType::kINT8, p));
  EXPECT_FALSE(plane_is_guard(DType::kBF16, kPlaneExpByte));
}

// stories260K weights as BF16 (RNE from FP32), or an empty vector when the data is absent.
std::vector<uint16_t> stories_bf16() {
  const auto path = std::filesystem::path(NDP_DATA_DIR) / "stories260K" / "stories260K.bin";
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint16_t> out;
  for (size_t off = 28; off + 4 <= bytes.size(); off += 4) {
    uint32_t u;
    std::memcpy(&u, &bytes[off], 4);
    out.push_back(fp32_to_bf16_rne(u));
  }
  return out;
}

// Assembling from only the planes region_planes() names (others nullptr) equals assembling from all
// planes; dropping the lowest fetched mantissa plane as well changes the output (no over-fetch).
void check_fetched_planes(DType src, Layout l, const std::vector<uint8_t>& chunk, uint64_t n) {
  std::vector<std::vector<uint8_t>> planes;
  pack_chunk(src, l, chunk.data(), n, planes);
  const auto order = plane_order(src, l);
  const int M = dtype_info(src).man_bits;
  for (int g = 0; g <= 2; ++g)
    for (const Region& r : all_regions(src, g)) {
      SCOPED_TRACE(region_name(r, src) + " g=" + std::to_string(g));
      const auto fetch = region_planes(r, src, l);
      std::vector<const uint8_t*> only(order.size(), nullptr), fewer(order.size(), nullptr);
      const int lowest = M - region_fetched_mantissa(r, src);
      for (size_t i = 0; i < order.size(); ++i)
        if (std::find(fetch.begin(), fetch.end(), order[i]) != fetch.end()) {
          only[i] = planes[i].data();
          if (order[i] != lowest || order[i] >= M) fewer[i] = planes[i].data();
        }
      std::vector<uint8_t> elems(chunk.size());
      std::vector<uint8_t> want(region_output_bytes(r, src, n)), got(want.size()), less(want.size());
      ASSERT_TRUE(assemble_region(r, src, chunk.data(), n, want.data()).ok());
      unpack_chunk(src, l, only, n, elems.data());
      ASSERT_TRUE(assemble_region(r, src, elems.data(), n, got.data()).ok());
      ASSERT_EQ(got, want);
      if (region_fetched_mantissa(r, src) > 0 && r.kind != RegionKind::kFull) {
        unpack_chunk(src, l, fewer, n, elems.data());
        ASSERT_TRUE(assemble_region(r, src, elems.data(), n, less.data()).ok());
        EXPECT_NE(less, want) << "plane " << lowest << " is fetched but never matters";
      }
    }
}

TEST(FetchedPlanes, RealWeightsAndRandomFP32) {
  auto w = stories_bf16();
  if (w.empty()) GTEST_SKIP() << "stories260K.bin not found under " << NDP_DATA_DIR;
  const uint64_t n = std::min<uint64_t>(w.size(), kDefaultChunkElems) - 3;  // partial chunk: MX/FP6 tails
  std::vector<uint8_t> chunk(2 * n);
  std::memcpy(chunk.data(), w.data(), 2 * n);
  for (Layout l : {Layout::kExpByte, Layout::kBitplane}) check_fetched_planes(DType::kBF16, l, chunk, n);
  std::mt19937 rng(ndp::testing::test_seed(3));
  std::normal_distribution<float> d(0.f, 2.0f);  // wide enough that FP4 sees every fetched plane
  std::vector<uint8_t> f32(4 * 4099), f16(2 * 4099);
  for (size_t i = 0; i < 4099; ++i) {
    const uint32_t u = f32_bits(d(rng));
    std::memcpy(&f32[4 * i], &u, 4);
    const uint16_t h = static_cast<uint16_t>(rng());  // every fp16 pattern class, NaN/Inf included
    std::memcpy(&f16[2 * i], &h, 2);
  }
  check_fetched_planes(DType::kFP32, Layout::kExpByte, f32, 4099);
  check_fetched_planes(DType::kFP16, Layout::kExpByte, f16, 4099);
}

}  // namespace
}  // namespace ndp
