// ndp_dram tests: timings checked against hand-computed DDR5-4800B values (tCK = 416 ps, CL 40,
// tRCD = tRP = 39, tRAS 77, tRC 116, tRRD_S 8, tRRD_L 12, tCCD_S 8, tCCD_L 12, BL16 = 8 tCK), the
// FR-FCFS scheduler and its starvation cap, refresh, backpressure, and the energy formulas.
// Random traffic uses NDP_SEED (decimal) when set, else a fixed default; the seed is printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ndp/dram.h"

namespace ndp {
namespace {

constexpr uint64_t kTck = 416;
constexpr uint64_t kDefaultSeed = 20240611;

uint64_t test_seed() {
  uint64_t seed = kDefaultSeed;
  if (const char* env = std::getenv("NDP_SEED"); env && *env) seed = std::strtoull(env, nullptr, 10);
  const ::testing::TestInfo* ti = ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("[seed] NDP_SEED=%llu (%s.%s)\n", static_cast<unsigned long long>(seed),
              ti ? ti->test_suite_name() : "?", ti ? ti->name() : "?");
  ::testing::Test::RecordProperty("ndp_seed", std::to_string(seed));
  return seed;
}

// Address of a 64-byte burst under the default map "ro:ba:co:bg:ch" (channels 4, bg 8, ba 4, co 64).
uint64_t addr_of(uint64_t ch, uint64_t bg, uint64_t ba, uint64_t ro, uint64_t co) {
  return ((((ro * 4 + ba) * 64 + co) * 8 + bg) * 4 + ch) * 64;
}

Ddr5Model make(const Ddr5Config& cfg = Ddr5Config()) {
  auto m = Ddr5Model::create(cfg);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

void submit_ok(Ddr5Model& m, uint64_t addr, uint32_t bytes, uint64_t tag, bool write = false) {
  auto r = m.submit(Ddr5Request{addr, bytes, write, tag});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(*r) << "queue full for tag " << tag;
}

// Run to idle and return the completions in pop order.
std::vector<Ddr5Completion> drain_all(Ddr5Model& m) {
  m.drain();
  std::vector<Ddr5Completion> out;
  Ddr5Completion c;
  while (m.pop_completion(c)) out.push_back(c);
  return out;
}

uint64_t done_cycle(const Ddr5Completion& c) { return c.done_ps / kTck; }

TEST(Ddr5Config, DefaultsAreDdr5_4800B) {
  Ddr5Config c;
  ASSERT_TRUE(c.validate().ok()) << c.validate().message();
  EXPECT_EQ(c.tck_ps, 416u);
  EXPECT_EQ(c.burst_bytes(), 64u);
  EXPECT_EQ(c.burst_cycles(), 8u);
  EXPECT_EQ(c.banks(), 32u);
  EXPECT_EQ(c.channel_bytes(), 8ull << 30);  // 4 x 16Gb devices
  EXPECT_EQ(c.capacity_bytes(), 32ull << 30);
  EXPECT_EQ(c.tRC, c.tRAS + c.tRP);
  // 4 channels x 64 B per 8 x 0.416 ns = 76.92 B/ns
  EXPECT_NEAR(c.peak_bytes_per_ns(), 256.0 / 3.328, 1e-9);
  EXPECT_EQ(c.tREFI * c.tck_ps, 3900000u);
  EXPECT_GE(c.tRFC * c.tck_ps, 295000u);
}

TEST(Ddr5Config, RejectsBadConfigs) {
  Ddr5Config c;
  c.channels = 3;
  EXPECT_FALSE(c.validate().ok());
  EXPECT_FALSE(Ddr5Model::create(c).ok());
  c = Ddr5Config();
  c.address_map = "ro:ba:co:bg";
  EXPECT_FALSE(c.validate().ok());
  c.address_map = "ro:ba:co:bg:bg";
  EXPECT_FALSE(c.validate().ok());
  c = Ddr5Config();
  c.queue_depth = 0;
  EXPECT_FALSE(c.validate().ok());
  c = Ddr5Config();
  c.devices_per_rank = 8;  // 64-bit bus: 128-byte bursts are not modelled
  EXPECT_FALSE(c.validate().ok());
}

TEST(Ddr5Timing, ClosedBankReadIsRcdPlusClPlusBurst) {
  Ddr5Model m = make();
  submit_ok(m, addr_of(1, 3, 2, 77, 5), 64, 42);
  Ddr5Completion c;
  m.advance_to(86 * kTck);
  EXPECT_FALSE(m.pop_completion(c));
  m.advance_to(87 * kTck);
  ASSERT_TRUE(m.pop_completion(c));
  EXPECT_EQ(c.tag, 42u);
  EXPECT_EQ(c.submit_ps, 0u);
  EXPECT_EQ(c.done_ps, (39u + 40u + 8u) * kTck);  // tRCD + CL + BL16/2
  Ddr5Stats s = m.stats();
  EXPECT_EQ(s.total.activates, 1u);
  EXPECT_EQ(s.total.row_misses, 1u);
  EXPECT_EQ(s.channel[1].read_bursts, 1u);
  EXPECT_EQ(s.total.bytes_read, 64u);
  EXPECT_TRUE(m.idle());
}

TEST(Ddr5Timing, TickAndAdvanceAgree) {
  Ddr5Model a = make(), b = make();
  submit_ok(a, addr_of(0, 0, 0, 1, 0), 64, 1);
  submit_ok(b, addr_of(0, 0, 0, 1, 0), 64, 1);
  for (int i = 0; i < 87; ++i) a.tick();
  b.advance_to(87 * kTck);
  Ddr5Completion ca, cb;
  ASSERT_TRUE(a.pop_completion(ca));
  ASSERT_TRUE(b.pop_completion(cb));
  EXPECT_EQ(ca.done_ps, cb.done_ps);
  EXPECT_EQ(a.now_ps(), b.now_ps());
}

TEST(Ddr5Timing, SameRowSecondReadIsHitSpacedByTccdL) {
  Ddr5Model m = make();
  submit_ok(m, addr_of(0, 2, 1, 9, 0), 64, 1);
  submit_ok(m, addr_of(0, 2, 1, 9, 1), 64, 2);
  auto done = drain_all(m);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done_cycle(done[0]), 87u);
  EXPECT_EQ(done_cycle(done[1]), 87u + 12u);  // same bank group: tCCD_L
  Ddr5Stats s = m.stats();
  EXPECT_EQ(s.total.activates, 1u);
  EXPECT_EQ(s.total.row_hits, 1u);
  EXPECT_EQ(s.total.row_misses, 1u);
  // The row stays open (open page): a later read to it costs CL + burst only.
  m.advance_to(200 * kTck);
  submit_ok(m, addr_of(0, 2, 1, 9, 7), 64, 3);
  done = drain_all(m);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done_cycle(done[0]), 200u + 40u + 8u);
  EXPECT_EQ(m.stats().total.row_hits, 2u);
}

TEST(Ddr5Timing, HitsInDifferentBankGroupsSpacedByTccdS) {
  Ddr5Model m = make();
  // One 256-byte request: 4 bursts on channel 0..3 -> all in parallel.
  submit_ok(m, addr_of(0, 0, 0, 3, 0), 256, 1);
  auto done = drain_all(m);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done_cycle(done[0]), 87u);
  // 512 bytes: two bursts per channel, bank groups 0 and 1: ACT 0 / 8 (tRRD_S), RD 39 / 47.
  Ddr5Model m2 = make();
  submit_ok(m2, addr_of(0, 0, 0, 3, 0), 512, 2);
  done = drain_all(m2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done_cycle(done[0]), 87u + 8u);
}

