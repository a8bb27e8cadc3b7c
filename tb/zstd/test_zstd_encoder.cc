// zstd_encoder against its golden model (ndp::zstd_hw_frame, byte for byte and block kind by block
// kind), every frame decoded by libzstd and by the project's RTL zstd_decoder; worst-case data,
// every size class, gaps and backpressure, multi-block frames, real plane blocks and their rates.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "Vzstd_decoder.h"
#include "ndp/huffman_frame.h"
#include "tb_data.h"
#include "tb_rng.h"
#include "tb_sim.h"
#include "zenc_env.h"
#include "zstd_env.h"

namespace ndp::tb {
namespace {

// Plane-like and worst-case data of one of 9 kinds.
std::vector<uint8_t> make_data(Rng& rng, int kind, size_t n) {
  std::vector<uint8_t> v(n);
  std::geometric_distribution<int> g(0.4);
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0: v[i] = static_cast<uint8_t>(rng.u32()); break;                                 // incompressible
      case 1: v[i] = 0x5A; break;                                                            // all equal
      case 2: v[i] = static_cast<uint8_t>(std::max(0, 124 - g(rng.engine()))); break;        // exponent bytes, direct tree
      case 3: v[i] = static_cast<uint8_t>(std::min(255, 126 + g(rng.engine()))); break;       // symbols > 128: FSE tree
      case 4: v[i] = static_cast<uint8_t>(rng.chance(0.01) ? 0 : 7); break;                   // one dominant symbol
      case 5: v[i] = static_cast<uint8_t>(rng.u32() % 2 ? 131 : 140); break;                  // two symbols, equal weights
      case 6: v[i] = static_cast<uint8_t>(200 + rng.u32() % 50); break;                       // 50 symbols > 128
      case 7: v[i] = static_cast<uint8_t>(rng.u32() % 256 < 250 ? rng.u32() % 256 : 0); break; // 256 symbols, flat
      default: v[i] = static_cast<uint8_t>(i % 7 == 0 ? rng.u32() : 1); break;
    }
  }
  return v;
}

// libzstd's frame size at a level (content size in the header, no checksum: as the encoder writes)
size_t zstd_level(const std::vector<uint8_t>& src, int level) {
  std::vector<uint8_t> out(ZSTD_compressBound(src.size()));
  const size_t r = ZSTD_compress(out.data(), out.size(), src.data(), src.size(), level);
  return ZSTD_isError(r) ? src.size() : r;
}

// Decodes every frame of the env with libzstd and the RTL decoder; returns frames checked.
template <class Model>
size_t decode_all(const ZstdEncEnv<Model>& env, const std::vector<std::vector<uint8_t>>& srcs, bool rtl) {
  std::unique_ptr<ZstdDecEnv<Vzstd_decoder>> dec;
  if (rtl) dec = std::make_unique<ZstdDecEnv<Vzstd_decoder>>(test_seed() + 1, "", 0.0, 0.0);
  size_t n = 0;
  for (size_t i = 0; i < env.frames().size(); ++i) {
    const auto& f = env.frames()[i];
    std::vector<uint8_t> d;
    std::string err;
    EXPECT_TRUE(libzstd_decompress(f.bytes, srcs[i].size(), &d, &err)) << "frame " << i << ": " << err;
    EXPECT_EQ(d, srcs[i]) << "frame " << i << " (libzstd)";
    if (dec) {
      ZResult r = dec->decode(f.bytes, static_cast<uint32_t>(srcs[i].size()), 64 * f.bytes.size() + 200000);
      EXPECT_TRUE(r.done && r.code == 0) << "frame " << i << ": zstd_decoder code " << zstd_err_name(r.code);
      EXPECT_EQ(r.bytes, srcs[i]) << "frame " << i << " (zstd_decoder)";
    }
    ++n;
  }
  return n;
}

// Sequences blocks with Huffman-coded literals in a run (golden model = RTL): in all, and with 4 streams.
struct HufLitBlocks {
  uint64_t all = 0, four = 0;
};

