// ndp_device end to end, beat by beat against the transaction-level model (sw/device DeviceModel,
// the golden model of the controller) and the golden ImageReader: real stories260K and GPT-2 images
// loaded through the store window with the driver's load_image, every bf16 region and guard count,
// random bursts with many IDs in flight, gaps and backpressure on both ports, corrupted blocks
// (SLVERR on exactly the beats that need them, the error log naming the block), index and span
// errors, protocol errors and undefined addresses (DECERR/SLVERR), rejected descriptors. Every
// burst must be answered within the bench watchdog (DeviceEnv::drain's cycle bound).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "device_env.h"
#include "device_mirror.h"
#include "ndp/device_model.h"
#include "ndp/image.h"
#include "ndp/precision.h"
#include "tb_data.h"
#include "tb_rng.h"

namespace ndp::tb {
namespace {

TEST(NdpDevice, ControlRegistersAndDecodeErrors) {
  Mirror mr(test_seed(), {});
  EXPECT_EQ(mr.csr(dev::kCsrId), 0x4450444Eu | uint64_t{1} << 32);
  mr.read(0x0, 1, 0);                              // ID, CAPS, CTRL, ...
  mr.read(0x2000, 1, 1);                           // undefined control offset
  mr.read(dev::window_address(0x05, 0), 2, 2);     // undefined window
  mr.read(dev::window_address(0x40, 0), 1, 3);     // KV window: no KV path in this RTL (KV_CAPS 0)
  mr.read(dev::window_address(0x80, 0), 1, 4);     // region window, nothing mapped
  mr.read(dev::window_address(0x8C, 0), 1, 5);     // f = 12: no region
  mr.read(dev::window_address(0xE0, 0), 1, 6);     // g = 3
  mr.write(dev::window_address(0x80, 0), std::vector<uint8_t>(128, 1));  // region windows are read-only
  EXPECT_GT(mr.check(), 0u);
  mr.check_registers();
}

TEST(NdpDevice, StoreWindowAndProtocolErrors) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.2, 0.2, 0.2, 40, 8});
  std::vector<uint8_t> d(8192);
  for (auto& x : d) x = static_cast<uint8_t>(rng.u32());
  mr.write(dev::window_address(1, 0x3000), std::vector<uint8_t>(d.begin(), d.begin() + 4096));
  mr.write(dev::window_address(1, 0x4000), std::vector<uint8_t>(d.begin() + 4096, d.end()));
  mr.read(dev::window_address(1, 0x3000), 64, 3);
  mr.read(dev::window_address(1, 0x4000), 64, 4);
  const uint64_t top = uint64_t{1} << DeviceEnv::kDramAw;
  mr.read(dev::window_address(1, top - 128), 2, 5);                 // the last two lines of DRAM
  mr.read(dev::window_address(1, top), 4, 5);                       // past DRAM: DECERR
  mr.write(dev::window_address(1, top), std::vector<uint8_t>(256, 7));
  mr.write(dev::window_address(1, top - 128), std::vector<uint8_t>(256, 7));  // crosses 4 KiB: SLVERR
  mr.read(dev::window_address(1, 0x3000), 4, 6, 6, 0);              // FIXED
  mr.read(dev::window_address(1, 0x3000), 4, 6, 6, 2);              // WRAP
  mr.read(dev::window_address(1, 0x3000), 4, 6, 5, 1);              // narrow beats
  mr.read(dev::window_address(1, 0x3F80), 4, 7);                    // crosses 4 KiB
  mr.read(dev::window_address(1, 0x3000), 130, 7);                 // 130 beats: crosses 4 KiB twice
  mr.write(dev::window_address(1, 0x5F80), std::vector<uint8_t>(256, 9));  // crosses 4 KiB: nothing written
  mr.read(dev::window_address(1, 0x5F80), 2, 7);
  EXPECT_GT(mr.check(), 0u);
  mr.check_registers();
}

TEST(NdpDevice, EveryRegionStories260K) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.1, 0.2, 0.2, 40, 8});
  Loaded L;
  if (!load_stories(mr, 2048, 6, &L)) GTEST_SKIP() << "stories260K not found";
  uint64_t beats = 0;
  for (int g = 0; g <= 2; ++g)
    for (const Region& r : all_regions(DType::kBF16, g)) {
      beats += read_region(mr, L, rng.range(0, L.plan.desc.size() - 1), r, 4);
      if (testing::Test::HasFailure()) return;
    }
  mr.check_registers();
  std::printf("%llu beats compared with ndp read and the model, %llu cycles\n", (unsigned long long)beats,
              (unsigned long long)mr.env.cycle());
}