TEST(Ddr5Timing, RowConflictPaysRpPlusRcd) {
  Ddr5Model m = make();
  submit_ok(m, addr_of(2, 4, 3, 100, 0), 64, 1);
  drain_all(m);
  ASSERT_EQ(m.now_cycle(), 87u);
  submit_ok(m, addr_of(2, 4, 3, 101, 0), 64, 2);
  auto done = drain_all(m);
  ASSERT_EQ(done.size(), 1u);
  // PRE at 87 (tRAS = 77 and tRTP after the read at 39 are met), ACT at 87 + tRP = 126 (>= tRC = 116),
  // RD at 126 + tRCD = 165, data done 165 + CL + 8 = 213.
  EXPECT_EQ(done_cycle(done[0]), 213u);
  EXPECT_EQ(done[0].done_ps - done[0].submit_ps, (39u + 39u + 40u + 8u) * kTck);
  Ddr5Stats s = m.stats();
  EXPECT_EQ(s.total.row_conflicts, 1u);
  EXPECT_EQ(s.total.precharges, 1u);
  EXPECT_EQ(s.total.activates, 2u);
}

TEST(Ddr5Timing, ActivateSpacingTrrdSAndL) {
  {
    Ddr5Model m = make();  // different bank groups: ACT 0 and 8
    submit_ok(m, addr_of(0, 0, 0, 5, 0), 64, 1);
    submit_ok(m, addr_of(0, 1, 0, 5, 0), 64, 2);
    auto d = drain_all(m);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(done_cycle(d[0]), 87u);
    EXPECT_EQ(done_cycle(d[1]), 87u + 8u);
  }
  {
    Ddr5Model m = make();  // same bank group, other bank: ACT 0 and 12
    submit_ok(m, addr_of(0, 0, 0, 5, 0), 64, 1);
    submit_ok(m, addr_of(0, 0, 1, 5, 0), 64, 2);
    auto d = drain_all(m);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(done_cycle(d[0]), 87u);
    EXPECT_EQ(done_cycle(d[1]), 87u + 12u);
  }
}