template <class Model = Vzstd_encoder>
HufLitBlocks run_frames(const std::vector<std::vector<uint8_t>>& srcs, const std::vector<int>& huf, size_t block,
                        double gap, double bp, bool rtl_decode) {
  HufLitBlocks hl;
  run_with_waves([&](const std::string& fst) {
    ZstdEncEnv<Model> env(test_seed(), fst, gap, bp);
    // every third frame's sequences blocks keep raw literals (in_hl_i low; a HufLits = 0 build
    // ignores the input)
    for (size_t i = 0; i < srcs.size(); ++i)
      ASSERT_TRUE(env.push_frame(srcs[i], huf[i] != 0, std::min(block, srcs[i].size()), "frame " + std::to_string(i),
                                 i % 3 != 2));
    uint64_t total = 0;
    for (const auto& s : srcs) total += s.size();
    ASSERT_TRUE(env.run(40 * total + 20000 * srcs.size() + 100000));
    EXPECT_TRUE(env.finish());
    EXPECT_EQ(decode_all(env, srcs, rtl_decode), srcs.size());
    for (const ZeFrame& f : env.frames())
      for (const ZstdHwBlockInfo& b : f.model) {
        hl.all += b.huffman_lits;
        hl.four += b.huffman_lits && b.literals >= 1024;
      }
  });
  return hl;
}

// Frames of every data kind x size, appended to srcs with their mode (huf_of(n): Huffman mode).
template <class HufOf>
void every_kind(Rng& rng, std::initializer_list<size_t> sizes, HufOf huf_of, std::vector<std::vector<uint8_t>>& srcs,
                std::vector<int>& huf) {
  for (int kind = 0; kind < 9; ++kind)
    for (size_t n : sizes) {
      srcs.push_back(make_data(rng, kind, n));
      huf.push_back(huf_of(n) ? 1 : 0);
    }
}

TEST(ZstdEncoder, HuffmanModeEveryKindAndSize) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  every_kind(rng, {1, 2, 3, 17, 255, 256, 700, 1023, 1024, 1025, 4096, 4099, 32768}, [](size_t) { return true; },
             srcs, huf);
  run_frames(srcs, huf, 65536, 0.0, 0.0, true);
}

TEST(ZstdEncoder, HuffmanModeGapsAndBackpressure) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  for (int t = 0; t < 30; ++t) {
    srcs.push_back(make_data(rng, static_cast<int>(rng.range(1, 6)), rng.range(1, 20000)));
    huf.push_back(1);
  }
  run_frames(srcs, huf, 65536, 0.3, 0.3, false);
}

TEST(ZstdEncoder, HuffmanMode64KiBBlocks) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  for (int kind : {2, 3, 0}) {
    srcs.push_back(make_data(rng, kind, 65536));
    huf.push_back(1);
  }
  run_frames(srcs, huf, 65536, 0.0, 0.1, true);
}

TEST(ZstdEncoder, MultiBlockFrames) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  for (int t = 0; t < 4; ++t) {
    srcs.push_back(make_data(rng, 2 + t % 2, rng.range(40000, 150000)));
    huf.push_back(1);
  }
  run_frames(srcs, huf, 32768, 0.1, 0.1, true);
}

TEST(ZstdEncoder, SequencesModeEveryKindAndSize) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  every_kind(rng, {1, 2, 12, 13, 16, 17, 31, 32, 100, 255, 256, 4095, 4096, 4097, 20000},
             [](size_t) { return false; }, srcs, huf);
  run_frames(srcs, huf, 65536, 0.0, 0.0, true);
}

TEST(ZstdEncoder, MixedModesGapsBackpressure64KiB) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  for (int t = 0; t < 24; ++t) {
    const size_t n = t % 8 == 0 ? 65536 : rng.range(1, 12000);
    srcs.push_back(make_data(rng, static_cast<int>(rng.range(0, 8)), n));
    huf.push_back(static_cast<int>(rng.range(0, 1)));
  }
  run_frames(srcs, huf, 65536, 0.3, 0.3, true);
}

// Multi-block frames in sequences mode: the repeat-offset history runs on across blocks.
TEST(ZstdEncoder, SequencesModeMultiBlockFrames) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  for (int t = 0; t < 5; ++t) {
    srcs.push_back(make_data(rng, 4 + t % 4, rng.range(20000, 140000)));
    huf.push_back(0);
  }
  run_frames(srcs, huf, 16384, 0.1, 0.1, true);
}

