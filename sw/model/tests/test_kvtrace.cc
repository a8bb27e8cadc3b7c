// KV trace format: round trip, and every malformed input is an error (never a crash).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <xxhash.h>

#include "ndp/kvtrace.h"
#include "ndp/test_seed.h"

namespace {

ndp::KvTrace sample_trace(uint32_t seed) {
  ndp::KvTrace t;
  t.n_layers = 2, t.n_kv_heads = 3, t.head_dim = 8, t.n_tokens = 5, t.n_heads = 6, t.dim = 48;
  t.seed = 0x1122334455667788ull;
  t.rope_style = 1;
  t.model_name = "unit-test model";
  std::mt19937 rng(static_cast<uint32_t>(ndp::testing::test_seed(seed)));
  for (uint32_t i = 0; i < t.n_tokens; ++i) t.tokens.push_back(rng() % 512);
  t.kv.resize(t.streams() * t.stream_elems());
  for (auto& x : t.kv) x = static_cast<uint16_t>(rng());
  return t;
}

TEST(KvTrace, RoundTripThroughBytesAndFile) {
  const ndp::KvTrace t = sample_trace(1);
  auto b = ndp::serialize_kv_trace(t);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b.value().size(), 64 + t.model_name.size() + 4 * 5 + 2 * t.kv.size());
  EXPECT_EQ(std::string(b.value().begin(), b.value().begin() + 4), "NKVT");
  auto r = ndp::parse_kv_trace(b.value().data(), b.value().size(), "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value().kv, t.kv);
  EXPECT_EQ(r.value().tokens, t.tokens);
  EXPECT_EQ(r.value().model_name, t.model_name);
  EXPECT_EQ(r.value().seed, t.seed);
  EXPECT_EQ(r.value().rope_style, 1);
  EXPECT_EQ(r.value().n_heads, 6u);
  // Stream addressing: stream(l, kind, h) is contiguous T x C in (layer, kind, head) order.
  EXPECT_EQ(r.value().stream(1, 1, 2), r.value().kv.data() + ((1 * 2 + 1) * 3 + 2) * 40);

  const std::string path = (std::filesystem::temp_directory_path() / "ndp_kvtrace_test.nkvt").string();
  ASSERT_TRUE(ndp::write_kv_trace(path, t).ok());
  auto f = ndp::read_kv_trace(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f.value().kv, t.kv);
  std::remove(path.c_str());
  EXPECT_FALSE(ndp::read_kv_trace(path).ok());
}

TEST(KvTrace, EveryTruncationIsAnError) {
  auto b = ndp::serialize_kv_trace(sample_trace(2)).value();
  for (size_t n = 0; n < b.size(); ++n) {
    auto r = ndp::parse_kv_trace(b.data(), n, "trunc");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().message().rfind("trunc: offset ", 0), 0u) << r.status().message();
  }
  b.push_back(0);
  EXPECT_FALSE(ndp::parse_kv_trace(b.data(), b.size(), "long").ok());
}

TEST(KvTrace, EverySingleByteCorruptionIsDetected) {
  const auto good = ndp::serialize_kv_trace(sample_trace(3)).value();
  for (size_t i = 0; i < good.size(); ++i) {
    auto b = good;
    b[i] ^= 0x01;
    auto r = ndp::parse_kv_trace(b.data(), b.size(), "flip");
    // The checksum covers the header too: every flipped bit anywhere is an error.
    EXPECT_FALSE(r.ok()) << "byte " << i;
  }
}

TEST(KvTrace, WriterRejectsInconsistentTraces) {
  ndp::KvTrace t = sample_trace(4);
  t.kv.pop_back();
  EXPECT_FALSE(ndp::serialize_kv_trace(t).ok());
  t = sample_trace(4);
  t.tokens.pop_back();
  EXPECT_FALSE(ndp::serialize_kv_trace(t).ok());
  t = sample_trace(4);
  t.head_dim = 0;
  EXPECT_FALSE(ndp::serialize_kv_trace(t).ok());
  t = sample_trace(4);
  t.dtype = ndp::DType::kFP32;
  EXPECT_FALSE(ndp::serialize_kv_trace(t).ok());
  EXPECT_FALSE(ndp::write_kv_trace("/nonexistent-dir/x.nkvt", sample_trace(4)).ok());
}

TEST(KvTrace, HugeGeometryIsRejectedWithoutAllocating) {
  auto b = ndp::serialize_kv_trace(sample_trace(5)).value();
  const uint32_t big = 0xFFFFFF;
  std::memcpy(b.data() + 12, &big, 4);  // n_kv_heads
  std::memcpy(b.data() + 16, &big, 4);  // head_dim
  auto r = ndp::parse_kv_trace(b.data(), b.size(), "huge");
  EXPECT_FALSE(r.ok());
}

// Issue 15: 65536 layers x 65536 KV heads x 128 channels x 2^24 tokens is 2^64 elements, which wrapped
// to 0 in streams() * stream_elems(): an empty payload passed check_kv_trace and a 64 MiB file with
// only the token ids parsed, after which stream() pointed far outside kv and analyze-kv allocated 2^48 bytes.
TEST(KvTrace, PayloadProductOverflowIsRejected) {
  ndp::KvTrace t;
  t.n_layers = 65536, t.n_kv_heads = 65536, t.head_dim = 128, t.n_tokens = 1u << 24;
  uint64_t elems = 0;
  EXPECT_FALSE(t.payload_elems(&elems));
  t.tokens.assign(t.n_tokens, 0);  // consistent token list, empty payload: only the product can catch it
  ndp::Status st = ndp::check_kv_trace(t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("16 GiB"), std::string::npos) << st.message();
  EXPECT_FALSE(ndp::serialize_kv_trace(t).ok());

  // The same geometry as a file: header + 2^24 token ids, a valid checksum, no payload.
  std::vector<uint8_t> b(ndp::kKvTraceHeaderBytes + 4 * size_t{t.n_tokens}, 0);
  std::memcpy(b.data(), "NKVT", 4);
  b[4] = 1;  // version
  b[6] = static_cast<uint8_t>(ndp::DType::kBF16);
  const uint32_t geo[4] = {t.n_layers, t.n_kv_heads, t.head_dim, t.n_tokens};
  std::memcpy(b.data() + 8, geo, sizeof geo);
  const uint32_t sum = XXH32(b.data(), b.size(), 0);  // the checksum field reads as zero
  std::memcpy(b.data() + 40, &sum, 4);
  auto r = ndp::parse_kv_trace(b.data(), b.size(), "wrap.nkvt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "wrap.nkvt: offset 8: payload larger than 16 GiB");
}

}  // namespace
