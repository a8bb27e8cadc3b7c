// Block encoder/decoder: round trips per policy, the codec choice rules, and corrupted blocks.
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "ndp/block.h"
#include "ndp/huffman_frame.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

constexpr uint32_t kSeed = 20240611;

std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}
// Exponent-byte-like: a peak near 120 with geometric tails, like trained BF16 weights.
std::vector<uint8_t> skewed_bytes(std::mt19937& rng, size_t n, double p = 0.45) {
  std::geometric_distribution<int> g(p);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(std::max(0, 122 - g(rng) - static_cast<int>(rng() % 2)));
  return v;
}
std::vector<uint8_t> sparse_bits(std::mt19937& rng, size_t n, double p) {
  std::bernoulli_distribution bd(p);
  std::vector<uint8_t> v(n, 0);
  for (size_t i = 0; i < 8 * n; ++i)
    if (bd(rng)) v[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  return v;
}

uint64_t bursts(uint64_t b) { return (b + 63) / 64; }

// Independent restatement of the section 3 choice rule, from libzstd/liblz4 directly.
Codec expected_codec(const std::vector<uint8_t>& p, uint8_t plane_id, CodecPolicy pol) {
  bool eq = true;
  for (uint8_t b : p) eq = eq && b == p[0];
  if (eq) return Codec::kConst;
  size_t lz = 0, zs = 0;
  if (pol == CodecPolicy::kAuto || pol == CodecPolicy::kLz4) {
    std::vector<char> buf(static_cast<size_t>(LZ4_compressBound(static_cast<int>(p.size()))));
    lz = static_cast<size_t>(LZ4_compress_default(reinterpret_cast<const char*>(p.data()), buf.data(),
                                                  static_cast<int>(p.size()), static_cast<int>(buf.size())));
  }
  if (pol == CodecPolicy::kAuto || pol == CodecPolicy::kZstd) {
    std::vector<uint8_t> buf(ZSTD_compressBound(p.size()));
    zs = ZSTD_compress(buf.data(), buf.size(), p.data(), p.size(), 3);
    if (plane_id == 0x40) {
      std::vector<uint8_t> h;
      if (write_huffman_frame(p.data(), p.size(), h)) zs = std::min(zs, h.size());
    }
  }
  const bool lp = lz && bursts(lz) < bursts(p.size()), zp = zs && bursts(zs) < bursts(p.size());
  if (zp && (!lp || zs < lz)) return Codec::kZstd;
  if (lp) return Codec::kLz4;
  return Codec::kRaw;
}

struct Encoded {
  std::vector<uint8_t> stored;
  BlockInfo info;
};

Encoded enc(const std::vector<uint8_t>& p, uint8_t plane, uint64_t id, CodecPolicy pol, bool guard = false) {
  Encoded e;
  auto r = encode_block(p.data(), p.size(), plane, id, pol, guard, e.stored);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) e.info = r.value();
  return e;
}

// Decode into a buffer with a canary tail; fails the test if anything beyond raw_size is written.
Status dec(const std::vector<uint8_t>& s, size_t avail, const BlockExpect& x, std::vector<uint8_t>* out) {
  std::vector<uint8_t> buf(x.raw_size + 64, 0xA5);
  Status st = decode_block(s.data(), avail, x, buf.data());
  for (size_t i = x.raw_size; i < buf.size(); ++i) EXPECT_EQ(buf[i], 0xA5) << "write beyond raw_size at " << i;
  buf.resize(x.raw_size);
  if (out) *out = buf;
  return st;
}

BlockExpect expect_of(const std::vector<uint8_t>& p, uint8_t plane, uint64_t id) {
  BlockExpect x;
  x.plane_id = plane;
  x.block_id = id;
  x.raw_size = static_cast<uint32_t>(p.size());
  x.what = "test block";
  return x;
}

