// zstd_lane_dec bench: the codec lane's ZSTD payload path on blocks written by the golden model
// (sw/codec BlockEncoder, CodecPolicy::kZstd): EXPBYTE planes (literals-only Huffman frames or
// libzstd level 3, whichever the encoder picks) and mantissa/sign bit-planes (libzstd level 3) of
// stories260K, decoded from their payloads with raw_size as the capacity, plus the payload rules of
// docs/spec.md section 3 (single-segment descriptor, no checksum, exactly one frame, raw_size),
// each checked against the golden BlockDecoder's verdict.
#include <gtest/gtest.h>

#include <cstdio>

#include "Vzstd_lane_dec.h"
#include "ndp/block.h"
#include "zstd_env.h"

namespace ndp::tb {
namespace {

using Env = ZstdDecEnv<Vzstd_lane_dec>;
constexpr uint8_t kRuleFhd = 16, kRuleFrames = 17, kRuleSize = 18;

uint64_t bound(size_t in, size_t cap) { return zstd_cycle_bound(in, cap); }

// A stored block split into header fields and payload.
struct Stored {
  BlockHeader h;
  std::vector<uint8_t> payload, plane;
};

// Golden verdict on a (possibly modified) block: BlockDecoder on header + payload.
bool golden_ok(const Stored& s, const std::vector<uint8_t>& payload, uint32_t raw) {
  BlockHeader h = s.h;
  h.raw_size = raw;
  h.comp_size = static_cast<uint32_t>(payload.size());
  if (h.comp_size == 0 || h.comp_size > kMaxPlaneBytes) return false;
  std::vector<uint8_t> blk(kBlockHeaderBytes);
  serialize_block_header(h, blk.data());
  blk.insert(blk.end(), payload.begin(), payload.end());
  BlockDecoder dec;
  BlockExpect e;
  e.plane_id = h.plane_id;
  e.block_id = h.block_id;
  e.raw_size = raw;
  std::vector<uint8_t> out(raw);
  return dec.decode(blk.data(), blk.size(), e, out.data()).ok();
}

TEST(ZstdLaneDec, GoldenModelBlocks) {
  std::vector<ZstdVector> planes;
  std::string why;
  if (!load_plane_blocks(4096, &planes, &why)) GTEST_SKIP() << why;
  BlockEncoder enc;
  std::vector<Stored> blocks;
  size_t huffman = 0;
  for (size_t i = 0; i < planes.size() && blocks.size() < 240; ++i) {
    const std::vector<uint8_t>& p = planes[i].orig;
    const uint8_t plane_id = p.size() == 4096 ? 0x40 : static_cast<uint8_t>(i % 8);
    std::vector<uint8_t> out;
    Result<BlockInfo> r = enc.encode(p.data(), p.size(), plane_id, i, CodecPolicy::kZstd, false, out);
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (r.value().codec != Codec::kZstd) continue;  // CONST or RAW (no burst saved)
    Result<BlockHeader> h = parse_block_header(out.data(), out.size());
    ASSERT_TRUE(h.ok());
    Stored s{h.value(), std::vector<uint8_t>(out.begin() + kBlockHeaderBytes, out.end()), p};
    huffman += r.value().huffman_frame;
    blocks.push_back(std::move(s));
  }
  ASSERT_GT(blocks.size(), 20u);
  ASSERT_GT(huffman, 0u);
  ASSERT_LT(huffman, blocks.size());  // both libzstd and Huffman payloads
  Env env(test_seed(), "", 0.0, 0.0);
  uint64_t bytes = 0, cycles = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Stored& s = blocks[i];
    env.set_knobs(i % 4 == 3 ? 0.3 : 0.0, i % 4 == 3 ? 0.3 : 0.0);
    ZResult r = env.decode(s.payload, s.h.raw_size, bound(s.payload.size(), s.h.raw_size));
    ASSERT_TRUE(r.done) << "block " << i << ": no status row";
    ASSERT_EQ(r.code, 0) << "block " << i << ": code " << int(r.code);
    ASSERT_TRUE(r.bytes == s.plane) << "block " << i << ": decoded bytes differ";
    bytes += r.bytes.size();
    cycles += r.cycles;
  }
  EXPECT_TRUE(env.protocol_ok());
  std::printf("[zstd-lane] %zu golden-model ZSTD blocks (%zu Huffman frames, %zu libzstd), %lu bytes, %.3f output "
              "bytes/cycle\n", blocks.size(), huffman, blocks.size() - huffman, (unsigned long)bytes,
              double(bytes) / double(cycles));