// Sequential prefetch (spec 7.6) against the model: streams through consecutive tensors (the
// window runs on into the next tensor), a FLUSH while prefetches are still decoding, PREFETCH
// values 0..max, and interleaved streams of two IDs; every burst compared, and with the read tracker
// off (TRACK 0, every other depth) every counter and the log too.
TEST(NdpDevice, PrefetchStreamsFlushAndDepths) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.1, 0.1, 0.1, 40, 8});
  Loaded L;
  if (!load_stories(mr, 2048, 6, &L)) GTEST_SKIP() << "stories260K not found";
  const unsigned max_pf = DeviceEnv::params(4).max_prefetch;
  auto stream = [&](size_t t, const Region& r, uint64_t from, uint64_t to, uint32_t id) {
    for (uint64_t a = from; a < to; a += 4096)
      mr.read(region_addr(r, L.plan.desc[t].base, a), static_cast<unsigned>((std::min<uint64_t>(to, a + 4096) - a + 63) / 64), id);
  };
  const Region full = parse_region("full", DType::kBF16, 0).value();
  const Region fp8 = parse_region("fp8-e4m3", DType::kBF16, 1).value();
  const unsigned max_track = DeviceEnv::params(4).bufs - 2;
  unsigned round = 0;
  for (unsigned d : {max_pf, 0u, 1u, max_pf - 1}) {
    mr.csr_write(dev::kCsrPrefetch, d);
    mr.csr_write(dev::kCsrTrack, round++ % 2 ? max_track : 0);
    mr.csr_write(dev::kCsrCtrl, dev::kCtrlEnable | dev::kCtrlFlush | dev::kCtrlClearCounters | dev::kCtrlClearErrLog);
    for (size_t t = 0; t < 3; ++t)  // three tensors back to back
      stream(t, full, 0, region_output_bytes(full, DType::kBF16, L.plan.desc[t].elems), 1);
    EXPECT_GT(mr.check(), 0u);
    // half a tensor, then FLUSH with the prefetches of the rest still in flight, then the rest
    const uint64_t n3 = region_output_bytes(fp8, DType::kBF16, L.plan.desc[3].elems);
    stream(3, fp8, 0, n3 / 2 / 4096 * 4096, 2);
    EXPECT_GT(mr.check(), 0u);
    mr.csr_write(dev::kCsrCtrl, dev::kCtrlEnable | dev::kCtrlFlush);
    stream(3, fp8, n3 / 2 / 4096 * 4096, n3, 2);
    // two streams interleaved burst by burst (IDs 3 and 4)
    const uint64_t n4 = region_output_bytes(fp8, DType::kBF16, L.plan.desc[4].elems),
                   n5 = region_output_bytes(full, DType::kBF16, L.plan.desc[5].elems);
    for (uint64_t a = 0; a < std::max(n4, n5); a += 4096) {
      if (a < n4) stream(4, fp8, a, std::min(n4, a + 4096), 3);
      if (a < n5) stream(5, full, a, std::min(n5, a + 4096), 4);
    }
    EXPECT_GT(mr.check(), 0u);
    mr.check_registers();
    if (testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(mr.csr(dev::kCsrPrefetch), max_pf - 1);
  EXPECT_EQ(mr.csr(dev::kCsrTrack), max_track);
  mr.csr_write(dev::kCsrTrack, 255);  // clamped
  EXPECT_EQ(mr.csr(dev::kCsrTrack), max_track);
  EXPECT_EQ((mr.csr(dev::kCsrCaps2) >> 24) & 0xFFFF, max_track << 8 | 64u);  // tracker entries, MaxTrack
}

TEST(NdpDevice, RandomBurstsManyIds) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.3, 0.3, 0.3, 30, 30});
  Loaded L;
  if (!load_stories(mr, 4096, 12, &L)) GTEST_SKIP() << "stories260K not found";
  uint64_t beats = 0;
  for (int round = 0; round < 8; ++round) {
    if (round == 4) {  // the tracker off: from here the counters and the log must match the model's
      mr.settle();
      mr.csr_write(dev::kCsrTrack, 0);
      mr.csr_write(dev::kCsrCtrl, dev::kCtrlEnable | dev::kCtrlFlush | dev::kCtrlClearCounters | dev::kCtrlClearErrLog);
    }
    for (int i = 0; i < 25; ++i) {
      size_t t = rng.range(0, L.plan.desc.size() - 1);
      Region r = all_regions(DType::kBF16, static_cast<int>(rng.range(0, 2)))[rng.range(0, 15)];
      uint64_t bytes = region_output_bytes(r, DType::kBF16, L.plan.desc[t].elems);
      uint64_t off = rng.range(0, bytes + 256) / 64 * 64;  // sometimes past the end: DECERR
      unsigned beats_n = static_cast<unsigned>(rng.range(1, 64 - (off % 4096) / 64));
      mr.read(region_addr(r, L.plan.desc[t].base, off), beats_n, static_cast<uint32_t>(rng.range(0, 7)));
    }
    beats += mr.check();
    if (testing::Test::HasFailure()) return;
  }
  mr.check_registers();
  std::printf("%llu random beats compared\n", (unsigned long long)beats);
  EXPECT_GT(beats, 0u);
}

