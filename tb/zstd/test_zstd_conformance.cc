// zstd_decoder conformance bench (docs/zstd.md "Conformance"): the Zstandard project's golden frames
// (../shared/data/zstd-golden, checked against its README's table, not against Debian's libzstd
// 1.5.4, which is wrong on four of them), Block_Maximum_Size (min(Window_Size, 128 KiB)) on decoded
// and stored block sizes, libzstd frames with 128 KiB blocks of more than 32,512 sequences (the
// 3-byte Number_of_Sequences form) with and without matches beyond the 64 KiB history, and frames
// made with dictionaries. A frame outside what the decoder supports must end with that specific
// error at the block that needs it (reference: libzstd's block decoder limited to the same history).
#include <gtest/gtest.h>
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>

#include "Vzstd_decoder.h"
#include "zstd_env.h"

namespace ndp::tb {
namespace {

using Env = ZstdDecEnv<Vzstd_decoder>;
constexpr size_t kHist = 65536;  // the model's HistBytes

ZResult run(Env& env, const std::vector<uint8_t>& job, size_t cap) {
  return env.decode(job, static_cast<uint32_t>(cap), zstd_cycle_bound(job.size(), cap));
}

bool is_prefix(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// ---- golden frames --------------------------------------------------------------------------------

struct Golden {
  const char* file;
  const char* expected;  // decoded bytes (under the same folder), or nullptr: rejected with `code`
  uint8_t code;
};
// The README's table: "must decode" rows with their expected/ files, "must be rejected" rows with the
// decoder's code (errata-0lit-0seq-ss-window0: rejected is preferred, 0 bytes allowed; we reject it:
// single segment with content size 0 makes Block_Maximum_Size 0, and its block holds 2 bytes).
const Golden kGolden[] = {
    {"decompression/rle-first-block.zst", "decompression/expected/rle-first-block", 0},
    {"decompression/empty-block.zst", "decompression/expected/empty-block", 0},
    {"decompression/zeroSeq_2B.zst", "decompression/expected/zeroSeq_2B", 0},
    {"decompression/block-128k.zst", "decompression/expected/block-128k", 0},
    {"decompression/huffman-compressed-larger.zst", "decompression/expected/huffman-compressed-larger", 0},
    {"errata-hex/errata-first-block-rle.zst", "errata-hex/expected/errata-first-block-rle", 0},
    {"errata-hex/errata-tiny-fse-table.zst", "errata-hex/expected/errata-tiny-fse-table", 0},
    {"decompression-errors/off0.bin.zst", nullptr, kZstdErrOffset},
    {"decompression-errors/truncated_huff_state.zst", nullptr, kZstdErrHuffman},
    {"decompression-errors/zeroSeq_extraneous.zst", nullptr, kZstdErrSequences},
    {"errata-hex/errata-0lit-0seq-ss-window0.zst", nullptr, kZstdErrBlockSize},
};

TEST(ZstdConformance, GoldenFrames) {
  Env env(test_seed(), "", 0.0, 0.0);
  for (int pass = 0; pass < 2; ++pass) {  // back to back, then with input gaps and backpressure
    env.set_knobs(pass ? 0.3 : 0.0, pass ? 0.3 : 0.0);
    for (const Golden& g : kGolden) {
      std::vector<uint8_t> frame, want;
      std::string why;
      if (!load_zstd_golden(g.file, &frame, &why)) GTEST_SKIP() << why;
      if (g.expected && !load_zstd_golden(g.expected, &want, &why)) GTEST_SKIP() << why;
      const size_t cap = g.expected ? want.size() : 1u << 20;
      ZResult r = run(env, frame, cap);
      ASSERT_TRUE(r.done) << g.file << ": no status row within the cycle bound";
      if (g.expected) {
        EXPECT_EQ(r.code, 0) << g.file << ": " << zstd_err_name(r.code);
        EXPECT_TRUE(r.bytes == want) << g.file << ": " << zstd_first_diff(r.bytes, want);
      } else {
        EXPECT_EQ(r.code, g.code) << g.file << ": " << zstd_err_name(r.code) << ", want " << zstd_err_name(g.code);
      }
      if (pass == 0)
        std::printf("[zstd] golden %-46s %s, %zu bytes, %lu cycles\n", g.file, zstd_err_name(r.code), r.bytes.size(),
                    (unsigned long)r.cycles);
    }
  }
  EXPECT_TRUE(env.protocol_ok());
}

// ---- Block_Maximum_Size ---------------------------------------------------------------------------

// A frame with Window_Descriptor `wd` and no content size: an RLE block of 1536 'a', then the last
// block, compressed: no literals, one sequence from RLE tables (literal length 0, offset code 0, so
// repeat offset 2 = 4, match length `ml`, 32771..131074). With wd 0x30 (64 KiB) and ml 77876 it is
// the 22-byte frame of issue 15: 79,412 bytes, the second block 77,876 > Block_Maximum_Size.
std::vector<uint8_t> rle_match_frame(uint8_t wd, uint32_t ml) {
  const bool long_ml = ml >= 65539;  // match length code 52 (16 extra bits), else 51 (15)
  const uint32_t nbits = long_ml ? 16 : 15, extra = ml - (long_ml ? 65539 : 32771);
  const uint32_t stream = (1u << nbits) | extra;  // the extra bits under the end marker
  std::vector<uint8_t> blk = {0x00, 0x01, 0x54, 0x00, 0x00, static_cast<uint8_t>(long_ml ? 52 : 51)};
  for (uint32_t k = 0; k < (nbits + 8) / 8; ++k) blk.push_back(static_cast<uint8_t>(stream >> (8 * k)));
  std::vector<uint8_t> f = {0x28, 0xB5, 0x2F, 0xFD, 0x00, wd};
  const uint32_t rle = (1536u << 3) | (1u << 1), last = (static_cast<uint32_t>(blk.size()) << 3) | (2u << 1) | 1u;
  for (uint32_t h : {rle, last}) {
    for (int k = 0; k < 3; ++k) f.push_back(static_cast<uint8_t>(h >> (8 * k)));
    if (h == rle) f.push_back('a');
  }
  f.insert(f.end(), blk.begin(), blk.end());
  return f;
}

// A frame with a 1 KiB window and one raw block of n bytes.
std::vector<uint8_t> raw_block_frame(uint32_t n) {
  std::vector<uint8_t> f = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00};
  const uint32_t h = (n << 3) | 1u;
  for (int k = 0; k < 3; ++k) f.push_back(static_cast<uint8_t>(h >> (8 * k)));
  for (uint32_t i = 0; i < n; ++i) f.push_back(static_cast<uint8_t>(i * 7));
  return f;
}

TEST(ZstdConformance, BlockMaximumSize) {
  Env env(test_seed(), "", 0.0, 0.0);
  const std::vector<uint8_t> issue = rle_match_frame(0x30, 77876);
  ASSERT_EQ(issue.size(), 22u);
  std::vector<uint8_t> one_shot;
  const bool lib_one_shot = libzstd_decompress(issue, 1u << 20, &one_shot);
  std::printf(
      "[zstd] issue-15 frame (22 bytes, 64 KiB window, block of 77,876 bytes): libzstd one-shot %s (%zu "
      "bytes), streaming rejects it\n",
      lib_one_shot ? "accepts" : "rejects", one_shot.size());
  struct Case {
    std::vector<uint8_t> frame;
    bool ok;
    const char* what;
    size_t before = 1536;  // bytes of the blocks before the oversized one
  };
  const Case cases[] = {
      {issue, false, "64 KiB window, block decodes to 77,876"},
      {rle_match_frame(0x30, 65536), true, "64 KiB window, block decodes to 65,536 (= Window_Size)"},
      {rle_match_frame(0x30, 65537), false, "64 KiB window, block decodes to 65,537"},
      {rle_match_frame(0x31, 73728), true, "72 KiB window (mantissa 1), block of 73,728"},
      {rle_match_frame(0x31, 73729), false, "72 KiB window (mantissa 1), block of 73,729"},
      {rle_match_frame(0x38, 77876), true, "128 KiB window, block of 77,876"},
      {rle_match_frame(0x38, 131072), true, "128 KiB window, block of 131,072"},
      {rle_match_frame(0x40, 131073), false, "256 KiB window, block of 131,073 (> 128 KiB)"},
      {raw_block_frame(1024), true, "1 KiB window, raw block of 1,024"},
      {raw_block_frame(1025), false, "1 KiB window, raw block of 1,025", 0},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> ref;
    std::string err;
    ASSERT_EQ(libzstd_decompress_stream(c.frame, 1u << 20, &ref, &err), c.ok)
        << c.what << ": libzstd streaming " << err;
    ZResult r = run(env, c.frame, 1u << 20);
    ASSERT_TRUE(r.done) << c.what;
    if (c.ok) {
      EXPECT_EQ(r.code, 0) << c.what << ": " << zstd_err_name(r.code);
      EXPECT_TRUE(r.bytes == ref) << c.what << ": " << zstd_first_diff(r.bytes, ref);
    } else {
      EXPECT_EQ(r.code, kZstdErrBlockSize) << c.what << ": " << zstd_err_name(r.code);
      // the RLE block before the oversized one is all that comes out
      EXPECT_LE(r.bytes.size(), c.before) << c.what;
      EXPECT_TRUE(std::all_of(r.bytes.begin(), r.bytes.end(), [](uint8_t b) { return b == 'a'; })) << c.what;
    }
  }
  EXPECT_TRUE(env.protocol_ok());
}

// ---- 128 KiB blocks with more than 32,512 sequences -----------------------------------------------

// Low-entropy data of many short matches, none farther back than one 16 KiB segment: 3-byte words
// {tag, a, b} with tag = segment index mod 64 (< 64) and a, b in 64..255, from a vocabulary of
// `vocab` words drawn per segment. Every 3-byte window holds exactly one byte below 64, at its word
// phase, naming its segment, so equal windows lie in one segment (or across its start).
std::vector<uint8_t> word_data(Rng& g, size_t n, unsigned vocab) {
  constexpr size_t kSeg = 16384;
  std::vector<uint8_t> words(3 * vocab), out(n);
  for (size_t i = 0; i < n; i += 3) {
    if (i % kSeg < 3)
      for (size_t k = 0; k < words.size(); ++k)
        words[k] = static_cast<uint8_t>(k % 3 == 0 ? (i / kSeg) % 64 : 64 + g.range(0, 191));
    const size_t w = 3 * g.range(0, vocab - 1);
    for (size_t k = 0; k < 3 && i + k < n; ++k) out[i + k] = words[w + k];
  }
  return out;
}

struct Verdict {
  bool ok = false;       // decoded exactly
  bool history = false;  // ErrHistory where the frame first needs more than 64 KiB
  size_t blocks_3byte = 0;
};

// Decodes a campaign frame. far < 0: every match of the data lies within 16 KiB (word_data), so it
// must decode exactly. far >= 0: the sequence whose match starts at byte `far` is the first with an
// offset above 64 KiB, so it must end with ErrHistory inside the block holding that byte, after every
// earlier byte (a prefix of at most `far` bytes). Cross-checks: libzstd's block decoder with the whole
// output as history decodes it; with 64 KiB of history before each block (more lenient than the
// decoder's sliding 64 KiB by up to the block's own bytes) it decodes every block before that one.
Verdict decode_checked(Env& env, const std::string& name, const std::vector<uint8_t>& frame,
                       const std::vector<uint8_t>& src, int64_t far) {
  Verdict v;
  std::vector<uint8_t> full, lim;
  std::vector<ZstdBlock> fb, lb;
  EXPECT_EQ(libzstd_history_decode(frame, src.size(), &full, &fb), -1) << name << ": the reference fails";
  EXPECT_TRUE(full == src) << name << ": reference " << zstd_first_diff(full, src);
  const int lenient = libzstd_history_decode(frame, kHist, &lim, &lb);
  ZResult r = run(env, frame, src.size());
  EXPECT_TRUE(r.done) << name << ": no status row within the cycle bound";
  if (::testing::Test::HasFailure()) return v;
  if (far < 0) {
    EXPECT_EQ(lenient, -1) << name << ": libzstd needs more than 64 KiB of history";
    EXPECT_EQ(r.code, 0) << name << ": " << zstd_err_name(r.code);
    EXPECT_TRUE(r.bytes == src) << name << ": " << zstd_first_diff(r.bytes, src);
    v.ok = r.code == 0 && r.bytes == src;
    for (const ZstdBlock& b : fb) v.blocks_3byte += v.ok && b.nseq_3byte;
    return v;
  }
  size_t k = 0;
  while (k + 1 < fb.size() && fb[k].out_end <= static_cast<uint64_t>(far)) ++k;
  EXPECT_TRUE(lenient < 0 || static_cast<size_t>(lenient) >= k) << name << ": libzstd fails in block " << lenient;
  EXPECT_EQ(r.code, kZstdErrHistory) << name << ": " << zstd_err_name(r.code) << ", want history in block " << k;
  EXPECT_TRUE(is_prefix(r.bytes, src)) << name << ": " << zstd_first_diff(r.bytes, src);
  EXPECT_GE(r.bytes.size(), fb[k].out_begin) << name << ": stopped before block " << k;
  EXPECT_LE(r.bytes.size(), static_cast<uint64_t>(far)) << name << ": bytes past the far match";
  v.history = r.code == kZstdErrHistory;
  for (size_t i = 0; i < k; ++i) v.blocks_3byte += fb[i].nseq_3byte;
  return v;
}

TEST(ZstdConformance, LargeBlocksManySequences) {
  Env env(test_seed(), "", 0.0, 0.0);
  Rng g(test_seed() ^ 0x5e9);
  size_t exact = 0, history = 0, blocks_3byte = 0, max_nseq = 0;
  constexpr int kFrames = 10;
  for (int i = 0; i < kFrames; ++i) {
    std::vector<uint8_t> src = word_data(g, 2 * 131072 + g.range(1000, 60000), i % 2 ? 96 : 128);
    int64_t far = -1;
    if (i == 4 || i == 9) {  // 3 KiB of block 1 repeated from 70..120 KB back (another segment)
      const size_t p = 3 * (g.range(133000, 258000) / 3), d = 3 * (g.range(70000, 120000) / 3);
      std::copy(src.begin() + static_cast<std::ptrdiff_t>(p - d),
                src.begin() + static_cast<std::ptrdiff_t>(p - d + 3000), src.begin() + static_cast<std::ptrdiff_t>(p));
      far = static_cast<int64_t>(p);
    }
    ZstdParams zp;
    zp.level = 19;
    zp.window_log = i % 4 == 3 ? 18 : 17;
    zp.checksum = i % 3 == 0;
    zp.split_blocks = i == 8;  // libzstd's default block splitter on one frame, whole 128 KiB blocks on the rest
    const std::vector<uint8_t> frame = libzstd_compress(src, zp);
    ASSERT_FALSE(frame.empty());
    std::vector<ZstdBlock> blocks;
    ASSERT_TRUE(zstd_frame_blocks(frame, &blocks));
    for (const ZstdBlock& b : blocks) max_nseq = std::max<size_t>(max_nseq, b.nseq);
    env.set_knobs(i % 3 == 2 ? 0.3 : 0.0, i % 3 == 2 ? 0.3 : 0.0);
    const std::string name = "frame " + std::to_string(i) + (far >= 0 ? " (far match)" : "");
    Verdict v = decode_checked(env, name, frame, src, far);
    if (::testing::Test::HasFailure()) return;
    exact += v.ok;
    history += v.history;
    blocks_3byte += v.blocks_3byte;
  }
  std::printf(
      "[zstd] 128 KiB blocks: %d libzstd frames (level 19, window 2^17/2^18), %zu decoded exactly, %zu "
      "rejected with ErrHistory at the sequence needing it; %zu blocks in the 3-byte Number_of_Sequences "
      "form decoded, up to %zu sequences in a block\n",
      kFrames, exact, history, blocks_3byte, max_nseq);
  EXPECT_EQ(exact, size_t{kFrames - 2});
  EXPECT_EQ(history, 2u);
  EXPECT_GE(blocks_3byte, 8u);
  EXPECT_TRUE(env.protocol_ok());
}

// ---- dictionaries ---------------------------------------------------------------------------------

TEST(ZstdConformance, Dictionaries) {
  std::vector<uint8_t> text;
  std::string why;
  if (!load_reference_text(&text, &why)) GTEST_SKIP() << why;
  // samples: 1 KiB pieces of the RFC text; the frames compress one more piece
  std::vector<size_t> sizes;
  for (size_t p = 0; p + 1024 <= text.size() && sizes.size() < 100; p += 1024) sizes.push_back(1024);
  std::vector<uint8_t> dict(8192);
  const size_t dn =
      ZDICT_trainFromBuffer(dict.data(), dict.size(), text.data(), sizes.data(), static_cast<unsigned>(sizes.size()));
  ASSERT_FALSE(ZDICT_isError(dn)) << ZDICT_getErrorName(dn);
  dict.resize(dn);
  const std::vector<uint8_t> src(text.begin() + 40 * 1024, text.begin() + 44 * 1024);
  Env env(test_seed(), "", 0.0, 0.0);
  // 1. a trained dictionary with its ID in the frame header: ErrFrameHdr, no output
  ZstdParams zp;
  zp.level = 3;
  zp.dict = dict;
  std::vector<uint8_t> f = libzstd_compress(src, zp);
  ZResult r = run(env, f, src.size());
  EXPECT_EQ(r.code, kZstdErrFrameHdr) << zstd_err_name(r.code);
  EXPECT_TRUE(r.bytes.empty());
  // 2. raw content (no ID): the first match into the dictionary is an offset before the frame start
  zp.dict.assign(text.begin() + 36 * 1024, text.begin() + 40 * 1024);
  f = libzstd_compress(src, zp);
  r = run(env, f, src.size());
  std::vector<uint8_t> lim;
  std::vector<ZstdBlock> lb;
  EXPECT_EQ(libzstd_history_decode(f, kHist, &lim, &lb), 0) << "libzstd without the dictionary must reject block 0";
  EXPECT_EQ(r.code, kZstdErrOffset) << zstd_err_name(r.code);
  EXPECT_TRUE(is_prefix(r.bytes, src));
  // 3. the trained dictionary's ID left out (ZSTD_c_dictIDFlag 0): the first block that reuses its
  //    entropy tables or reaches into its content ends with ErrNoTable or ErrOffset
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(c, ZSTD_c_dictIDFlag, 0);
  ZSTD_CCtx_loadDictionary(c, dict.data(), dict.size());
  f.assign(ZSTD_compressBound(src.size()), 0);
  const size_t n = ZSTD_compress2(c, f.data(), f.size(), src.data(), src.size());
  ZSTD_freeCCtx(c);
  ASSERT_FALSE(ZSTD_isError(n));
  f.resize(n);
  r = run(env, f, src.size());
  EXPECT_TRUE(r.code == kZstdErrNoTable || r.code == kZstdErrOffset) << zstd_err_name(r.code);
  EXPECT_TRUE(is_prefix(r.bytes, src));
  EXPECT_EQ(libzstd_history_decode(f, kHist, &lim, &lb), 0) << "libzstd without the dictionary must reject block 0";
  std::printf("[zstd] dictionaries: with ID -> frame_header; raw content -> offset; trained without ID -> %s\n",
              zstd_err_name(r.code));
  EXPECT_TRUE(env.protocol_ok());
}

}  // namespace
}  // namespace ndp::tb
