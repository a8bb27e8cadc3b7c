// DeviceModel registers, counters, DRAM byte accounting, the chunk buffer (LRU), control and store
// windows, the DDR5 statistics.
#include <gtest/gtest.h>

#include <cstring>

#include "device_test_util.h"

namespace ndp::dev {
namespace {

// Two bf16 tensors (5 and 3 chunks of 4096) and an fp16 one; always available.
std::vector<uint8_t> small_image() {
  ImageWriter w;
  const std::vector<uint8_t> a = imgtest::weights(DType::kBF16, 20000, 1), b = imgtest::weights(DType::kBF16, 9000, 2),
                             c = imgtest::weights(DType::kFP16, 3000, 3);
  EXPECT_TRUE(w.add_tensor("a", DType::kBF16, {20000}, a.data(), a.size(), {4096}).ok());
  EXPECT_TRUE(w.add_tensor("b", DType::kBF16, {90, 100}, b.data(), b.size(), {4096}).ok());
  EXPECT_TRUE(w.add_tensor("c", DType::kFP16, {3000}, c.data(), c.size(), {1024}).ok());
  return devtest::finish(w);
}

uint64_t lines(uint64_t a, uint64_t b) { return ((b + 63) / 64 - a / 64) * 64; }

// DRAM bytes the device reads to decode chunk k of image tensor ti for region r (7.3 accounting).
uint64_t chunk_fetch_bytes(const ImageReader& img, size_t ti, const Region& r, uint64_t k) {
  const TensorInfo& t = img.tensors()[ti];
  const uint64_t E = 8 + 4 * t.plane_ids.size(), entry = devtest::kImageBase + t.index_offset + k * E;
  uint64_t bytes = lines(entry, entry + (k + 1 < t.chunks ? 2 : 1) * E);
  const std::vector<bool> want = region_slot_mask(r, t.dtype, t.layout);
  for (size_t s = 0; s < want.size(); ++s)
    if (want[s]) {
      const uint64_t a = devtest::kImageBase + img.block_offset(ti, k, s);
      bytes += lines(a, a + img.block_span(ti, k, s));
    }
  return bytes;
}

TEST(DeviceModel, IdCapsAndConfig) {
  DeviceConfig cfg;
  cfg.lanes = 8;
  cfg.max_tensors = 300;
  cfg.max_chunk_elems = 65536;
  cfg.dtype_mask = 0x02;
  cfg.dram_bytes = uint64_t{1} << 28;
  auto m = DeviceModel::create(cfg);
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto id = csr_read(*m.value(), kCsrId);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id.value(), 0x4450444Eu | uint64_t{1} << 32);
  EXPECT_EQ(csr_read(*m.value(), kCsrCaps).value(),
            8u | uint64_t{300} << 8 | uint64_t{16} << 24 | uint64_t{0x02} << 32 | uint64_t{28} << 40 |
                uint64_t{6} << 48);  // chunk_elems granularity 2^6 (the default)
  EXPECT_EQ(csr_read(*m.value(), 0x100).value(), 0u);  // undefined register: 0, OKAY
  EXPECT_EQ(m.value()->peek_csr(kCsrCntHostRdBeats), 3u);
  cfg.dram_bytes = 3 << 20;
  EXPECT_FALSE(DeviceModel::create(cfg).ok());
  cfg.dram_bytes = 1 << 20;
  cfg.max_chunk_elems = 64;
  EXPECT_FALSE(DeviceModel::create(cfg).ok());
}

TEST(DeviceModel, RegistersStrobesAndCtrl) {
  auto m = DeviceModel::create().value();
  // A beat with partial strobes on TENSOR_COUNT does not update it; RO registers ignore writes.
  uint8_t line[64] = {0};
  line[0x18] = 5;
  const uint64_t partial = uint64_t{0x7F} << 0x18;
  ASSERT_TRUE(m->write(window_address(kWindowControl, 0), line, 64, &partial).ok());
  EXPECT_EQ(m->peek_csr(kCsrTensorCount), 0u);
  ASSERT_TRUE(csr_write(*m, kCsrId, 77).ok());
  EXPECT_EQ(m->peek_csr(kCsrId) & 0xFFFFFFFF, kIdMagic);
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlFlush).ok());
  EXPECT_EQ(m->peek_csr(kCsrCtrl), kCtrlEnable);  // one-shot bits read 0
  EXPECT_GT(m->peek_csr(kCsrCntHostWrBeats), 0u);
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlClearCounters).ok());
  EXPECT_EQ(m->peek_csr(kCsrCntHostWrBeats), 0u);  // the clearing beat is not counted
  // The store window: strobed bytes land, the others stay.
  uint8_t data[128];
  for (int i = 0; i < 128; ++i) data[i] = static_cast<uint8_t>(i + 1);
  const uint64_t st[2] = {0xF0, ~uint64_t{0}};
  ASSERT_TRUE(m->write(window_address(kWindowStore, 4096), data, 128, st).ok());
  uint8_t back[128];
  ASSERT_TRUE(m->read(window_address(kWindowStore, 4096), 128, back, nullptr).ok());
  for (int i = 0; i < 128; ++i) EXPECT_EQ(back[i], i >= 4 && i < 8 ? i + 1 : i >= 64 ? i + 1 : 0) << i;
  EXPECT_EQ(m->peek_csr(kCsrCntDramWrBytes), 128u);
  EXPECT_EQ(m->peek_csr(kCsrCntDramRdBytes), 128u);
  // Descriptors read back as written.
  Descriptor d{2 << 21, 10, 64, 128, 192, 128, 1, 1, 9, kDescValid};
  ASSERT_TRUE(write_descriptor(*m, 7, d).ok());
  uint8_t raw[64];
  ASSERT_TRUE(m->read(window_address(kWindowControl, kDescTableBase + 7 * 64), 64, raw, nullptr).ok());
  EXPECT_EQ(Descriptor::decode(raw), d);
}

