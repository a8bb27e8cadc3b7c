// codec_lane against the golden plane-block codec: the encode direction byte for byte against
// ndp::encode_block_hw (header, XXH32, CONST / LZ4 / RAW decision, hardware LZ4 payload) on real
// and synthetic planes; the decode direction against the reference of its checks (lane_ref_decode)
// and the golden decoder (ndp::BlockDecoder) on blocks from both encoders and on corrupted blocks
// (every header field, checksum, truncation, trailing bytes, padding, LZ4 payload damage).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "../lz4/lz4_env.h"
#include "lane_env.h"
#include "ndp/block.h"
#include "ndp/lz4_hw_model.h"

namespace ndp::tb {
namespace {

struct DecCase {
  std::vector<uint8_t> stored;
  BlockExpect exp;
  std::string label;
  uint8_t code = 0;
  std::vector<uint8_t> ref;
  // A damaged ZSTD payload that libzstd (1.5.4) still decodes: the RTL may reject it with a ZSTD
  // payload code instead (docs/zstd.md, "stricter than libzstd": non-zero reserved bits in
  // Symbol_Compression_Modes, Huffman streams not consumed exactly, Max_Number_of_Bits 12, ...).
  bool may_be_stricter = false;
};

DecCase dec_case(std::vector<uint8_t> stored, const BlockExpect& exp, std::string label, bool payload_damaged = false) {
  DecCase c;
  c.stored = std::move(stored);
  c.exp = exp;
  c.label = std::move(label);
  c.code = lane_ref_decode(c.stored.data(), c.stored.size(), exp, &c.ref);
  c.may_be_stricter = payload_damaged && c.stored.size() > kBlockHeaderBytes && (c.stored[3] & 0x0F) == 3 &&
                      (c.code == kLaneOk || c.code == kLaneChecksum || c.code == kLanePadding);
  return c;
}

// The reference must agree with the golden decoder: same acceptance and bytes, except LZ4
// payloads with a zero offset (liblz4 decodes them; the hardware rejects them, spec section 3).
void check_golden(const DecCase& c, std::map<std::string, uint64_t>* divergences) {
  std::vector<uint8_t> out(c.exp.raw_size ? c.exp.raw_size : 1);
  Status st = decode_block(c.stored.data(), c.stored.size(), c.exp, out.data());
  if (c.code == kLaneOk) {
    EXPECT_TRUE(st.ok()) << c.label << ": lane reference accepts, golden: " << st.message();
    if (st.ok()) {
      EXPECT_EQ(out, c.ref) << c.label;
    }
  } else if (st.ok()) {
    const bool off0 = c.code == kLaneLz4Base + 2;
    EXPECT_TRUE(off0) << c.label << ": golden accepts what the lane rejects as " << lane_status_name(c.code);
    ++(*divergences)["lz4 offset 0"];
  }
}

size_t check_dec(const LaneEnv& env, const std::vector<DecCase>& cs, std::map<std::string, uint64_t>* codes) {
  const auto& r = env.dec_results();
  EXPECT_EQ(r.size(), cs.size());
  size_t n = std::min(r.size(), cs.size()), bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bool ok = lane_code_matches(r[i].code, cs[i].code) && (cs[i].code != kLaneOk || r[i].bytes == cs[i].ref);
    if (!ok && cs[i].may_be_stricter && lane_code_matches(r[i].code, kLaneZstdAny)) {
      ok = true;
      if (codes) ++(*codes)["(zstd stricter than libzstd)"];
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << cs[i].label << ": RTL " << lane_status_name(r[i].code) << " (" << int(r[i].code) << ", "
                    << r[i].bytes.size() << " bytes), reference " << lane_status_name(cs[i].code) << " ("
                    << int(cs[i].code) << ", " << cs[i].ref.size() << " bytes)";
    if (codes) ++(*codes)[lane_status_name(r[i].code)];
  }
  EXPECT_EQ(bad, 0u);
  return n;
}

BlockExpect expect_of(const std::vector<uint8_t>& stored, uint8_t pad = 0) {
  BlockExpect e;
  e.block_id = static_cast<uint64_t>(stored[0] | (stored[1] << 8));
  e.plane_id = stored[2];
  e.raw_size = (stored[4] | (stored[5] << 8)) ? static_cast<uint32_t>(stored[4] | (stored[5] << 8)) : 65536u;
  e.pad_mask = pad;
  return e;
}

// Encode real planes under every policy, check against the golden lane encoder, then decode the
// lane's own blocks (round trip) on the decode side.
TEST(CodecLane, EncodeRealPlanesBitExactAndRoundTrip) {
  std::vector<PlaneBlock> planes;
  std::string why;
  if (!load_real_planes(&planes, 1, &why)) GTEST_SKIP() << why;
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x1a);
    LaneEnv env(seed, fst, 0.1, 0.1);
    std::vector<std::vector<uint8_t>> raw;
    std::map<int, int> codecs;
    uint64_t bytes = 0;
    for (size_t i = 0; i < planes.size(); ++i) {
      if (i % 3 != 0 && planes[i].bytes.size() > 4096) continue;  // keep the run short
      const CodecPolicy pol = static_cast<CodecPolicy>(rng.range(0, 3));
      ASSERT_TRUE(env.push_plane(planes[i].bytes, planes[i].plane, static_cast<uint16_t>(i), rng.chance(0.3), pol));
      raw.push_back(planes[i].bytes);
      bytes += planes[i].bytes.size();
    }
    ASSERT_TRUE(env.run(8 * bytes + 100000));
    EXPECT_TRUE(env.finish());
    const auto& er = env.enc_results();
    ASSERT_EQ(er.size(), raw.size());
    std::vector<DecCase> cs;
    std::map<std::string, uint64_t> div;
    for (size_t i = 0; i < er.size(); ++i) {
      ++codecs[er[i].bytes[3] & 15];
      cs.push_back(dec_case(er[i].bytes, expect_of(er[i].bytes), "round trip " + std::to_string(i)));
      EXPECT_EQ(cs.back().code, kLaneOk) << cs.back().label;
      EXPECT_EQ(cs.back().ref, raw[i]) << cs.back().label;
      check_golden(cs.back(), &div);
      env.push_stored(cs.back().stored, cs.back().exp, rng.chance(0.3));
    }
    ASSERT_TRUE(env.run(8 * bytes + 100000));
    std::printf("%zu blocks round-tripped (RAW %d, CONST %d, LZ4 %d, ZSTD %d)\n", check_dec(env, cs, nullptr),
                codecs[0], codecs[1], codecs[2], codecs[3]);
    EXPECT_GT(codecs[3], 0);
  });
}