// The read tracker (spec 7.6): the same random 4 KiB reads of distinct chunks with 8 IDs, first with
// TRACK 0 (answered in request order, counters exact), then with TRACK at its maximum: bursts park
// while their chunks decode, so several demand decodes run at once and some burst is answered
// before an older one of another ID; one ID's bursts stay in request order; every beat compared.
TEST(NdpDevice, ReadTrackerAnswersIdsOutOfOrder) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.1, 0.1, 0.1, 40, 8});
  Loaded L;
  if (!load_stories(mr, 2048, 12, &L)) GTEST_SKIP() << "stories260K not found";
  const Region full{};  // 4 KiB of region bytes per 2048-element chunk
  struct Rd { uint64_t addr; uint32_t id; };
  std::vector<Rd> reads;
  std::set<std::pair<size_t, uint64_t>> seen;
  while (reads.size() < 40) {
    const size_t t = rng.range(0, L.plan.desc.size() - 1);
    const uint64_t chunks = (L.plan.desc[t].elems + 2047) / 2048, k = rng.range(0, chunks - 1);
    if (!seen.insert({t, k}).second || (k + 1) * 2048 > L.plan.desc[t].elems) continue;  // whole chunks, once
    reads.push_back({region_addr(full, L.plan.desc[t].base, k * 4096), static_cast<uint32_t>(reads.size() % 8)});
  }
  mr.csr_write(dev::kCsrPrefetch, 0);  // random reads: no stream to prefetch
  const unsigned max_track = DeviceEnv::params(4).bufs - 2;
  uint64_t cycles[2] = {0, 0};
  for (int tracked = 0; tracked < 2; ++tracked) {
    mr.settle();
    mr.csr_write(dev::kCsrTrack, tracked ? max_track : 0);
    mr.csr_write(dev::kCsrCtrl, dev::kCtrlEnable | dev::kCtrlFlush | dev::kCtrlClearCounters | dev::kCtrlClearErrLog);
    const uint64_t c0 = mr.env.cycle();
    std::vector<size_t> tk;
    for (const Rd& r : reads) tk.push_back(mr.read(r.addr, 64, r.id));
    ASSERT_EQ(mr.check(), 40u * 64);
    cycles[tracked] = mr.env.cycle() - c0;
    unsigned overtaken = 0;
    for (size_t i = 0; i < tk.size(); ++i)
      for (size_t j = i + 1; j < tk.size(); ++j) {
        const ReadResult &a = mr.env.read_result(tk[i]), &b = mr.env.read_result(tk[j]);
        if (b.first_cycle < a.first_cycle) {
          ++overtaken;
          EXPECT_NE(reads[i].id, reads[j].id) << "bursts " << i << " and " << j << " of one ID out of order";
        }
      }
    if (!tracked) EXPECT_EQ(overtaken, 0u) << "TRACK 0 answers in request order";
    else EXPECT_GT(overtaken, 0u) << "no burst answered before an older one";
    mr.check_registers();  // everything with TRACK 0, the order-free registers otherwise
    std::printf("TRACK %u: %llu cycles for 40 random 4 KiB reads, %u burst pairs answered out of order\n",
                tracked ? max_track : 0, (unsigned long long)cycles[tracked], overtaken);
  }
  // several demand decodes at once: the tracked pass is at least 1.5 times as fast
  EXPECT_LT(cycles[1] * 3, cycles[0] * 2);
}

// Plane block `slot` of chunk k of mapped tensor t: its DRAM address and span.
std::pair<uint64_t, uint64_t> block_at(const Loaded& L, size_t t, uint64_t k, size_t slot) {
  size_t it = L.plan.image_tensor[t];
  return {kImageBase + L.reader->block_offset(it, k, slot), L.reader->block_span(it, k, slot)};
}

