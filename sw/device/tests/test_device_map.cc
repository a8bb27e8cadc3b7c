// Address map of docs/spec.md 7.1-7.3: format numbers, region windows, DECERR cases, element
// addresses against region_output_bytes, descriptors, lane status mapping, plan_map on real images.
#include <gtest/gtest.h>

#include <cstring>

#include "device_test_util.h"
#include "ndp/device_map.h"

namespace ndp::dev {
namespace {

const DType kSources[] = {DType::kBF16, DType::kFP16, DType::kFP32, DType::kFP8E4M3, DType::kFP8E5M2,
                          DType::kINT8, DType::kINT4};

TEST(DeviceMap, FormatNumbersAndWindowsRoundTrip) {
  for (DType t : kSources)
    for (int g = 0; g <= 2; ++g)
      for (const Region& r : all_regions(t, g)) {
        auto f = format_number(r, t);
        ASSERT_TRUE(f.ok()) << f.status().message();
        const uint8_t w = region_window(f.value(), g);
        EXPECT_TRUE(region_window_defined(w));
        auto back = decode_region_window(w, t);
        ASSERT_TRUE(back.ok()) << back.status().message();
        EXPECT_EQ(back->kind, r.kind);
        EXPECT_EQ(back->k, r.k);
        EXPECT_EQ(back->guard, r.kind == RegionKind::kFull ? 0 : g) << region_name(r, t);
      }
  // The fixed numbers of the 7.1 table.
  EXPECT_EQ(format_number(parse_region("e8m3", DType::kBF16, 0).value(), DType::kBF16).value(), 4);
  EXPECT_EQ(format_number(parse_region("e5m10", DType::kFP16, 0).value(), DType::kFP16).value(), 11);
  EXPECT_EQ(format_number(parse_region("fp8-e4m3", DType::kBF16, 0).value(), DType::kBF16).value(), 16);
  EXPECT_EQ(format_number(parse_region("mxfp4", DType::kFP32, 0).value(), DType::kFP32).value(), 22);
  EXPECT_EQ(region_window(22, 2), 0xD6);
}

TEST(DeviceMap, DecErrWindows) {
  // Not region windows at all: control/store/KV/others and g = 3, reserved f.
  for (unsigned w : {0x00u, 0x01u, 0x02u, 0x40u, 0x7Fu, 0xE0u, 0xF6u, 0xFFu}) {
    EXPECT_FALSE(region_window_defined(static_cast<uint8_t>(w))) << w;
    EXPECT_FALSE(decode_region_window(static_cast<uint8_t>(w), DType::kBF16).ok()) << w;
  }
  for (unsigned f : {12u, 13u, 14u, 15u, 23u, 31u})
    for (int g = 0; g <= 2; ++g) EXPECT_FALSE(region_window_defined(region_window(static_cast<uint8_t>(f), g)));
  // Regions the source does not expose.
  EXPECT_FALSE(decode_region_window(region_window(kFormatEmK + 8, 0), DType::kBF16).ok());  // e8m8
  EXPECT_TRUE(decode_region_window(region_window(kFormatEmK + 7, 0), DType::kBF16).ok());   // e8m7
  EXPECT_FALSE(decode_region_window(region_window(kFormatEmK + 5, 0), DType::kFP8E4M3).ok());
  EXPECT_TRUE(decode_region_window(region_window(kFormatEmK + 10, 1), DType::kFP16).ok());
  EXPECT_FALSE(decode_region_window(region_window(kFormatFp8E4M3, 0), DType::kINT8).ok());
  EXPECT_TRUE(decode_region_window(region_window(kFormatFull, 2), DType::kINT4).ok());
  EXPECT_FALSE(format_number(Region{RegionKind::kEmK, 3, 0}, DType::kINT8).ok());
}

// element_offset agrees with region_output_bytes: element i lies inside the bytes of i + 1 elements
// and at or after the bytes of i elements' packing (FP6/FP4 bit positions included).
TEST(DeviceMap, ElementOffsetsMatchRegionBytes) {
  for (DType t : kSources)
    for (const Region& r : all_regions(t, 1))
      for (uint64_t i = 0; i < 200; ++i) {
        auto p = element_offset(r, t, i);
        ASSERT_TRUE(p.ok());
        const uint64_t bit = p->byte * 8 + p->bit;
        EXPECT_LT(p->byte, region_output_bytes(r, t, i + 1)) << region_name(r, t) << " i=" << i;
        if (r.kind == RegionKind::kMXFP8 || r.kind == RegionKind::kMXFP4) {
          // scale byte of the group, then the element codes
          const uint64_t ebits = r.kind == RegionKind::kMXFP8 ? 8 : 4, j = i % 32;
          EXPECT_EQ(bit, 8 * (region_output_bytes(r, t, i - j) + 1) + j * ebits) << region_name(r, t) << " i=" << i;
        } else {
          const uint64_t width = region_output_bytes(r, t, 64) * 8 / 64;  // bits per element
          EXPECT_EQ(bit, i * width) << region_name(r, t) << " i=" << i;
          EXPECT_EQ(region_output_bytes(r, t, i + 1), (bit + width + 7) / 8) << region_name(r, t);
        }
        auto a = element_address(r, t, 6 * kTensorAlign, i);
        ASSERT_TRUE(a.ok());
        EXPECT_EQ(offset_of(a.value()), 6 * kTensorAlign + p->byte);
        EXPECT_EQ(window_of(a.value()), region_window(format_number(r, t).value(), r.guard));
      }
}

TEST(DeviceMap, DescriptorEncodeDecode) {
  Descriptor d{0x1234u << 21, 12345, 0x40, 0x9000, 0xA000, 32768, 1, 1, 9, kDescValid};
  uint8_t b[64];
  d.encode(b);
  EXPECT_EQ(b[44], 1);
  EXPECT_EQ(b[46], 9);
  for (int i = 48; i < 64; ++i) EXPECT_EQ(b[i], 0);
  EXPECT_EQ(Descriptor::decode(b), d);
}

TEST(DeviceMap, LaneStatusCodes) {
  EXPECT_EQ(lane_error_code(lane_status(BlockFault::kChecksum)), 27);
  EXPECT_EQ(lane_error_code(lane_status(BlockFault::kHeaderTruncated)), 17);
  EXPECT_EQ(lane_error_code(lane_status(BlockFault::kPadding)), 28);
  EXPECT_EQ(lane_error_code(lane_status(BlockFault::kLz4Payload)), 32);
  EXPECT_TRUE(err_code_matches(32 + 3, 32));
  EXPECT_TRUE(err_code_matches(48 + 18, 48));
  EXPECT_FALSE(err_code_matches(48 + 1, 32));
  EXPECT_FALSE(err_code_matches(27, 28));
}

TEST(DeviceMap, PlanMapBasesAlignedAndDisjoint) {
  devtest::Images imgs;
  if (!devtest::build_images(&imgs)) GTEST_SKIP() << imgs.why;
  for (const auto* img : {&imgs.gpt2, &imgs.stories}) {
    auto r = ImageReader::open_view(img->data(), img->size());
    ASSERT_TRUE(r.ok());
    auto plan = plan_map(*r.value(), 0x40);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    ASSERT_EQ(plan->desc.size(), r.value()->tensors().size());
    uint64_t next = 0;
    for (size_t t = 0; t < plan->desc.size(); ++t) {
      const Descriptor& d = plan->desc[t];
      const TensorInfo& ti = r.value()->tensors()[plan->image_tensor[t]];
      EXPECT_EQ(d.base % kTensorAlign, 0u);
      EXPECT_EQ(d.base, next);
      next = (d.base + tensor_span(ti) + kTensorAlign - 1) / kTensorAlign * kTensorAlign;
      for (int g = 0; g <= 2; ++g)
        for (const Region& reg : all_regions(ti.dtype, g))
          EXPECT_LE(d.base + region_output_bytes(reg, ti.dtype, ti.elems), next);
      EXPECT_EQ(d.index, 0x40 + ti.index_offset);
      EXPECT_EQ(d.slots, ti.plane_ids.size());
    }
  }
  auto bad = ImageReader::open_view(imgs.stories.data(), imgs.stories.size());
  EXPECT_FALSE(plan_map(*bad.value(), 0x20).ok());
}

}  // namespace
}  // namespace ndp::dev
