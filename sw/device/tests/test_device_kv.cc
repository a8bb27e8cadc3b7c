// KV pages of the device model (docs/spec.md 7.7): token-by-token writes through the KV window, reads
// of open and sealed pages, the stored window against the golden ImageWriter KV stream, the page
// table's errors, freed and reused pages, reset and restore, and a real stories260K KV trace.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "device_test_util.h"
#include "ndp/convert.h"
#include "ndp/device_model.h"
#include "ndp/image.h"
#include "ndp/kv.h"
#include "ndp/planes.h"

#ifdef NDP_DEVICE_TEST_HAVE_MODEL
#include "ndp/kv_record.h"
#include "ndp/llama_file.h"
#endif

namespace ndp::dev {
namespace {

using devtest::test_seed;

struct Geo {
  DType t;
  Layout l;
  uint32_t W, N;
  CodecPolicy pol;
};

std::unique_ptr<DeviceModel> make(const DeviceConfig& cfg = {}) {
  auto m = DeviceModel::create(cfg);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m.value()) : nullptr;
}

uint32_t span_log2(DeviceModel& m) { return KvCaps::decode(m.peek_csr(kCsrKvCaps)).span_log2; }

KvPageDesc desc(const Geo& g, uint64_t slot, uint8_t flags = kKvFlagValid) {
  KvPageDesc d;
  d.slot = slot;
  d.slot_bytes = static_cast<uint32_t>(kv_slot_bytes(g.t, g.l, g.W, g.N));
  d.window = g.W;
  d.width = g.N;
  d.dtype = static_cast<uint8_t>(g.t);
  d.layout = static_cast<uint8_t>(g.l);
  d.policy = static_cast<uint8_t>(g.pol);
  d.flags = flags;
  return d;
}

// KV-like 16-bit words: per-channel Gaussian scales (a few outlier channels), token-major [t][n].
std::vector<uint16_t> kv_values(DType t, uint64_t tokens, uint32_t N, std::mt19937_64& rng) {
  std::vector<float> scale(N);
  std::lognormal_distribution<float> sd(0.0f, 1.0f);
  for (float& s : scale) s = sd(rng);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<uint16_t> v(tokens * N);
  for (uint64_t i = 0; i < v.size(); ++i) {
    const float x = nd(rng) * scale[i % N];
    if (t == DType::kBF16) {
      v[i] = fp32_to_bf16_rne(f32_bits(x));
    } else {  // fp16 by truncation of a value in range: only the bit pattern matters here
      const _Float16 h = static_cast<_Float16>(std::fmax(-60000.0f, std::fmin(60000.0f, x)));
      std::memcpy(&v[i], &h, 2);
    }
  }
  return v;
}

uint64_t err_code(DeviceModel& m) { return m.peek_csr(kCsrErrCode); }

// Write tokens [first, first + n) of page p (token-major words) through the KV window.
Status write_tokens(DeviceModel& m, uint32_t p, uint32_t N, uint64_t first, uint64_t n, const uint16_t* words) {
  const uint64_t row = 2ull * N;
  return m.write(kv_address(p, span_log2(m), first * row), reinterpret_cast<const uint8_t*>(words), n * row);
}

std::vector<uint16_t> read_tokens(DeviceModel& m, uint32_t p, uint32_t N, uint64_t first, uint64_t n,
                                  std::vector<Resp>* resp = nullptr) {
  const uint64_t row = 2ull * N;
  std::vector<uint16_t> out(n * N);
  Status s = m.read(kv_address(p, span_log2(m), first * row), n * row, reinterpret_cast<uint8_t*>(out.data()), resp);
  if (!resp) {
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return out;
}

TEST(KvPages, CapsAndNoKvDevice) {
  auto m = make();
  const KvCaps c = KvCaps::decode(m->peek_csr(kCsrKvCaps));
  EXPECT_EQ(c.max_pages, 4096u);
  EXPECT_EQ(c.buffers, 64u);
  EXPECT_EQ(1u << c.buffer_elems_log2, 8192u);
  EXPECT_EQ(c.dtype_mask, 0x06);
  EXPECT_EQ(c.span_log2, 14u);
  DeviceConfig none;
  none.kv_pages = 0;
  auto n = make(none);
  EXPECT_EQ(n->peek_csr(kCsrKvCaps), 0u);
  uint8_t line[64] = {};
  std::vector<Resp> r;
  EXPECT_FALSE(n->write(kv_address(0, 14, 0), line, 64).ok());
  EXPECT_TRUE(n->read(kv_address(0, 14, 0), 64, line, &r).ok());
  EXPECT_EQ(r[0], Resp::kDecErr);
  EXPECT_TRUE(n->read(window_address(kWindowControl, kKvPageTableBase), 64, line, &r).ok());
  EXPECT_EQ(r[0], Resp::kDecErr);
  EXPECT_EQ(n->peek_csr(kCsrErrCount), 0u);  // DECERR is not logged
  DeviceConfig bad;
  bad.kv_buffer_elems = 100;
  EXPECT_FALSE(DeviceModel::create(bad).ok());
}

// The golden image of one KV stream of these tokens (windows of W) and the device's pages 0..k-1
// holding the same windows: every block byte for byte, the page header's offsets, and reads.
TEST(KvPages, WindowsMatchTheGoldenKvStream) {
  std::mt19937_64 rng(test_seed());
  const Geo geos[] = {{DType::kBF16, Layout::kExpByte, 32, 128, CodecPolicy::kAuto},
                      {DType::kBF16, Layout::kBitplane, 16, 64, CodecPolicy::kAuto},
                      {DType::kFP16, Layout::kExpByte, 128, 32, CodecPolicy::kAuto},
                      {DType::kBF16, Layout::kExpByte, 64, 96, CodecPolicy::kLz4},
                      {DType::kFP16, Layout::kBitplane, 8, 256, CodecPolicy::kZstd},
                      {DType::kBF16, Layout::kExpByte, 1, 32, CodecPolicy::kRaw}};
  for (const Geo& g : geos) {
    SCOPED_TRACE("W " + std::to_string(g.W) + " N " + std::to_string(g.N) + " layout " +
                 std::to_string(int(g.l)) + " policy " + std::to_string(int(g.pol)));
    const uint64_t tokens = 3 * g.W + (g.W > 2 ? g.W / 2 + 1 : 0);  // three full windows and a partial one
    const std::vector<uint16_t> v = kv_values(g.t, tokens, g.N, rng);
    ImageWriter w;
    TensorOptions o;
    o.layout = g.l;
    o.policy = g.pol;
    ASSERT_TRUE(w.add_kv_stream("kv", g.t, KvGeometry{g.W, g.N, 1}, v.data(), tokens, o).ok());
    auto img = w.finish();
    ASSERT_TRUE(img.ok());
    auto rd = ImageReader::open_bytes(std::move(img.value()));
    ASSERT_TRUE(rd.ok());
    const ImageReader& ir = *rd.value();

    auto m = make();
    const uint64_t slot_bytes = kv_slot_bytes(g.t, g.l, g.W, g.N), base = 0x100000;
    const uint64_t windows = (tokens + g.W - 1) / g.W;
    uint64_t stored_blocks = 0;
    for (uint32_t k = 0; k < windows; ++k) {
      ASSERT_TRUE(kv_page_write(*m, k, desc(g, base + k * slot_bytes)).ok());
      const uint64_t t0 = uint64_t{k} * g.W, n = std::min<uint64_t>(g.W, tokens - t0);
      // token by token, reading the open window back after each
      for (uint64_t t = 0; t < n; ++t) {
        ASSERT_TRUE(write_tokens(*m, k, g.N, t, 1, v.data() + (t0 + t) * g.N).ok());
        if (t + 1 < g.W && (t % 7 == 0 || t + 1 == n)) {
          const auto back = read_tokens(*m, k, g.N, 0, t + 1);
          ASSERT_TRUE(std::equal(back.begin(), back.end(), v.begin() + t0 * g.N));
        }
      }
      if (n < g.W) {
        auto st = kv_page_read(*m, k);
        ASSERT_TRUE(st.ok());
        EXPECT_EQ(st.value().state, KvPageState::kOpen);
        EXPECT_EQ(st.value().tokens, n);
        ASSERT_TRUE(csr_write(*m, kCsrKvSeal, k).ok());
      }
      auto st = kv_page_read(*m, k);
      ASSERT_TRUE(st.ok());
      ASSERT_EQ(st.value().state, KvPageState::kSealed);
      EXPECT_EQ(st.value().tokens, n);
      // the blocks against the golden stream's window k
      std::vector<uint8_t> slot(st.value().stored_bytes);
      m->peek_dram(base + k * slot_bytes, slot.size(), slot.data());
      auto h = KvPageHeader::decode(slot.data());
      ASSERT_TRUE(h.ok()) << h.status().message();
      const size_t P = h.value().blocks;
      ASSERT_EQ(P, ir.tensors()[0].plane_ids.size());
      std::vector<uint64_t> off;
      ASSERT_TRUE(kv_walk_blocks(slot.data() + kKvPageHeaderBytes, slot.size() - kKvPageHeaderBytes, P, off));
      for (size_t s = 0; s < P; ++s)
        ASSERT_EQ(off[s + 1] - off[s], ir.block_span(0, k, s)) << "window " << k << " slot " << s;
      stored_blocks += st.value().stored_bytes - kKvPageHeaderBytes;
      const auto back = read_tokens(*m, k, g.N, 0, n);
      ASSERT_TRUE(std::equal(back.begin(), back.end(), v.begin() + t0 * g.N)) << "window " << k;
    }
    EXPECT_EQ(stored_blocks, w.stats()[0].stored_bytes);  // the golden stream's blocks, window for window
    EXPECT_EQ(m->peek_csr(kCsrCntKvSeals), windows);
    EXPECT_EQ(m->peek_csr(kCsrCntKvStoredBytes), stored_blocks + windows * kKvPageHeaderBytes);
    EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
    // whole pages in one burst each, and a random token range across them
    std::vector<uint16_t> all;
    for (uint32_t k = 0; k < windows; ++k) {
      const uint64_t n = std::min<uint64_t>(g.W, tokens - uint64_t{k} * g.W);
      const auto b = read_tokens(*m, k, g.N, 0, n);
      all.insert(all.end(), b.begin(), b.end());
    }
    EXPECT_EQ(all, v);
  }
}

// The block bytes of page 0 equal the golden window 0 (block_id 0 in both).
TEST(KvPages, PageZeroBlocksAreTheGoldenBytes) {
  std::mt19937_64 rng(test_seed() + 1);
  const Geo g{DType::kBF16, Layout::kExpByte, 32, 128, CodecPolicy::kAuto};
  const std::vector<uint16_t> v = kv_values(g.t, g.W, g.N, rng);
  ImageWriter w;
  ASSERT_TRUE(w.add_kv_stream("kv", g.t, KvGeometry{g.W, g.N, 1}, v.data(), g.W).ok());
  auto img = w.finish();
  ASSERT_TRUE(img.ok());
  const std::vector<uint8_t> bytes = img.value();
  auto rd = ImageReader::open_view(bytes.data(), bytes.size());
  ASSERT_TRUE(rd.ok());
  auto m = make();
  ASSERT_TRUE(kv_page_write(*m, 0, desc(g, 0x40000)).ok());
  ASSERT_TRUE(write_tokens(*m, 0, g.N, 0, g.W, v.data()).ok());  // one write of the whole window
  const uint64_t first = rd.value()->block_offset(0, 0, 0);
  const uint64_t blocks = w.stats()[0].stored_bytes;
  std::vector<uint8_t> dev(blocks);
  m->peek_dram(0x40000 + kKvPageHeaderBytes, dev.size(), dev.data());
  EXPECT_TRUE(std::equal(dev.begin(), dev.end(), bytes.begin() + static_cast<std::ptrdiff_t>(first)));
}

TEST(KvPages, WriteOrderFreedPagesAndSealErrors) {
  std::mt19937_64 rng(test_seed() + 2);
  const Geo g{DType::kBF16, Layout::kExpByte, 16, 64, CodecPolicy::kAuto};  // 2 lines per token
  const std::vector<uint16_t> v = kv_values(g.t, 2 * g.W, g.N, rng), u = kv_values(g.t, g.W, g.N, rng);
  auto m = make();
  const uint32_t S = span_log2(*m);
  const uint64_t slot = 0x200000;
  uint8_t line[64];
  std::vector<Resp> r;
  auto log_is = [&](uint8_t code, uint32_t page, uint64_t chunk) {
    EXPECT_EQ(err_code(*m) & 0xFF, code);
    EXPECT_EQ(err_code(*m) >> 32, page);
    EXPECT_EQ(m->peek_csr(kCsrErrChunk), chunk);
    ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlClearErrLog).ok());
  };
  // free page: write and read are SLVERR, KvFree
  EXPECT_FALSE(write_tokens(*m, 3, g.N, 0, 1, v.data()).ok());
  log_is(kErrKvFree, 3, 0);
  ASSERT_TRUE(m->read(kv_address(3, S, 0), 64, line, &r).ok());
  EXPECT_EQ(r[0], Resp::kSlvErr);
  log_is(kErrKvFree, 3, 0);
  ASSERT_TRUE(kv_page_write(*m, 3, desc(g, slot)).ok());
  EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
  // out of order: token 1 first, the second line of token 0 first, a partial strobe
  EXPECT_FALSE(write_tokens(*m, 3, g.N, 1, 1, v.data() + g.N).ok());
  log_is(kErrKvWrite, 3, 1);
  EXPECT_FALSE(m->write(kv_address(3, S, 64), reinterpret_cast<const uint8_t*>(v.data()) + 64, 64).ok());
  log_is(kErrKvWrite, 3, 0);
  uint64_t strobe = 0x00FFFFFFFFFFFFFFull;
  EXPECT_FALSE(m->write(kv_address(3, S, 0), reinterpret_cast<const uint8_t*>(v.data()), 64, &strobe).ok());
  log_is(kErrKvWrite, 3, 0);
  EXPECT_EQ(kv_page_read(*m, 3).value().tokens, 0u);  // nothing was written
  // reads past the written lines are DECERR; a partly written token reads its written line
  ASSERT_TRUE(m->write(kv_address(3, S, 0), reinterpret_cast<const uint8_t*>(v.data()), 64).ok());
  uint8_t two[128];
  ASSERT_TRUE(m->read(kv_address(3, S, 0), 128, two, &r).ok());
  EXPECT_EQ(r[0], Resp::kOkay);
  EXPECT_EQ(r[1], Resp::kDecErr);
  // KV_SEAL of a partly written token, of an empty page, of a free page: logged, nothing changes
  ASSERT_TRUE(csr_write(*m, kCsrKvSeal, 3).ok());
  log_is(kErrKvWrite, 3, 0);
  ASSERT_TRUE(m->write(kv_address(3, S, 64), reinterpret_cast<const uint8_t*>(v.data()) + 64, 64).ok());
  ASSERT_TRUE(kv_page_write(*m, 4, desc(g, slot + 0x10000)).ok());
  ASSERT_TRUE(csr_write(*m, kCsrKvSeal, 4).ok());
  log_is(kErrKvWrite, 4, 0);
  ASSERT_TRUE(csr_write(*m, kCsrKvSeal, 5).ok());
  log_is(kErrKvFree, 5, 0);
  // the window fills and seals; a further write is KvWrite
  ASSERT_TRUE(write_tokens(*m, 3, g.N, 1, g.W - 1, v.data() + g.N).ok());
  EXPECT_EQ(kv_page_read(*m, 3).value().state, KvPageState::kSealed);
  EXPECT_FALSE(write_tokens(*m, 3, g.N, g.W, 1, v.data()).ok());
  log_is(kErrKvWrite, 3, g.W);
  EXPECT_EQ(read_tokens(*m, 3, g.N, 0, g.W), std::vector<uint16_t>(v.begin(), v.begin() + g.W * g.N));
  // freed: SLVERR, never the old tokens; reused: only the new ones
  KvPageDesc off = desc(g, slot, 0);
  ASSERT_TRUE(kv_page_write(*m, 3, off).ok());
  EXPECT_EQ(kv_page_read(*m, 3).value().state, KvPageState::kFree);
  std::vector<Resp> rr;
  const auto gone = read_tokens(*m, 3, g.N, 0, g.W, &rr);
  for (Resp x : rr) EXPECT_EQ(x, Resp::kSlvErr);
  for (uint16_t x : gone) ASSERT_EQ(x, 0);
  log_is(kErrKvFree, 3, 0);
  ASSERT_TRUE(kv_page_write(*m, 3, desc(g, slot)).ok());  // the same slot, new tokens
  ASSERT_TRUE(write_tokens(*m, 3, g.N, 0, 5, u.data()).ok());
  const auto partial = read_tokens(*m, 3, g.N, 0, 6, &rr);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(rr[k], Resp::kOkay);
  EXPECT_EQ(rr[10], Resp::kDecErr);
  EXPECT_TRUE(std::equal(u.begin(), u.begin() + 5 * g.N, partial.begin()));
  ASSERT_TRUE(csr_write(*m, kCsrKvSeal, 3).ok());
  EXPECT_EQ(read_tokens(*m, 3, g.N, 0, 5), std::vector<uint16_t>(u.begin(), u.begin() + 5 * g.N));
  read_tokens(*m, 3, g.N, 5, 1, &rr);
  EXPECT_EQ(rr[0], Resp::kDecErr);
  EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
  // page numbers past the table are DECERR
  ASSERT_TRUE(m->read(kv_address(4096, S, 0), 64, line, &rr).ok());
  EXPECT_EQ(rr[0], Resp::kDecErr);
}