TEST(Ddr5Timing, FourActivateWindow) {
  auto run = [](uint32_t tfaw) {
    Ddr5Config cfg;
    cfg.tFAW = tfaw;
    Ddr5Model m = make(cfg);
    for (uint64_t bg = 0; bg < 5; ++bg) submit_ok(m, addr_of(0, bg, 0, 7, 0), 64, bg);
    std::vector<uint64_t> t;
    for (const auto& c : drain_all(m)) t.push_back(done_cycle(c));
    EXPECT_EQ(m.stats().total.activates, 5u);
    return t;
  };
  // Default tFAW = 32 = 4 x tRRD_S: ACTs at 0, 8, 16, 24, 32.
  EXPECT_EQ(run(32), (std::vector<uint64_t>{87, 95, 103, 111, 119}));
  // tFAW = 48: the fifth ACT waits for 0 + 48.
  EXPECT_EQ(run(48), (std::vector<uint64_t>{87, 95, 103, 111, 48 + 39 + 48}));
}

TEST(Ddr5Refresh, EveryTrefiPerChannel) {
  Ddr5Model m = make();
  m.advance_to(10ull * 9375 * kTck + 1);  // REF at 9375, 18750, ..., 93750
  Ddr5Stats s = m.stats();
  for (const auto& c : s.channel) EXPECT_EQ(c.refreshes, 10u);
  EXPECT_EQ(s.total.refreshes, 40u);
  EXPECT_EQ(s.total.activates, 0u);
  Ddr5Config off;
  off.refresh = false;
  Ddr5Model n = make(off);
  n.advance_to(10ull * 9375 * kTck + 1);
  EXPECT_EQ(n.stats().total.refreshes, 0u);
}

