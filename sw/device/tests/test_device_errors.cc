// Error and response rules of docs/spec.md 7.5: corrupted plane blocks (SLVERR on exactly the beats
// that need the chunk, the error log), regions that do not fetch the bad plane, index corruption,
// DECERR cases, protocol errors, rejected descriptors, ENABLE, FLUSH, lanes without ZSTD.
#include <gtest/gtest.h>

#include "device_test_util.h"

namespace ndp::dev {
namespace {

struct Loaded {
  std::vector<uint8_t> image;
  MapPlan plan;
  std::unique_ptr<DeviceModel> m;
  std::unique_ptr<ImageReader> img;
};

// bf16 tensors "a" (5 chunks of 4096, expbyte) and "b", an fp16 "c"; loaded at kImageBase.
Loaded load(const DeviceConfig& cfg = {}, CodecPolicy pol = CodecPolicy::kAuto) {
  ImageWriter w;
  const std::vector<uint8_t> a = imgtest::weights(DType::kBF16, 20000, 1), b = imgtest::weights(DType::kBF16, 9000, 2),
                             c = imgtest::weights(DType::kFP16, 3000, 3);
  EXPECT_TRUE(w.add_tensor("a", DType::kBF16, {20000}, a.data(), a.size(), {4096, Layout::kExpByte, pol}).ok());
  EXPECT_TRUE(w.add_tensor("b", DType::kBF16, {9000}, b.data(), b.size(), {4096}).ok());
  EXPECT_TRUE(w.add_tensor("c", DType::kFP16, {3000}, c.data(), c.size(), {1024}).ok());
  Loaded l;
  l.image = devtest::finish(w);
  l.m = DeviceModel::create(cfg).value();
  l.img = ImageReader::open_view(l.image.data(), l.image.size()).value();
  return l;
}
Loaded load_mapped(const DeviceConfig& cfg = {}, CodecPolicy pol = CodecPolicy::kAuto) {
  Loaded l = load(cfg, pol);
  Status s = load_image(*l.m, l.image, devtest::kImageBase, &l.plan);
  EXPECT_TRUE(s.ok()) << s.message();
  return l;
}

// Flip one byte in device DRAM through the store window (and the CPU copy used for expectations).
void corrupt(Loaded& l, uint64_t image_off) {
  uint8_t b;
  l.m->peek_dram(devtest::kImageBase + image_off, 1, &b);
  b ^= 0x5A;
  ASSERT_TRUE(store_write(*l.m, devtest::kImageBase + image_off, &b, 1).ok());
  l.image[image_off] ^= 0x5A;
}

// Reads region r of tensor t whole; checks beats of chunk `bad` SLVERR with zero data, the others
// OKAY and equal to want; returns the SLVERR beat count.
uint64_t read_and_check(Loaded& l, size_t t, const Region& r, int g, const std::vector<uint8_t>& want, int64_t bad) {
  const DType dt = l.img->tensors()[t].dtype;
  std::vector<Resp> resp;
  const auto got = devtest::read_window(*l.m, region_window(format_number(r, dt).value(), g), l.plan.desc[t].base, 0,
                                        want.size(), &resp);
  const uint64_t cb = region_output_bytes(r, dt, l.img->tensors()[t].chunk_elems);
  uint64_t slv = 0;
  for (size_t b = 0; b < resp.size(); ++b) {
    const uint64_t lo = 64 * b, hi = std::min<uint64_t>(lo + 64, want.size()) - 1;
    const bool needs_bad = bad >= 0 && lo / cb <= uint64_t(bad) && hi / cb >= uint64_t(bad);
    EXPECT_EQ(resp[b], needs_bad ? Resp::kSlvErr : Resp::kOkay) << "beat " << b;
    for (uint64_t j = lo; j <= hi; ++j) EXPECT_EQ(got[j], needs_bad ? 0 : want[j]) << "byte " << j;
    slv += needs_bad;
  }
  return slv;
}

TEST(DeviceErrors, CorruptRawMantissaPlane) {
  Loaded l = load(DeviceConfig{}, CodecPolicy::kRaw);
  // Plane 0 (mantissa LSB, slot 8) of chunk 2 of "a": RAW, so the failure is the checksum.
  const uint64_t at = l.img->block_offset(0, 2, 8);
  const std::vector<uint8_t> clean = l.image;
  l.image = clean;
  ASSERT_TRUE(load_image(*l.m, l.image, devtest::kImageBase, &l.plan).ok());
  corrupt(l, at + 12 + 100);
  auto ref = ImageReader::open_bytes(clean).value();  // expectations from the intact image
  // e8m0 g0 and e8m5 g1 do not fetch plane 0: fully OK.
  for (const char* name : {"e8m0", "e8m5"}) {
    const int g = name[3] == '0' ? 0 : 1;
    const Region r = parse_region(name, DType::kBF16, g).value();
    std::vector<uint8_t> want;
    ASSERT_TRUE(ref->read_region(0, r, want).ok());
    EXPECT_EQ(read_and_check(l, 0, r, g, want, -1), 0u) << name;
  }
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 0u);
  // full fetches it: exactly the beats of chunk 2 fail, once per beat (a failed chunk is not cached).
  const Region full = parse_region("full", DType::kBF16, 0).value();
  std::vector<uint8_t> want;
  ASSERT_TRUE(ref->read_region(0, full, want).ok());
  const uint64_t slv = read_and_check(l, 0, full, 0, want, 2);
  EXPECT_EQ(slv, 4096u * 2 / 64);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), slv);
  EXPECT_EQ(l.m->peek_csr(kCsrCntSlvErr), slv);
  const uint64_t code = l.m->peek_csr(kCsrErrCode);
  EXPECT_EQ(code & 0xFF, lane_error_code(LaneStatus::kChecksum));
  EXPECT_EQ((code >> 8) & 0xFF, 0u);     // plane id 0
  EXPECT_EQ((code >> 16) & 0xFFFF, 8u);  // slot 8
  EXPECT_EQ(code >> 32, 0u);             // tensor 0
  EXPECT_EQ(l.m->peek_csr(kCsrErrChunk), 2u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrAddr), devtest::kImageBase + at);
  EXPECT_NE(l.m->peek_csr(kCsrStatus) & kStatusError, 0u);
  // Other tensors are served normally.
  std::vector<uint8_t> wb;
  ASSERT_TRUE(ref->read_region(1, full, wb).ok());
  EXPECT_EQ(read_and_check(l, 1, full, 0, wb, -1), 0u);
  ASSERT_TRUE(csr_write(*l.m, kCsrCtrl, kCtrlEnable | kCtrlClearErrLog).ok());
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 0u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCode), 0u);
}