TEST(DeviceModel, CountersAccountingAndChunkBuffer) {
  const std::vector<uint8_t> image = small_image();
  MapPlan plan;
  DeviceConfig cfg;
  cfg.chunk_buffers = 2;  // the LRU rule with two entries and no prefetch
  cfg.max_prefetch = 0;
  auto m = devtest::loaded_model(image, &plan, cfg);
  ASSERT_TRUE(m);
  auto img = ImageReader::open_view(image.data(), image.size()).value();
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlClearCounters).ok());
  const Region r = parse_region("fp8-e4m3", DType::kBF16, 1).value();
  const uint8_t w = region_window(kFormatFp8E4M3, 1);
  const uint64_t base = plan.desc[0].base;  // tensor "a": chunks of 4096 fp8 bytes
  uint8_t beat[64];
  auto read1 = [&](uint64_t off) { ASSERT_TRUE(m->read(window_address(w, base + off), 64, beat, nullptr).ok()); };
  auto cnt = [&](uint64_t off) { return m->peek_csr(off); };
  read1(0);  // chunk 0: one decode
  EXPECT_EQ(cnt(kCsrCntChunks), 1u);
  EXPECT_EQ(cnt(kCsrCntDramRdBytes), chunk_fetch_bytes(*img, 0, r, 0));
  EXPECT_EQ(cnt(kCsrCntBlocks), 1u + 1u + 4u);  // sign, EXPBYTE, mantissa 6..3
  read1(64);  // same chunk: a hit, no DRAM traffic
  EXPECT_EQ(cnt(kCsrCntChunks), 1u);
  EXPECT_EQ(cnt(kCsrCntChunkHits), 1u);
  EXPECT_EQ(cnt(kCsrCntDramRdBytes), chunk_fetch_bytes(*img, 0, r, 0));
  read1(4096);      // chunk 1
  read1(0);         // chunk 0 still buffered (C = 2)
  read1(2 * 4096);  // chunk 2 evicts chunk 1 (least recently used)
  read1(0);         // hit
  read1(4096);      // chunk 1 again: a miss
  EXPECT_EQ(cnt(kCsrCntChunks), 4u);
  EXPECT_EQ(cnt(kCsrCntChunkHits), 3u);
  uint64_t want = chunk_fetch_bytes(*img, 0, r, 0) + 2 * chunk_fetch_bytes(*img, 0, r, 1) + chunk_fetch_bytes(*img, 0, r, 2);
  EXPECT_EQ(cnt(kCsrCntDramRdBytes), want);
  // The last chunk (no next index entry) and the same chunk in another window: separate buffers.
  read1(4 * 4096);
  want += chunk_fetch_bytes(*img, 0, r, 4);
  const Region full = parse_region("full", DType::kBF16, 0).value();
  ASSERT_TRUE(m->read(window_address(region_window(kFormatFull, 2), base), 64, beat, nullptr).ok());
  want += chunk_fetch_bytes(*img, 0, full, 0);
  EXPECT_EQ(cnt(kCsrCntDramRdBytes), want);
  EXPECT_EQ(cnt(kCsrCntHostRdBeats), 9u);
  // FLUSH drops the buffers; TENSOR_COUNT too.
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlFlush).ok());
  read1(4 * 4096);
  EXPECT_EQ(cnt(kCsrCntChunks), 7u);
  const Ddr5Stats ds = m->dram_stats();
  EXPECT_EQ(ds.total.bytes_read, cnt(kCsrCntDramRdBytes));  // the load read no DRAM
  EXPECT_EQ(ds.total.bytes_written, lines(devtest::kImageBase, devtest::kImageBase + image.size()));
  EXPECT_GT(ds.total.energy.total_nj(), 0.0);
  EXPECT_GT(ds.total.activates, 0u);
  EXPECT_GT(cnt(kCsrCntCycles), 0u);
  std::printf("DRAM: %llu B read, %llu B written, %llu activates, row hit rate %.3f, %.1f nJ\n",
              static_cast<unsigned long long>(ds.total.bytes_read),
              static_cast<unsigned long long>(ds.total.bytes_written),
              static_cast<unsigned long long>(ds.total.activates), ds.row_hit_rate(), ds.total.energy.total_nj());
}