TEST(NdpDevice, CorruptBlocksAnswerSlverrOnlyWhereNeeded) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.1, 0.2, 0.1, 30, 8});
  Loaded L;
  if (!load_stories(mr, 2048, 4, &L)) GTEST_SKIP() << "stories260K not found";
  // tensor 1, chunk 1: flip a payload byte of the lowest mantissa plane (slot 8 in expbyte) and of
  // the exponent byte plane of chunk 2
  size_t t = 0;
  while (t + 1 < L.plan.desc.size() && L.reader->tensors()[L.plan.image_tensor[t]].chunks < 3) ++t;
  ASSERT_GE(L.reader->tensors()[L.plan.image_tensor[t]].chunks, 3u);
  ASSERT_EQ(L.plan.desc[t].layout, 1) << "the test corrupts expbyte slots";
  auto [a1, s1] = block_at(L, t, 1, 8);
  auto [a2, s2] = block_at(L, t, 2, 1);
  std::vector<uint8_t> line(64);
  for (auto [a, s] : {std::pair{a1, s1}, std::pair{a2, s2}}) {
    uint64_t victim = a + 12 + (s - 12) / 2, l = victim / 64 * 64;
    std::memcpy(line.data(), L.image.data() + (l - kImageBase), 64);
    line[victim - l] ^= 0x5A;
    mr.poke(l, line);
  }
  // Chunks 0..3 of the tensor, in regions that fetch plane 0 (full; e8m6 with g = 1 fetches
  // t = 7 mantissa planes) and regions that do not (e8m0 g0, fp8-e4m3 g2: t = 5, mxfp4 g1: t = 2).
  struct Case { Region r; bool needs_plane0; };
  const Case cases[] = {{Region{RegionKind::kFull, 0, 0}, true}, {Region{RegionKind::kEmK, 6, 1}, true},
                        {Region{RegionKind::kEmK, 0, 0}, false}, {Region{RegionKind::kFP8E4M3, 0, 2}, false},
                        {Region{RegionKind::kMXFP4, 0, 1}, false}};
  for (const Case& c : cases) {
    const uint64_t rc = region_output_bytes(c.r, DType::kBF16, 2048);  // bytes of one chunk
    mr.read(region_addr(c.r, L.plan.desc[t].base, 0), static_cast<unsigned>(std::min<uint64_t>(4 * rc, 4096) / 64), 1);
    for (uint64_t a = 4096; a < 4 * rc; a += 4096)
      mr.read(region_addr(c.r, L.plan.desc[t].base, a), static_cast<unsigned>(std::min<uint64_t>(4096, 4 * rc - a) / 64), 2);
    ASSERT_GT(mr.check(), 0u);
    // explicit: SLVERR exactly on the beats of chunk 2 (EXPBYTE, every region) and of chunk 1 when
    // the region fetches plane 0; OKAY elsewhere
    uint64_t beat = 0;
    for (const auto& resp : mr.last_resps())
      for (uint8_t x : resp) {
        uint64_t k = beat++ * 64 / rc;
        bool bad = k == 2 || (k == 1 && c.needs_plane0);
        EXPECT_EQ(x, bad ? 2 : 0) << region_name(c.r, DType::kBF16) << " g" << c.r.guard << " beat " << beat - 1;
      }
    if (testing::Test::HasFailure()) return;
  }
  EXPECT_EQ((mr.csr(dev::kCsrErrCode) >> 32) & 0xFFFFFFFF, t);
  EXPECT_EQ(mr.csr(dev::kCsrErrChunk), 1u);  // the first failure: chunk 1, plane 0, slot 8
  EXPECT_EQ((mr.csr(dev::kCsrErrCode) >> 8) & 0xFFFFFF, 0x000800u);
  EXPECT_EQ(mr.csr(dev::kCsrErrAddr), a1);
  mr.check_registers();
  // index entry of chunk 3 of tensor 0: a block offset pointing backwards
  uint64_t P = L.plan.desc[0].slots, E = 8 + 4 * P, at = L.plan.desc[0].index + 3 * E + 8 + 4 * 2;
  uint64_t l = at / 64 * 64;
  std::memcpy(line.data(), L.image.data() + (l - kImageBase), 64);
  line[at - l + 3] ^= 0x80;
  mr.poke(l, line);
  mr.read(region_addr(Region{}, L.plan.desc[0].base, 3 * 2048 * 2), 64, 2);
  mr.check();
  mr.check_registers();
}