TEST(CodecLane, EncodeSyntheticSizesAndDecisions) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x2b);
    LaneEnv env(seed, fst, 0.3, 0.3);
    uint64_t bytes = 0;
    std::map<int, int> codecs;
    const size_t sizes[] = {1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 4095, 4096, 65535, 65536};
    int t = 0;
    for (size_t n : sizes) {
      for (int f : {0, 1, 2, 5}) {
        auto v = synth_data(rng, n, f);
        ASSERT_TRUE(env.push_plane(v, static_cast<uint8_t>(t % 2 ? 0x40 : t % 16), static_cast<uint16_t>(t * 7919),
                                   t % 3 == 0, static_cast<CodecPolicy>(t % 4)));
        bytes += n;
        ++t;
      }
    }
    // blocks at the raw-bypass margin: compressible just enough (or not) to save one burst
    for (int i = 0; i < 12; ++i) {
      std::vector<uint8_t> v = synth_data(rng, 1024, 0);
      for (size_t j = 0; j < 60 + 8 * static_cast<size_t>(i); ++j) v[j] = 0;
      ASSERT_TRUE(env.push_plane(v, 3, static_cast<uint16_t>(1000 + i), false,
                                 i % 2 ? CodecPolicy::kLz4 : CodecPolicy::kZstd));
      bytes += v.size();
    }
    ASSERT_TRUE(env.run(10 * bytes + 100000));
    EXPECT_TRUE(env.finish());
    for (const auto& r : env.enc_results()) ++codecs[r.bytes[3] & 15];
    std::printf("codecs: RAW %d CONST %d LZ4 %d ZSTD %d\n", codecs[0], codecs[1], codecs[2], codecs[3]);
    EXPECT_GT(codecs[0], 0);
    EXPECT_GT(codecs[1], 0);
    EXPECT_GT(codecs[2], 0);
    EXPECT_GT(codecs[3], 0);
  });
}

