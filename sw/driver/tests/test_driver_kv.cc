// KV streams: token-major words appended in uneven pieces come back exactly (whole and any range,
// across full windows and the partial one), on the emulated node (in process and daemon) and dax;
// windows are stored encoded (fewer device bytes than raw for KV-like data); bad geometry, unknown
// streams and ranges beyond the written tokens are errors. On the emulated node the streams go
// through the device's KV pages (spec 7.7): early seals when the window buffers run out, and the
// fallback to the golden model for geometries the pages do not take.
#include <random>

#include "driver_test_util.h"
#include "ndp/device_model.h"
#include "ndp/port_backend.h"

namespace ndp::drv::test {
namespace {

// KV-like words: per channel a magnitude that drifts slowly over tokens.
std::vector<uint16_t> kv_words(DType t, uint64_t tokens, uint64_t per_token, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> v(tokens * per_token);
  for (uint64_t i = 0; i < v.size(); ++i) {
    const uint32_t c = static_cast<uint32_t>(i % per_token);
    const uint16_t e = static_cast<uint16_t>(t == DType::kBF16 ? 120 + c % 9 : 12 + c % 5);
    v[i] = t == DType::kBF16 ? static_cast<uint16_t>((rng() & 0x8000) | e << 7 | (rng() & 0x7F))
                             : static_cast<uint16_t>((rng() & 0x8000) | e << 10 | (rng() & 0x3FF));
  }
  return v;
}

TEST(DriverKv, RoundTripEveryBackend) {
  std::mt19937_64 rng(test_seed());
  DaxFile dax;
  NodeProcess node;
  for (const std::string& uri : {std::string("emu:inproc"), node.uri(), dax.uri()}) {
    SCOPED_TRACE(uri);
    auto dev = open_ok(uri);
    ASSERT_TRUE(dev);
    for (DType t : {DType::kBF16, DType::kFP16}) {
      const KvGeometry g{32, 64, 2};
      const uint64_t per = 128, tokens = 177;
      const std::vector<uint16_t> in = kv_words(t, tokens, per, static_cast<uint32_t>(rng()));
      auto id = dev->kv_create(t, g);
      ASSERT_TRUE(id.ok()) << id.status().message();
      // emu (in process and the daemon): the device's KV pages; dax: the node's encoder
      EXPECT_EQ(dev->kv_on_device(id.value()).value(), uri.rfind("emu", 0) == 0);
      CallStats total;
      for (uint64_t done = 0; uint64_t step : {1ull, 31ull, 45ull, 100ull}) {
        CallStats st;
        ASSERT_TRUE(dev->kv_append(id.value(), in.data() + done * per, step, &st).ok());
        total.add(st);
        done += step;
      }
      EXPECT_EQ(dev->kv_tokens(id.value()).value(), tokens);
      EXPECT_EQ(total.host_bytes, 2 * tokens * per);
      std::vector<uint16_t> out(in.size(), 0xFFFF);
      CallStats st;
      ASSERT_TRUE(dev->kv_read(id.value(), 0, tokens, out.data(), &st).ok());
      EXPECT_EQ(out, in);
      EXPECT_GT(st.device_bytes, 0u);
      EXPECT_LT(st.device_bytes, 2 * 160 * per) << "5 stored windows of 32 tokens, encoded smaller than raw";
      EXPECT_EQ(st.blocks, 5u * (1 + plane_order(t, Layout::kExpByte).size()));
      for (int i = 0; i < 20; ++i) {
        const uint64_t first = rng() % tokens, n = 1 + rng() % (tokens - first);
        std::vector<uint16_t> part(n * per);
        ASSERT_TRUE(dev->kv_read(id.value(), first, n, part.data()).ok());
        ASSERT_TRUE(std::equal(part.begin(), part.end(), in.begin() + static_cast<long>(first * per)));
      }
      EXPECT_FALSE(dev->kv_read(id.value(), 170, 8, out.data()).ok());
      EXPECT_TRUE(dev->kv_free(id.value()).ok());
      EXPECT_FALSE(dev->kv_tokens(id.value()).ok());
      EXPECT_FALSE(dev->kv_on_device(id.value()).ok());
    }
    EXPECT_FALSE(dev->kv_create(DType::kBF16, {0, 64, 1}).ok());
    EXPECT_FALSE(dev->kv_create(DType::kFP32, {32, 64, 1}).ok());
    EXPECT_FALSE(dev->kv_append(999, nullptr, 0).ok());
    EXPECT_EQ(dev->stats().device_free, dev->stats().device_memory) << "freed streams release device memory";
  }
}

// Three streams interleaved token by token on a device with two window buffers: opening the third
// page seals the page written longest ago (a partial window), and every token still reads back. A
// geometry the pages do not take (N = 8) is served on the golden model. Freed streams free their
// pages (reads of them would answer SLVERR) and their DRAM.
TEST(DriverKv, DevicePagesEarlySealsAndFallback) {
  std::mt19937_64 rng(test_seed() + 7);
  dev::DeviceConfig cfg;
  cfg.kv_buffers = 2;
  cfg.dram_bytes = uint64_t{1} << 26;
  auto model = dev::DeviceModel::create(cfg);
  ASSERT_TRUE(model.ok());
  dev::DeviceModel* raw = model.value().get();
  auto be = PortBackend::attach(std::move(model.value()), "model");
  ASSERT_TRUE(be.ok()) << be.status().message();
  PortBackend& b = *be.value();
  const KvGeometry g{16, 32, 2};  // N = 64: two lines per token
  const uint64_t per = 64, tokens = 70;
  std::vector<std::vector<uint16_t>> in;
  std::vector<uint32_t> ids;
  for (int k = 0; k < 3; ++k) {
    in.push_back(kv_words(DType::kBF16, tokens, per, static_cast<uint32_t>(rng())));
    auto id = b.kv_create(DType::kBF16, g);
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_TRUE(b.kv_on_device(id.value()).value());
    ids.push_back(id.value());
  }
  for (uint64_t t = 0; t < tokens; ++t)
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(b.kv_append(ids[k], in[k].data() + t * per, 1, nullptr).ok());
  EXPECT_GT(raw->peek_csr(dev::kCsrCntKvSeals), 3u * (tokens / g.window)) << "early seals happened";
  for (int k = 0; k < 3; ++k) {
    std::vector<uint16_t> out(in[k].size());
    CallStats st;
    ASSERT_TRUE(b.kv_read(ids[k], 0, tokens, out.data(), &st).ok());
    EXPECT_EQ(out, in[k]);
    EXPECT_GT(st.blocks, 0u);
    for (int i = 0; i < 10; ++i) {
      const uint64_t first = rng() % tokens, n = 1 + rng() % (tokens - first);
      std::vector<uint16_t> part(n * per);
      ASSERT_TRUE(b.kv_read(ids[k], first, n, part.data(), nullptr).ok());
      ASSERT_TRUE(std::equal(part.begin(), part.end(), in[k].begin() + static_cast<long>(first * per)));
    }
  }
  auto small = b.kv_create(DType::kBF16, KvGeometry{32, 8, 1});
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(b.kv_on_device(small.value()).value());
  const std::vector<uint16_t> sv = kv_words(DType::kBF16, 40, 8, 5);
  ASSERT_TRUE(b.kv_append(small.value(), sv.data(), 40, nullptr).ok());
  std::vector<uint16_t> sout(sv.size());
  ASSERT_TRUE(b.kv_read(small.value(), 0, 40, sout.data(), nullptr).ok());
  EXPECT_EQ(sout, sv);
  EXPECT_EQ(raw->peek_csr(dev::kCsrErrCount), 0u);
  for (uint32_t id : ids) EXPECT_TRUE(b.kv_free(id).ok());
  EXPECT_TRUE(b.kv_free(small.value()).ok());
  EXPECT_FALSE(b.kv_on_device(ids[0]).ok());
  EXPECT_EQ(b.info().free_bytes, b.info().memory_bytes);
  for (uint32_t p = 0; p < 16; ++p)
    EXPECT_EQ(dev::kv_page_read(*raw, p).value().state, dev::KvPageState::kFree) << "page " << p;
}

}  // namespace
}  // namespace ndp::drv::test
