#include <gtest/gtest.h>

#include "ndp/block.h"

namespace ndp {
namespace {

TEST(BlockHeader, RoundTripAndModuloSizes) {
  for (uint32_t raw : {1u, 2u, 4096u, 65535u, 65536u}) {
    BlockHeader h;
    h.block_id = 0xBEEF;
    h.plane_id = 0x40;
    h.codec = Codec::kRaw;
    h.guard = true;
    h.raw_size = raw;
    h.comp_size = raw;
    h.checksum = 0x12345678;
    uint8_t b[12];
    serialize_block_header(h, b);
    EXPECT_EQ(b[0], 0xEF);
    EXPECT_EQ(b[1], 0xBE);
    EXPECT_EQ(b[2], 0x40);
    EXPECT_EQ(b[3], 0x10);
    EXPECT_EQ(b[4] | (b[5] << 8), static_cast<int>(raw & 0xFFFF));
    EXPECT_EQ(b[8], 0x78);
    EXPECT_EQ(b[11], 0x12);
    auto r = parse_block_header(b, 12);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->block_id, 0xBEEF);
    EXPECT_EQ(r->raw_size, raw);
    EXPECT_EQ(r->comp_size, raw);
    EXPECT_TRUE(r->guard);
    EXPECT_EQ(r->checksum, 0x12345678u);
  }
}

BlockHeader valid_lz4() {
  BlockHeader h;
  h.plane_id = 3;
  h.codec = Codec::kLz4;
  h.raw_size = 4096;
  h.comp_size = 100;
  return h;
}

TEST(BlockHeader, RejectsUnknownCodecs) {
  uint8_t b[12];
  serialize_block_header(valid_lz4(), b);
  for (int c = 4; c < 16; ++c) {
    b[3] = static_cast<uint8_t>(c);
    auto r = parse_block_header(b, 12, "blk7");
    ASSERT_FALSE(r.ok()) << c;
    EXPECT_NE(r.status().message().find("blk7: unknown codec"), std::string::npos) << r.status().message();
  }
}

TEST(BlockHeader, RejectsReservedFlags) {
  uint8_t b[12];
  serialize_block_header(valid_lz4(), b);
  for (int f : {0x20, 0x40, 0x80, 0xE0, 0x30}) {
    b[3] = static_cast<uint8_t>(2 | f);
    auto r = parse_block_header(b, 12);
    ASSERT_FALSE(r.ok()) << f;
    EXPECT_NE(r.status().message().find("reserved flag"), std::string::npos);
  }
  b[3] = 2 | 0x10;  // GUARD alone is fine
  EXPECT_TRUE(parse_block_header(b, 12).ok());
}

TEST(BlockHeader, PlaneIds) {
  uint8_t b[12];
  serialize_block_header(valid_lz4(), b);
  for (int p = 0; p < 256; ++p) {
    b[2] = static_cast<uint8_t>(p);
    const bool ok = p < 32 || p == 0x40 || p == 0x41;
    EXPECT_EQ(parse_block_header(b, 12).ok(), ok) << p;
    EXPECT_EQ(plane_id_defined(static_cast<uint8_t>(p)), ok);
  }
}

TEST(BlockHeader, CodecSizeRules) {
  BlockHeader h = valid_lz4();
  uint8_t b[12];
  h.codec = Codec::kRaw;  // RAW needs comp == raw
  serialize_block_header(h, b);
  EXPECT_FALSE(parse_block_header(b, 12).ok());
  h.codec = Codec::kConst;  // CONST needs comp == 1
  serialize_block_header(h, b);
  EXPECT_FALSE(parse_block_header(b, 12).ok());
  h.comp_size = 1;
  serialize_block_header(h, b);
  EXPECT_TRUE(parse_block_header(b, 12).ok());
  h.codec = Codec::kZstd;  // comp 65536 only for RAW
  h.raw_size = 65536;
  h.comp_size = 65536;
  serialize_block_header(h, b);
  EXPECT_FALSE(parse_block_header(b, 12).ok());
}

TEST(BlockHeader, Truncated) {
  uint8_t b[12];
  serialize_block_header(valid_lz4(), b);
  for (size_t n = 0; n < 12; ++n) EXPECT_FALSE(parse_block_header(b, n).ok()) << n;
}

TEST(BlockHeader, Names) {
  CodecPolicy p;
  EXPECT_TRUE(codec_policy_from_name("zstd", &p));
  EXPECT_EQ(p, CodecPolicy::kZstd);
  EXPECT_FALSE(codec_policy_from_name("gzip", &p));
  EXPECT_STREQ(codec_name(Codec::kConst), "const");
}

}  // namespace
}  // namespace ndp