TEST(BlockCodec, RoundTripEveryPolicyAndChoiceRule) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed));
  int seen[4] = {0, 0, 0, 0}, huff = 0;
  const size_t sizes[] = {1, 2, 7, 63, 64, 65, 200, 1000, 1024, 4095, 4096, 8192, 32768, 65535, 65536};
  for (size_t n : sizes)
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<uint8_t> p;
      switch (kind) {
        case 0: p = random_bytes(rng, n); break;
        case 1: p = skewed_bytes(rng, n); break;
        case 2: p = sparse_bits(rng, n, 0.02); break;
        case 3: p.assign(n, static_cast<uint8_t>(rng())); break;
        default: p = sparse_bits(rng, n, 0.3); break;
      }
      for (uint8_t plane : {uint8_t{0x40}, uint8_t{6}, uint8_t{0x41}})
        for (CodecPolicy pol : {CodecPolicy::kAuto, CodecPolicy::kLz4, CodecPolicy::kZstd, CodecPolicy::kRaw}) {
          const uint64_t id = 70000 + n;  // > 65535: stored modulo 65536
          Encoded e = enc(p, plane, id, pol);
          ASSERT_EQ(e.info.codec, expected_codec(p, plane, pol)) << "n=" << n << " kind=" << kind;
          ASSERT_EQ(e.stored.size(), kBlockHeaderBytes + e.info.comp_size);
          seen[static_cast<int>(e.info.codec)]++;
          huff += e.info.huffman_frame;
          if (e.info.huffman_frame) {
            EXPECT_EQ(plane, 0x40);
          }
          std::vector<uint8_t> out;
          size_t used = 0;
          std::vector<uint8_t> buf(n);
          ASSERT_TRUE(decode_block(e.stored.data(), e.stored.size(), expect_of(p, plane, id), buf.data(), &used).ok());
          EXPECT_EQ(used, e.stored.size());
          Status st = dec(e.stored, e.stored.size(), expect_of(p, plane, id), &out);
          ASSERT_TRUE(st.ok()) << st.message();
          ASSERT_EQ(out, p) << "n=" << n << " kind=" << kind;
        }
    }
  for (int c = 0; c < 4; ++c) EXPECT_GT(seen[c], 0) << codec_name(static_cast<Codec>(c));
  EXPECT_GT(huff, 0);
}

TEST(BlockCodec, PolicyRestrictsCandidates) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 1));
  auto p = sparse_bits(rng, 4096, 0.01);
  EXPECT_EQ(enc(p, 2, 0, CodecPolicy::kRaw).info.codec, Codec::kRaw);
  EXPECT_EQ(enc(p, 2, 0, CodecPolicy::kLz4).info.codec, Codec::kLz4);
  EXPECT_EQ(enc(p, 2, 0, CodecPolicy::kZstd).info.codec, Codec::kZstd);
  std::vector<uint8_t> c(4096, 0);
  EXPECT_EQ(enc(c, 2, 0, CodecPolicy::kRaw).info.codec, Codec::kConst);  // CONST always wins
}

TEST(BlockCodec, RawBypassNeedsOneBurst) {
  // 4096 random bytes with a zero run: compressed saves bytes, but a block only pays when it
  // saves a whole 64-byte burst.
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 2));
  int paid = 0, bypassed = 0;
  for (size_t zeros = 0; zeros < 400; zeros += 8) {
    auto p = random_bytes(rng, 4096);
    std::fill(p.begin(), p.begin() + static_cast<long>(zeros), 0);
    Encoded e = enc(p, 1, 0, CodecPolicy::kLz4);
    std::vector<char> buf(LZ4_compressBound(4096));
    const int lz = LZ4_compress_default(reinterpret_cast<const char*>(p.data()), buf.data(), 4096, static_cast<int>(buf.size()));
    const bool pays = bursts(static_cast<uint64_t>(lz)) < 64;
    EXPECT_EQ(e.info.codec, pays ? Codec::kLz4 : Codec::kRaw) << zeros << " lz4=" << lz;
    (pays ? paid : bypassed)++;
    if (lz < 4096 && !pays) {
      EXPECT_EQ(e.info.comp_size, 4096u);
    }
  }
  EXPECT_GT(paid, 0);
  EXPECT_GT(bypassed, 0);
}

TEST(BlockCodec, HuffmanFrameOnlyForExpBytePlane) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 3));
  auto p = skewed_bytes(rng, 32768);
  Encoded a = enc(p, 0x40, 1, CodecPolicy::kAuto);
  Encoded b = enc(p, 0x05, 1, CodecPolicy::kAuto);
  EXPECT_TRUE(a.info.huffman_frame);
  EXPECT_FALSE(b.info.huffman_frame);
  EXPECT_LE(a.info.comp_size, b.info.comp_size);
  // libzstd decodes the stored payload like any frame.
  std::vector<uint8_t> out(p.size());
  EXPECT_EQ(ZSTD_decompress(out.data(), out.size(), a.stored.data() + 12, a.info.comp_size), p.size());
  EXPECT_EQ(out, p);
}

