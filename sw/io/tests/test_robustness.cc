// Truncated and corrupted inputs of every format give an error value (never a crash or an
// out-of-bounds read: run this binary under -DNDP_SANITIZE=address,undefined too).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

using Parser = Result<Model> (*)(const uint8_t*, size_t, const std::string&);

struct Input {
  const char* name;
  Parser parse;
  std::vector<uint8_t> bytes;
};

std::vector<Input> synthetic_inputs() {
  synth::Llama2cConfig unshared;
  unshared.vocab_size = -10;
  return {{"safetensors", parse_safetensors, synth::tiny_safetensors()},
          {"gguf-v3", parse_gguf, synth::tiny_gguf(3)},
          {"gguf-v2-align64", parse_gguf, synth::tiny_gguf(2, false, 64)},
          {"llama2c", parse_llama2c, synth::llama2c_file(synth::Llama2cConfig{})},
          {"llama2c-unshared", parse_llama2c, synth::llama2c_file(unshared)},
          {"rwkv", parse_rwkv, synth::tiny_rwkv()}};
}

std::vector<uint8_t> slurp(const std::string& p) {
  std::vector<uint8_t> b(std::filesystem::file_size(p));
  FILE* f = std::fopen(p.c_str(), "rb");
  if (f) {
    if (std::fread(b.data(), 1, b.size(), f) != b.size()) b.clear();
    std::fclose(f);
  }
  return b;
}

// Every truncation point of `in` (or `stride`-spaced ones past `dense` bytes) is an error that
// names the source and an offset.
void check_truncations(const Input& in, size_t dense, size_t stride) {
  ASSERT_TRUE(in.parse(in.bytes.data(), in.bytes.size(), "x").ok()) << in.name;
  uint64_t checked = 0;
  for (size_t cut = 0; cut < in.bytes.size(); cut += (cut < dense ? 1 : stride)) {
    std::vector<uint8_t> t(in.bytes.begin(), in.bytes.begin() + cut);  // exact-size copy: ASan sees overreads
    auto r = in.parse(t.data(), t.size(), "x");
    ASSERT_FALSE(r.ok()) << in.name << " truncated to " << cut << " bytes parsed";
    ASSERT_EQ(r.status().message().rfind("x: offset ", 0), 0u) << r.status().message();
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

// Random byte corruption: any result is fine as long as nothing crashes and errors are well formed.
void check_corruptions(const Input& in, int iterations, size_t hot, uint32_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(ndp::testing::test_seed(seed)));
  int errors = 0;
  for (int it = 0; it < iterations; ++it) {
    std::vector<uint8_t> t = in.bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      // Mostly in the first `hot` bytes (headers), sometimes anywhere.
      size_t span = (rng() % 4 != 0) ? std::min(hot, t.size()) : t.size();
      size_t pos = rng() % span;
      switch (rng() % 3) {
        case 0: t[pos] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 1: t[pos] = static_cast<uint8_t>(rng()); break;
        default: t[pos] = (rng() % 2) ? 0xFF : 0x00; break;
      }
    }
    if (rng() % 8 == 0) t.resize(rng() % (t.size() + 1));
    auto r = in.parse(t.data(), t.size(), "x");
    if (!r.ok()) {
      ++errors;
      ASSERT_EQ(r.status().message().rfind("x: offset ", 0), 0u) << r.status().message();
    }
  }
  std::printf("%s: %d corruptions, %d rejected (seed %u)\n", in.name, iterations, errors, seed);
  EXPECT_GT(errors, 0);
}

TEST(Robustness, SyntheticTruncationAtEveryOffset) {
  for (const Input& in : synthetic_inputs()) check_truncations(in, SIZE_MAX, 1);
}

TEST(Robustness, SyntheticRandomCorruption) {
  uint32_t seed = 1234;
  for (const Input& in : synthetic_inputs()) check_corruptions(in, 3000, 512, seed++);
}

TEST(Robustness, RealFilesTruncatedAndCorrupted) {
  const std::pair<const char*, Parser> files[] = {
      {"stories260K/stories260K.bin", parse_llama2c},
      {"rwkv-tiny/tiny-rwkv-5v1-730K-FP16.bin", parse_rwkv},
      {"rwkv-tiny/tiny-rwkv-7v0-834K-FP16.bin", parse_rwkv},
  };
  for (const auto& [rel, parse] : files) {
    NDP_REQUIRE_DATA(p, rel);
    Input in{rel, parse, slurp(p)};
    check_truncations(in, 2048, 4099);
    check_corruptions(in, 150, 4096, 99);
  }
}

}  // namespace
}  // namespace ndp
