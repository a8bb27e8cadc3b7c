// Crash consistency: a writer process is stopped at each named point of a put or remove and
// killed with SIGKILL; the pool must then hold exactly what recovery promises, no reader may see
// the half-written block meanwhile, and the random campaign must end with nothing lost or torn.
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "kv_test_util.h"
#include "ndp/kvstore/crash.h"
#include "ndp/kvstore/rpc.h"

namespace ndp::kv::test {
namespace {

// A page shared with the forked writer: it announces the point it reached, then waits to be killed.
struct Rendezvous {
  std::atomic<int> reached{-1};
  FaultPoint target{};
};

Rendezvous* shared_rendezvous() {
  void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? nullptr : new (m) Rendezvous();
}

void stop_here(FaultPoint p, void* ctx) {
  auto* r = static_cast<Rendezvous*>(ctx);
  if (p != r->target) return;
  r->reached.store(int(p));
  for (;;) pause();
}

bool wait_reached(Rendezvous* r, FaultPoint p) {
  for (int i = 0; i < 10000; ++i) {
    if (r->reached.load() == int(p)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

// The child opens the pool itself (another process, not a copy of the parent's object) and puts
// `key` with `payload`, stopping at `p`.
pid_t fork_writer(const std::string& path, Rendezvous* rv, FaultPoint p, const Key& key,
                  const std::vector<uint8_t>& payload, bool remove_instead) {
  rv->target = p;
  const pid_t pid = fork();
  if (pid != 0) return pid;
  auto s = KvStore::open(path);
  if (!s.ok()) _exit(3);
  s.value()->set_fault_hook(stop_here, rv);
  if (remove_instead)
    (void)s.value()->remove(key);
  else
    (void)s.value()->put(key, gather_of(s.value()->geometry(), payload));
  _exit(0);
}

struct PointCase {
  FaultPoint point;
  bool visible_while_stopped;  // a concurrent get finds the key while the writer is stopped
  bool writing_left;           // the kill leaves a WRITING block owned by a dead pid
  bool unindexed_left;         // ... or a sealed block the index misses
  bool present_after;          // the key exists after exclusive recovery
};

class KvCrashPoint : public ::testing::TestWithParam<PointCase> {};

TEST_P(KvCrashPoint, KillAtPointThenRecover) {
  const PointCase c = GetParam();
  ScratchPath p("crash");
  CreateOptions o;
  o.geometry = small_geometry(), o.blocks = 8;
  auto s = KvStore::create(p.str(), o);
  ASSERT_TRUE(s.ok());
  KvStore& st = *s.value();
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, st.geometry().block_bytes());
  Rendezvous* rv = shared_rendezvous();
  ASSERT_NE(rv, nullptr);
  const pid_t pid = fork_writer(p.str(), rv, c.point, key_n(1), d, false);
  ASSERT_TRUE(wait_reached(rv, c.point)) << "writer never reached " << fault_point_name(c.point);
  std::vector<uint8_t> out(d.size());
  auto g = st.get(key_n(1), scatter_of(st.geometry(), out));  // a reader while the writer is stopped
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g.value(), c.visible_while_stopped);
  if (g.value()) {
    EXPECT_EQ(out, d);
  }
  kill_and_reap(pid);

  const CheckReport before = st.check(true);
  EXPECT_EQ(before.writing_dead, c.writing_left ? 1u : 0u);
  EXPECT_EQ(before.unindexed, c.unindexed_left ? 1u : 0u);
  auto online = st.recover(RecoverMode::kDeadOwners);
  ASSERT_TRUE(online.ok());
  EXPECT_EQ(online.value().freed_writing, c.writing_left ? 1u : 0u);
  auto full = st.recover(RecoverMode::kExclusive, true);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full.value().reindexed, c.unindexed_left ? 1u : 0u);
  const CheckReport after = st.check(true);
  EXPECT_TRUE(after.consistent()) << (after.problems.empty() ? "" : after.problems[0]);
  EXPECT_EQ(after.leaked(), 0u);
  EXPECT_EQ(after.sealed + after.free, after.blocks);  // nothing lost from the allocator
  std::fill(out.begin(), out.end(), 0);
  auto g2 = st.get(key_n(1), scatter_of(st.geometry(), out));
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ(g2.value(), c.present_after);
  if (g2.value()) {
    EXPECT_EQ(out, d);
  }
  munmap(rv, 4096);
}

INSTANTIATE_TEST_SUITE_P(
    Points, KvCrashPoint,
    ::testing::Values(PointCase{FaultPoint::kAllocated, false, true, false, false},
                      PointCase{FaultPoint::kPayloadHalf, false, true, false, false},
                      PointCase{FaultPoint::kPayloadDone, false, true, false, false},
                      PointCase{FaultPoint::kSealed, false, false, true, true},
                      PointCase{FaultPoint::kIndexed, true, false, false, true}),
    [](const ::testing::TestParamInfo<PointCase>& pi) {
      std::string n = fault_point_name(pi.param.point);
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

// A remove killed after unindexing and before freeing: the block is sealed but unreachable;
// recovery puts it back (the removal never completed, so the block is not lost either).
TEST(KvCrash, KillMidRemoveThenRecover) {
  ScratchPath p("crashrm");
  CreateOptions o;
  o.geometry = small_geometry(), o.blocks = 8;
  auto s = KvStore::create(p.str(), o);
  ASSERT_TRUE(s.ok());
  std::mt19937_64 rng(seed());
  const auto d = random_bytes(rng, o.geometry.block_bytes());
  ASSERT_TRUE(s.value()->put(key_n(2), gather_of(o.geometry, d)).ok());
  Rendezvous* rv = shared_rendezvous();
  const pid_t pid = fork_writer(p.str(), rv, FaultPoint::kRemoveUnindexed, key_n(2), d, true);
  ASSERT_TRUE(wait_reached(rv, FaultPoint::kRemoveUnindexed));
  kill_and_reap(pid);
  EXPECT_EQ(s.value()->check(true).unindexed, 1u);
  auto r = s.value()->recover(RecoverMode::kExclusive, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().reindexed, 1u);
  EXPECT_TRUE(s.value()->contains(key_n(2)).value());
  EXPECT_TRUE(s.value()->check(true).consistent());
  munmap(rv, 4096);
}

void expect_clean(const CrashReport& r, uint32_t kills) {
  EXPECT_EQ(r.kills, kills);
  EXPECT_GT(r.blocks_written, 0u);
  EXPECT_GT(r.reads_verified, 0u);
  EXPECT_EQ(r.blocks_lost, 0u);
  EXPECT_EQ(r.torn_reads, 0u);
  EXPECT_EQ(r.read_errors, 0u);
  EXPECT_EQ(r.resurrected, 0u);
  EXPECT_EQ(r.leaked_blocks, 0u);
  EXPECT_TRUE(r.consistent);
  EXPECT_EQ(r.status, "ok") << crash_report_json(r);
}

TEST(KvCrash, RandomKillCampaignDirect) {
  ScratchPath p("campaign");
  CrashOptions o;
  o.pool = p.str(), o.procs = 3, o.kills = 12, o.blocks = 96, o.seed = seed();
  o.min_delay_us = 1000, o.max_delay_us = 15000;
  auto r = run_crash_campaign(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::printf("%s\n", crash_report_json(r.value()).c_str());
  expect_clean(r.value(), 12);
}

TEST(KvCrash, RandomKillCampaignThroughTheIndexService) {
  ScratchPath p("campaign-rpc");
  CrashOptions o;
  o.pool = p.str(), o.procs = 3, o.kills = 8, o.blocks = 96, o.seed = seed() + 1, o.rpc = true;
  o.min_delay_us = 2000, o.max_delay_us = 20000;
  auto r = run_crash_campaign(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::printf("%s\n", crash_report_json(r.value()).c_str());
  expect_clean(r.value(), 8);
}

TEST(KvCrash, CampaignRejectsBadOptions) {
  CrashOptions o;
  o.pool = "/nonexistent-dir/pool";
  auto r = run_crash_campaign(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent-dir/pool"), std::string::npos);
  o.procs = 0;
  EXPECT_NE(run_crash_campaign(o).status().message().find("--procs"), std::string::npos);
}

}  // namespace
}  // namespace ndp::kv::test