TEST(KvPages, DescriptorRejections) {
  DeviceConfig cfg;
  cfg.kv_buffers = 2;
  cfg.dram_bytes = uint64_t{1} << 24;
  auto m = make(cfg);
  const Geo g{DType::kBF16, Layout::kExpByte, 32, 128, CodecPolicy::kAuto};
  auto rejected = [&](const KvPageDesc& d, uint8_t why) {
    ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlClearErrLog).ok());
    ASSERT_TRUE(kv_page_write(*m, 9, d).ok());
    EXPECT_EQ(kv_page_read(*m, 9).value().state, KvPageState::kFree);
    EXPECT_EQ(err_code(*m) & 0xFFFF, uint64_t{why} << 8 | kErrKvPageRejected);
    EXPECT_EQ(err_code(*m) >> 32, 9u);
  };
  KvPageDesc d = desc(g, 0x1000);
  d.width = 48;  // not a multiple of 32
  rejected(d, kKvRejectGeometry);
  d = desc(g, 0x1000), d.window = 128;  // 128 x 128 > 8192 elements
  rejected(d, kKvRejectGeometry);
  d = desc(g, 0x1000), d.dtype = static_cast<uint8_t>(DType::kFP32);
  rejected(d, kKvRejectGeometry);
  d = desc(g, 0x1000), d.policy = 4;
  rejected(d, kKvRejectGeometry);
  d = desc(g, 0x1000), d.window = 0;
  rejected(d, kKvRejectGeometry);
  d = desc(g, 0x1010);  // unaligned slot
  rejected(d, kKvRejectSlot);
  d = desc(g, 0x1000), d.slot_bytes -= 64;  // below kv_slot_bytes
  rejected(d, kKvRejectSlot);
  d = desc(g, cfg.dram_bytes - 4096);  // runs past DRAM
  rejected(d, kKvRejectSlot);
  d = desc(g, 0x1000, kKvFlagValid | kKvFlagRestore);  // nothing sealed there
  rejected(d, kKvRejectRestore);
  // two window buffers: a third open is refused until one is freed or sealed
  ASSERT_TRUE(kv_page_write(*m, 0, desc(g, 0x10000)).ok());
  ASSERT_TRUE(kv_page_write(*m, 1, desc(g, 0x20000)).ok());
  rejected(desc(g, 0x30000), kKvRejectNoBuffer);
  ASSERT_TRUE(kv_page_write(*m, 1, desc(g, 0x20000, 0)).ok());  // free page 1
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlClearErrLog).ok());
  ASSERT_TRUE(kv_page_write(*m, 9, desc(g, 0x30000)).ok());
  EXPECT_EQ(kv_page_read(*m, 9).value().state, KvPageState::kOpen);
  EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
  // descriptor bytes 0..31 read back as written; a beat without all of them changes nothing
  uint8_t line[64];
  desc(g, 0x30000).encode(line);
  uint8_t back[64];
  ASSERT_TRUE(m->read(window_address(kWindowControl, kKvPageTableBase + 64 * 9), 64, back, nullptr).ok());
  EXPECT_EQ(std::memcmp(line, back, 32), 0);
  const uint64_t strobe = 0xFFFF;
  std::memset(line, 0, 32);
  ASSERT_TRUE(m->write(window_address(kWindowControl, kKvPageTableBase + 64 * 9), line, 64, &strobe).ok());
  EXPECT_EQ(kv_page_read(*m, 9).value().state, KvPageState::kOpen);
}