TEST(Ddr5Refresh, BlocksForTrfc) {
  {
    Ddr5Model m = make();
    m.advance_to(9375 * kTck);
    submit_ok(m, addr_of(0, 0, 0, 1, 0), 64, 1);
    auto d = drain_all(m);
    ASSERT_EQ(d.size(), 1u);
    // REF at 9375 wins over the read; ACT at 9375 + tRFC (710).
    EXPECT_EQ(done_cycle(d[0]), 9375u + 710u + 39u + 48u);
  }
  {
    // An open bank is precharged first: PRE at 9375, REF at 9375 + tRP, and the row is gone.
    Ddr5Model m = make();
    submit_ok(m, addr_of(0, 0, 0, 1, 0), 64, 1);
    drain_all(m);
    m.advance_to(9375 * kTck);
    submit_ok(m, addr_of(0, 0, 0, 1, 1), 64, 2);
    auto d = drain_all(m);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(done_cycle(d[0]), 9375u + 39u + 710u + 39u + 48u);
    Ddr5Stats s = m.stats();
    EXPECT_EQ(s.channel[0].precharges, 1u);
    EXPECT_EQ(s.channel[0].refreshes, 1u);
    EXPECT_EQ(s.channel[0].activates, 2u);
  }
}

// One row open in bank (ch 0, bg 0, ba 0); then an older conflict X followed by 30 younger hits.
std::vector<uint64_t> starvation_order(uint32_t cap) {
  Ddr5Config cfg;
  cfg.starvation_cap = cap;
  cfg.refresh = false;
  Ddr5Model m = make(cfg);
  submit_ok(m, addr_of(0, 0, 0, 10, 0), 64, 1000);
  drain_all(m);
  submit_ok(m, addr_of(0, 0, 0, 11, 0), 64, 999);  // X: older, row conflict
  for (uint64_t i = 1; i <= 30; ++i) submit_ok(m, addr_of(0, 0, 0, 10, i), 64, i);
  std::vector<uint64_t> tags;
  for (const auto& c : drain_all(m)) tags.push_back(c.tag);
  return tags;
}

TEST(Ddr5Scheduler, FrFcfsPrefersHitsUntilStarvationCap) {
  auto pos = [](const std::vector<uint64_t>& v) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == 999) return i;
    return v.size();
  };
  auto order = starvation_order(16);
  ASSERT_EQ(order.size(), 31u);
  EXPECT_EQ(pos(order), 16u);  // served after exactly 16 younger hits
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(order[i], i + 1);  // hits in age order
  order = starvation_order(4);
  EXPECT_EQ(pos(order), 4u);
  order = starvation_order(1000);  // no cap in reach: pure FR-FCFS, the conflict goes last
  EXPECT_EQ(pos(order), 30u);
}

TEST(Ddr5Scheduler, ReadsCompleteOutOfOrderAcrossTags) {
  Ddr5Model m = make();
  submit_ok(m, addr_of(0, 0, 0, 1, 0), 64, 1);
  drain_all(m);
  submit_ok(m, addr_of(0, 1, 0, 2, 0), 64, 2);  // closed bank: ACT + RD
  submit_ok(m, addr_of(0, 0, 0, 1, 1), 64, 3);  // open row: RD only
  auto d = drain_all(m);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].tag, 3u);
  EXPECT_EQ(d[1].tag, 2u);
  EXPECT_LE(d[0].done_ps, d[1].done_ps);
}