TEST(BlockCodec, GuardFlagStoredAndIgnoredOnRead) {
  std::vector<uint8_t> p(300);
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 7);
  Encoded e = enc(p, 4, 9, CodecPolicy::kAuto, true);
  EXPECT_EQ(e.stored[3] & 0x10, 0x10);
  EXPECT_TRUE(dec(e.stored, e.stored.size(), expect_of(p, 4, 9), nullptr).ok());
  e.stored[3] &= 0xEF;
  EXPECT_TRUE(dec(e.stored, e.stored.size(), expect_of(p, 4, 9), nullptr).ok());
}

TEST(BlockCodec, EncoderRejectsBadArguments) {
  std::vector<uint8_t> out, big(65537, 1);
  EXPECT_FALSE(encode_block(big.data(), 0, 1, 0, CodecPolicy::kAuto, false, out).ok());
  EXPECT_FALSE(encode_block(big.data(), big.size(), 1, 0, CodecPolicy::kAuto, false, out).ok());
  EXPECT_FALSE(encode_block(big.data(), 10, 0x42, 0, CodecPolicy::kAuto, false, out).ok());
  EXPECT_TRUE(out.empty());
}

// Small blocks of every codec for the corruption tests.
std::vector<std::pair<std::vector<uint8_t>, Encoded>> corpus_blocks(uint8_t* planes) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 4));
  std::vector<std::pair<std::vector<uint8_t>, Encoded>> v;
  auto add = [&](std::vector<uint8_t> p, uint8_t plane, CodecPolicy pol, Codec want, bool huf) {
    Encoded e = enc(p, plane, 3, pol);
    EXPECT_EQ(e.info.codec, want);
    EXPECT_EQ(e.info.huffman_frame, huf);
    planes[v.size()] = plane;
    v.emplace_back(std::move(p), std::move(e));
  };
  add(random_bytes(rng, 80), 7, CodecPolicy::kAuto, Codec::kRaw, false);
  add(std::vector<uint8_t>(100, 0x3C), 7, CodecPolicy::kAuto, Codec::kConst, false);
  std::vector<uint8_t> text(300);
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<uint8_t>("abcdefgh"[i % 8] + (i % 97 == 0));
  add(text, 7, CodecPolicy::kLz4, Codec::kLz4, false);
  add(sparse_bits(rng, 400, 0.03), 7, CodecPolicy::kZstd, Codec::kZstd, false);
  add(skewed_bytes(rng, 600, 0.6), 0x40, CodecPolicy::kZstd, Codec::kZstd, true);
  add(skewed_bytes(rng, 3000, 0.5), 0x40, CodecPolicy::kZstd, Codec::kZstd, true);
  return v;
}

TEST(BlockCodec, EverySingleBitFlipIsDetected) {
  uint8_t planes[8];
  auto blocks = corpus_blocks(planes);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& [p, e] = blocks[b];
    const BlockExpect x = expect_of(p, planes[b], 3);
    ASSERT_TRUE(dec(e.stored, e.stored.size(), x, nullptr).ok());
    // A flip must give an error, except where the formats leave a bit without meaning (the GUARD
    // flag; an LZ4 match offset or the unused low nibble of an odd direct Huffman weight list can
    // change without changing the decoded bytes): then the decoded plane must be bit-exact.
    size_t detected = 0, harmless = 0;
    for (size_t bit = 0; bit < 8 * e.stored.size(); ++bit) {
      std::vector<uint8_t> s = e.stored, out;
      s[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      Status st = dec(s, s.size(), x, &out);
      if (bit == 3 * 8 + 4) {  // the GUARD flag is informational: either value decodes
        EXPECT_TRUE(st.ok()) << st.message();
        continue;
      }
      if (st.ok()) {
        EXPECT_EQ(out, p) << "undetected corruption: block " << b << " bit " << bit;
        ++harmless;
        std::printf("block %zu (%s): bit %zu flips harmlessly\n", b, codec_name(e.info.codec), bit);
      } else {
        EXPECT_NE(st.message().find("test block"), std::string::npos) << st.message();
        ++detected;
      }
    }
    if (e.info.codec == Codec::kRaw || e.info.codec == Codec::kConst) {
      EXPECT_EQ(harmless, 0u) << "block " << b;
    }
    EXPECT_LE(harmless * 100, 3 * 8 * e.stored.size()) << "block " << b;
    EXPECT_EQ(detected + harmless + 1, 8 * e.stored.size());
  }
}