// A prefetch that fails logs nothing (spec 7.6); the beat that needs the chunk decodes it on demand.
TEST(DeviceErrors, FailedPrefetchIsNotLogged) {
  DeviceConfig cfg;
  cfg.chunk_buffers = 8;
  cfg.max_prefetch = 6;
  Loaded l = load(cfg, CodecPolicy::kRaw);
  ASSERT_TRUE(load_image(*l.m, l.image, devtest::kImageBase, &l.plan).ok());
  const uint64_t at = l.img->block_offset(0, 3, 8);  // mantissa LSB plane of chunk 3
  corrupt(l, at + 12 + 5);
  ASSERT_TRUE(csr_write(*l.m, kCsrCtrl, kCtrlEnable | kCtrlClearCounters).ok());
  const uint8_t w = region_window(kFormatFull, 0);
  const uint64_t cb = 4096 * 2;  // full-region bytes of a chunk
  uint8_t beat[64];
  std::vector<Resp> resp;
  ASSERT_TRUE(l.m->read(window_address(w, l.plan.desc[0].base), 64, beat, &resp).ok());
  ASSERT_TRUE(l.m->read(window_address(w, l.plan.desc[0].base + cb), 64, beat, &resp).ok());
  EXPECT_EQ(resp[0], Resp::kOkay);
  // 0 on demand (the first line: a stream); 1..4 and b's 0, 1 prefetched (3 failed); then b's 2
  EXPECT_EQ(l.m->peek_csr(kCsrCntChunks), 8u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 0u);
  ASSERT_TRUE(l.m->read(window_address(w, l.plan.desc[0].base + 3 * cb), 64, beat, &resp).ok());
  EXPECT_EQ(resp[0], Resp::kSlvErr);
  EXPECT_EQ(l.m->peek_csr(kCsrCntChunks), 9u);  // decoded again on demand, in its entry
  EXPECT_EQ(l.m->peek_csr(kCsrCntChunkHits), 1u);  // chunk 1; a failed prefetch is no hit
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 1u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrChunk), 3u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrAddr), devtest::kImageBase + at);
  ASSERT_TRUE(l.m->read(window_address(w, l.plan.desc[0].base + 4 * cb), 64, beat, &resp).ok());
  EXPECT_EQ(resp[0], Resp::kOkay);  // prefetched before, still buffered
  EXPECT_EQ(l.m->peek_csr(kCsrCntChunks), 9u);
  EXPECT_EQ(l.m->peek_csr(kCsrCntChunkHits), 2u);
}