TEST(NdpDevice, Gpt2AttentionImage) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.1, 0.2, 0.2, 40, 8});
  std::vector<Bf16Tensor> ts;
  std::string why;
  if (!load_gpt2_attention_bf16(1, &ts, &why)) GTEST_SKIP() << why;
  ImageWriter w;  // what `ndp pack` writes: chunk 32768, expbyte, codec auto
  for (const auto& t : ts)
    ASSERT_TRUE(w.add_tensor(t.name, DType::kBF16, {768, 768}, t.bytes.data(), t.bytes.size()).ok());
  Loaded L;
  ASSERT_TRUE(load(mr, w.finish().value(), &L));
  // one whole tensor in a seeded region, then random bursts over all tensors and regions
  Region r = all_regions(DType::kBF16, static_cast<int>(rng.range(0, 2)))[rng.range(0, 15)];
  uint64_t beats = read_region(mr, L, rng.range(0, 3), r, 4);
  for (int i = 0; i < 24; ++i) {
    size_t t = rng.range(0, 3);
    Region q = all_regions(DType::kBF16, static_cast<int>(rng.range(0, 2)))[rng.range(0, 15)];
    uint64_t off = rng.range(0, region_output_bytes(q, DType::kBF16, 768 * 768) - 1) / 64 * 64;
    mr.read(region_addr(q, L.plan.desc[t].base, off), static_cast<unsigned>(rng.range(1, 64 - (off % 4096) / 64)),
            static_cast<uint32_t>(i % 5));
  }
  beats += mr.check();
  mr.check_registers();
  std::printf("%llu beats of GPT-2 decoder1 compared, %llu cycles\n", (unsigned long long)beats,
              (unsigned long long)mr.env.cycle());
}

TEST(NdpDevice, BlockSpanAndRejectedDescriptor) {
  Rng rng(test_seed());
  Mirror mr(rng.u64(), {0.1, 0.1, 0.1, 20, 4});
  Loaded L;
  if (!load_stories(mr, 2048, 6, &L)) GTEST_SKIP() << "stories260K not found";
  // chunk 0 of tensor 0: slot 3 starts one byte later, so block 2 is one byte longer than its header
  // says (BlockSpan, logged first: slot 2 < 3) and block 3 loses its first header byte
  const dev::Descriptor& d0 = L.plan.desc[0];
  uint64_t at = d0.index + 8 + 4 * 3, l = at / 64 * 64;
  std::vector<uint8_t> line(L.image.begin() + (l - kImageBase), L.image.begin() + (l - kImageBase) + 64);
  uint32_t rel;
  std::memcpy(&rel, line.data() + (at - l), 4);
  ++rel;
  std::memcpy(line.data() + (at - l), &rel, 4);
  mr.poke(l, line);
  mr.read(region_addr(Region{}, d0.base, 0), 16, 0);
  ASSERT_GT(mr.check(), 0u);
  for (uint8_t x : mr.last_resps()[0]) EXPECT_EQ(x, 2);
  EXPECT_EQ(mr.csr(dev::kCsrErrCode) & 0xFFFFFFFF, 0x00020604u);  // slot 2, plane 6, code 4 (BlockSpan)
  // descriptor 2 moved off its 2 MiB alignment: not mapped, its range DECERR, the others served
  dev::Descriptor bad = L.plan.desc[2];
  bad.base += 4096;
  std::vector<uint8_t> dl(64);
  bad.encode(dl.data());
  mr.write(dev::window_address(0, dev::kDescTableBase + 64 * 2), dl);
  mr.csr_write(dev::kCsrCtrl, dev::kCtrlClearErrLog);
  mr.csr_write(dev::kCsrTensorCount, L.plan.desc.size());
  mr.csr_write(dev::kCsrCtrl, dev::kCtrlEnable);
  EXPECT_EQ(mr.csr(dev::kCsrStatus) >> 32, 1u);
  EXPECT_EQ(mr.csr(dev::kCsrErrCode), (uint64_t{2} << 32) | 3u);
  mr.read(region_addr(Region{}, L.plan.desc[2].base, 0), 4, 1);
  mr.read(region_addr(Region{}, L.plan.desc[3].base, 0), 4, 2);
  ASSERT_GT(mr.check(), 0u);
  EXPECT_EQ(mr.last_resps()[0][0], 3);
  EXPECT_EQ(mr.last_resps()[1][0], 0);
  mr.check_registers();
}

}  // namespace
}  // namespace ndp::tb
