// Bit-plane layout (docs/spec.md section 2): plane order, pack/unpack against a bit-by-bit reference,
// round trips for every dtype x layout and edge sizes, padding, missing planes, real weights.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ndp/convert.h"
#include "ndp/planes.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

const DType kAllTypes[] = {DType::kBF16,    DType::kFP16,    DType::kFP32, DType::kFP8E4M3,
                           DType::kFP8E5M2, DType::kINT8,    DType::kINT4};
const Layout kLayouts[] = {Layout::kBitplane, Layout::kExpByte};
const uint64_t kSizes[] = {1, 2, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 32767, 32768, 32769};

// Element i of a buffer in natural encoding, as an unsigned word (int4: nibble i).
uint32_t get_elem(DType t, const uint8_t* p, uint64_t i) {
  if (t == DType::kINT4) return (p[i / 2] >> (4 * (i & 1))) & 0xF;
  const int nb = dtype_info(t).bits / 8;
  uint32_t v = 0;
  for (int k = 0; k < nb; ++k) v |= static_cast<uint32_t>(p[i * nb + k]) << (8 * k);
  return v;
}

// The spec's definition, one bit at a time: plane b holds bit b of element i at byte i/8, bit i%8;
// EXPBYTE holds the E-bit exponent field, one byte per element.
std::vector<uint8_t> reference_plane(DType t, uint8_t plane, const uint8_t* src, uint64_t n) {
  const auto& info = dtype_info(t);
  if (plane == kPlaneExpByte) {
    std::vector<uint8_t> out(n);
    for (uint64_t i = 0; i < n; ++i)
      out[i] = static_cast<uint8_t>((get_elem(t, src, i) >> info.man_bits) & ((1u << info.exp_bits) - 1));
    return out;
  }
  std::vector<uint8_t> out((n + 7) / 8, 0);
  for (uint64_t i = 0; i < n; ++i)
    if ((get_elem(t, src, i) >> plane) & 1) out[i / 8] = static_cast<uint8_t>(out[i / 8] | 1u << (i % 8));
  return out;
}