// Reset loses the open windows only: sealed pages come back with restore; a corrupt slot is
// refused (header) or answers SLVERR (block), never wrong data.
TEST(KvPages, ResetLosesOnlyOpenWindows) {
  std::mt19937_64 rng(test_seed() + 3);
  const Geo g{DType::kBF16, Layout::kExpByte, 32, 64, CodecPolicy::kAuto};
  const std::vector<uint16_t> v = kv_values(g.t, 3 * g.W, g.N, rng);
  auto m = make();
  const uint64_t sb = kv_slot_bytes(g.t, g.l, g.W, g.N);
  for (uint32_t p = 0; p < 3; ++p) ASSERT_TRUE(kv_page_write(*m, p, desc(g, 0x100000 + p * sb)).ok());
  ASSERT_TRUE(write_tokens(*m, 0, g.N, 0, g.W, v.data()).ok());
  ASSERT_TRUE(write_tokens(*m, 1, g.N, 0, 20, v.data() + g.W * g.N).ok());
  ASSERT_TRUE(csr_write(*m, kCsrKvSeal, 1).ok());
  ASSERT_TRUE(write_tokens(*m, 2, g.N, 0, 7, v.data() + 2 * g.W * g.N).ok());  // open at the reset
  m->reset();
  std::vector<Resp> r;
  for (uint32_t p = 0; p < 3; ++p) {
    EXPECT_EQ(kv_page_read(*m, p).value().state, KvPageState::kFree);
    read_tokens(*m, p, g.N, 0, 1, &r);
    EXPECT_EQ(r[0], Resp::kSlvErr);
  }
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlClearErrLog).ok());
  for (uint32_t p = 0; p < 3; ++p) ASSERT_TRUE(kv_page_write(*m, p, desc(g, 0x100000 + p * sb, 3)).ok());
  EXPECT_EQ(kv_page_read(*m, 0).value().state, KvPageState::kSealed);
  EXPECT_EQ(kv_page_read(*m, 1).value().tokens, 20u);
  EXPECT_EQ(kv_page_read(*m, 2).value().state, KvPageState::kFree);  // its window was lost
  EXPECT_EQ(err_code(*m) & 0xFFFF, uint64_t{kKvRejectRestore} << 8 | kErrKvPageRejected);
  EXPECT_EQ(read_tokens(*m, 0, g.N, 0, g.W), std::vector<uint16_t>(v.begin(), v.begin() + g.W * g.N));
  EXPECT_EQ(read_tokens(*m, 1, g.N, 0, 20),
            std::vector<uint16_t>(v.begin() + g.W * g.N, v.begin() + (g.W + 20) * g.N));
  // a restore with another geometry is refused
  Geo g2 = g;
  g2.W = 16;
  ASSERT_TRUE(kv_page_write(*m, 5, desc(g2, 0x100000, 3)).ok());
  EXPECT_EQ(kv_page_read(*m, 5).value().state, KvPageState::kFree);
  // corrupt page 0's header: restore refused
  uint8_t b[64];
  m->peek_dram(0x100000, 64, b);
  b[4] ^= 1;
  ASSERT_TRUE(store_write(*m, 0x100000, b, 64).ok());
  ASSERT_TRUE(kv_page_write(*m, 0, desc(g, 0x100000, 3)).ok());
  EXPECT_EQ(kv_page_read(*m, 0).value().state, KvPageState::kFree);
  // corrupt a payload byte of page 1's last block: SLVERR with its lane code, zeros, then logged
  KvPageHeader h;
  {
    uint8_t hb[kKvPageHeaderBytes];
    m->peek_dram(0x100000 + sb, sizeof hb, hb);
    h = KvPageHeader::decode(hb).value();
  }
  const uint64_t at = 0x100000 + sb + h.stored_bytes - 1;
  m->peek_dram(at & ~uint64_t{63}, 64, b);
  b[at & 63] ^= 0x40;
  ASSERT_TRUE(store_write(*m, at & ~uint64_t{63}, b, 64).ok());
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlFlush | kCtrlClearErrLog).ok());  // drop the KV read buffer
  const auto bad = read_tokens(*m, 1, g.N, 0, 20, &r);
  for (Resp x : r) EXPECT_EQ(x, Resp::kSlvErr);
  for (uint16_t x : bad) ASSERT_EQ(x, 0);
  EXPECT_GE(err_code(*m) & 0xFF, kErrLaneBase);
  EXPECT_EQ(err_code(*m) >> 32, 1u);
  EXPECT_EQ((err_code(*m) >> 16) & 0xFFFF, h.blocks - 1u);  // the last slot
}

