// Cross-backend equality: every region and guard count of every tensor of real and synthetic images,
// read through each backend (emu in process, emu node daemon, dax file, rtl when built), equals the
// golden ImageReader::read_region; seeded random ranges equal the same slices; the software NDP
// kernel equals unpack_chunk; statistics count what was fetched.
#include <random>

#include "driver_test_util.h"
#include "ndp/driver_backend.h"
#include "ndp/soft_ndp.h"
#include "../src/soft_kernels.h"

namespace ndp::drv::test {
namespace {

// Every region of every tensor (guards 0..2) through dev equals the golden reader; returns the
// number of regions compared. fetched[i] (if given) receives the device bytes of each read.
// quick: a few regions only (the RTL co-simulation is slow).
size_t check_all_regions(Device& dev, uint32_t img, ImageReader& gold, std::vector<uint64_t>* fetched = nullptr,
                         bool quick = false) {
  size_t compared = 0;
  std::vector<uint8_t> want, got;
  for (size_t t = 0; t < gold.tensors().size(); ++t) {
    const TensorInfo& ti = gold.tensors()[t];
    for (int g = 0; g <= 2; ++g)
      for (const Region& r : all_regions(ti.dtype, g)) {
        if (r.kind == RegionKind::kFull && g > 0) continue;
        if (quick && !(g == 1 && (r.kind == RegionKind::kFP8E4M3 || r.kind == RegionKind::kMXFP4)) &&
            !(g == 0 && r.kind == RegionKind::kFull))
          continue;
        ReadStats rs;
        Status s = gold.read_region(t, r, want, &rs);
        EXPECT_TRUE(s.ok()) << s.message();
        CallStats st;
        s = dev.read_region(img, t, r, got, &st);
        EXPECT_TRUE(s.ok()) << dev.uri() << ": " << s.message();
        EXPECT_TRUE(got == want) << dev.uri() << ": tensor '" << ti.name << "' region " << region_name(r, ti.dtype)
                                 << " g=" << g << " differs";
        EXPECT_EQ(st.host_bytes, want.size());
        EXPECT_EQ(st.errors, 0u);
        if (fetched) fetched->push_back(st.device_bytes);
        if (dev.uri().rfind("dax", 0) == 0 && ti.kind == TensorKind::kWeight) {
          EXPECT_EQ(st.device_bytes, rs.fetched_bytes) << "dax fetches exactly the region's blocks";
          EXPECT_EQ(st.blocks, rs.blocks);
        }
        if (dev.uri().rfind("emu", 0) == 0 && ti.kind == TensorKind::kWeight && ti.elems) {
          EXPECT_GE(st.device_bytes, rs.fetched_bytes) << "device DRAM lines cover the blocks";
        }
        ++compared;
      }
  }
  return compared;
}

// Seeded random ranges of random tensors and regions equal the slices of the golden regions.
void check_random_ranges(Device& dev, uint32_t img, ImageReader& gold, uint64_t seed, int reads) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> want, got;
  for (int i = 0; i < reads; ++i) {
    const size_t t = rng() % gold.tensors().size();
    const TensorInfo& ti = gold.tensors()[t];
    const std::vector<Region> rs = all_regions(ti.dtype, static_cast<int>(rng() % 3));
    const Region r = rs[rng() % rs.size()];
    ASSERT_TRUE(gold.read_region(t, r, want).ok());
    if (want.empty()) continue;
    const uint64_t off = rng() % want.size(), len = 1 + rng() % std::min<uint64_t>(want.size() - off, 200000);
    got.assign(len, 0xEE);
    Status s = dev.read(img, t, r, off, len, got.data());
    ASSERT_TRUE(s.ok()) << dev.uri() << ": " << s.message();
    ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin() + static_cast<long>(off)))
        << dev.uri() << ": tensor '" << ti.name << "' " << region_name(r, ti.dtype) << " [" << off << ", +" << len << ")";
  }
}