  // Payload rules: each modification must be rejected with the expected code, as the golden model
  // rejects the block.
  const Stored& s = blocks[0];
  const uint32_t raw = s.h.raw_size;
  auto expect_code = [&](const std::vector<uint8_t>& payload, uint32_t cap, uint8_t code, const char* what) {
    ZResult r = env.decode(payload, cap, bound(payload.size(), cap));
    ASSERT_TRUE(r.done) << what;
    EXPECT_EQ(r.code, code) << what;
    EXPECT_LE(r.bytes.size(), cap) << what;
    EXPECT_FALSE(golden_ok(s, payload, cap)) << what << ": the golden model accepts it";
  };
  env.set_knobs(0.0, 0.0);
  ASSERT_TRUE(golden_ok(s, s.payload, raw));
  // a content checksum (libzstd frame with checksum and content size, single segment)
  std::vector<uint8_t> ck = libzstd_compress(s.plane, 3, true);
  ASSERT_TRUE(ck.size() > 5 && (ck[4] & 0x04));
  expect_code(ck, raw, kRuleFhd, "frame with a content checksum");
  // not single segment: descriptor bit 5 cleared plus a window byte (a valid RFC frame)
  {
    std::vector<uint8_t> f = s.payload;
    const uint8_t fhd = f[4];
    const int fcs_bytes = (fhd >> 6) == 0 ? 1 : (fhd >> 6) == 1 ? 2 : (fhd >> 6) == 2 ? 4 : 8;
    if ((fhd >> 6) != 0) {  // keep the FCS field (a 1-byte field needs the single-segment flag)
      f[4] = static_cast<uint8_t>(fhd & ~0x20);
      f.insert(f.begin() + 5, static_cast<uint8_t>(0x80));  // window 2^(10+16)
      std::vector<uint8_t> ref;
      ASSERT_TRUE(libzstd_decompress(f, raw, &ref)) << "the rewritten frame is valid zstd";
      ASSERT_TRUE(ref == s.plane);
      expect_code(f, raw, kRuleFhd, "frame without Single_Segment");
    }
    (void)fcs_bytes;
  }
  // a second frame (skippable) after the frame: the frame does not end at the payload end
  {
    std::vector<uint8_t> f = s.payload;
    const uint8_t skip[] = {0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 7, 7};
    f.insert(f.end(), std::begin(skip), std::end(skip));
    expect_code(f, raw, kRuleFrames, "frame followed by a skippable frame");
  }
  // raw_size larger than the content: fewer bytes than raw_size (ErrContentSize is not hit: the
  // content size field matches what the frame produces)
  expect_code(s.payload, raw + 1, kRuleSize, "raw_size above the content size");
  // raw_size smaller than the content: the decoder stops at the capacity
  expect_code(s.payload, raw - 1, 12, "raw_size below the content size");
  // a bad magic number
  {
    std::vector<uint8_t> f = s.payload;
    f[0] ^= 1;
    expect_code(f, raw, kRuleFhd, "bad magic");
  }
  // the last payload byte dropped (truncated frame)
  expect_code(std::vector<uint8_t>(s.payload.begin(), s.payload.end() - 1), raw, 2, "truncated payload");
  // and a valid block afterwards still decodes (no state left behind)
  ZResult again = env.decode(s.payload, raw, bound(s.payload.size(), raw));
  EXPECT_EQ(again.code, 0);
  EXPECT_TRUE(again.bytes == s.plane);
  EXPECT_TRUE(env.protocol_ok());
}

}  // namespace
}  // namespace ndp::tb