TEST(DeviceModel, Caps2PrefetchAndTrackRegisters) {
  DeviceConfig cfg;
  cfg.chunk_buffers = 6;
  cfg.staging_sets = 3;
  cfg.max_prefetch = 4;
  auto m = DeviceModel::create(cfg).value();
  // C, S, MaxPrefetch, tracker entries T (64), MaxTrack = C - 2
  EXPECT_EQ(csr_read(*m, kCsrCaps2).value(), 6u | 3u << 8 | 4u << 16 | 64u << 24 | uint64_t{4} << 32);
  EXPECT_EQ(csr_read(*m, kCsrPrefetch).value(), 4u);  // resets to MaxPrefetch
  EXPECT_EQ(csr_read(*m, kCsrTrack).value(), 4u);     // resets to MaxTrack
  ASSERT_TRUE(csr_write(*m, kCsrTrack, 0x107).ok());  // bits 7..0, clamped to MaxTrack
  EXPECT_EQ(m->peek_csr(kCsrTrack), 4u);
  ASSERT_TRUE(csr_write(*m, kCsrTrack, 0).ok());
  EXPECT_EQ(m->peek_csr(kCsrTrack), 0u);
  ASSERT_TRUE(csr_write(*m, kCsrPrefetch, 2).ok());
  EXPECT_EQ(m->peek_csr(kCsrPrefetch), 2u);
  ASSERT_TRUE(csr_write(*m, kCsrPrefetch, 0x1FF).ok());  // bits 7..0, clamped to MaxPrefetch
  EXPECT_EQ(m->peek_csr(kCsrPrefetch), 4u);
  ASSERT_TRUE(csr_write(*m, kCsrPrefetch, 0).ok());
  EXPECT_EQ(m->peek_csr(kCsrPrefetch), 0u);
  cfg.max_prefetch = 5;  // more than C - 2
  EXPECT_FALSE(DeviceModel::create(cfg).ok());
  cfg.chunk_buffers = 1;
  cfg.max_prefetch = 0;
  EXPECT_TRUE(DeviceModel::create(cfg).ok());
  EXPECT_EQ(DeviceModel::create(cfg).value()->peek_csr(kCsrTrack), 0u);  // C < 2: MaxTrack 0
  cfg.track_entries = 0;
  EXPECT_FALSE(DeviceModel::create(cfg).ok());
}