TEST(DeviceErrors, CorruptCompressedExponentPlane) {
  Loaded l = load_mapped();
  const std::vector<uint8_t> clean = l.image;
  const uint64_t at = l.img->block_offset(0, 3, 1);  // EXPBYTE of chunk 3
  const uint64_t span = l.img->block_span(0, 3, 1);
  corrupt(l, at + 12 + span / 2);
  // The code the lane reports is the golden decoder's verdict on the corrupted block.
  BlockDecoder dec;
  BlockFault f;
  std::vector<uint8_t> out(4096);
  BlockExpect x{kPlaneExpByte, 3, 4096, 0, "b"};
  EXPECT_FALSE(dec.decode(l.image.data() + at, span, x, out.data(), nullptr, &f).ok());
  auto ref = ImageReader::open_bytes(clean).value();
  const Region r = parse_region("fp8-e4m3", DType::kBF16, 1).value();
  std::vector<uint8_t> want;
  ASSERT_TRUE(ref->read_region(0, r, want).ok());
  EXPECT_EQ(read_and_check(l, 0, r, 1, want, 3), 4096u / 64);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCode) & 0xFF, lane_error_code(lane_status(f)));
  EXPECT_EQ((l.m->peek_csr(kCsrErrCode) >> 8) & 0xFF, kPlaneExpByte);
  EXPECT_EQ(l.m->peek_csr(kCsrErrAddr), devtest::kImageBase + at);
}

TEST(DeviceErrors, StaleChunkUntilFlush) {
  Loaded l = load_mapped();
  const Region full = parse_region("full", DType::kBF16, 0).value();
  uint8_t before[64], after[64];
  ASSERT_TRUE(l.m->read(window_address(region_window(0, 0), 0), 64, before, nullptr).ok());
  corrupt(l, l.img->block_offset(0, 0, 8) + 20);
  ASSERT_TRUE(l.m->read(window_address(region_window(0, 0), 0), 64, after, nullptr).ok());  // buffered
  EXPECT_EQ(std::memcmp(before, after, 64), 0);
  ASSERT_TRUE(csr_write(*l.m, kCsrCtrl, kCtrlEnable | kCtrlFlush).ok());
  std::vector<Resp> resp;
  ASSERT_TRUE(l.m->read(window_address(region_window(0, 0), 0), 64, after, &resp).ok());
  EXPECT_EQ(resp[0], Resp::kSlvErr);
  (void)full;
}

TEST(DeviceErrors, CorruptIndexEntry) {
  Loaded l = load_mapped();
  const TensorInfo& t = l.img->tensors()[0];
  const uint64_t E = 8 + 4 * t.plane_ids.size();
  const uint64_t entry = t.index_offset + 1 * E;
  corrupt(l, entry + 8 + 4 * 2 + 3);  // rel[2] of chunk 1: a huge offset
  const Region r = parse_region("e8m3", DType::kBF16, 0).value();
  auto ref = ImageReader::open_view(l.image.data(), l.image.size());
  std::vector<uint8_t> want;
  // The reader rejects the image at open; expectations from an intact model read of the other chunks.
  Loaded clean = load_mapped();
  auto cref = ImageReader::open_view(clean.image.data(), clean.image.size()).value();
  ASSERT_TRUE(cref->read_region(0, r, want).ok());
  EXPECT_EQ(read_and_check(l, 0, r, 0, want, 1), 4096u * 2 / 64);
  const uint64_t code = l.m->peek_csr(kCsrErrCode);
  EXPECT_EQ(code & 0xFF, kErrIndex);
  EXPECT_EQ(l.m->peek_csr(kCsrErrChunk), 1u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrAddr), devtest::kImageBase + entry);
  EXPECT_EQ((code >> 16) & 0xFFFF, 1u);  // slot 1's span (ends at slot 2's start) breaks first
  EXPECT_FALSE(ref.ok());
}

