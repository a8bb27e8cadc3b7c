// Shared helpers of the device tests: the seed (NDP_SEED), images packed from ../shared/data like
// `ndp pack` does (GPT-2 decoder1 attention as bf16, stories260K as fp32) plus a synthetic image of
// the other dtypes and layouts, and a model with an image loaded through the host port.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "image_test_util.h"
#include "ndp/device_model.h"
#include "ndp/image.h"
#include "real_data.h"

namespace ndp::dev::devtest {

// NDP_SEED when set, else a fixed default; printed as "[seed] NDP_SEED=<n>".
inline uint64_t test_seed() {
  const char* env = std::getenv("NDP_SEED");
  const uint64_t seed = env && *env ? std::strtoull(env, nullptr, 10) : 20240611;
  std::printf("[seed] NDP_SEED=%llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

constexpr uint64_t kImageBase = 0x1000040;  // 16 MiB + 64: nonzero and not page aligned

struct Images {
  std::vector<uint8_t> gpt2, stories, synth;
  std::string why;
};

inline std::vector<uint8_t> finish(ImageWriter& w) {
  auto img = w.finish();
  EXPECT_TRUE(img.ok()) << img.status().message();
  return img.ok() ? std::move(img.value()) : std::vector<uint8_t>{};
}

// Synthetic tensors of every other dtype and layout, odd sizes (partial chunks, partial MX groups).
inline std::vector<uint8_t> synth_image() {
  struct T { DType t; uint64_t n; uint32_t ce; Layout l; };
  const T ts[] = {{DType::kFP16, 5000, 1024, Layout::kExpByte}, {DType::kFP8E4M3, 3001, 128, Layout::kExpByte},
                  {DType::kFP8E5M2, 700, 256, Layout::kBitplane}, {DType::kINT8, 999, 512, Layout::kBitplane},
                  {DType::kINT4, 1337, 384, Layout::kBitplane},   {DType::kBF16, 4133, 2048, Layout::kBitplane},
                  {DType::kFP32, 2050, 4096, Layout::kExpByte}};
  ImageWriter w;
  int i = 0;
  for (const T& t : ts) {
    const std::vector<uint8_t> d = imgtest::weights(t.t, t.n, 100 + i);
    Status s = w.add_tensor("synth" + std::to_string(i++), t.t, {t.n}, d.data(), d.size(),
                            {t.ce, t.l, i % 2 ? CodecPolicy::kAuto : CodecPolicy::kLz4});
    EXPECT_TRUE(s.ok()) << s.message();
  }
  // A KV stream: stored but never mapped (7.2).
  std::vector<uint16_t> kv(3 * 40 * 64);
  for (size_t j = 0; j < kv.size(); ++j) kv[j] = static_cast<uint16_t>(0x3C00 + j % 977);
  EXPECT_TRUE(w.add_kv_stream("kv", DType::kBF16, {32, 64, 1}, kv.data(), 3 * 40).ok());
  return finish(w);
}

// Packs the images once per process. False (why set) when the real data is absent.
inline bool build_images(Images* out) {
  static Images cache;
  static bool built = false, ok = false;
  if (!built) {
    built = true;
    auto g = testdata::load_gpt2_attention(&cache.why);
    auto s = testdata::load_stories260k(&cache.why);
    ok = !g.empty() && !s.empty();
    if (ok) {
      ImageWriter wg, ws;
      for (const auto& t : g) {
        if (t.name.rfind("decoder1/", 0) != 0) continue;
        EXPECT_TRUE(wg.add_tensor(t.name, DType::kBF16, t.shape, reinterpret_cast<const uint8_t*>(t.bf16.data()),
                                  2 * t.bf16.size()).ok());
      }
      for (const auto& t : s)
        EXPECT_TRUE(ws.add_tensor(t.name, DType::kFP32, t.shape, reinterpret_cast<const uint8_t*>(t.fp32.data()),
                                  4 * t.fp32.size()).ok());
      cache.gpt2 = finish(wg);
      cache.stories = finish(ws);
    }
    cache.synth = synth_image();
  }
  *out = cache;
  return ok;
}

// A model (default config unless given) with `image` loaded at kImageBase by load_image.
inline std::unique_ptr<DeviceModel> loaded_model(const std::vector<uint8_t>& image, MapPlan* plan,
                                                 const DeviceConfig& cfg = {}) {
  auto m = DeviceModel::create(cfg);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  Status s = load_image(*m.value(), image, kImageBase, plan);
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(m.value());
}

// Reads `bytes` region bytes of the tensor at `base` through region window `window` (whole beats;
// the tail past `bytes` is dropped). resp receives the beat responses.
inline std::vector<uint8_t> read_window(DeviceModel& m, uint8_t window, uint64_t base, uint64_t offset,
                                        uint64_t bytes, std::vector<Resp>* resp) {
  const uint64_t first = offset & ~uint64_t{63}, last = (offset + bytes + 63) & ~uint64_t{63};
  std::vector<uint8_t> buf(last - first);
  Status s = m.read(window_address(window, base + first), buf.size(), buf.data(), resp);
  EXPECT_TRUE(s.ok()) << s.message();
  return std::vector<uint8_t>(buf.begin() + static_cast<long>(offset - first),
                              buf.begin() + static_cast<long>(offset - first + bytes));
}

}  // namespace ndp::dev::devtest