// Sequential prefetch (spec 7.6): tensor "a" has 5 chunks, then "b"; C = 4, d = 2.
TEST(DeviceModel, SequentialPrefetch) {
  const std::vector<uint8_t> image = small_image();
  MapPlan plan;
  DeviceConfig cfg;
  cfg.chunk_buffers = 4;
  cfg.max_prefetch = 2;
  auto m = devtest::loaded_model(image, &plan, cfg);
  ASSERT_TRUE(m);
  auto img = ImageReader::open_view(image.data(), image.size()).value();
  const Region r = parse_region("fp8-e4m3", DType::kBF16, 1).value();
  const uint8_t w = region_window(kFormatFp8E4M3, 1);
  const uint64_t base = plan.desc[0].base;
  std::vector<uint8_t> gold;
  ASSERT_TRUE(img->read_region(0, r, gold).ok());
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlClearCounters).ok());
  auto cnt = [&](uint64_t off) { return m->peek_csr(off); };
  uint8_t beat[64];
  auto read1 = [&](uint64_t chunk) {  // the second line of the chunk
    ASSERT_TRUE(m->read(window_address(w, base + 4096 * chunk + 64), 64, beat, nullptr).ok());
    EXPECT_EQ(0, std::memcmp(beat, gold.data() + 4096 * chunk + 64, 64)) << "chunk " << chunk;
  };
  read1(0);  // k = 0 (not the tensor's first line): no chunk before it, no prefetch
  EXPECT_EQ(cnt(kCsrCntChunks), 1u);
  read1(1);  // demand 1; chunk 0 is buffered, so 2 and 3 are prefetched
  EXPECT_EQ(cnt(kCsrCntChunks), 4u);
  EXPECT_EQ(cnt(kCsrCntChunkHits), 0u);
  EXPECT_EQ(cnt(kCsrCntDramRdBytes), chunk_fetch_bytes(*img, 0, r, 0) + chunk_fetch_bytes(*img, 0, r, 1) +
                                         chunk_fetch_bytes(*img, 0, r, 2) + chunk_fetch_bytes(*img, 0, r, 3));
  read1(2);  // a hit; 3 is buffered, 4 takes the least recently used entry (chunk 0)
  EXPECT_EQ(cnt(kCsrCntChunks), 5u);
  EXPECT_EQ(cnt(kCsrCntChunkHits), 1u);
  read1(3);  // a hit; the window runs past a's last chunk into b: b's chunk 0 is prefetched
  read1(4);  // a hit; b's chunk 1 is prefetched
  EXPECT_EQ(cnt(kCsrCntChunks), 7u);
  EXPECT_EQ(cnt(kCsrCntChunkHits), 3u);
  read1(0);  // chunk 0 was replaced: a demand decode, no prefetch (k = 0)
  EXPECT_EQ(cnt(kCsrCntChunks), 8u);
  // A random read elsewhere finds no chunk k - 1: no prefetch.
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlFlush).ok());
  read1(3);
  EXPECT_EQ(cnt(kCsrCntChunks), 9u);
  // PREFETCH 0 turns it off.
  ASSERT_TRUE(csr_write(*m, kCsrPrefetch, 0).ok());
  read1(2);
  read1(3);  // hit (still buffered)
  read1(4);  // 3 is buffered, but d = 0
  EXPECT_EQ(cnt(kCsrCntChunks), 11u);
  // The full region's three windows (g = 0, 1, 2) share entries.
  const uint64_t before = cnt(kCsrCntChunks);
  for (int g = 0; g < 3; ++g)
    ASSERT_TRUE(m->read(window_address(region_window(kFormatFull, g), base + 64), 64, beat, nullptr).ok());
  EXPECT_EQ(cnt(kCsrCntChunks), before + 1);
  // A read of the tensor's first line starts a stream: chunks 1 and 2 are prefetched at once.
  ASSERT_TRUE(csr_write(*m, kCsrPrefetch, 2).ok());
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlFlush).ok());
  ASSERT_TRUE(m->read(window_address(w, base), 64, beat, nullptr).ok());
  EXPECT_EQ(cnt(kCsrCntChunks), before + 4);  // chunk 0, then 1 and 2
  read1(1);
  read1(2);
  EXPECT_EQ(cnt(kCsrCntChunks), before + 6);  // 3 when 1 is read, 4 when 2 is read
}