// The worst cases in both modes, each frame checked for its block kinds: incompressible and
// all-equal 64 KiB blocks (RAW and RLE), one symbol repeated with one odd byte, and frames cut into
// 1-byte blocks (every block RLE, the frame header before the first only).
TEST(ZstdEncoder, WorstCases) {
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  for (int kind : {0, 1}) srcs.push_back(make_data(rng, kind, 65536));
  std::vector<uint8_t> one(65536, 0x33);
  one[40000] = 0x34;
  srcs.push_back(one);
  srcs.push_back(make_data(rng, 2, 300));  // cut into 1-byte blocks below
  run_with_waves([&](const std::string& fst) {
    ZstdEncEnv<> env(test_seed(), fst, 0.2, 0.2);
    for (bool huf : {true, false})
      for (size_t i = 0; i < srcs.size(); ++i)
        ASSERT_TRUE(env.push_frame(srcs[i], huf, i == 3 ? 1 : 65536, "worst case " + std::to_string(i)));
    ASSERT_TRUE(env.run(4000000));
    EXPECT_TRUE(env.finish());
    ASSERT_EQ(env.frames().size(), 2 * srcs.size());
    for (size_t f = 0; f < env.frames().size(); ++f) {
      const ZeFrame& fr = env.frames()[f];
      const size_t i = f % srcs.size();
      std::vector<uint8_t> d;
      std::string err;
      EXPECT_TRUE(libzstd_decompress(fr.bytes, srcs[i].size(), &d, &err)) << "frame " << f << ": " << err;
      EXPECT_EQ(d, srcs[i]) << "frame " << f;
      ASSERT_EQ(fr.kinds.size(), i == 3 ? 300u : 1u) << "frame " << f;
      const auto kind_is = [&](ZstdHwKind k) { return fr.kinds[0] == static_cast<uint8_t>(k); };
      if (i == 0) {
        EXPECT_TRUE(kind_is(ZstdHwKind::kRaw)) << "incompressible, frame " << f;
      } else if (i == 1) {
        EXPECT_TRUE(kind_is(ZstdHwKind::kRle)) << "all equal, frame " << f;
        EXPECT_EQ(fr.bytes.size(), 7u + 3u + 1u) << "all equal, frame " << f;
      } else if (i == 2) {
        EXPECT_LT(fr.bytes.size(), f < srcs.size() ? 65536u / 8 + 200 : 64u) << "one symbol, frame " << f;
      } else {
        for (uint8_t k : fr.kinds) EXPECT_EQ(k, static_cast<uint8_t>(ZstdHwKind::kRle)) << "1-byte blocks, frame " << f;
      }
    }
  });
}

// The real planes of the benches: stories260K and (with gpt2) GPT-2 layer 1 (BF16 by RNE), chunks
// of 32768 elements; the EXPBYTE planes (32 KiB, smaller for a tensor's last chunk) or bit-planes
// 0..14 of the full chunks (4 KiB). All-equal planes (CONST in the lane) are left out. Empty (and
// *why) when the data is absent.
std::vector<std::vector<uint8_t>> real_planes(bool expbyte, bool gpt2, std::string* why) {
  std::vector<Bf16Tensor> ts, g;
  if (!load_stories260k_bf16(&ts, why) || (gpt2 && !load_gpt2_attention_bf16(1, &g, why))) return {};
  ts.insert(ts.end(), g.begin(), g.end());
  std::vector<std::vector<uint8_t>> planes;
  const auto keep = [&](std::vector<uint8_t>&& v) {
    if (!std::all_of(v.begin(), v.end(), [&](uint8_t b) { return b == v[0]; })) planes.push_back(std::move(v));
  };
  for (const Bf16Tensor& t : ts)
    for (uint64_t c = 0; c < t.elements(); c += 32768) {
      const uint64_t n = std::min<uint64_t>(32768, t.elements() - c);
      const auto word = [&](uint64_t i) {
        return static_cast<uint16_t>(t.bytes[2 * (c + i)] | (t.bytes[2 * (c + i) + 1] << 8));
      };
      if (expbyte) {
        std::vector<uint8_t> e(n);
        for (uint64_t i = 0; i < n; ++i) e[i] = static_cast<uint8_t>(word(i) >> 7);
        keep(std::move(e));
        continue;
      }
      if (n < 32768) continue;
      for (int b = 0; b < 15; ++b) {
        std::vector<uint8_t> v(4096, 0);
        for (uint64_t i = 0; i < 32768; ++i) v[i / 8] = static_cast<uint8_t>(v[i / 8] | (((word(i) >> b) & 1) << (i % 8)));
        keep(std::move(v));
      }
    }
  return planes;
}

