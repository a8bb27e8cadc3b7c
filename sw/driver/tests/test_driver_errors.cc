// Bad input: unknown backends, missing devices, truncated and oversized images, a corrupted stored
// block (only the reads that need it fail, with tensor/chunk/plane in the message, on every
// backend), ranges beyond a tensor, regions a dtype lacks, unaligned and oversized maps.
#include "driver_test_util.h"
#include "ndp/driver_backend.h"

namespace ndp::drv::test {
namespace {

void expect_error(const Status& s, const std::vector<std::string>& parts) {
  ASSERT_FALSE(s.ok());
  for (const std::string& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << "'" << p << "' not in: " << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << "one line";
}

TEST(DriverErrors, OpenBadNames) {
  auto a = Device::open("nope");
  expect_error(a.status(), {"unknown device 'nope'", "emu", "dax"});
  if (!backend_registered("rtl")) expect_error(Device::open("rtl").status(), {"NDP_BUILD_RTL"});
  expect_error(Device::open("dax:/nonexistent/dax9.9").status(), {"/nonexistent/dax9.9", "cannot open"});
  expect_error(Device::open("dax:").status(), {"needs a path"});
  expect_error(Device::open("dax:/dev/null").status(), {"not a devdax device"});
  expect_error(Device::open("dax:numa:x").status(), {"dax:numa:N"});
  expect_error(Device::open("emu:@ndp-test-no-such-node").status(), {"no emulated node listening"});
  expect_error(Device::open("emu:/nonexistent/sock").status(), {"no emulated node listening"});
}

TEST(DriverErrors, TruncatedAndOversizedImages) {
  const std::vector<uint8_t> img = bf16_image();
  const std::vector<uint8_t> cut(img.begin(), img.begin() + static_cast<long>(img.size() / 2));
  DaxFile dax, tiny(64 << 10);
  NodeProcess node;
  OpenOptions small;
  small.dram_bytes = 64 << 10;
  for (const std::string& uri : {std::string("emu:inproc"), node.uri(), dax.uri()}) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    auto r = dev->load(cut.data(), cut.size());
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(dev->load(img.data(), 10).ok());
    const uint32_t id = load_ok(*dev, img);  // the device is still usable
    std::vector<uint8_t> out;
    EXPECT_TRUE(dev->read_region(id, 0, Region{}, out).ok());
    EXPECT_EQ(dev->stats().images, 1u);
  }
  for (const std::string& uri : {std::string("emu:inproc"), tiny.uri()}) {
    auto dev = open_ok(uri, small);
    ASSERT_TRUE(dev);
    expect_error(dev->load(img.data(), img.size()).status(), {"does not fit", std::to_string(img.size())});
  }
  expect_error(Device::open("emu:inproc").value()->load_file("/nonexistent.ndpi").status(), {"/nonexistent.ndpi"});
}

// The bf16 image with one byte of tensor 0, chunk 3, plane 0 (the lowest mantissa plane) flipped.
std::vector<uint8_t> corrupt_image(uint64_t* block_at) {
  std::vector<uint8_t> img = bf16_image();
  auto rd = ImageReader::open_bytes(img);
  EXPECT_TRUE(rd.ok());
  const size_t slot = rd.value()->tensors()[0].plane_ids.size() - 1;  // plane 0
  *block_at = rd.value()->block_offset(0, 3, slot);
  img[*block_at + 12 + 7] ^= 0x10;
  return img;
}

TEST(DriverErrors, CorruptBlockFailsOnlyItsReads) {
  uint64_t at = 0;
  const std::vector<uint8_t> bad = corrupt_image(&at), good = bf16_image();
  auto gold = ImageReader::open_bytes(good);
  ASSERT_TRUE(gold.ok());
  DaxFile dax;
  NodeProcess node;
  const Region full{}, e8m3 = parse_region("e8m3", DType::kBF16, 1).value();
  for (const std::string& uri : {std::string("emu:inproc"), node.uri(), dax.uri()}) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, bad);
    std::vector<uint8_t> out, want;
    CallStats st;
    expect_error(dev->read_region(id, 0, full, out, &st), {"tensor 'bf16_0'", "chunk 3", "plane 0x00"});
    EXPECT_GT(st.errors, 0u);
    // Chunk 3 is region bytes [3 x 8192, 4 x 8192) of `full`: the chunks around it read fine.
    out.resize(8192);
    for (uint64_t k : {0u, 2u, 4u, 8u}) {
      ASSERT_TRUE(gold.value()->read_region(0, full, want).ok());
      ASSERT_TRUE(dev->read(id, 0, full, k * 8192, 8192, out.data()).ok()) << "chunk " << k;
      EXPECT_TRUE(std::equal(out.begin(), out.end(), want.begin() + static_cast<long>(k * 8192)));
    }
    EXPECT_FALSE(dev->read(id, 0, full, 3 * 8192 + 100, 10, out.data()).ok());
    // A region that does not fetch plane 0 and the other tensors are intact.
    ASSERT_TRUE(gold.value()->read_region(0, e8m3, want).ok());
    ASSERT_TRUE(dev->read_region(id, 0, e8m3, out).ok());
    EXPECT_EQ(out, want);
    ASSERT_TRUE(gold.value()->read_region(1, full, want).ok());
    ASSERT_TRUE(dev->read_region(id, 1, full, out).ok());
    EXPECT_EQ(out, want);
    EXPECT_GT(dev->stats().failed_calls, 0u);
  }
}

TEST(DriverErrors, BadRangesRegionsAndMaps) {
  const std::vector<uint8_t> img = bf16_image();
  DaxFile dax;
  for (const std::string& uri : {std::string("emu:inproc"), dax.uri()}) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, img);
    const uint64_t n = dev->region_bytes(id, 0, Region{}).value();
    EXPECT_EQ(n, 2u * 70001);
    std::vector<uint8_t> out(n + 64);
    expect_error(dev->read(id, 0, Region{}, n - 10, 11, out.data()), {"beyond tensor 'bf16_0'", std::to_string(n)});
    EXPECT_TRUE(dev->read(id, 0, Region{}, n - 10, 10, out.data()).ok());
    expect_error(dev->read(id, 99, Region{}, 0, 1, out.data()), {"tensor 99 out of range"});
    expect_error(dev->read(id + 7, 0, Region{}, 0, 1, out.data()), {"no image"});
    expect_error(dev->read(id, 0, Region{RegionKind::kEmK, 9, 0}, 0, 1, out.data()), {"tensor 'bf16_0'"});
    expect_error(dev->map(id, 0, Region{}, 100, 4096).status(), {"unaligned map", "100"});
    expect_error(dev->map(id, 0, Region{}, 0, n + 1).status(), {"beyond tensor 'bf16_0'"});
    expect_error(dev->map(id, 0, Region{}, 0, 0).status(), {"length 0"});
    expect_error(dev->map(id, 0, Region{}, 0, 4096, 8192).status(), {"fault unit"});
    expect_error(dev->unload(id + 7), {"no image"});
    ASSERT_TRUE(dev->unload(id).ok());
    EXPECT_EQ(dev->stats().device_free, dev->stats().device_memory);
  }
}

}  // namespace
}  // namespace ndp::drv::test
