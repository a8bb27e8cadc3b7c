// The device model on real images (GPT-2 decoder1 attention as bf16, stories260K as fp32) and a
// synthetic image of the other dtypes: loaded through the host port at a nonzero image base, every
// region and guard count of every tensor read through the region windows and compared byte-exact
// with ImageReader::read_region; then seeded random address/length reads.
#include <gtest/gtest.h>

#include <map>

#include "device_test_util.h"

namespace ndp::dev {
namespace {

using devtest::Images;

// Reads every region and guard count of every mapped tensor; returns the regions compared.
int check_all_regions(const std::vector<uint8_t>& image, const char* label) {
  MapPlan plan;
  auto m = devtest::loaded_model(image, &plan);
  auto reader = ImageReader::open_view(image.data(), image.size());
  EXPECT_TRUE(m && reader.ok());
  if (!m || !reader.ok()) return 0;
  int compared = 0;
  for (size_t t = 0; t < plan.desc.size(); ++t) {
    const size_t ti = plan.image_tensor[t];
    const TensorInfo& info = reader.value()->tensors()[ti];
    for (int g = 0; g <= 2; ++g)
      for (const Region& r : all_regions(info.dtype, g)) {
        std::vector<uint8_t> want;
        EXPECT_TRUE(reader.value()->read_region(ti, r, want).ok());
        std::vector<Resp> resp;
        const uint8_t w = region_window(format_number(r, info.dtype).value(), g);
        const std::vector<uint8_t> got = devtest::read_window(*m, w, plan.desc[t].base, 0, want.size(), &resp);
        for (size_t b = 0; b < resp.size(); ++b) EXPECT_EQ(resp[b], Resp::kOkay) << info.name << " beat " << b;
        EXPECT_EQ(got, want) << label << " " << info.name << " " << region_name(r, info.dtype) << " g" << g;
        ++compared;
      }
  }
  EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
  EXPECT_EQ(m->peek_csr(kCsrCntSlvErr), 0u);
  EXPECT_EQ(m->peek_csr(kCsrCntDecErr), 0u);
  std::printf("%s: %d tensor regions read byte-exact through the device model\n", label, compared);
  return compared;
}

TEST(DeviceReal, Gpt2EveryRegionMatchesReadRegion) {
  Images imgs;
  if (!devtest::build_images(&imgs)) GTEST_SKIP() << imgs.why;
  EXPECT_EQ(check_all_regions(imgs.gpt2, "gpt2 decoder1"), 4 * 48);
}

TEST(DeviceReal, Stories260kFp32EveryRegionMatchesReadRegion) {
  Images imgs;
  if (!devtest::build_images(&imgs)) GTEST_SKIP() << imgs.why;
  EXPECT_GT(check_all_regions(imgs.stories, "stories260K fp32"), 13 * 45);
}

TEST(DeviceReal, SyntheticDtypesEveryRegionMatchesReadRegion) {
  Images imgs;
  devtest::build_images(&imgs);
  EXPECT_GT(check_all_regions(imgs.synth, "synthetic"), 100);
}

// Random (address, length) reads over every tensor and region, past the tensor ends included:
// beats inside a tensor's range are OKAY and exact, beats wholly past it DECERR.
void random_reads(const std::vector<uint8_t>& image, uint64_t seed, int reads, const char* label) {
  MapPlan plan;
  auto m = devtest::loaded_model(image, &plan);
  auto reader = ImageReader::open_view(image.data(), image.size());
  ASSERT_TRUE(m && reader.ok());
  std::mt19937_64 rng(seed);
  std::map<std::tuple<size_t, int, int, int>, std::vector<uint8_t>> cache;
  for (int i = 0; i < reads; ++i) {
    const size_t t = rng() % plan.desc.size();
    const TensorInfo& info = reader.value()->tensors()[plan.image_tensor[t]];
    const int g = static_cast<int>(rng() % 3);
    const std::vector<Region> rs = all_regions(info.dtype, g);
    const Region r = rs[rng() % rs.size()];
    std::vector<uint8_t>& want = cache[{t, static_cast<int>(r.kind), r.k, g}];
    if (want.empty()) {
      ASSERT_TRUE(reader.value()->read_region(plan.image_tensor[t], r, want).ok());
    }
    const uint64_t off = rng() % (want.size() + 256) & ~uint64_t{63};
    const uint64_t len = 64 * (1 + rng() % 80);
    std::vector<Resp> resp;
    const uint8_t w = region_window(format_number(r, info.dtype).value(), g);
    const std::vector<uint8_t> got = devtest::read_window(*m, w, plan.desc[t].base, off, len, &resp);
    for (size_t b = 0; b < resp.size(); ++b) {
      const uint64_t at = off + 64 * b;
      ASSERT_EQ(resp[b], at < want.size() ? Resp::kOkay : Resp::kDecErr) << label << " read " << i;
      for (uint64_t j = 0; j < 64; ++j)
        ASSERT_EQ(got[64 * b + j], at + j < want.size() ? want[at + j] : 0)
            << label << " read " << i << " " << info.name << " " << region_name(r, info.dtype) << " byte " << at + j;
    }
  }
  EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
}

TEST(DeviceReal, RandomReads) {
  const uint64_t seed = devtest::test_seed();
  Images imgs;
  const bool real = devtest::build_images(&imgs);
  random_reads(imgs.synth, seed, 400, "synthetic");
  if (!real) GTEST_SKIP() << imgs.why;
  random_reads(imgs.gpt2, seed + 1, 300, "gpt2");
  random_reads(imgs.stories, seed + 2, 300, "stories260K");
}

}  // namespace
}  // namespace ndp::dev