// One back-to-back run of real planes, each its own single-block frame: bytes in and out (a frame
// that does not shrink counts as the raw plane, as the lane stores it) and input bytes per cycle.
struct PlaneRun {
  uint64_t raw = 0, out = 0;
  uint64_t huf_lits = 0;  // sequences blocks whose literals are Huffman-coded (golden model, = the RTL's)
  double rate = 0;
  std::vector<std::vector<uint8_t>> frames;  // the RTL's
  double ratio() const { return static_cast<double>(raw) / static_cast<double>(out); }
};

template <class Model>
PlaneRun run_planes(const std::vector<std::vector<uint8_t>>& planes, bool huf, const std::string& what,
                    bool hl = false) {
  PlaneRun r;
  run_with_waves([&](const std::string& fst) {
    ZstdEncEnv<Model> env(test_seed(), fst, 0.0, 0.0);
    for (size_t i = 0; i < planes.size(); ++i) {
      ASSERT_TRUE(env.push_frame(planes[i], huf, planes[i].size(), what + " " + std::to_string(i), hl));
      r.raw += planes[i].size();
    }
    ASSERT_TRUE(env.run(40 * r.raw + 100000));
    EXPECT_TRUE(env.finish());
    ASSERT_EQ(env.frames().size(), planes.size());
    for (size_t i = 0; i < planes.size(); ++i) {
      const ZeFrame& f = env.frames()[i];
      std::vector<uint8_t> d;
      std::string err;
      EXPECT_TRUE(libzstd_decompress(f.bytes, planes[i].size(), &d, &err)) << what << " " << i << ": " << err;
      EXPECT_EQ(d, planes[i]) << what << " " << i;
      r.out += std::min<size_t>(planes[i].size(), f.bytes.size());
      r.frames.push_back(f.bytes);
      for (const ZstdHwBlockInfo& b : f.model) r.huf_lits += b.huffman_lits;
    }
    r.rate = static_cast<double>(r.raw) /
             static_cast<double>(env.frames().back().out_last - env.frames().front().in_first + 1);
  });
  return r;
}

// Real EXPBYTE planes (32 KiB, the default chunk of 32768 elements) in Huffman mode: every block is
// the spec 4.3 Huffman frame of the golden writer; the rate is the input bytes per cycle over the
// whole run, back to back.
TEST(ZstdEncoder, RealExpbytePlanesRate) {
  std::string why;
  const auto planes = real_planes(true, true, &why);
  if (planes.empty()) GTEST_SKIP() << why;
  const PlaneRun r = run_planes<Vzstd_encoder>(planes, true, "expbyte plane");
  ASSERT_EQ(r.frames.size(), planes.size());
  size_t huffman = 0, big = 0;
  for (size_t i = 0; i < planes.size(); ++i) {
    std::vector<uint8_t> ref;
    if (write_huffman_frame(planes[i].data(), planes[i].size(), ref)) {
      EXPECT_EQ(r.frames[i], ref) << "plane " << i;
      ++huffman;
    }
    big += planes[i].size() == 32768;
  }
  std::printf("zstd_encoder Huffman mode: %zu real EXPBYTE planes (%zu of 32 KiB), %zu Huffman frames, ratio "
              "%.4f, %.2f input B/cycle back to back\n",
              planes.size(), big, huffman, r.ratio(), r.rate);
  EXPECT_EQ(huffman, planes.size());  // every plane has its Huffman frame, byte for byte the RTL's
  EXPECT_GE(r.rate, 8.0);
}