// Rates without gaps or backpressure: the lane encodes the real planes (policy lz4) back to back,
// then decodes its own blocks back to back. Raw bytes per cycle over each whole stream.
TEST(CodecLane, RealPlanesRates) {
  std::vector<PlaneBlock> planes;
  std::string why;
  if (!load_real_planes(&planes, 1, &why)) GTEST_SKIP() << why;
  LaneEnv env(test_seed(), "", 0.0, 0.0);
  uint64_t bytes = 0;
  for (size_t i = 0; i < planes.size(); ++i) {
    ASSERT_TRUE(env.push_plane(planes[i].bytes, planes[i].plane, static_cast<uint16_t>(i), false, CodecPolicy::kLz4));
    bytes += planes[i].bytes.size();
  }
  ASSERT_TRUE(env.run(8 * bytes + 100000));
  EXPECT_TRUE(env.finish());
  const auto& er = env.enc_results();
  ASSERT_EQ(er.size(), planes.size());
  const double enc = static_cast<double>(bytes) / static_cast<double>(er.back().out_last - er.front().in_first + 1);
  uint64_t stored = 0;
  std::vector<DecCase> cs;
  for (size_t i = 0; i < er.size(); ++i) {
    cs.push_back(dec_case(er[i].bytes, expect_of(er[i].bytes), "rate " + std::to_string(i)));
    env.push_stored(er[i].bytes, cs.back().exp, false);
    stored += er[i].bytes.size();
  }
  ASSERT_TRUE(env.run(8 * bytes + 100000));
  check_dec(env, cs, nullptr);
  const auto& dr = env.dec_results();
  const double dec = static_cast<double>(bytes) / static_cast<double>(dr.back().out_last - dr.front().in_first + 1);
  std::printf("codec_lane on %zu real plane blocks (stories260K + GPT-2 layer 1, policy lz4): encode %.2f raw B/cycle, "
              "decode %.2f raw B/cycle, stored/raw %.4f\n",
              planes.size(), enc, dec, static_cast<double>(stored) / static_cast<double>(bytes));
}

