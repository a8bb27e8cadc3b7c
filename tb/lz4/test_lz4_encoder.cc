// lz4_encoder against its golden model (ndp::lz4_hw_compress, byte for byte) and liblz4
// (LZ4_decompress_safe restores every block): synthetic data of every flavour and size 1..65536
// with gaps and backpressure, real plane blocks with the compression ratio against
// LZ4_compress_default and the sustained input rate, and the 8-bytes-per-cycle parameter point.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "Vlz4_encoder.h"
#include "Vlz4_encoder_p8.h"
#include "lz4_env.h"

namespace ndp::tb {
namespace {

Lz4HwParams params_p16() { return Lz4HwParams{}; }
Lz4HwParams params_p8() {
  Lz4HwParams p;
  p.bytes_per_cycle = 8;
  p.match_bytes = 8;
  p.hash_banks = 32;
  return p;
}

// Every block the DUT wrote must decode with liblz4 to its input.
template <class Env>
void check_liblz4(const Env& env, const std::vector<std::vector<uint8_t>>& src) {
  const auto& r = env.results();
  ASSERT_EQ(r.size(), src.size());
  size_t bad = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    std::vector<uint8_t> d(src[i].size() + 16);
    const int n = liblz4_decompress(r[i].bytes.data(), r[i].bytes.size(), d.data(), src[i].size());
    if ((n != static_cast<int>(src[i].size()) || !std::equal(src[i].begin(), src[i].end(), d.begin())) && ++bad <= 5)
      ADD_FAILURE() << "block " << i << " (" << src[i].size() << " bytes): liblz4 returns " << n;
  }
  EXPECT_EQ(bad, 0u);
}

template <class Model>
void synthetic(const Lz4HwParams& hp, unsigned out_bytes, int blocks) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0xe1c);
    Lz4EncEnv<Model> env(seed, fst, 0.3, 0.3, hp, out_bytes);
    std::vector<std::vector<uint8_t>> src;
    uint64_t bytes = 0;
    const size_t fixed[] = {1, 2, 4, 5, 11, 12, 13, 16, 17, 31, 32, 33, 4095, 4096, 65535, 65536};
    for (int t = 0; t < blocks; ++t) {
      size_t n = t < 16 ? fixed[t] : (t < 40 ? rng.range(1, 200) : rng.range(200, 20000));
      src.push_back(synth_data(rng, n, t % 6));
      env.push_block(src.back().data(), n, "block " + std::to_string(t) + " flavour " + std::to_string(t % 6));
      bytes += n;
    }
    ASSERT_TRUE(env.run(10 * bytes + 100000));
    EXPECT_TRUE(env.finish());
    check_liblz4(env, src);
  });
}

TEST(Lz4Encoder, BitExactWithModelSyntheticGapsBackpressure) { synthetic<Vlz4_encoder>(params_p16(), 32, 90); }
TEST(Lz4EncoderP8, BitExactWithModelSyntheticGapsBackpressure) { synthetic<Vlz4_encoder_p8>(params_p8(), 16, 60); }

// Real plane blocks back to back, no gaps or backpressure: bytes checked against the model and
// liblz4, ratio against LZ4_compress_default on the same blocks, sustained input rate.
template <class Model>
void real_planes(const Lz4HwParams& hp, unsigned out_bytes, int gpt2_layers, double min_rate) {
  std::vector<PlaneBlock> planes;
  std::string why;
  if (!load_real_planes(&planes, gpt2_layers, &why)) GTEST_SKIP() << why;
  uint64_t seed = test_seed();
  Lz4EncEnv<Model> env(seed, "", 0.0, 0.0, hp, out_bytes);
  std::vector<std::vector<uint8_t>> src;
  std::vector<int> cls;  // 0 EXPBYTE, 1 exponent bit-plane, 2 sign/mantissa
  for (const PlaneBlock& p : planes) {
    if (all_equal(p.bytes)) continue;  // CONST blocks never reach the LZ4 engine
    src.push_back(p.bytes);
    cls.push_back(p.plane == 0x40 ? 0 : (p.plane >= 7 && p.plane <= 14 ? 1 : 2));
    env.push_block(p.bytes.data(), p.bytes.size(), p.label);
  }
  uint64_t bytes = 0;
  for (const auto& s : src) bytes += s.size();
  ASSERT_TRUE(env.run(4 * bytes + 100000));
  EXPECT_TRUE(env.finish());
  check_liblz4(env, src);
  const auto& r = env.results();
  ASSERT_EQ(r.size(), src.size());
  RateSummary rate[3], all;
  double hw[3] = {0, 0, 0}, lz[3] = {0, 0, 0}, raw[3] = {0, 0, 0}, hw_pay = 0, lz_pay = 0, raw_pay = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    // block i's input interval: from its first input beat to the next block's first input beat
    const uint64_t end = i + 1 < r.size() ? r[i + 1].in_first : r[i].in_last + 1;
    const double cyc = static_cast<double>(end - r[i].in_first);
    rate[cls[i]].add(static_cast<double>(src[i].size()), cyc);
    all.add(static_cast<double>(src[i].size()), cyc);
    const double l = static_cast<double>(liblz4_compress(src[i], 0).size());
    hw[cls[i]] += static_cast<double>(r[i].bytes.size());
    lz[cls[i]] += l;
    raw[cls[i]] += static_cast<double>(src[i].size());
    if ((static_cast<size_t>(l) + 63) / 64 < (src[i].size() + 63) / 64) {  // blocks liblz4 would store LZ4
      hw_pay += static_cast<double>(r[i].bytes.size());
      lz_pay += l;
      raw_pay += static_cast<double>(src[i].size());
    }
  }
  const double stream = static_cast<double>(bytes) / static_cast<double>(r.back().in_last - r.front().in_first + 1);
  std::printf("encoder P=%d on real plane blocks: sustained input %.2f B/cycle over %zu blocks (liblz4 %d)\n",
              hp.bytes_per_cycle, stream, r.size(), liblz4_version());
  const char* nm[3] = {"EXPBYTE", "exponent planes", "sign/mantissa"};
  for (int k = 0; k < 3; ++k)
    std::printf("  %-16s %s; ratio %.4f vs liblz4 %.4f (%.2f%% of liblz4's)\n", nm[k], rate[k].text().c_str(),
                raw[k] / hw[k], raw[k] / lz[k], 100.0 * lz[k] / hw[k]);
  std::printf("  blocks liblz4 stores as LZ4: ratio %.4f vs liblz4 %.4f (%.2f%%)\n", raw_pay / hw_pay,
              raw_pay / lz_pay, 100.0 * lz_pay / hw_pay);
  EXPECT_GE(lz_pay / hw_pay, 0.95) << "ratio more than 5% below liblz4's";
  for (int k = 0; k < 3; ++k) EXPECT_GE(lz[k] / hw[k], 0.95) << nm[k];
  EXPECT_GE(stream, min_rate);
}

TEST(Lz4Encoder, RealPlanesRatioAndThroughput) { real_planes<Vlz4_encoder>(params_p16(), 32, 6, 8.0); }
TEST(Lz4EncoderP8, RealPlanesRatioAndThroughput) { real_planes<Vlz4_encoder_p8>(params_p8(), 16, 1, 7.5); }

}  // namespace
}  // namespace ndp::tb
