// Model of the hardware ZSTD encoder (zstd_hw_model.h): every frame decodes with libzstd to its input,
// the block kinds follow the stated preference, Huffman blocks are the spec 4.3 frame byte for byte,
// multi-block frames carry the repeat-offset history, and the lane encoder keeps the section 3 rules.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <random>

#include "ndp/block.h"
#include "ndp/huffman_frame.h"
#include "ndp/lz4_hw_model.h"
#include "ndp/test_seed.h"
#include "ndp/zstd_hw_model.h"
#include "real_data.h"

namespace ndp {
namespace {

constexpr uint32_t kSeed = 5150;

// Worst-case and plane-like data of one of 8 kinds.
std::vector<uint8_t> make_data(std::mt19937& rng, int kind, size_t n) {
  std::vector<uint8_t> v(n);
  std::geometric_distribution<int> g(0.4);
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0: v[i] = static_cast<uint8_t>(rng()); break;                                // incompressible
      case 1: v[i] = 0x5A; break;                                                       // all equal
      case 2: v[i] = static_cast<uint8_t>(std::max(0, 124 - g(rng))); break;            // exponent bytes
      case 3: v[i] = static_cast<uint8_t>(rng() % 7 == 0 ? rng() : 0); break;           // sparse bit-plane
      case 4: v[i] = static_cast<uint8_t>(i % 13 < 9 ? "abcdefghi"[i % 13] : rng() % 4); break;  // periodic
      case 5: v[i] = static_cast<uint8_t>(i < n / 2 ? 0 : 0xFF); break;                  // two runs
      case 6: v[i] = static_cast<uint8_t>(200 + rng() % 50); break;                     // 50 symbols > 128
      default: v[i] = static_cast<uint8_t>((i / 3) & 1 ? 7 : rng() % 3); break;         // short repeats
    }
  }
  return v;
}

void expect_decodes(const std::vector<uint8_t>& frame, const std::vector<uint8_t>& src, const std::string& what) {
  std::vector<uint8_t> d(src.size() + 1);
  const size_t r = ZSTD_decompress(d.data(), d.size(), frame.data(), frame.size());
  ASSERT_FALSE(ZSTD_isError(r)) << what << ": " << ZSTD_getErrorName(r);
  ASSERT_EQ(r, src.size()) << what;
  d.resize(r);
  ASSERT_EQ(d, src) << what;
  EXPECT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), src.size()) << what;
  EXPECT_EQ(ZSTD_findFrameCompressedSize(frame.data(), frame.size()), frame.size()) << what;
}

TEST(ZstdHwModel, EveryKindAndSizeDecodesWithLibzstd) {
  std::mt19937 rng(testing::test_seed(kSeed));
  const size_t sizes[] = {1, 2, 5, 12, 13, 31, 32, 255, 256, 1023, 1024, 4095, 4096, 32768, 65535, 65536};
  for (int huf = 0; huf < 2; ++huf)
    for (int kind = 0; kind < 8; ++kind)
      for (size_t n : sizes) {
        for (int hl = 0; hl < 2; ++hl) {
          const std::vector<uint8_t> src = make_data(rng, kind, n);
          ZstdHwParams p;
          p.huffman_literals = hl != 0;
          std::vector<uint8_t> f;
          std::vector<ZstdHwBlockInfo> bi;
          ASSERT_TRUE(zstd_hw_frame(src.data(), n, huf != 0, n, f, &bi, p).ok());
          const std::string what = "kind " + std::to_string(kind) + " n " + std::to_string(n) + " huf " +
                                   std::to_string(huf) + " hl " + std::to_string(hl);
          expect_decodes(f, src, what);
          ASSERT_EQ(bi.size(), 1u);
          if (kind == 1 || n == 1) {
            EXPECT_EQ(bi[0].kind, ZstdHwKind::kRle) << what;
          }
          // never larger than a raw block: frame header + 3 + n
          EXPECT_LE(f.size(), 6 + (n <= 255 ? 1u : 2u) + 3 + n) << what;
          if (kind == 0 && n >= 256) {
            EXPECT_EQ(bi[0].kind, ZstdHwKind::kRaw) << what;
          }
        }
      }
}

