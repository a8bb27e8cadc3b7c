// Per-node object allocator: classes, reuse, watermark, large blocks, bad frees, threads.
#include <gtest/gtest.h>

#include "numa_skip.h"

#include <set>
#include <thread>

#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/slab.h"

using namespace ndp::rt;
using ndp::Status;

namespace {

Runtime host_runtime() {
  auto t = discover_sysfs("/sys");
  EXPECT_TRUE(t.ok());
  return Runtime(t.value());
}

SlabOptions small_blocks() {
  SlabOptions o;
  o.placement = Placement::on_node(allowed_memory_nodes().front());
  o.block_bytes = {256 << 10, 4 << 20, 32 << 20};  // 16 slots, 4 slots, 2 slots
  return o;
}

}  // namespace

TEST(RtSlab, ClassBoundaries) {
  EXPECT_EQ(ObjectAllocator::class_of(1), 0);
  EXPECT_EQ(ObjectAllocator::class_of(16384), 0);
  EXPECT_EQ(ObjectAllocator::class_of(16385), 1);
  EXPECT_EQ(ObjectAllocator::class_of(1 << 20), 1);
  EXPECT_EQ(ObjectAllocator::class_of((1 << 20) + 1), 2);
  EXPECT_EQ(ObjectAllocator::class_of(16 << 20), 2);
  EXPECT_EQ(ObjectAllocator::class_of((16 << 20) + 1), 3);
}

TEST(RtSlab, SlotsReuseAndCounters) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  ObjectAllocator oa(rt, small_blocks());
  std::set<void*> seen;
  std::vector<void*> ptrs;
  for (int i = 0; i < 20; ++i) {
    auto p = oa.allocate(10 << 10);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p.value()) % 16384, 0u);
    EXPECT_TRUE(seen.insert(p.value()).second);
    ptrs.push_back(p.value());
  }
  auto s = oa.stats();
  EXPECT_EQ(s.cls[0].blocks, 2u);  // 16 slots per block
  EXPECT_EQ(s.cls[0].used, 20u);
  EXPECT_EQ(s.reserved_bytes, 2u * (256 << 10));
  EXPECT_EQ(s.requested_bytes, 20u * (10 << 10));
  EXPECT_DOUBLE_EQ(s.internal_fragmentation(), 1.0 - 10.0 / 16.0);
  EXPECT_DOUBLE_EQ(s.external_fragmentation(), 1.0 - 20.0 / 32.0);
  ASSERT_TRUE(oa.free(ptrs[5]).ok());
  auto again = oa.allocate(16384);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), ptrs[5]) << "the freed slot is reused first";
  for (void* p : ptrs) ASSERT_TRUE(oa.free(p).ok());
  s = oa.stats();
  EXPECT_EQ(s.cls[0].used, 0u);
  EXPECT_EQ(s.cls[0].blocks, 1u) << "one empty block kept (watermark), the other returned";
  EXPECT_EQ(s.blocks_returned, 1u);
  EXPECT_EQ(s.allocs, 21u);
  EXPECT_EQ(s.frees, 21u);
}

TEST(RtSlab, LargeBlockPathAndMediumClasses) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  ObjectAllocator oa(rt, small_blocks());
  auto m = oa.allocate(700 << 10);
  auto h = oa.allocate(9 << 20);
  auto l = oa.allocate((16 << 20) + 1);
  ASSERT_TRUE(m.ok() && h.ok() && l.ok());
  auto s = oa.stats();
  EXPECT_EQ(s.cls[1].used, 1u);
  EXPECT_EQ(s.cls[2].used, 1u);
  EXPECT_EQ(s.large_count, 1u);
  EXPECT_EQ(s.large_bytes, (16u << 20) + rt.page_size());
  std::vector<int> nodes;
  ASSERT_TRUE(detail::query_page_nodes(l.value(), 16 << 20, nodes).ok());
  for (int n : nodes) ASSERT_EQ(n, allowed_memory_nodes().front());
  ASSERT_TRUE(oa.free(l.value()).ok());
  ASSERT_TRUE(oa.free(h.value()).ok());
  ASSERT_TRUE(oa.free(m.value()).ok());
  EXPECT_EQ(oa.stats().large_count, 0u);
  EXPECT_EQ(rt.accounting().live_allocations, 2u) << "one kept empty block each for classes 1 and 2";
}

TEST(RtSlab, BadFreesAreErrors) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  ObjectAllocator oa(rt, small_blocks());
  auto p = oa.allocate(100);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(oa.free(nullptr).ok());
  Status inner = oa.free(static_cast<char*>(p.value()) + 64);
  ASSERT_FALSE(inner.ok());
  EXPECT_NE(inner.message().find("not at its start"), std::string::npos);
  int local = 0;
  Status foreign = oa.free(&local);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.message().find("not allocated by this allocator"), std::string::npos);
  ASSERT_TRUE(oa.free(p.value()).ok());
  Status twice = oa.free(p.value());
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("twice"), std::string::npos);
  EXPECT_FALSE(oa.allocate(0).ok());
  EXPECT_FALSE(oa.reserve(3, 1).ok());
}

TEST(RtSlab, NodeWithoutRoomFailsCleanly) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  SlabOptions o = small_blocks();
  auto fr = node_free_bytes(allowed_memory_nodes().front());
  ASSERT_TRUE(fr.ok());
  o.alloc.reserve_bytes = fr.value();  // nothing may be taken from the node
  ObjectAllocator oa(rt, o);
  auto p = oa.allocate(16384);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("slab 16 KiB block"), std::string::npos) << p.status().message();
  auto l = oa.allocate(64 << 20);
  ASSERT_FALSE(l.ok());
  auto s = oa.stats();
  EXPECT_EQ(s.failures, 2u);
  EXPECT_EQ(s.reserved_bytes, 0u);
}

TEST(RtSlab, ThreadsKeepCountersConsistent) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  ObjectAllocator oa(rt, small_blocks());
  ASSERT_TRUE(oa.reserve(0, 4).ok());
  std::vector<std::thread> th;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t)
    th.emplace_back([&, t] {
      std::vector<void*> mine;
      for (int i = 0; i < 3000; ++i) {
        uint64_t sz = (i + t) % 10 == 0 ? (600 << 10) : (1 + (i * 131) % 16384);
        auto p = oa.allocate(sz);
        if (!p.ok()) {
          ++errors;
          continue;
        }
        static_cast<char*>(p.value())[0] = 1;
        mine.push_back(p.value());
        if (mine.size() > 8) {
          if (!oa.free(mine.front()).ok()) ++errors;
          mine.erase(mine.begin());
        }
      }
      for (void* p : mine)
        if (!oa.free(p).ok()) ++errors;
    });
  for (auto& x : th) x.join();
  EXPECT_EQ(errors.load(), 0);
  auto s = oa.stats();
  EXPECT_EQ(s.allocs, 12000u);
  EXPECT_EQ(s.frees, 12000u);
  EXPECT_EQ(s.requested_bytes, 0u);
  EXPECT_EQ(s.slot_bytes_in_use, 0u);
}