TEST(DriverRead, SyntheticImagesEveryBackend) {
  const uint64_t seed = test_seed();
  const std::vector<uint8_t> synth = dev::devtest::synth_image(), bf16 = bf16_image(), bf16_rtl = bf16_image(true);
  auto gs = ImageReader::open_bytes(synth);
  auto gb = ImageReader::open_bytes(bf16);
  auto gr = ImageReader::open_bytes(bf16_rtl);
  ASSERT_TRUE(gs.ok() && gb.ok() && gr.ok());
  DaxFile dax;
  NodeProcess node;
  std::vector<std::string> uris = {"emu:inproc", node.uri(), dax.uri()};
  if (backend_registered("rtl")) uris.push_back("rtl");
  for (const std::string& uri : uris) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const bool rtl = uri == "rtl";  // the RTL model maps bf16 only, chunk_elems multiples of 2048
    if (!rtl) {
      const uint32_t a = load_ok(*dev, synth);
      EXPECT_GT(check_all_regions(*dev, a, *gs.value()), 50u);
      check_random_ranges(*dev, a, *gs.value(), seed, 100);
      const uint32_t b = load_ok(*dev, bf16);  // a second image on the same device
      EXPECT_GT(check_all_regions(*dev, b, *gb.value()), 50u);
      check_random_ranges(*dev, b, *gb.value(), seed + 1, 100);
    }
    const uint32_t c = load_ok(*dev, bf16_rtl);  // the image every backend maps, the RTL included
    EXPECT_GE(check_all_regions(*dev, c, *gr.value(), nullptr, rtl), 12u);
    check_random_ranges(*dev, c, *gr.value(), seed + 2, rtl ? 20 : 100);
    EXPECT_EQ(dev->stats().images, rtl ? 1u : 3u);
    EXPECT_EQ(dev->stats().failed_calls, 0u);
  }
}

TEST(DriverRead, RealImagesEveryBackend) {
  dev::devtest::Images im;
  if (!dev::devtest::build_images(&im)) GTEST_SKIP() << im.why;
  const uint64_t seed = test_seed();
  DaxFile dax;
  NodeProcess node;
  for (const std::string& uri : {std::string("emu:inproc"), node.uri(), dax.uri()}) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    for (const std::vector<uint8_t>* bytes : {&im.gpt2, &im.stories}) {
      auto gold = ImageReader::open_bytes(*bytes);
      ASSERT_TRUE(gold.ok());
      const uint32_t id = load_ok(*dev, *bytes);
      std::vector<uint64_t> fetched;
      EXPECT_GT(check_all_regions(*dev, id, *gold.value(), &fetched), 20u);
      check_random_ranges(*dev, id, *gold.value(), seed, 40);
      ASSERT_TRUE(dev->unload(id).ok());
    }
  }
}

TEST(DriverRead, NarrowRegionsFetchLess) {
  const std::vector<uint8_t> bf16 = bf16_image();
  DaxFile dax;
  for (const std::string& uri : {std::string("emu:inproc"), dax.uri()}) {
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, bf16);
    std::vector<uint8_t> out;
    uint64_t prev = UINT64_MAX;
    for (const char* name : {"full", "e8m3", "e8m1", "e8m0"}) {  // 9, 6, 4, 3 of 9 planes fetched
      CallStats st;
      ASSERT_TRUE(dev->read_region(id, 0, parse_region(name, DType::kBF16, 0).value(), out, &st).ok());
      EXPECT_LT(st.device_bytes, prev) << uri << " " << name;
      EXPECT_GT(st.device_bytes, 0u);
      prev = st.device_bytes;
    }
  }
}

TEST(DriverRead, SoftKernelEqualsUnpackChunk) {
  std::mt19937 rng(static_cast<uint32_t>(test_seed()));
  for (uint64_t n : {1ull, 63ull, 64ull, 65ull, 1000ull, 4096ull, 32768ull, 65536ull}) {
    const std::vector<uint8_t> src = imgtest::weights(DType::kBF16, n, static_cast<uint32_t>(n));
    std::vector<std::vector<uint8_t>> planes;
    pack_chunk(DType::kBF16, Layout::kExpByte, src.data(), n, planes);
    for (int drop = -1; drop < 9; drop += 3) {  // none, then some planes absent (read as zero)
      std::vector<const uint8_t*> ptr;
      for (size_t p = 0; p < planes.size(); ++p) ptr.push_back(static_cast<int>(p) == drop ? nullptr : planes[p].data());
      std::vector<uint8_t> want(2 * n), got(2 * n, 0xCD);
      unpack_chunk(DType::kBF16, Layout::kExpByte, ptr, n, want.data());
      const uint8_t* mant[7];
      for (int b = 0; b < 7; ++b) mant[b] = ptr[2 + b];
      unpack_bf16_expbyte(ptr[0], ptr[1], mant, n, got.data());
      ASSERT_EQ(got, want) << "n=" << n << " drop=" << drop << " kernel " << SoftReader::kernel_name();
    }
  }
  std::printf("[kernel] %s\n", SoftReader::kernel_name());
}

}  // namespace
}  // namespace ndp::drv::test