// Real exponent and mantissa bit-planes (4 KiB, chunk 32768) in sequences mode: the rate back to
// back and the ratio against libzstd levels 1 and 3 (blocks that do not shrink count as raw).
TEST(ZstdEncoder, RealBitPlanesRate) {
  std::string why;
  const auto planes = real_planes(false, true, &why);
  if (planes.empty()) GTEST_SKIP() << why;
  uint64_t raw = 0, l1 = 0, l3 = 0;
  for (const auto& p : planes) {
    raw += p.size();
    l1 += std::min<size_t>(p.size(), zstd_level(p, 1));
    l3 += std::min<size_t>(p.size(), zstd_level(p, 3));
  }
  const PlaneRun r = run_planes<Vzstd_encoder>(planes, false, "bit-plane");
  std::printf("zstd_encoder sequences mode: %zu real bit-planes of 4 KiB, ratio %.4f (libzstd -1 %.4f, -3 %.4f), "
              "%.2f input B/cycle back to back\n",
              planes.size(), r.ratio(), static_cast<double>(raw) / static_cast<double>(l1),
              static_cast<double>(raw) / static_cast<double>(l3), r.rate);
  EXPECT_GE(r.rate, 4.0);
}

// The candidate build (Vzstd_encoder_h8: HashBytes = 8, HufLits = 1): synthetic data of every
// kind and size class in both modes with gaps and backpressure, each frame the golden model's with
// hash_bytes = 8 and huffman_literals (read from the build) and decoded by libzstd and the RTL
// decoder; sequences blocks with Huffman literals in 1 and in 4 streams occur.
TEST(ZstdEncoder, Hash8EveryKindAndSize) {
  static_assert(ZencTop<Vzstd_encoder_h8>::type::HashBytes == 8);
  static_assert(ZencTop<Vzstd_encoder>::type::HashBytes == 4);
  static_assert(ZencTop<Vzstd_encoder_h8>::type::HufLits == 1 && ZencTop<Vzstd_encoder>::type::HufLits == 0);
  Rng rng;
  std::vector<std::vector<uint8_t>> srcs;
  std::vector<int> huf;
  every_kind(rng, {1, 12, 13, 16, 17, 20, 21, 31, 32, 100, 4095, 4096, 20000}, [](size_t n) { return n % 4 == 1; },
             srcs, huf);
  srcs.push_back(make_data(rng, 8, 65536));
  huf.push_back(0);
  const HufLitBlocks hl = run_frames<Vzstd_encoder_h8>(srcs, huf, 65536, 0.2, 0.2, true);
  std::printf("Hash8EveryKindAndSize: %zu frames, %llu sequences blocks with Huffman literals (%llu with 4 streams)\n",
              srcs.size(), static_cast<unsigned long long>(hl.all), static_cast<unsigned long long>(hl.four));
  EXPECT_GT(hl.all, hl.four);
  EXPECT_GT(hl.four, 0u);
}