TEST(DeviceErrors, DecErrCases) {
  Loaded l = load_mapped();
  uint8_t buf[128];
  std::vector<Resp> resp;
  auto rd = [&](uint64_t addr) {
    EXPECT_TRUE(l.m->read(addr, 64, buf, &resp).ok());
    return resp.empty() ? Resp::kExOkay : resp[0];
  };
  const uint64_t fp8 = region_window(kFormatFp8E4M3, 0);
  EXPECT_EQ(rd(window_address(fp8, 20032)), Resp::kDecErr);  // past tensor a's 20000 fp8 bytes
  EXPECT_EQ(rd(window_address(fp8, 19968)), Resp::kOkay);     // the partial last beat: 32 bytes, then 0
  for (int j = 32; j < 64; ++j) EXPECT_EQ(buf[j], 0);
  EXPECT_EQ(rd(window_address(0x02, 0)), Resp::kDecErr);
  EXPECT_EQ(rd(window_address(0x41, 0)), Resp::kDecErr);                    // reserved (0x40: KV pages, 7.7)
  EXPECT_EQ(rd(window_address(0xE0, 0)), Resp::kDecErr);                   // g = 3
  EXPECT_EQ(rd(window_address(region_window(12, 0), 0)), Resp::kDecErr);    // reserved f
  EXPECT_EQ(rd(window_address(region_window(kFormatEmK + 8, 0), 0)), Resp::kDecErr);  // e8m8 of bf16
  const uint64_t c_base = l.plan.desc[2].base;                                         // fp16 "c"
  EXPECT_EQ(rd(window_address(region_window(kFormatEmK + 8, 0), c_base)), Resp::kOkay);  // e5m8
  EXPECT_EQ(rd(window_address(kWindowStore, uint64_t{1} << 30)), Resp::kDecErr);  // beyond DRAM
  EXPECT_EQ(rd(window_address(kWindowControl, 0x1000)), Resp::kDecErr);
  EXPECT_EQ(rd(window_address(kWindowControl, kDescTableBase + 1024 * 64)), Resp::kDecErr);
  EXPECT_EQ(rd(uint64_t{1} << 48), Resp::kDecErr);
  EXPECT_EQ(l.m->write_burst(window_address(fp8, 0), 1, buf, nullptr), Resp::kDecErr);  // region: read-only
  EXPECT_EQ(l.m->write_burst(window_address(0x7F, 0), 1, buf, nullptr), Resp::kDecErr);
  EXPECT_EQ(l.m->write_burst(window_address(kWindowStore, uint64_t{1} << 30), 2, buf, nullptr), Resp::kDecErr);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 0u);  // DECERR is not logged
  EXPECT_EQ(l.m->peek_csr(kCsrCntDecErr), 14u);
}

TEST(DeviceErrors, ProtocolErrors) {
  Loaded l = load_mapped();
  uint8_t buf[64 * 4];
  Resp resp[4];
  const uint64_t a = window_address(region_window(0, 0), 0);
  l.m->read_burst(a, 4, buf, resp, BurstType::kFixed);
  for (Resp r : resp) EXPECT_EQ(r, Resp::kSlvErr);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCode), kErrProtocol | uint64_t{kErrTensorNone} << 32);
  EXPECT_EQ(l.m->peek_csr(kCsrErrAddr), a);
  l.m->read_burst(a, 2, buf, resp, BurstType::kWrap);
  l.m->read_burst(a, 2, buf, resp, BurstType::kIncr, 5);  // narrow
  l.m->read_burst(a + 4096 - 64, 2, buf, resp);            // crosses 4 KiB
  EXPECT_EQ(resp[0], Resp::kSlvErr);
  EXPECT_EQ(l.m->write_burst(window_address(kWindowStore, 0), 1, buf, nullptr, BurstType::kFixed), Resp::kSlvErr);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 5u);
  l.m->read_burst(a, 4, buf, resp);
  for (Resp r : resp) EXPECT_EQ(r, Resp::kOkay);
}