// ZSTD blocks of the golden encoder (CodecPolicy::kZstd: literals-only Huffman frames for exponent
// byte planes where they are smaller, libzstd level 3 frames otherwise) on the real planes, decoded
// back to back without gaps (the lane's ZSTD rate), then again with gaps, backpressure and random
// beat sizes together with damaged copies (payload bit flips, truncated frames inside an intact
// packet, random payload bytes), each against the reference and the golden decoder.
TEST(CodecLane, DecodeZstdRealPlanes) {
  std::vector<PlaneBlock> planes;
  std::string why;
  if (!load_real_planes(&planes, 1, &why)) GTEST_SKIP() << why;
  uint64_t seed = test_seed();
  Rng rng(seed ^ 0x4d);
  std::vector<DecCase> good;
  std::map<std::string, uint64_t> div;
  uint64_t bytes = 0, stored = 0, huffman = 0;
  std::vector<bool> is_huf;
  for (size_t i = 0; i < planes.size(); ++i) {
    std::vector<uint8_t> s;
    auto info = encode_block(planes[i].bytes.data(), planes[i].bytes.size(), planes[i].plane, i, CodecPolicy::kZstd,
                             false, s);
    ASSERT_TRUE(info.ok()) << info.status().message();
    if (info.value().codec != Codec::kZstd) continue;
    huffman += info.value().huffman_frame;
    is_huf.push_back(info.value().huffman_frame);
    good.push_back(dec_case(s, expect_of(s), planes[i].label));
    ASSERT_EQ(good.back().code, kLaneOk) << good.back().label;
    ASSERT_EQ(good.back().ref, planes[i].bytes) << good.back().label;
    check_golden(good.back(), &div);
    bytes += planes[i].bytes.size();
    stored += s.size();
  }
  ASSERT_GT(good.size(), 20u);
  ASSERT_GT(huffman, 0u);
  ASSERT_LT(huffman, good.size());
  {
    LaneEnv env(seed, "", 0.0, 0.0);
    for (const DecCase& c : good) env.push_stored(c.stored, c.exp, false);
    ASSERT_TRUE(env.run(4 * bytes + 200000));
    EXPECT_EQ(check_dec(env, good, nullptr), good.size());
    const auto& dr = env.dec_results();
    // per kind: the blocks' own spans (first input beat .. status beat; blocks do not overlap)
    double by[2] = {0, 0}, cy[2] = {0, 0};
    for (size_t i = 0; i < dr.size() && i < good.size(); ++i) {
      by[is_huf[i]] += static_cast<double>(good[i].ref.size());
      cy[is_huf[i]] += static_cast<double>(dr[i].out_last - dr[i].in_first + 1);
    }
    std::printf("codec_lane ZSTD decode, per kind: Huffman literal frames %.2f raw B/cycle, libzstd frames %.2f raw "
                "B/cycle\n", by[1] / cy[1], by[0] / cy[0]);
    std::printf("codec_lane ZSTD decode: %zu real plane blocks (%llu Huffman frames, %llu libzstd), %llu raw bytes, "
                "stored/raw %.4f, %.2f raw B/cycle back to back\n",
                good.size(), static_cast<unsigned long long>(huffman),
                static_cast<unsigned long long>(good.size() - huffman), static_cast<unsigned long long>(bytes),
                static_cast<double>(stored) / static_cast<double>(bytes),
                static_cast<double>(bytes) / static_cast<double>(dr.back().out_last - dr.front().in_first + 1));
  }
  run_with_waves([&](const std::string& fst) {
    LaneEnv env(seed, fst, 0.2, 0.2);
    std::vector<DecCase> cs;
    for (size_t i = 0; i < good.size(); ++i) {
      if (good[i].stored.size() > 6000 && i % 4 != 0) continue;  // keep the run short
      std::vector<uint8_t> s = good[i].stored;
      BlockExpect e = good[i].exp;
      std::string what = good[i].label;
      const size_t pay = s.size() - kBlockHeaderBytes;
      switch (i % 5) {
        case 0: break;  // intact
        case 1: s[kBlockHeaderBytes + rng.range(0, pay - 1)] ^= static_cast<uint8_t>(1u << rng.range(0, 7)); what += " payload bit"; break;
        case 2: {  // a shorter frame in a consistent header (comp_size says so): truncated frame, not packet
          const size_t keep = rng.range(1, pay - 1);
          s.resize(kBlockHeaderBytes + keep);
          s[6] = static_cast<uint8_t>(keep);
          s[7] = static_cast<uint8_t>(keep >> 8);
          what += " frame cut to " + std::to_string(keep);
          break;
        }
        case 3: for (size_t j = kBlockHeaderBytes + 5; j < s.size(); ++j) if (rng.chance(0.02)) s[j] = static_cast<uint8_t>(rng.u32()); what += " random bytes"; break;
        default: s.resize(rng.range(kBlockHeaderBytes, s.size() - 1)); what += " packet truncated"; break;
      }
      cs.push_back(dec_case(s, e, what, i % 5 != 0));
      check_golden(cs.back(), &div);
      env.push_stored(cs.back().stored, e, rng.chance(0.4));
    }
    ASSERT_TRUE(env.run(40 * bytes + 2000000));
    std::map<std::string, uint64_t> codes;
    std::printf("%zu ZSTD blocks (intact and damaged) compared;", check_dec(env, cs, &codes));
    for (auto& [k, v] : codes) std::printf(" %s %llu", k.c_str(), static_cast<unsigned long long>(v));
    std::printf("\n");
    EXPECT_GE(codes.size(), 4u);
  });
}