TEST(Ddr5Stream, SequentialReadsNearPeakBandwidth) {
  const uint64_t bytes = 64ull << 20;
  auto r = ddr5_run_reads(Ddr5Config(), {Ddr5Access{0, bytes}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Ddr5Stats& s = r.value();
  EXPECT_EQ(s.total.bytes_read, bytes);
  double peak = Ddr5Config().peak_bytes_per_ns();
  double eff = bytes / (s.elapsed_ps / 1000.0) / peak;
  std::printf("[dram] stream %llu MiB: %.2f GB/s of %.2f peak (%.1f%%), row hit rate %.4f, refreshes %llu, "
              "energy %.1f uJ\n",
              static_cast<unsigned long long>(bytes >> 20), s.bandwidth_gbps(), peak, 100 * eff, s.row_hit_rate(),
              static_cast<unsigned long long>(s.total.refreshes), s.total.energy.total_nj() / 1000);
  EXPECT_GE(eff, 0.85);
  EXPECT_GT(s.row_hit_rate(), 0.95);
  for (const auto& c : s.channel) EXPECT_EQ(c.bytes_read, bytes / 4);
}

TEST(Ddr5Stream, SequentialWritesNearPeakBandwidth) {
  Ddr5Model m = make();
  const uint64_t bytes = 16ull << 20;
  uint64_t next = 0, tag = 0;
  Ddr5Completion c;
  while (next < bytes) {
    auto ok = m.submit(Ddr5Request{next, 4096, true, tag});
    ASSERT_TRUE(ok.ok());
    if (*ok) {
      next += 4096;
      ++tag;
    } else {
      m.advance_to(m.next_event_ps() + kTck);
    }
    while (m.pop_completion(c)) {
    }
  }
  m.drain();
  Ddr5Stats s = m.stats();
  EXPECT_EQ(s.total.bytes_written, bytes);
  double eff = bytes / (s.elapsed_ps / 1000.0) / Ddr5Config().peak_bytes_per_ns();
  std::printf("[dram] write stream: %.1f%% of peak\n", 100 * eff);
  EXPECT_GE(eff, 0.85);
}

TEST(Ddr5Stream, RandomReadsHaveLowRowHitRate) {
  std::mt19937_64 rng(test_seed());
  Ddr5Config cfg;
  std::vector<Ddr5Access> reads;
  for (int i = 0; i < 20000; ++i) reads.push_back({(rng() % (cfg.capacity_bytes() / 64)) * 64, 64});
  auto r = ddr5_run_reads(cfg, reads);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Ddr5Stats& s = r.value();
  std::printf("[dram] random 64 B: row hit rate %.4f, %.2f GB/s, latency avg %.1f ns p99 %.1f ns\n",
              s.row_hit_rate(), s.bandwidth_gbps(), s.avg_latency_ns(), s.latency_percentile_ps(0.99) / 1000.0);
  EXPECT_EQ(s.total.read_bursts, 20000u);
  EXPECT_LT(s.row_hit_rate(), 0.05);
  EXPECT_GT(s.total.row_conflicts, 15000u);
  EXPECT_EQ(s.requests_done, 20000u);
  EXPECT_GE(s.latency_percentile_ps(0.5), (39u + 40u + 8u) * kTck);
  EXPECT_LE(s.latency_percentile_ps(0.5), s.latency_percentile_ps(0.99));
  EXPECT_LE(s.latency_percentile_ps(0.99), s.latency_max_ps);
}

TEST(Ddr5Energy, OneReadAndIdleMatchesHandFormula) {
  Ddr5Model m = make();
  submit_ok(m, addr_of(0, 0, 0, 1, 0), 64, 1);
  m.advance_to(1000 * kTck);
  Ddr5Stats s = m.stats();
  // Per command, 4 devices, tCK 0.416 ns, VDD 1.1 V, currents in mA (pJ = V * mA * ns):
  //   IDD3N_1 = 92 + (142 - 92) / 32 = 93.5625
  //   act = 1.1 * (122*116 - (93.5625*77 + 92*39)) * 0.416 * 4 / 1000 = 6.1495725 nJ
  const double k = 0.416 * 4 / 1000.0;
  const double act = 1.1 * (122.0 * 116 - (93.5625 * 77 + 92.0 * 39)) * k;  // 3359.6875 mA*nCK
  const double rd = 1.1 * (530.0 - 142) * 8 * k;
  // Channel 0 has a bank open from cycle 0 to 1000 (open page); channels 1..3 are precharged.
  const double bg = (1000 * 1.1 * 142 + 3 * 1000 * 1.1 * 92) * k;
  EXPECT_NEAR(act, 6.1495725, 1e-6);
  EXPECT_NEAR(rd, 5.6815616, 1e-6);
  EXPECT_NEAR(bg, 765.1072, 1e-6);
  EXPECT_NEAR(s.total.energy.act_nj, act, 1e-9);
  EXPECT_NEAR(s.total.energy.rd_nj, rd, 1e-9);
  EXPECT_NEAR(s.total.energy.background_nj, bg, 1e-6);
  EXPECT_EQ(s.total.energy.wr_nj, 0.0);
  EXPECT_EQ(s.total.energy.ref_nj, 0.0);
  EXPECT_NEAR(s.total.energy.total_nj(), 6.1495725 + 5.6815616 + 765.1072, 1e-6);
  EXPECT_EQ(s.channel[0].active_cycles, 1000u);
  EXPECT_EQ(s.channel[1].precharged_cycles, 1000u);
  EXPECT_NEAR(s.channel[0].energy.total_nj(), act + rd + 1000 * 1.1 * 142 * k, 1e-6);
}

TEST(Ddr5Energy, WriteAndRefreshMatchHandFormula) {
  Ddr5Config cfg;
  cfg.channels = 1;  // the map still has a (0-bit) channel field
  Ddr5Model m = make(cfg);
  ASSERT_TRUE(m.submit(Ddr5Request{0, 64, true, 7}).ok());
  m.advance_to(10000 * kTck);  // one refresh: PRE at 9375, REF at 9414, until 10124
  Ddr5Stats s = m.stats();
  const double k = 0.416 * 4 / 1000.0;
  const double wr = 1.1 * (479.0 - 142) * 8 * k;        // 4.9347584 nJ
  const double ref = 1.1 * (277.0 - 142) * 710 * k;     // 175.44384 nJ
  EXPECT_NEAR(wr, 4.9347584, 1e-6);
  EXPECT_NEAR(ref, 175.44384, 1e-6);
  EXPECT_EQ(s.total.write_bursts, 1u);
  EXPECT_EQ(s.total.refreshes, 1u);
  EXPECT_NEAR(s.total.energy.wr_nj, wr, 1e-9);
  EXPECT_NEAR(s.total.energy.ref_nj, ref, 1e-9);
  // Active: 0..9375 (bank open) + 9414..10000 (refresh running); precharged: 9375..9414 (tRP).
  EXPECT_EQ(s.total.active_cycles, 9375u + (10000u - 9414u));
  EXPECT_EQ(s.total.precharged_cycles, 39u);
  EXPECT_NEAR(s.total.energy.background_nj, ((9375.0 + 586) * 1.1 * 142 + 39 * 1.1 * 92) * k, 1e-6);
}

TEST(Ddr5Queue, BackpressureWhenChannelQueueFull) {
  Ddr5Model m = make();
  uint32_t accepted = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    // all on channel 0, spread over bank groups and columns
    auto r = m.submit(Ddr5Request{addr_of(0, i % 8, 0, 1, i / 8), 64, false, i});
    ASSERT_TRUE(r.ok());
    if (!*r) break;
    ++accepted;
  }
  EXPECT_EQ(accepted, 64u);
  // Another channel still accepts.
  auto other = m.submit(Ddr5Request{addr_of(1, 0, 0, 1, 0), 64, false, 500});
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(*other);
  EXPECT_FALSE(m.can_accept(Ddr5Request{addr_of(0, 0, 0, 1, 0), 64, false, 501}));
  // After the first column command issues (cycle 39) a slot frees.
  m.advance_to(40 * kTck);
  EXPECT_TRUE(m.can_accept(Ddr5Request{addr_of(0, 0, 0, 1, 0), 64, false, 501}));
  EXPECT_EQ(m.outstanding(), 65u);
  EXPECT_EQ(drain_all(m).size(), 65u);
  EXPECT_TRUE(m.idle());
}

TEST(Ddr5Queue, LargeRequestIsAcceptedWhenEmptyAndSplit) {
  Ddr5Model m = make();
  submit_ok(m, 1 << 20, 64 << 10, 1);  // 1024 bursts, 256 per channel > queue_depth
  EXPECT_FALSE(m.can_accept(Ddr5Request{0, 64, false, 2}));
  auto d = drain_all(m);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bytes, 64u << 10);
  EXPECT_EQ(m.stats().total.bytes_read, 64u << 10);
}