namespace ndp::drv::test {
namespace {

// 16-bit words that hit every conversion case: weights, zeros, subnormals, Inf/NaN in some MX
// groups, all-zero groups, groups spanning many binades, fully random bit patterns.
std::vector<uint16_t> tricky_words(DType t, uint64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<uint8_t> w = imgtest::weights(t, n, seed);
  std::vector<uint16_t> v(n);
  std::memcpy(v.data(), w.data(), 2 * n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t group = i / 32;
    if (group % 7 == 3) v[i] = 0;                                    // all-zero group
    if (group % 7 == 5) v[i] = static_cast<uint16_t>(rng());         // any bits, NaN/Inf included
    if (group % 7 == 6) v[i] = static_cast<uint16_t>(rng() & 0x807F);  // subnormals and zeros
    if (group % 11 == 2 && i % 32 == 17) v[i] = static_cast<uint16_t>(rng() & 0x80FF);
  }
  return v;
}

TEST(DriverRead, TableAssemblyEqualsGolden) {
  const uint32_t seed = static_cast<uint32_t>(test_seed());
  size_t compared = 0;
  for (DType t : {DType::kBF16, DType::kFP16})
    for (uint64_t n : {1ull, 31ull, 33ull, 250ull, 4099ull, 32768ull}) {
      const std::vector<uint16_t> v = tricky_words(t, n, seed + static_cast<uint32_t>(n));
      for (int g = 0; g <= 2; ++g)
        for (const Region& r : all_regions(t, g)) {
          if (r.kind == RegionKind::kFull) continue;
          const uint64_t bytes = region_output_bytes(r, t, n);
          std::vector<uint8_t> want(bytes), got(bytes, 0xA5);
          ASSERT_TRUE(assemble_region(r, t, reinterpret_cast<const uint8_t*>(v.data()), n, want.data()).ok());
          const bool mx = r.kind == RegionKind::kMXFP8 || r.kind == RegionKind::kMXFP4;
          const bool done = assemble16(r, t, v.data(), n, got.data());
          EXPECT_EQ(done, !(mx && t == DType::kFP16)) << region_name(r, t);
          if (!done) continue;
          ASSERT_EQ(got, want) << dtype_info(t).name << " " << region_name(r, t) << " g=" << g << " n=" << n;
          ++compared;
        }
    }
  EXPECT_GT(compared, 200u);
}

}  // namespace
}  // namespace ndp::drv::test

namespace ndp::drv::test {
namespace {

TEST(DriverRead, BatchChecksumEqualsXxh32) {
  std::mt19937 rng(static_cast<uint32_t>(test_seed()));
  for (int round = 0; round < 50; ++round) {
    const size_t count = 1 + rng() % 12;
    std::vector<std::vector<uint8_t>> bufs(count);
    std::vector<const uint8_t*> data;
    std::vector<uint32_t> len, got(count);
    const uint32_t common = rng() % 3 ? 4096 : rng() % 100;
    for (auto& b : bufs) {
      b.resize(rng() % 4 ? common : rng() % 5000);
      for (auto& x : b) x = static_cast<uint8_t>(rng());
      data.push_back(b.data());
      len.push_back(static_cast<uint32_t>(b.size()));
    }
    xxh32_batch(data.data(), len.data(), count, got.data());
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(got[i], block_checksum(data[i], len[i])) << "len " << len[i];
  }
}

}  // namespace
}  // namespace ndp::drv::test