// Blocks of the golden BlockEncoder (liblz4, libzstd) and corrupted copies of them.
TEST(CodecLane, DecodeGoldenAndCorruptedBlocks) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed ^ 0x3c);
    LaneEnv env(seed, fst, 0.2, 0.2);
    std::vector<DecCase> cs;
    std::map<std::string, uint64_t> div;
    for (int t = 0; t < 700; ++t) {
      const size_t n = rng.chance(0.05) ? rng.range(4096, 65536) : rng.range(1, 3000);
      auto v = synth_data(rng, n, static_cast<int>(rng.range(0, 5)));
      const CodecPolicy pol = t % 7 == 0   ? CodecPolicy::kAuto
                              : t % 3 == 0 ? CodecPolicy::kRaw
                              : t % 3 == 1 ? CodecPolicy::kZstd
                                           : CodecPolicy::kLz4;
      const uint8_t plane = static_cast<uint8_t>(rng.chance(0.5) ? 0x40 : rng.range(0, 31));
      std::vector<uint8_t> s;
      auto info = encode_block(v.data(), v.size(), plane, rng.range(0, 200000), pol, rng.chance(0.3), s);
      ASSERT_TRUE(info.ok()) << info.status().message();
      BlockExpect e = expect_of(s, static_cast<uint8_t>(rng.chance(0.2) ? 0xF0 : 0));
      std::string what = "t" + std::to_string(t);
      bool damaged = false;
      const int kind = t % 12;
      switch (kind) {
        case 0: case 1: case 2: break;  // intact
        case 3: s[rng.range(0, 11)] ^= static_cast<uint8_t>(1u << rng.range(0, 7)); what += " header bit"; break;
        case 4: s[8 + rng.range(0, 3)] ^= 0x5A; what += " checksum"; break;
        case 5: s.resize(rng.range(0, s.size() - 1)); what += " truncated"; break;
        case 6: for (int i = 0; i < 9; ++i) s.push_back(static_cast<uint8_t>(rng.u32())); what += " trailing"; break;
        case 7: if (s.size() > 12) s[12 + rng.range(0, s.size() - 13)] ^= static_cast<uint8_t>(1u << rng.range(0, 7)); what += " payload bit"; damaged = true; break;
        case 8: e.plane_id = static_cast<uint8_t>(e.plane_id ^ 1); what += " plane"; break;
        case 9: e.block_id ^= 4; what += " block id"; break;
        case 10: e.raw_size = std::max<uint32_t>(1, e.raw_size ^ 8); what += " raw size"; break;
        default: s[3] = static_cast<uint8_t>((s[3] & 0x10) | rng.range(4, 15) | (rng.chance(0.5) ? 0x20 : 0)); what += " codec/flags"; break;
      }
      cs.push_back(dec_case(s, e, what, damaged));
      check_golden(cs.back(), &div);
      env.push_stored(cs.back().stored, e, rng.chance(0.4));
    }
    ASSERT_TRUE(env.run(20000000));
    std::map<std::string, uint64_t> codes;
    std::printf("%zu blocks compared;", check_dec(env, cs, &codes));
    for (auto& [k, v] : codes) std::printf(" %s %llu", k.c_str(), static_cast<unsigned long long>(v));
    for (auto& [k, v] : div) std::printf("; golden decodes %llu more: %s", static_cast<unsigned long long>(v), k.c_str());
    std::printf("\n");
    EXPECT_GE(codes.size(), 10u) << "the corruptions should reach most status codes";
  });
}

}  // namespace
}  // namespace ndp::tb