TEST(ZstdHwModel, HuffmanBlocksAreTheSpecFrame) {
  std::mt19937 rng(testing::test_seed(kSeed + 1));
  int huffman = 0;
  for (int t = 0; t < 200; ++t) {
    const size_t n = 1 + rng() % 65536;
    const std::vector<uint8_t> src = make_data(rng, t % 2 ? 2 : 6, n);
    std::vector<uint8_t> f, ref;
    std::vector<ZstdHwBlockInfo> bi;
    ASSERT_TRUE(zstd_hw_frame(src.data(), n, true, n, f, &bi).ok());
    expect_decodes(f, src, "n " + std::to_string(n));
    if (write_huffman_frame(src.data(), n, ref)) {
      EXPECT_EQ(bi[0].kind, ZstdHwKind::kHuffman);
      EXPECT_EQ(f, ref) << "n " << n;
      ++huffman;
    } else {
      EXPECT_NE(bi[0].kind, ZstdHwKind::kHuffman);
    }
  }
  EXPECT_GT(huffman, 150);
}

TEST(ZstdHwModel, MultiBlockFramesCarryTheOffsetHistory) {
  std::mt19937 rng(testing::test_seed(kSeed + 2));
  for (int t = 0; t < 40; ++t) {
    const size_t n = 1 + rng() % 300000, block = 1 + rng() % 65536;
    std::vector<uint8_t> src = make_data(rng, 3 + t % 5, n);
    std::vector<uint8_t> f;
    std::vector<ZstdHwBlockInfo> bi;
    ASSERT_TRUE(zstd_hw_frame(src.data(), n, t % 3 == 0, block, f, &bi).ok());
    expect_decodes(f, src, "n " + std::to_string(n) + " block " + std::to_string(block));
    EXPECT_EQ(bi.size(), (n + block - 1) / block);
  }
  std::vector<uint8_t> f, z(10);
  EXPECT_FALSE(zstd_hw_frame(z.data(), 0, false, 100, f).ok());
  EXPECT_FALSE(zstd_hw_frame(z.data(), 10, false, 0, f).ok());
  EXPECT_FALSE(zstd_hw_frame(z.data(), 10, false, 65537, f).ok());
  EXPECT_TRUE(f.empty());
}

// The section 3 rules with the hardware candidates, restated from the two models directly.
TEST(ZstdHwModel, LaneEncoderFollowsTheChoiceRule) {
  std::mt19937 rng(testing::test_seed(kSeed + 3));
  BlockDecoder dec;
  const CodecPolicy pols[] = {CodecPolicy::kAuto, CodecPolicy::kLz4, CodecPolicy::kZstd, CodecPolicy::kRaw};
  for (int t = 0; t < 400; ++t) {
    const size_t n = 1 + rng() % (t % 4 ? 8192 : 65536);
    const std::vector<uint8_t> src = make_data(rng, t % 8, n);
    const uint8_t plane = t % 3 == 0 ? 0x40 : static_cast<uint8_t>(rng() % 16);
    const CodecPolicy pol = pols[t % 4];
    std::vector<uint8_t> out;
    // the lane's engines (the dual EXPBYTE candidate), every other block with the Huffman frame alone
    const LaneHwParams lp = t % 2 ? LaneHwParams::huffman_frame_only() : LaneHwParams{};
    auto r = encode_block_lane(src.data(), n, plane, static_cast<uint64_t>(t), pol, t % 5 == 0, out, lp);
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::vector<uint8_t> lz, zs, d(n);
    ZstdHwParams zp = lp.zstd;
    zp.huffman_literals = lp.zstd.huffman_literals && plane == 0x40;
    ASSERT_TRUE(lz4_hw_compress(src.data(), n, lz, lp.lz4).ok());
    ASSERT_TRUE(zstd_hw_frame(src.data(), n, plane == 0x40, n, zs, nullptr, zp).ok());
    const auto bursts = [](size_t b) { return (b + 63) / 64; };
    const bool lz_ok = (pol == CodecPolicy::kAuto || pol == CodecPolicy::kLz4) && bursts(lz.size()) < bursts(n);
    const bool zs_ok = (pol == CodecPolicy::kAuto || pol == CodecPolicy::kZstd) && bursts(zs.size()) < bursts(n);
    bool eq = true;
    for (uint8_t b : src) eq = eq && b == src[0];
    Codec want = Codec::kRaw;
    if (eq) want = Codec::kConst;
    else if (zs_ok && (!lz_ok || zs.size() < lz.size())) want = Codec::kZstd;
    else if (lz_ok) want = Codec::kLz4;
    EXPECT_EQ(r->codec, want) << "t " << t;
    BlockExpect x{plane, static_cast<uint64_t>(t), static_cast<uint32_t>(n), 0, "block"};
    ASSERT_TRUE(dec.decode(out.data(), out.size(), x, d.data()).ok());
    EXPECT_EQ(d, src);
    if (pol == CodecPolicy::kLz4 || pol == CodecPolicy::kRaw) {
      std::vector<uint8_t> hw;
      ASSERT_TRUE(encode_block_hw(src.data(), n, plane, static_cast<uint64_t>(t), pol, t % 5 == 0, hw).ok());
      EXPECT_EQ(hw, out);
    }
  }
}