// A stream through a tensor decodes every chunk once: prefetched chunks are not replaced before
// they are read (the prefetch step makes them most recently used).
TEST(DeviceModel, StreamDecodesEachChunkOnce) {
  ImageWriter w;
  const std::vector<uint8_t> a = imgtest::weights(DType::kBF16, 12 * 4096, 5);
  ASSERT_TRUE(w.add_tensor("a", DType::kBF16, {12 * 4096}, a.data(), a.size(), {4096}).ok());
  const std::vector<uint8_t> image = devtest::finish(w);
  MapPlan plan;
  DeviceConfig cfg;
  cfg.chunk_buffers = 6;
  cfg.max_prefetch = 4;
  auto m = devtest::loaded_model(image, &plan, cfg);
  ASSERT_TRUE(m);
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlClearCounters).ok());
  const uint8_t win = region_window(kFormatFull, 0);
  std::vector<uint8_t> buf(12 * 4096 * 2);
  ASSERT_TRUE(m->read(window_address(win, plan.desc[0].base), buf.size(), buf.data(), nullptr).ok());
  EXPECT_EQ(m->peek_csr(kCsrCntChunks), 12u);
  EXPECT_EQ(m->peek_csr(kCsrCntChunkHits), buf.size() / 64 - 1);  // chunk 0's first beat decodes on demand
}

// The stream runs on into the next tensor: its first chunks are prefetched too.
TEST(DeviceModel, StreamAcrossTensors) {
  const std::vector<uint8_t> image = small_image();  // a: 5 chunks, b: 3 chunks (bf16)
  MapPlan plan;
  DeviceConfig cfg;
  cfg.chunk_buffers = 6;
  cfg.max_prefetch = 4;
  auto m = devtest::loaded_model(image, &plan, cfg);
  ASSERT_TRUE(m);
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlEnable | kCtrlClearCounters).ok());
  const uint8_t win = region_window(kFormatFull, 0);
  uint64_t beats = 0;
  for (size_t t = 0; t < 2; ++t) {
    std::vector<uint8_t> buf(plan.desc[t].elems * 2 / 64 * 64);
    ASSERT_TRUE(m->read(window_address(win, plan.desc[t].base), buf.size(), buf.data(), nullptr).ok());
    beats += buf.size() / 64;
  }
  EXPECT_EQ(m->peek_csr(kCsrCntChunks), 8u + 3u);  // a, b, and c's 3 chunks (b's stream runs on into c)
  EXPECT_EQ(m->peek_csr(kCsrCntChunkHits), beats - 1);  // only the stream's first beat decodes on demand
}

TEST(DeviceModel, BeatsSpanningTwoChunks) {
  // chunk 128 elements of fp4 = 64 bytes, of mxfp4 = 68 bytes: beats straddle chunk boundaries.
  ImageWriter w;
  const std::vector<uint8_t> a = imgtest::weights(DType::kBF16, 1000, 9);
  ASSERT_TRUE(w.add_tensor("a", DType::kBF16, {1000}, a.data(), a.size(), {128}).ok());
  const std::vector<uint8_t> image = devtest::finish(w);
  MapPlan plan;
  auto m = devtest::loaded_model(image, &plan);
  auto img = ImageReader::open_view(image.data(), image.size()).value();
  for (const char* name : {"mxfp4", "fp6-e3m2", "mxfp8"}) {
    const Region r = parse_region(name, DType::kBF16, 2).value();
    std::vector<uint8_t> want;
    ASSERT_TRUE(img->read_region(0, r, want).ok());
    std::vector<Resp> resp;
    const auto got = devtest::read_window(*m, region_window(format_number(r, DType::kBF16).value(), 2), 0, 0,
                                          want.size(), &resp);
    EXPECT_EQ(got, want) << name;
  }
}

}  // namespace
}  // namespace ndp::dev