TEST(BlockCodec, TruncationAtEveryLength) {
  uint8_t planes[8];
  auto blocks = corpus_blocks(planes);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& [p, e] = blocks[b];
    for (size_t len = 0; len < e.stored.size(); ++len) {
      std::vector<uint8_t> s(e.stored.begin(), e.stored.begin() + static_cast<long>(len));
      EXPECT_FALSE(dec(s, len, expect_of(p, planes[b], 3), nullptr).ok()) << b << " len " << len;
    }
  }
}

TEST(BlockCodec, WrongExpectationsAreErrors) {
  uint8_t planes[8];
  auto blocks = corpus_blocks(planes);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& [p, e] = blocks[b];
    BlockExpect x = expect_of(p, planes[b], 3);
    x.plane_id = planes[b] == 7 ? 6 : 0x41;
    Status st = dec(e.stored, e.stored.size(), x, nullptr);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("plane id"), std::string::npos) << st.message();
    x = expect_of(p, planes[b], 3 + 65536);  // same low 16 bits: fine
    EXPECT_TRUE(dec(e.stored, e.stored.size(), x, nullptr).ok());
    x = expect_of(p, planes[b], 4);
    st = dec(e.stored, e.stored.size(), x, nullptr);
    EXPECT_NE(st.message().find("block id"), std::string::npos) << st.message();
    for (int d : {-1, 1}) {
      x = expect_of(p, planes[b], 3);
      x.raw_size = static_cast<uint32_t>(static_cast<int>(p.size()) + d);
      st = dec(e.stored, e.stored.size(), x, nullptr);
      EXPECT_NE(st.message().find("raw_size"), std::string::npos) << st.message();
    }
  }
}

TEST(BlockCodec, UnknownCodecAndReservedFlagsOnStoredBlocks) {
  uint8_t planes[8];
  auto blocks = corpus_blocks(planes);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& [p, e] = blocks[b];
    for (int v = 0; v < 256; ++v) {
      std::vector<uint8_t> s = e.stored;
      s[3] = static_cast<uint8_t>(v);
      const bool valid_form = (v & 0x0F) == (e.stored[3] & 0x0F) && (v & 0xE0) == 0;
      EXPECT_EQ(dec(s, s.size(), expect_of(p, planes[b], 3), nullptr).ok(), valid_form) << b << " byte3=" << v;
    }
  }
}

TEST(BlockCodec, PaddingBitsMustBeZero) {
  // A bit-plane of 13 elements: 2 bytes, the top 3 bits of byte 1 are padding.
  std::vector<uint8_t> p = {0x5A, 0x1F};
  Encoded e = enc(p, 3, 0, CodecPolicy::kAuto);
  BlockExpect x = expect_of(p, 3, 0);
  x.pad_mask = 0xE0;
  EXPECT_TRUE(dec(e.stored, e.stored.size(), x, nullptr).ok());
  std::vector<uint8_t> bad = {0x5A, 0x3F};
  Encoded f = enc(bad, 3, 0, CodecPolicy::kAuto);
  Status st = dec(f.stored, f.stored.size(), x, nullptr);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("padding"), std::string::npos);
}

TEST(BlockCodec, RejectsForeignZstdFrames) {
  // A frame with a content checksum or without the content size is not a valid payload.
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 5));
  auto p = sparse_bits(rng, 2000, 0.02);
  ZSTD_CCtx* c = ZSTD_createCCtx();
  for (int variant = 0; variant < 2; ++variant) {
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, variant == 0);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, variant == 1 ? 0 : 1);
    std::vector<uint8_t> frame(ZSTD_compressBound(p.size()));
    frame.resize(ZSTD_compress2(c, frame.data(), frame.size(), p.data(), p.size()));
    BlockHeader h;
    h.plane_id = 2;
    h.codec = Codec::kZstd;
    h.raw_size = static_cast<uint32_t>(p.size());
    h.comp_size = static_cast<uint32_t>(frame.size());
    h.checksum = block_checksum(p.data(), p.size());
    std::vector<uint8_t> s(12);
    serialize_block_header(h, s.data());
    s.insert(s.end(), frame.begin(), frame.end());
    EXPECT_FALSE(dec(s, s.size(), expect_of(p, 2, 0), nullptr).ok()) << variant;
  }
  ZSTD_freeCCtx(c);
}

}  // namespace
}  // namespace ndp