// Real planes: GPT-2 attention layer 1 and stories260K, 4 KiB bit-planes and 32 KiB EXPBYTE planes.
// Every frame decodes; the ratio figures of docs/results/zstd-encoder.md ("Ratio") come from here.
TEST(ZstdHwModel, RealPlanesRatio) {
  std::string why;
  auto ts = testdata::load_gpt2_attention(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  auto st = testdata::load_stories260k(&why);
  ts.insert(ts.end(), st.begin(), st.end());
  uint64_t raw_bits = 0, hw_bits = 0, hwh_bits = 0, lz_bits = 0, raw_exp = 0, hw_exp = 0, huf_exp = 0, exp_blocks = 0;
  ZstdHwParams hl;
  hl.huffman_literals = true;
  for (size_t ti = 0; ti < ts.size(); ti += 3) {
    const auto& t = ts[ti];
    for (size_t c = 0; c < t.bf16.size(); c += 32768) {
      const size_t n = std::min<size_t>(32768, t.bf16.size() - c);
      std::vector<uint8_t> e(n);
      for (size_t i = 0; i < n; ++i) e[i] = static_cast<uint8_t>(t.bf16[c + i] >> 7);
      std::vector<uint8_t> f;
      std::vector<ZstdHwBlockInfo> bi;
      ASSERT_TRUE(zstd_hw_frame(e.data(), n, true, n, f, &bi).ok());
      expect_decodes(f, e, t.name + " expbyte");
      raw_exp += n;
      hw_exp += f.size();
      huf_exp += bi[0].kind == ZstdHwKind::kHuffman;
      ++exp_blocks;
      for (int b = 7; b < 15; ++b) {
        std::vector<uint8_t> v((n + 7) / 8, 0);
        for (size_t i = 0; i < n; ++i) v[i / 8] |= static_cast<uint8_t>(((t.bf16[c + i] >> b) & 1) << (i % 8));
        std::vector<uint8_t> g, gh, lz;
        ASSERT_TRUE(zstd_hw_frame(v.data(), v.size(), false, v.size(), g).ok());
        ASSERT_TRUE(zstd_hw_frame(v.data(), v.size(), false, v.size(), gh, nullptr, hl).ok());
        ASSERT_TRUE(lz4_hw_compress(v.data(), v.size(), lz).ok());
        expect_decodes(g, v, t.name + " bit-plane");
        expect_decodes(gh, v, t.name + " bit-plane (Huffman literals)");
        raw_bits += v.size();
        hw_bits += std::min(g.size(), v.size());
        hwh_bits += std::min(gh.size(), v.size());
        lz_bits += std::min(lz.size(), v.size());
      }
    }
  }
  const double r_exp = static_cast<double>(raw_exp) / static_cast<double>(hw_exp);
  const double r_bits = static_cast<double>(raw_bits) / static_cast<double>(hw_bits);
  const double r_bitsh = static_cast<double>(raw_bits) / static_cast<double>(hwh_bits);
  const double r_lz = static_cast<double>(raw_bits) / static_cast<double>(lz_bits);
  std::printf("zstd hw model: EXPBYTE %llu blocks (%llu Huffman) ratio %.4f; exponent bit-planes ratio %.4f "
              "(Huffman literals %.4f, hw LZ4 %.4f)\n",
              static_cast<unsigned long long>(exp_blocks), static_cast<unsigned long long>(huf_exp), r_exp, r_bits,
              r_bitsh, r_lz);
  EXPECT_EQ(huf_exp, exp_blocks);  // every real EXPBYTE plane has its Huffman frame
  EXPECT_GT(r_bits, r_lz);         // FSE-coded sequences beat LZ4's byte-aligned ones
  EXPECT_GT(r_bitsh, r_bits);
}

// The stories260K EXPBYTE planes with a sequences-mode candidate (docs/zstd_encoder.md "Huffman
// literals"): the finder hashing 8 bytes and Huffman-coded literals; Huffman mode with
// huffman_literals writes the smaller of that frame and the Huffman frame. Measures what
// the lane would store (the smallest of its candidates) against the golden model's choice (the
// Huffman frame or libzstd level 3), plane by plane; the figures of that section come from here.
TEST(ZstdHwModel, Stories260KExpbyteWithLongHashAndHuffmanLiterals) {
  std::string why;
  auto ts = testdata::load_stories260k(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  ZstdHwParams p8;
  p8.huffman_literals = true;
  p8.finder.hash_bytes = 8;
  uint64_t raw = 0, huf = 0, seq8 = 0, z3 = 0, lane_now = 0, lane_seq8 = 0, golden = 0, dual = 0;
  size_t emb_huf = 0, emb_seq8 = 0, emb_z3 = 0;
  for (const auto& t : ts) {
    for (size_t c = 0; c < t.bf16.size(); c += 32768) {
      const size_t n = std::min<size_t>(32768, t.bf16.size() - c);
      std::vector<uint8_t> e(n);
      for (size_t i = 0; i < n; ++i) e[i] = static_cast<uint8_t>(t.bf16[c + i] >> 7);
      std::vector<uint8_t> h, s, d, lz, z(ZSTD_compressBound(n));
      ASSERT_TRUE(zstd_hw_frame(e.data(), n, true, n, h).ok());
      ASSERT_TRUE(zstd_hw_frame(e.data(), n, false, n, s, nullptr, p8).ok());
      expect_decodes(s, e, t.name + " expbyte, 8-byte hash, Huffman literals");
      // Huffman mode with huffman_literals: the smaller of the two frames, the Huffman one on ties
      ASSERT_TRUE(zstd_hw_frame(e.data(), n, true, n, d, nullptr, p8).ok());
      EXPECT_EQ(d, s.size() < h.size() ? s : h) << t.name;
      dual += d.size();
      const size_t l = n >= 13 && lz4_hw_compress(e.data(), n, lz).ok() ? lz.size() : n;
      const size_t zl = ZSTD_compress(z.data(), z.size(), e.data(), n, 3);
      ASSERT_FALSE(ZSTD_isError(zl));
      const size_t now = std::min({h.size(), l, n});
      raw += n, huf += h.size(), seq8 += s.size(), z3 += zl;
      lane_now += now, lane_seq8 += std::min(now, s.size()), golden += std::min({h.size(), zl, n});
      if (t.name == "token_embedding_table") emb_huf = h.size(), emb_seq8 = s.size(), emb_z3 = zl;
    }
  }
  std::printf("stories260K EXPBYTE (%llu bytes): Huffman frames %llu, sequences (8-byte hash, Huffman literals) "
              "%llu, libzstd 3 %llu; per plane smallest: lane today %llu, lane with the sequences candidate %llu, "
              "golden %llu; Huffman mode with Huffman literals %llu; token embedding: Huffman %zu, sequences %zu, "
              "libzstd 3 %zu\n",
              static_cast<unsigned long long>(raw), static_cast<unsigned long long>(huf),
              static_cast<unsigned long long>(seq8), static_cast<unsigned long long>(z3),
              static_cast<unsigned long long>(lane_now), static_cast<unsigned long long>(lane_seq8),
              static_cast<unsigned long long>(golden), static_cast<unsigned long long>(dual), emb_huf, emb_seq8,
              emb_z3);
  // the token embedding (169 of its 512 rows repeat others): the long hash finds the repeats
  EXPECT_LT(emb_seq8, emb_z3);
  EXPECT_LT(emb_z3, emb_huf);
  // with the candidate the lane stores no more than the golden model on these planes
  EXPECT_LE(lane_seq8, golden);
  EXPECT_GT(lane_now, golden);
}

TEST(ZstdHwModel, FinderHashBytesChecked) {
  Lz4HwParams p;
  p.hash_bytes = 5;
  EXPECT_FALSE(lz4_hw_check_params(p).ok());
  p.hash_bytes = 8;
  EXPECT_TRUE(lz4_hw_check_params(p).ok());
}

}  // namespace
}  // namespace ndp

