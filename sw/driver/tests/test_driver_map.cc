// Mapped regions: loads fault in region bytes equal to the golden region, one fault per touched unit
// (4 KiB or 2 MiB), bytes past the mapped length read zero, several threads fault concurrently, a
// page that needs a corrupt block reads zero and reports the error while the others are intact.
#include <numaif.h>

#include <algorithm>
#include <thread>

#include "driver_test_util.h"

namespace ndp::drv::test {
namespace {

TEST(DriverMap, MappedRegionsEqualGolden) {
  const std::vector<uint8_t> img = bf16_image();
  auto gold = ImageReader::open_bytes(img);
  ASSERT_TRUE(gold.ok());
  DaxFile dax;
  NodeProcess node;
  const Region fp8 = parse_region("fp8-e4m3", DType::kBF16, 1).value();
  for (const std::string& uri : {std::string("emu:inproc"), node.uri(), dax.uri()}) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, img);
    for (const Region& r : {Region{}, fp8}) {
      for (uint64_t unit : {uint64_t{4096}, uint64_t{2} << 20}) {
        std::vector<uint8_t> want;
        ASSERT_TRUE(gold.value()->read_region(0, r, want).ok());
        auto m = dev->map(id, 0, r, 0, want.size(), unit);
        ASSERT_TRUE(m.ok()) << m.status().message();
        const uint8_t* p = m.value()->data();
        EXPECT_EQ(m.value()->faults(), 0u) << "nothing is read before a load";
        EXPECT_EQ(std::memcmp(p, want.data(), want.size()), 0);
        EXPECT_EQ(m.value()->faults(), (want.size() + unit - 1) / unit);
        const uint64_t pad = (unit - want.size() % unit) % unit;
        for (uint64_t i = 0; i < pad; i += 97) EXPECT_EQ(p[want.size() + i], 0) << "past the end";
        EXPECT_TRUE(m.value()->status().ok());
      }
    }
    // An offset window of the region.
    std::vector<uint8_t> want;
    ASSERT_TRUE(gold.value()->read_region(0, Region{}, want).ok());
    auto m = dev->map(id, 0, Region{}, 8192, 10000);
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(std::memcmp(m.value()->data(), want.data() + 8192, 10000), 0);
    EXPECT_EQ(m.value()->data()[10000], 0);
    EXPECT_GE(dev->stats().page_faults, 3u);
    EXPECT_FALSE(dev->unload(id).ok()) << "still mapped";
    m.value().reset();
    EXPECT_TRUE(dev->unload(id).ok());
  }
}

TEST(DriverMap, ConcurrentFaults) {
  const std::vector<uint8_t> img = bf16_image();
  auto gold = ImageReader::open_bytes(img);
  ASSERT_TRUE(gold.ok());
  DaxFile dax;
  for (const std::string& uri : {std::string("emu:inproc"), dax.uri()}) {
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, img);
    std::vector<uint8_t> want;
    ASSERT_TRUE(gold.value()->read_region(0, Region{}, want).ok());
    auto m = dev->map(id, 0, Region{}, 0, want.size());
    ASSERT_TRUE(m.ok());
    std::vector<int> bad(4, 0);
    std::vector<std::thread> th;
    for (int t = 0; t < 4; ++t)
      th.emplace_back([&, t] {
        for (uint64_t i = static_cast<uint64_t>(t) * 4096; i < want.size(); i += 509)
          if (m.value()->data()[i] != want[i]) bad[t]++;
      });
    for (auto& x : th) x.join();
    EXPECT_EQ(bad, std::vector<int>(4, 0)) << uri;
    EXPECT_EQ(m.value()->faults(), (want.size() + 4095) / 4096) << uri;
  }
}

TEST(DriverMap, CorruptPageReadsZeroAndReports) {
  std::vector<uint8_t> img = bf16_image();
  auto rd = ImageReader::open_bytes(img);
  ASSERT_TRUE(rd.ok());
  const uint64_t at = rd.value()->block_offset(0, 3, 2);  // tensor 0, chunk 3, plane 6
  std::vector<uint8_t> want;
  ASSERT_TRUE(rd.value()->read_region(0, Region{}, want).ok());
  img[at + 20] ^= 0x01;
  DaxFile dax;
  for (const std::string& uri : {std::string("emu:inproc"), dax.uri()}) {
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, img);
    auto m = dev->map(id, 0, Region{}, 0, want.size());
    ASSERT_TRUE(m.ok());
    const uint8_t* p = m.value()->data();
    EXPECT_EQ(std::memcmp(p, want.data(), 3 * 8192), 0) << "chunks 0..2";
    EXPECT_TRUE(m.value()->status().ok());
    uint8_t any = 0;
    for (uint64_t i = 3 * 8192; i < 4 * 8192; ++i) any |= p[i];
    EXPECT_EQ(any, 0) << "the pages of the bad chunk read zero";
    EXPECT_FALSE(m.value()->status().ok());
    EXPECT_NE(m.value()->status().message().find("chunk 3"), std::string::npos) << m.value()->status().message();
    EXPECT_EQ(std::memcmp(p + 4 * 8192, want.data() + 4 * 8192, want.size() - 4 * 8192), 0) << "later chunks";
  }
}

}  // namespace
}  // namespace ndp::drv::test

namespace ndp::drv::test {
namespace {

// OpenOptions::host_node: the mapping's pages are placed on that node by sw/runtime (checked with
// move_pages on every page after the scan); a node that does not exist is an error.
TEST(DriverMap, HostNodePlacement) {
  const std::vector<uint8_t> img = bf16_image();
  auto gold = ImageReader::open_bytes(img);
  ASSERT_TRUE(gold.ok());
  std::vector<uint8_t> want;
  ASSERT_TRUE(gold.value()->read_region(0, Region{}, want).ok());
  DaxFile dax;
  OpenOptions o;
  o.host_node = 0;
  for (const std::string& uri : {std::string("emu:inproc"), dax.uri()}) {
    auto dev = open_ok(uri, o);
    ASSERT_TRUE(dev);
    const uint32_t id = load_ok(*dev, img);
    auto m = dev->map(id, 0, Region{}, 0, want.size());
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(std::memcmp(m.value()->data(), want.data(), want.size()), 0);
    std::vector<void*> pages;
    for (uint64_t at = 0; at < want.size(); at += 4096) pages.push_back(const_cast<uint8_t*>(m.value()->data()) + at);
    std::vector<int> node(pages.size(), -1);
    ASSERT_EQ(move_pages(0, pages.size(), pages.data(), nullptr, node.data(), 0), 0);
    EXPECT_EQ(std::count(node.begin(), node.end(), 0), static_cast<long>(pages.size())) << uri;
  }
  o.host_node = 999;
  auto dev = open_ok("emu:inproc", o);
  ASSERT_TRUE(dev);
  const uint32_t id = load_ok(*dev, img);
  EXPECT_FALSE(dev->map(id, 0, Region{}, 0, 4096).ok());
}

}  // namespace
}  // namespace ndp::drv::test