std::vector<uint8_t> random_bytes(size_t size, uint64_t seed) {
  std::mt19937_64 rng(ndp::testing::test_seed(seed));
  std::vector<uint8_t> v(size);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Random elements; for int4 with odd n the unused high nibble of the last byte is zero (pack ignores
// it, unpack writes zero there).
std::vector<uint8_t> random_elems(DType t, uint64_t n, uint64_t seed) {
  auto v = random_bytes(dtype_bytes(t, n), seed);
  if (t == DType::kINT4 && (n & 1)) v.back() &= 0x0F;
  return v;
}

std::vector<const uint8_t*> pointers(const std::vector<std::vector<uint8_t>>& planes) {
  std::vector<const uint8_t*> p;
  for (const auto& v : planes) p.push_back(v.data());
  return p;
}

// Pack, compare every plane with the reference, check the padding, unpack, compare.
void check_round_trip(DType t, Layout l, const std::vector<uint8_t>& src, uint64_t n) {
  SCOPED_TRACE(std::string(dtype_info(t).name) + (l == Layout::kExpByte ? " expbyte" : " bitplane") +
               " n=" + std::to_string(n));
  std::vector<std::vector<uint8_t>> planes;
  pack_chunk(t, l, src.data(), n, planes);
  const auto order = plane_order(t, l);
  ASSERT_EQ(planes.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(planes[i].size(), plane_raw_bytes(order[i], n)) << "plane " << int(order[i]);
    ASSERT_EQ(planes[i], reference_plane(t, order[i], src.data(), n)) << "plane " << int(order[i]);
    Status st = check_plane(t, l, order[i], planes[i].data(), planes[i].size(), n);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  std::vector<uint8_t> back(dtype_bytes(t, n) + 16, 0xA5);  // guard bytes catch overruns
  unpack_chunk(t, l, pointers(planes), n, back.data());
  ASSERT_EQ(0, std::memcmp(back.data(), src.data(), dtype_bytes(t, n)));
  for (size_t i = dtype_bytes(t, n); i < back.size(); ++i) ASSERT_EQ(back[i], 0xA5) << "overrun at " << i;
}

TEST(PlaneOrder, SpecExamples) {
  EXPECT_EQ(plane_order(DType::kBF16, Layout::kBitplane),
            (std::vector<uint8_t>{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(plane_order(DType::kBF16, Layout::kExpByte),
            (std::vector<uint8_t>{15, kPlaneExpByte, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(plane_order(DType::kFP16, Layout::kExpByte),
            (std::vector<uint8_t>{15, kPlaneExpByte, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(plane_order(DType::kFP32, Layout::kExpByte).size(), 25u);
  EXPECT_EQ(plane_order(DType::kFP32, Layout::kExpByte)[2], 22);
  EXPECT_EQ(plane_order(DType::kFP8E4M3, Layout::kExpByte), (std::vector<uint8_t>{7, kPlaneExpByte, 2, 1, 0}));
  EXPECT_EQ(plane_order(DType::kFP8E5M2, Layout::kExpByte), (std::vector<uint8_t>{7, kPlaneExpByte, 1, 0}));
  // Integer types ignore the layout.
  for (Layout l : kLayouts) {
    EXPECT_EQ(plane_order(DType::kINT8, l), (std::vector<uint8_t>{7, 6, 5, 4, 3, 2, 1, 0}));
    EXPECT_EQ(plane_order(DType::kINT4, l), (std::vector<uint8_t>{3, 2, 1, 0}));
  }
}

TEST(PlaneOrder, RawBytesAndExponentPlanes) {
  EXPECT_EQ(plane_raw_bytes(0, 32768), 4096u);
  EXPECT_EQ(plane_raw_bytes(15, 1), 1u);
  EXPECT_EQ(plane_raw_bytes(3, 9), 2u);
  EXPECT_EQ(plane_raw_bytes(kPlaneExpByte, 32768), 32768u);
  EXPECT_EQ(plane_raw_bytes(kPlaneKvBase, 128), 128u);
  EXPECT_EQ(plane_raw_bytes(0x42, 100), 0u);
  EXPECT_TRUE(plane_is_exponent(DType::kBF16, kPlaneExpByte));
  EXPECT_TRUE(plane_is_exponent(DType::kBF16, 7));
  EXPECT_TRUE(plane_is_exponent(DType::kBF16, 14));
  EXPECT_FALSE(plane_is_exponent(DType::kBF16, 6));
  EXPECT_FALSE(plane_is_exponent(DType::kBF16, 15));
  EXPECT_TRUE(plane_is_exponent(DType::kFP16, 10));
  EXPECT_FALSE(plane_is_exponent(DType::kFP16, 9));
  EXPECT_TRUE(plane_is_exponent(DType::kFP32, 23));
  EXPECT_TRUE(plane_is_exponent(DType::kFP8E4M3, 3));
  EXPECT_FALSE(plane_is_exponent(DType::kFP8E4M3, 7));
  EXPECT_FALSE(plane_is_exponent(DType::kINT8, 6));
}

TEST(Pack, MatchesBitReferenceAllTypesLayoutsSizes) {
  uint64_t seed = 1;
  for (DType t : kAllTypes)
    for (Layout l : kLayouts)
      for (uint64_t n : kSizes) check_round_trip(t, l, random_elems(t, n, seed++), n);
}

TEST(Pack, SingleBitPatterns) {
  // One set bit walks over every element position and bit of a 130-element chunk.
  for (DType t : {DType::kBF16, DType::kFP32, DType::kINT8, DType::kINT4}) {
    const uint64_t n = 130;
    const int bits = dtype_info(t).bits;
    for (uint64_t i = 0; i < n; i += 13)
      for (int b = 0; b < bits; ++b) {
        std::vector<uint8_t> src(dtype_bytes(t, n), 0);
        const uint64_t bit = i * bits + b;
        src[bit / 8] = static_cast<uint8_t>(1u << (bit % 8));
        check_round_trip(t, Layout::kExpByte, src, n);
        if (HasFatalFailure()) return;
      }
  }
}

TEST(Pack, ZeroElements) {
  std::vector<std::vector<uint8_t>> planes(3, std::vector<uint8_t>(7));
  pack_chunk(DType::kBF16, Layout::kExpByte, nullptr, 0, planes);
  ASSERT_EQ(planes.size(), 9u);
  for (const auto& p : planes) EXPECT_TRUE(p.empty());
  unpack_chunk(DType::kBF16, Layout::kExpByte, pointers(planes), 0, nullptr);
}

TEST(Unpack, MissingPlanesReadAsZero) {
  const uint64_t n = 1000;
  for (DType t : kAllTypes)
    for (Layout l : kLayouts) {
      const auto src = random_elems(t, n, 77);
      std::vector<std::vector<uint8_t>> planes;
      pack_chunk(t, l, src.data(), n, planes);
      const auto order = plane_order(t, l);
      // Drop every other plane; the unpacked words must equal the source with those bits cleared.
      auto ptrs = pointers(planes);
      uint32_t keep_mask = 0;
      const auto& info = dtype_info(t);
      for (size_t i = 0; i < order.size(); ++i) {
        const bool keep = i % 2 == 0;
        if (!keep) ptrs[i] = nullptr;
        if (!keep) continue;
        if (order[i] == kPlaneExpByte)
          keep_mask |= ((1u << info.exp_bits) - 1) << info.man_bits;
        else
          keep_mask |= 1u << order[i];
      }
      ptrs.pop_back();  // a short vector: the missing last entry reads as zero too
      if (order.size() % 2 == 1) keep_mask &= ~(1u << order.back());
      std::vector<uint8_t> back(dtype_bytes(t, n));
      unpack_chunk(t, l, ptrs, n, back.data());
      for (uint64_t i = 0; i < n; ++i)
        ASSERT_EQ(get_elem(t, back.data(), i), get_elem(t, src.data(), i) & keep_mask)
            << dtype_info(t).name << " element " << i;
    }
}

TEST(Unpack, IgnoresPaddingBitsAndHighExponentBits) {
  const uint64_t n = 13;
  const auto src = random_elems(DType::kFP16, n, 5);
  std::vector<std::vector<uint8_t>> planes;
  pack_chunk(DType::kFP16, Layout::kExpByte, src.data(), n, planes);
  planes[0].back() |= 0xE0;  // padding bits of the sign plane (bits 5..7 of byte 1)
  planes[1][3] |= 0xE0;      // EXPBYTE bits above the 5-bit field
  EXPECT_FALSE(check_plane(DType::kFP16, Layout::kExpByte, 15, planes[0].data(), planes[0].size(), n).ok());
  Status st = check_plane(DType::kFP16, Layout::kExpByte, kPlaneExpByte, planes[1].data(), planes[1].size(), n);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("byte 3"), std::string::npos) << st.message();
  std::vector<uint8_t> back(dtype_bytes(DType::kFP16, n));
  unpack_chunk(DType::kFP16, Layout::kExpByte, pointers(planes), n, back.data());
  EXPECT_EQ(back, src);
}

TEST(CheckPlane, RejectsForeignIdsAndSizes) {
  std::vector<uint8_t> buf(4096, 0);
  EXPECT_FALSE(check_plane(DType::kBF16, Layout::kExpByte, 10, buf.data(), 4096, 32768).ok());  // exponent bit-plane
  EXPECT_FALSE(check_plane(DType::kBF16, Layout::kBitplane, kPlaneExpByte, buf.data(), 4096, 4096).ok());
  EXPECT_FALSE(check_plane(DType::kINT4, Layout::kBitplane, 4, buf.data(), 4096, 32768).ok());
  EXPECT_FALSE(check_plane(DType::kBF16, Layout::kExpByte, 3, buf.data(), 4095, 32768).ok());
  EXPECT_TRUE(check_plane(DType::kBF16, Layout::kExpByte, 3, buf.data(), 4096, 32768).ok());
  EXPECT_TRUE(check_plane(DType::kBF16, Layout::kBitplane, 10, buf.data(), 4096, 32768).ok());
}

// stories260K.bin (llama2.c): 7 int32 header, then FP32 little-endian weights.
std::vector<uint32_t> load_stories_fp32() {
  const std::filesystem::path path = std::filesystem::path(NDP_DATA_DIR) / "stories260K" / "stories260K.bin";
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 28 + 4) return {};
  std::vector<uint32_t> w((bytes.size() - 28) / 4);
  std::memcpy(w.data(), bytes.data() + 28, w.size() * 4);
  return w;
}

TEST(Pack, RealWeightsStories260K) {
  const auto fp32 = load_stories_fp32();
  if (fp32.empty()) GTEST_SKIP() << "stories260K.bin not found under " << NDP_DATA_DIR;
  std::vector<uint8_t> bf16(fp32.size() * 2);
  for (size_t i = 0; i < fp32.size(); ++i) {
    const uint16_t h = fp32_to_bf16_rne(fp32[i]);
    std::memcpy(&bf16[2 * i], &h, 2);
  }
  const uint8_t* fp32_bytes = reinterpret_cast<const uint8_t*>(fp32.data());
  uint64_t checked = 0;
  for (Layout l : kLayouts) {
    for (uint64_t off = 0; off < fp32.size(); off += kDefaultChunkElems) {
      const uint64_t n = std::min<uint64_t>(kDefaultChunkElems, fp32.size() - off);
      check_round_trip(DType::kBF16, l, std::vector<uint8_t>(bf16.begin() + 2 * off, bf16.begin() + 2 * (off + n)), n);
      check_round_trip(DType::kFP32, l,
                       std::vector<uint8_t>(fp32_bytes + 4 * off, fp32_bytes + 4 * (off + n)), n);
      if (HasFatalFailure()) return;
      checked += n;
    }
  }
  EXPECT_EQ(checked, 2 * fp32.size());
  std::printf("stories260K: %zu weights packed/unpacked in %zu-element chunks (bf16 and fp32)\n",
              fp32.size(), static_cast<size_t>(kDefaultChunkElems));
}

}  // namespace
}  // namespace ndp