// A block walk that does not end at the stored bytes (a corrupt comp_size) is an Index error
// naming the slot; the beats answer SLVERR with zeros.
TEST(KvPages, BrokenBlockWalkIsIndexError) {
  std::mt19937_64 rng(test_seed() + 4);
  const Geo g{DType::kFP16, Layout::kExpByte, 32, 64, CodecPolicy::kAuto};
  const std::vector<uint16_t> v = kv_values(g.t, g.W, g.N, rng);
  auto m = make();
  const uint64_t slot = 0x80000;
  ASSERT_TRUE(kv_page_write(*m, 2, desc(g, slot)).ok());
  ASSERT_TRUE(write_tokens(*m, 2, g.N, 0, g.W, v.data()).ok());
  uint8_t b[64];
  m->peek_dram(slot + 64, 64, b);
  b[6] ^= 1;  // the KVBASE block's comp_size
  ASSERT_TRUE(store_write(*m, slot + 64, b, 64).ok());
  ASSERT_TRUE(csr_write(*m, kCsrCtrl, kCtrlFlush).ok());
  std::vector<Resp> r;
  const auto bad = read_tokens(*m, 2, g.N, 0, 2, &r);
  for (Resp x : r) EXPECT_EQ(x, Resp::kSlvErr);
  for (uint16_t x : bad) ASSERT_EQ(x, 0);
  EXPECT_EQ(err_code(*m) & 0xFF, kErrIndex);
  EXPECT_EQ(err_code(*m) >> 32, 2u);
  EXPECT_EQ(m->peek_csr(kCsrErrAddr), slot);
}