TEST(DeviceErrors, EnableZeroAnswersSlvErrUnlogged) {
  Loaded l = load_mapped();
  ASSERT_TRUE(csr_write(*l.m, kCsrCtrl, 0).ok());
  uint8_t buf[64];
  std::vector<Resp> resp;
  ASSERT_TRUE(l.m->read(window_address(region_window(0, 0), 0), 64, buf, &resp).ok());
  EXPECT_EQ(resp[0], Resp::kSlvErr);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 0u);
}

TEST(DeviceErrors, RejectedDescriptors) {
  DeviceConfig cfg;
  cfg.dtype_mask = 1 << static_cast<int>(DType::kBF16);  // the RTL bench's device: bf16 only
  Loaded l = load(cfg);
  ASSERT_TRUE(store_write(*l.m, devtest::kImageBase, l.image.data(), l.image.size()).ok());
  l.plan = plan_map(*l.img, devtest::kImageBase).value();
  l.plan.desc[1].base += 64;  // unaligned: rejected; "c" (fp16) by the dtype mask
  for (uint32_t t = 0; t < 3; ++t) ASSERT_TRUE(write_descriptor(*l.m, t, l.plan.desc[t]).ok());
  ASSERT_TRUE(csr_write(*l.m, kCsrTensorCount, 3).ok());
  ASSERT_TRUE(csr_write(*l.m, kCsrCtrl, kCtrlEnable).ok());
  EXPECT_EQ(l.m->peek_csr(kCsrStatus) >> 32, 2u);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCode), kErrDescRejected | uint64_t{1} << 32);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCount), 2u);
  uint8_t buf[64];
  std::vector<Resp> resp;
  for (size_t t = 0; t < 3; ++t) {
    ASSERT_TRUE(l.m->read(window_address(region_window(0, 0), l.plan.desc[t].base & ~uint64_t{63}), 64, buf, &resp).ok());
    EXPECT_EQ(resp[0], t == 0 ? Resp::kOkay : Resp::kDecErr) << t;
  }
  // load_image reports the rejection.
  Loaded l2 = load(cfg);
  EXPECT_FALSE(load_image(*l2.m, l2.image, devtest::kImageBase, nullptr).ok());
}

TEST(DeviceErrors, ChunkGranularityOfCaps) {
  // A device whose chunk_elems must be a multiple of 2^11 (the RTL): the synthetic image's
  // 1024-element fp16 chunks are rejected, its 2048- and 4096-element chunks served.
  DeviceConfig cfg;
  cfg.chunk_align_log2 = 11;
  auto m = DeviceModel::create(cfg);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((m.value()->peek_csr(kCsrCaps) >> 48) & 0x1F, 11u);
  const std::vector<uint8_t> image = devtest::synth_image();
  auto img = ImageReader::open_bytes(image);
  ASSERT_TRUE(img.ok());
  MapPlan plan = plan_map(*img.value(), devtest::kImageBase).value();
  ASSERT_TRUE(store_write(*m.value(), devtest::kImageBase, image.data(), image.size()).ok());
  for (uint32_t t = 0; t < plan.desc.size(); ++t) ASSERT_TRUE(write_descriptor(*m.value(), t, plan.desc[t]).ok());
  ASSERT_TRUE(csr_write(*m.value(), kCsrTensorCount, plan.desc.size()).ok());
  uint64_t rejected = 0;
  for (const Descriptor& d : plan.desc) rejected += d.chunk_elems % 2048 != 0;
  EXPECT_GT(rejected, 0u);
  EXPECT_EQ(m.value()->peek_csr(kCsrStatus) >> 32, rejected);
  cfg.chunk_align_log2 = 16;  // 65536 > max_chunk_elems
  EXPECT_FALSE(DeviceModel::create(cfg).ok());
}

TEST(DeviceErrors, LaneWithoutZstd) {
  DeviceConfig cfg;
  cfg.has_zstd = false;
  Loaded l = load_mapped(cfg);
  // The EXPBYTE planes of "a" are ZSTD (Huffman) frames: regions fail with lane status 10; a raw
  // policy image would not.
  uint8_t buf[64];
  std::vector<Resp> resp;
  ASSERT_TRUE(l.m->read(window_address(region_window(0, 0), 0), 64, buf, &resp).ok());
  EXPECT_EQ(resp[0], Resp::kSlvErr);
  EXPECT_EQ(l.m->peek_csr(kCsrErrCode) & 0xFF, lane_error_code(LaneStatus::kUnsupported));
}

}  // namespace
}  // namespace ndp::dev
