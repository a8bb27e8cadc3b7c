// Size-distribution pinned buffer pool (10Cache Algorithms 1-2 + free lists).
#include <gtest/gtest.h>

#include "numa_skip.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <cstring>

#include <fstream>
#include <set>
#include <thread>

#include "ndp/runtime/buffer_pool.h"
#include "ndp/runtime/mempolicy.h"

using namespace ndp::rt;
using ndp::Status;

namespace {

Runtime host_runtime() {
  auto t = discover_sysfs("/sys");
  EXPECT_TRUE(t.ok());
  return Runtime(t.value());
}

BufferPoolOptions unlocked() {
  BufferPoolOptions o;
  o.placement = Placement::on_node(allowed_memory_nodes().front());
  o.lock = false;
  return o;
}

uint64_t vm_locked_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmLck:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

}  // namespace

TEST(RtBufferPoolPlan, FollowsTheSizeDistribution) {
  // Four 512 B tensors and two 1 KiB tensors: each size is half of the bytes.
  auto p = plan_buffer_pool({{512, 4}, {1024, 2}}, 2048);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p.value().size(), 2u);
  EXPECT_DOUBLE_EQ(p.value()[0].share, 0.5);
  EXPECT_EQ(p.value()[0].buffers, 2u);  // 0.5 * 2048 / 512
  EXPECT_EQ(p.value()[1].buffers, 1u);  // 0.5 * 2048 / 1024
  // Ample budget: never more buffers than tensors.
  auto q = plan_buffer_pool({{512, 4}, {1024, 2}, {512, 1}}, 1 << 20);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.value()[0].wanted, 5u);
  EXPECT_EQ(q.value()[0].buffers, 5u);
  EXPECT_EQ(q.value()[1].buffers, 2u);
  EXPECT_FALSE(plan_buffer_pool({}, 1 << 20).ok());
  EXPECT_FALSE(plan_buffer_pool({{0, 1}}, 1 << 20).ok());
  EXPECT_FALSE(plan_buffer_pool({{4096, 1}}, 100).ok());
}

TEST(RtBufferPool, BestFitFreeListsAndErrors) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  auto pool = BufferPool::create(rt, {{1 << 20, 1, 0.5, 1}, {4096, 2, 0.5, 2}}, unlocked());
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  BufferPool& bp = *pool.value();
  EXPECT_EQ(bp.stats().capacity, (1u << 20) + 2 * 4096);
  auto a = bp.acquire(4000);
  auto b = bp.acquire(4096);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a.value(), b.value());
  auto c = bp.acquire(100);  // 4 KiB class exhausted: next class up
  ASSERT_TRUE(c.ok());
  auto d = bp.acquire(1);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("no free buffer"), std::string::npos);
  auto s = bp.stats();
  EXPECT_EQ(s.hits, 3u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.free_buffers, 0u);
  EXPECT_EQ(s.in_use_bytes, s.capacity);
  EXPECT_EQ(s.requested_bytes, 4000u + 4096 + 100);
  EXPECT_DOUBLE_EQ(s.utilisation(), 1.0);
  ASSERT_TRUE(bp.release(a.value()).ok());
  auto e = bp.acquire(10);  // reuses the buffer just released (free list)
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value(), a.value());
  EXPECT_FALSE(bp.release(static_cast<char*>(b.value()) + 64).ok());
  int outside = 0;
  EXPECT_FALSE(bp.release(&outside).ok());
  ASSERT_TRUE(bp.release(b.value()).ok());
  Status twice = bp.release(b.value());
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("twice"), std::string::npos);
  ASSERT_TRUE(bp.release(c.value()).ok());
  ASSERT_TRUE(bp.release(e.value()).ok());
  EXPECT_EQ(bp.stats().in_use_bytes, 0u);
  EXPECT_EQ(bp.stats().requested_bytes, 0u);
}

TEST(RtBufferPool, ThreadSafe) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  Runtime rt = host_runtime();
  auto plan = plan_buffer_pool({{16384, 64}, {65536, 16}}, 1 << 30);
  ASSERT_TRUE(plan.ok());
  auto pool = BufferPool::create(rt, plan.value(), unlocked());
  ASSERT_TRUE(pool.ok());
  BufferPool& bp = *pool.value();
  std::vector<std::thread> th;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t)
    th.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        auto p = bp.acquire((i + t) % 2 ? 16384 : 65536);
        if (!p.ok()) continue;  // all taken by other threads at that moment
        static_cast<char*>(p.value())[0] = static_cast<char>(t);
        if (!bp.release(p.value()).ok()) ++errors;
      }
    });
  for (auto& x : th) x.join();
  EXPECT_EQ(errors.load(), 0);
  auto s = bp.stats();
  EXPECT_EQ(s.free_buffers, s.buffers);
  EXPECT_EQ(s.hits + s.misses, 8000u);
}

TEST(RtBufferPool, PinnedRegionIsLocked) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  {
    // Can this process lock 8 MiB at all (RLIMIT_MEMLOCK / CAP_IPC_LOCK)? If not, skip with why.
    void* probe = mmap(nullptr, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(probe, MAP_FAILED);
    int rc = mlock(probe, 8 << 20);
    int e = errno;
    if (rc == 0) munlock(probe, 8 << 20);
    munmap(probe, 8 << 20);
    struct rlimit rl;
    getrlimit(RLIMIT_MEMLOCK, &rl);
    if (rc != 0)
      GTEST_SKIP() << "cannot mlock 8 MiB here (" << std::strerror(e) << ", RLIMIT_MEMLOCK " << rl.rlim_cur << ")";
  }
  Runtime rt = host_runtime();
  BufferPoolOptions o = unlocked();
  o.lock = true;
  uint64_t before = vm_locked_kb();
  auto pool = BufferPool::create(rt, {{1 << 20, 8, 1.0, 8}}, o);
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  EXPECT_TRUE(pool.value()->locked());
#ifndef __SANITIZE_ADDRESS__  // ASan intercepts mlock/munlock as no-ops
  EXPECT_GE(vm_locked_kb() - before, 8u * 1024);
  pool.value().reset();
  EXPECT_EQ(vm_locked_kb(), before);
#else
  (void)before;
#endif
}