namespace ndp {
namespace {

// One model's planes in sequences (general) mode, the ZSTD engine's finder hashing 4 or 8 bytes,
// literals raw (the RTL today) or Huffman-coded when smaller (the model's huffman_literals): frame
// bytes and sequences per plane (index 0..15: bit-plane b; 16: the EXPBYTE plane), over every chunk
// of 32768 elements; all-equal planes (stored CONST by the lane) are left out. Variant v: hash
// bytes 4 << (v & 1), Huffman literals when v >= 2.
struct HashBytesTally {
  uint64_t raw[17] = {}, out[4][17] = {}, seq[4][17] = {};
};

void tally_hash_bytes(const std::vector<testdata::NamedTensor>& ts, HashBytesTally& r) {
  ZstdHwParams p[4];
  for (int v = 0; v < 4; ++v) {
    p[v].finder.hash_bytes = 4 << (v & 1);
    p[v].huffman_literals = v >= 2;
  }
  for (const auto& t : ts)
    for (size_t c = 0; c < t.bf16.size(); c += 32768) {
      const size_t n = std::min<size_t>(32768, t.bf16.size() - c);
      for (int pl = 0; pl <= 16; ++pl) {
        std::vector<uint8_t> d(pl == 16 ? n : (n + 7) / 8, 0);
        for (size_t i = 0; i < n; ++i) {
          if (pl == 16) d[i] = static_cast<uint8_t>(t.bf16[c + i] >> 7);
          else d[i / 8] |= static_cast<uint8_t>(((t.bf16[c + i] >> pl) & 1) << (i % 8));
        }
        if (std::all_of(d.begin(), d.end(), [&](uint8_t b) { return b == d[0]; })) continue;
        r.raw[pl] += d.size();
        for (int v = 0; v < 4; ++v) {
          std::vector<uint8_t> f;
          std::vector<ZstdHwBlockInfo> bi;
          ASSERT_TRUE(zstd_hw_frame(d.data(), d.size(), false, d.size(), f, &bi, p[v]).ok());
          if (v & 1) expect_decodes(f, d, t.name + " plane " + std::to_string(pl) + ", 8-byte hash");
          r.out[v][pl] += f.size();
          r.seq[v][pl] += bi[0].sequences;
        }
      }
    }
}

unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

// Step 1 of the 8-byte hash (docs/zstd_encoder.md "Hash bytes"): the ZSTD engine's sequences frames
// with the finder hashing 4 or 8 bytes, on every plane of stories260K and the GPT-2 attention
// weights (layers 1-6). Prints the table of docs/results/zstd_encoder.md ("Hash bytes"): per plane
// the frame bytes with 4 and 8 (raw literals, then Huffman literals) and the sequences coded.
TEST(ZstdHwModel, RealPlanesHashBytes4Vs8) {
  std::string why;
  const auto gp = testdata::load_gpt2_attention(&why);
  if (gp.empty()) GTEST_SKIP() << why;
  const auto st = testdata::load_stories260k(&why);
  if (st.empty()) GTEST_SKIP() << why;
  const std::pair<const char*, const std::vector<testdata::NamedTensor>*> models[] = {{"stories260K", &st},
                                                                                     {"gpt2-attn", &gp}};
  std::printf("| model | plane | in bytes | out 4 | out 8 | 8 - 4 | out 4 huf lits | out 8 huf lits | "
              "8 - 4 | sequences 4 | sequences 8 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& [name, ts] : models) {
    HashBytesTally r;
    tally_hash_bytes(*ts, r);
    uint64_t sum[3][5] = {};  // bit-planes, EXPBYTE, all: raw, out per variant
    for (int pl = 16; pl >= 0; --pl) {
      std::printf("| %s | %s | %llu | %llu | %llu | %+lld | %llu | %llu | %+lld | %llu | %llu |\n", name,
                  pl == 16 ? "expbyte" : std::to_string(pl).c_str(), ull(r.raw[pl]), ull(r.out[0][pl]),
                  ull(r.out[1][pl]), static_cast<long long>(r.out[1][pl] - r.out[0][pl]), ull(r.out[2][pl]),
                  ull(r.out[3][pl]), static_cast<long long>(r.out[3][pl] - r.out[2][pl]), ull(r.seq[0][pl]),
                  ull(r.seq[1][pl]));
      for (int g : {pl == 16 ? 1 : 0, 2}) {
        sum[g][0] += r.raw[pl];
        for (int v = 0; v < 4; ++v) sum[g][v + 1] += r.out[v][pl];
      }
    }
    for (int g = 0; g < 3; ++g)
      std::printf("| %s | %s | %llu | %llu | %llu | %+lld | %llu | %llu | %+lld | | |\n", name,
                  g == 0 ? "bit-planes" : g == 1 ? "expbyte" : "all", ull(sum[g][0]), ull(sum[g][1]), ull(sum[g][2]),
                  static_cast<long long>(sum[g][2] - sum[g][1]), ull(sum[g][3]), ull(sum[g][4]),
                  static_cast<long long>(sum[g][4] - sum[g][3]));
    // the verdict of docs/zstd_encoder.md ("Hash bytes"): with raw literals (the RTL's sequences
    // blocks) 4 bytes store less than 8 on the bit-planes and on all planes, so the engine keeps 4;
    // with Huffman literals 8 stores less on EXPBYTE and on all planes together
    EXPECT_LT(sum[0][1], sum[0][2]) << name;
    EXPECT_LT(sum[2][1], sum[2][2]) << name;
    EXPECT_LT(sum[1][4], sum[1][3]) << name;
    EXPECT_LT(sum[2][4], sum[2][3]) << name;
  }
}

}  // namespace
}  // namespace ndp