#ifdef NDP_DEVICE_TEST_HAVE_MODEL
// A real KV cache: stories260K generates 200 positions; each (layer, K or V) stream goes through
// device pages of the default geometry (4 heads x 8 channels co-packed, W = 128) token by token, all
// streams interleaved as a serving loop writes them; the last partial windows are sealed. Every
// token reads back exactly and the stored blocks equal the golden KV streams' window for window.
TEST(KvPages, RealStoriesTrace) {
  const std::string path = std::string(NDP_DATA_DIR) + "/stories260K/stories260K.bin";
  auto ll = load_llama(path);
  if (!ll.ok()) GTEST_SKIP() << "stories260K not available: " << ll.status().message();
  GenerateOptions opt;
  opt.tokens = 200;
  opt.seed = test_seed() | 1;
  auto tr = record_kv_trace(ll.value().llama, opt, "stories260K");
  ASSERT_TRUE(tr.ok()) << tr.status().message();
  const KvTrace& t = tr.value();
  const KvGeometry geo = kv_default_geometry(t.head_dim, t.n_kv_heads);
  ASSERT_EQ(geo.heads * geo.channels, 32u);
  const uint32_t N = geo.heads * geo.channels, W = geo.window, T = t.n_tokens;
  const uint32_t streams = t.n_layers * 2;
  // token-major [t][h][c] per (layer, kind)
  std::vector<std::vector<uint16_t>> tm(streams, std::vector<uint16_t>(uint64_t{T} * N));
  for (uint32_t s = 0; s < streams; ++s)
    for (uint32_t h = 0; h < t.n_kv_heads; ++h)
      for (uint32_t k = 0; k < T; ++k)
        std::memcpy(&tm[s][(uint64_t{k} * t.n_kv_heads + h) * t.head_dim], t.stream(s / 2, s % 2, h) + k * t.head_dim,
                    2 * t.head_dim);
  auto m = make();
  const Geo g{DType::kBF16, Layout::kExpByte, W, N, CodecPolicy::kAuto};
  const uint64_t sb = kv_slot_bytes(g.t, g.l, W, N);
  const uint32_t wins = (T + W - 1) / W;
  auto page = [&](uint32_t s, uint32_t k) { return 100 + s * wins + k; };
  for (uint32_t k = 0; k < T; ++k)
    for (uint32_t s = 0; s < streams; ++s) {
      const uint32_t p = page(s, k / W);
      if (k % W == 0) {
        ASSERT_TRUE(kv_page_write(*m, p, desc(g, 0x100000 + (p - 100) * sb)).ok());
      }
      ASSERT_TRUE(write_tokens(*m, p, N, k % W, 1, tm[s].data() + uint64_t{k} * N).ok());
    }
  for (uint32_t s = 0; T % W && s < streams; ++s) ASSERT_TRUE(csr_write(*m, kCsrKvSeal, page(s, wins - 1)).ok());
  uint64_t dev_blocks = 0, gold_blocks = 0, raw = 0;
  for (uint32_t s = 0; s < streams; ++s) {
    ImageWriter w;
    ASSERT_TRUE(w.add_kv_stream("kv", DType::kBF16, KvGeometry{W, N, 1}, tm[s].data(), T).ok());
    gold_blocks += w.stats()[0].stored_bytes;
    raw += w.stats()[0].raw_bytes;
    for (uint32_t k = 0; k < wins; ++k) {
      const uint32_t n = std::min(W, T - k * W);
      auto st = kv_page_read(*m, page(s, k));
      ASSERT_TRUE(st.ok());
      ASSERT_EQ(st.value().state, KvPageState::kSealed);
      dev_blocks += st.value().stored_bytes - kKvPageHeaderBytes;
      const auto back = read_tokens(*m, page(s, k), N, 0, n);
      ASSERT_TRUE(std::equal(back.begin(), back.end(), tm[s].begin() + uint64_t{k} * W * N)) << s << " " << k;
    }
  }
  EXPECT_EQ(dev_blocks, gold_blocks);
  EXPECT_EQ(m->peek_csr(kCsrErrCount), 0u);
  std::printf("stories260K KV, %u tokens, %u streams, W %u N %u: raw %llu B, blocks %llu B (ratio %.4f), with "
              "page headers %.4f\n",
              T, streams, W, N, static_cast<unsigned long long>(raw), static_cast<unsigned long long>(dev_blocks),
              double(raw) / double(dev_blocks), double(raw) / double(dev_blocks + streams * wins * kKvPageHeaderBytes));
}
#endif

}  // namespace
}  // namespace ndp::dev