TEST(Ddr5Queue, BadRequestsAreErrors) {
  Ddr5Model m = make();
  EXPECT_FALSE(m.submit(Ddr5Request{0, 0, false, 1}).ok());        // zero bytes
  EXPECT_FALSE(m.submit(Ddr5Request{0, 32, false, 2}).ok());       // not a multiple of 64
  EXPECT_FALSE(m.submit(Ddr5Request{32, 64, false, 3}).ok());      // unaligned
  EXPECT_FALSE(m.submit(Ddr5Request{32ull << 30, 64, false, 4}).ok());  // beyond 32 GiB
  EXPECT_FALSE(m.submit(Ddr5Request{(32ull << 30) - 64, 128, false, 5}).ok());
  auto r = m.submit(Ddr5Request{0, 32, false, 6});
  EXPECT_NE(r.status().message().find("64"), std::string::npos);
  EXPECT_TRUE(m.idle());
  EXPECT_EQ(m.next_event_ps(), UINT64_MAX);
}

TEST(Ddr5Model, RandomMixTickEqualsAdvance) {
  std::mt19937_64 rng(test_seed());
  std::vector<Ddr5Request> reqs;
  for (int i = 0; i < 400; ++i) {
    uint64_t addr = (rng() % (1u << 16)) * 64;
    uint32_t bytes = 64u * static_cast<uint32_t>(1 + rng() % 8);
    reqs.push_back({addr, bytes, (rng() & 3) == 0, static_cast<uint64_t>(i)});
  }
  // a: device clock of 1000 ps with advance_to; b: tick() per DRAM clock, submitting at the same cycles.
  auto run = [&](bool use_tick) {
    Ddr5Model m = make();
    std::vector<std::pair<uint64_t, uint64_t>> out;  // (tag, done_ps)
    size_t next = 0;
    uint64_t t_ps = 0;
    Ddr5Completion c;
    while (next < reqs.size() || !m.idle()) {
      t_ps += 1000;
      if (use_tick) {
        while (m.now_ps() < t_ps) m.tick();
      } else {
        m.advance_to(t_ps);
      }
      while (next < reqs.size()) {
        auto ok = m.submit(reqs[next]);
        EXPECT_TRUE(ok.ok());
        if (!*ok) break;
        ++next;
      }
      while (m.pop_completion(c)) {
        EXPECT_LE(c.done_ps, m.now_ps());
        EXPECT_GE(c.done_ps, c.submit_ps + (40u + 8u) * kTck - 10 * kTck);  // never faster than CL-ish
        out.emplace_back(c.tag, c.done_ps);
      }
    }
    return out;
  };
  auto a = run(false), b = run(true);
  EXPECT_EQ(a.size(), reqs.size());
  EXPECT_EQ(a, b);
}

TEST(Ddr5Stats, JsonHasTotals) {
  Ddr5Model m = make();
  submit_ok(m, 0, 256, 1);
  drain_all(m);
  std::string j = m.stats().to_json();
  EXPECT_NE(j.find("\"bytes_read\": 256"), std::string::npos) << j;
  EXPECT_NE(j.find("\"channels\": ["), std::string::npos);
  EXPECT_NE(j.find("\"total\": "), std::string::npos);
}

}  // namespace
}  // namespace ndp