// Real planes in sequences mode with the finder hashing 8 bytes and Huffman-coded literals
// (Vzstd_encoder_h8): the bit-planes of the bench (RealBitPlanesRate runs them with 4 and raw
// literals), and stories260K's EXPBYTE planes (the sequences candidate of EXPBYTE planes) against
// the default build and the Huffman frames; ratio and rate back to back, and the bytes the smaller
// of the Huffman frame and the sequences frame stores per plane. docs/results/zstd_encoder.md
// ("Hash bytes") quotes them.
TEST(ZstdEncoder, Hash8RealPlanes) {
  std::string why;
  const auto bits = real_planes(false, true, &why);
  const auto exps = real_planes(true, false, &why);
  if (bits.empty() || exps.empty()) GTEST_SKIP() << why;
  // Huffman literals on 64 bit-planes (stories260K's first 4 chunks: every plane of a chunk): the
  // code build per block costs (a full byte alphabet), so the rate is only printed
  const std::vector<std::vector<uint8_t>> some(bits.begin(), bits.begin() + 64);
  const PlaneRun b8 = run_planes<Vzstd_encoder_h8>(bits, false, "bit-plane, 8-byte hash");
  const PlaneRun r8 = run_planes<Vzstd_encoder_h8>(some, false, "bit-plane, 8-byte hash, raw literals");
  const PlaneRun h8 = run_planes<Vzstd_encoder_h8>(some, false, "bit-plane, 8-byte hash, Huffman literals", true);
  const PlaneRun e8 = run_planes<Vzstd_encoder_h8>(exps, false, "expbyte plane, 8-byte hash", true);
  const PlaneRun e4 = run_planes<Vzstd_encoder>(exps, false, "expbyte plane, 4-byte hash");
  // Huffman mode with in_hl_i (dual): the smaller of the Huffman frame and the sequences frame
  const PlaneRun d8 = run_planes<Vzstd_encoder_h8>(exps, true, "expbyte plane, dual", true);
  // and on the GPT-2 layer 1 EXPBYTE planes of the other benches (frames checked by the scoreboard)
  const PlaneRun dg = run_planes<Vzstd_encoder_h8>(real_planes(true, true, &why), true, "expbyte plane, dual", true);
  std::printf("dual on %llu bytes of stories260K + GPT-2 layer 1 EXPBYTE planes: %llu bytes, %.2f B/cycle\n",
              static_cast<unsigned long long>(dg.raw), static_cast<unsigned long long>(dg.out), dg.rate);
  uint64_t huf_bytes = 0, min_bytes = 0;
  for (size_t i = 0; i < exps.size(); ++i) {
    std::vector<uint8_t> ref;
    const size_t h = write_huffman_frame(exps[i].data(), exps[i].size(), ref) ? ref.size() : exps[i].size();
    huf_bytes += std::min(h, exps[i].size());
    min_bytes += std::min({h, exps[i].size(), e8.frames[i].size()});
  }
  std::printf("zstd_encoder, 8-byte hash: %zu real bit-planes of 4 KiB with raw literals, ratio %.4f, %.2f input "
              "B/cycle; %zu of them with Huffman literals: ratio %.4f, %.2f B/cycle (raw literals %.4f, %.2f), "
              "%llu blocks with Huffman literals\n",
              bits.size(), b8.ratio(), b8.rate, some.size(), h8.ratio(), h8.rate, r8.ratio(), r8.rate,
              static_cast<unsigned long long>(h8.huf_lits));
  std::printf("zstd_encoder, 8-byte hash, Huffman literals: %zu stories260K EXPBYTE planes in sequences mode, "
              "ratio %.4f, %.2f input B/cycle, %llu with Huffman literals (4-byte hash, raw literals: ratio %.4f, "
              "%.2f B/cycle); EXPBYTE bytes: Huffman frames %llu, smaller of the two per plane %llu\n",
              exps.size(), e8.ratio(), e8.rate, static_cast<unsigned long long>(e8.huf_lits), e4.ratio(), e4.rate,
              static_cast<unsigned long long>(huf_bytes), static_cast<unsigned long long>(min_bytes));
  std::printf("zstd_encoder, Huffman mode with Huffman literals (the smaller frame per plane): %zu stories260K "
              "EXPBYTE planes, %llu bytes, ratio %.4f, %.2f input B/cycle, %llu sequences frames\n",
              exps.size(), static_cast<unsigned long long>(d8.out), d8.ratio(), d8.rate,
              static_cast<unsigned long long>(d8.huf_lits));
  EXPECT_GE(b8.rate, 4.0);
  EXPECT_EQ(b8.huf_lits, 0u);
  EXPECT_GT(h8.huf_lits, 0u);
  EXPECT_GT(e8.huf_lits, 0u);
  EXPECT_EQ(e4.huf_lits, 0u);
  // Huffman literals store less: on the bit-planes, and on the EXPBYTE planes' sequences frames;
  // the smaller of those and the Huffman frame per plane beats the Huffman frames alone
  EXPECT_GT(h8.ratio(), r8.ratio());
  EXPECT_GT(e8.ratio(), e4.ratio());
  EXPECT_LT(min_bytes, huf_bytes);
  EXPECT_EQ(d8.out, min_bytes);
  EXPECT_GT(d8.huf_lits, 0u);
}

}  // namespace
}  // namespace ndp::tb
