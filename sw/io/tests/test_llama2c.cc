// llama2.c v0 reader: the real stories260K checkpoint and synthetic checkpoints written by the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"

namespace ndp {
namespace {

using testing::expect_error;
using testing::f32_at;

const char* const kOrder[] = {"token_embedding_table", "layers.rms_att_weight", "layers.wq", "layers.wk",
                              "layers.wv", "layers.wo", "layers.rms_ffn_weight", "layers.w1", "layers.w2",
                              "layers.w3", "rms_final_weight", "freq_cis_real", "freq_cis_imag"};

TEST(Llama2c, Stories260K) {
  NDP_REQUIRE_DATA(path, "stories260K/stories260K.bin");
  auto r = read_model(path, ModelFormat::kLlama2c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Model& m = r.value();
  // Facts from the model card (stories260K.md / data README).
  EXPECT_EQ(m.meta.at("dim"), 64);
  EXPECT_EQ(m.meta.at("hidden_dim"), 172);
  EXPECT_EQ(m.meta.at("n_layers"), 5);
  EXPECT_EQ(m.meta.at("n_heads"), 8);
  EXPECT_EQ(m.meta.at("n_kv_heads"), 4);
  EXPECT_EQ(m.meta.at("vocab_size"), 512);
  EXPECT_EQ(m.meta.at("seq_len"), 512);
  EXPECT_EQ(m.meta.at("shared_classifier"), 1);
  EXPECT_EQ(m.meta.at("head_size"), 8);
  EXPECT_EQ(m.meta.at("kv_dim"), 32);
  ASSERT_EQ(m.tensors.size(), 13u);
  for (size_t i = 0; i < 13; ++i) EXPECT_EQ(m.tensors[i].name, kOrder[i]);
  EXPECT_EQ(find_tensor(m, "layers.wq")->shape, (std::vector<uint64_t>{5, 64, 64}));
  EXPECT_EQ(find_tensor(m, "layers.wk")->shape, (std::vector<uint64_t>{5, 32, 64}));
  EXPECT_EQ(find_tensor(m, "layers.w1")->shape, (std::vector<uint64_t>{5, 172, 64}));
  EXPECT_EQ(find_tensor(m, "layers.w2")->shape, (std::vector<uint64_t>{5, 64, 172}));
  EXPECT_EQ(find_tensor(m, "freq_cis_real")->shape, (std::vector<uint64_t>{512, 4}));
  // Every float after the 28-byte header is read exactly once.
  const uint64_t file_floats = (std::filesystem::file_size(path) - 28) / 4;
  EXPECT_EQ(model_elements(m), file_floats);
  // The first float of the file body is token_embedding_table[0][0].
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  float first = 0;
  ASSERT_EQ(std::fseek(f, 28, SEEK_SET), 0);
  ASSERT_EQ(std::fread(&first, 4, 1, f), 1u);
  std::fclose(f);
  EXPECT_EQ(f32_at(m.tensors[0], 0), first);
  // RoPE tables are cos/sin(pos * 10000^(-2i/head_size)): checks the order and placement of the tail.
  const Tensor& re = *find_tensor(m, "freq_cis_real");
  const Tensor& im = *find_tensor(m, "freq_cis_imag");
  for (uint64_t pos : {0u, 1u, 7u, 100u, 511u})
    for (uint64_t i = 0; i < 4; ++i) {
      double ang = static_cast<double>(pos) * std::pow(10000.0, -2.0 * static_cast<double>(i) / 8.0);
      EXPECT_NEAR(f32_at(re, pos * 4 + i), std::cos(ang), 2e-4) << "pos " << pos << " i " << i;
      EXPECT_NEAR(f32_at(im, pos * 4 + i), std::sin(ang), 2e-4) << "pos " << pos << " i " << i;
    }
}

TEST(Llama2c, SyntheticOrderAndShapes) {
  synth::Llama2cConfig c;  // dim 8, hidden 12, 2 layers, 2 heads, 1 kv head, vocab 10, seq 4
  auto b = synth::llama2c_file(c);
  auto r = parse_llama2c(b.data(), b.size(), "t.bin");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tensors.size(), 13u);
  uint64_t cum = 0;  // body floats are 0, 1, 2, ...: each tensor starts at the running count
  for (const Tensor& t : r->tensors) {
    EXPECT_EQ(f32_at(t, 0), static_cast<float>(cum)) << t.name;
    cum += t.elements;
  }
  EXPECT_EQ(cum, (b.size() - 28) / 4);
  EXPECT_EQ(find_tensor(r.value(), "layers.wv")->shape, (std::vector<uint64_t>{2, 4, 8}));
  EXPECT_EQ(find_tensor(r.value(), "freq_cis_imag")->shape, (std::vector<uint64_t>{4, 2}));
  EXPECT_EQ(find_tensor(r.value(), "wcls"), nullptr);
}

TEST(Llama2c, UnsharedClassifier) {
  synth::Llama2cConfig c;
  c.vocab_size = -10;
  auto b = synth::llama2c_file(c);
  auto r = parse_llama2c(b.data(), b.size(), "t.bin");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tensors.size(), 14u);
  EXPECT_EQ(r->tensors.back().name, "wcls");
  EXPECT_EQ(r->tensors.back().shape, (std::vector<uint64_t>{10, 8}));
  EXPECT_EQ(r->meta.at("vocab_size"), 10);
  EXPECT_EQ(r->meta.at("shared_classifier"), 0);
  EXPECT_EQ(f32_at(r->tensors.back(), 79), static_cast<float>((b.size() - 28) / 4 - 1));
}

TEST(Llama2c, SizeMismatchIsReported) {
  auto b = synth::llama2c_file(synth::Llama2cConfig{});
  const size_t n = b.size();
  b.push_back(0);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin",
               "file size " + std::to_string(n + 1) + " does not match the " + std::to_string(n) + " bytes");
  b.resize(n - 4);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "does not match");
}

TEST(Llama2c, ImplausibleHeaders) {
  auto with = [](int field, int32_t v) {
    auto b = synth::llama2c_file(synth::Llama2cConfig{});
    std::memcpy(b.data() + 4 * field, &v, 4);
    return b;
  };
  auto b = with(0, 0);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "dim 0 must be positive");
  b = with(3, 3);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "n_heads 3 must be positive and divide dim 8");
  b = with(4, 3);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "n_kv_heads 3");
  b = with(6, -1);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "seq_len -1");
  b = with(1, 0x7fffffff);  // huge hidden_dim: the implied size cannot match
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "does not match");
  b = with(0, 0x616b3432);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "version 1/2 export");
}

// Issue 15 (the KV-trace class of bug in the other readers): int32 header fields whose products
// exceed 64 bits (L x H x D = 2^31 x 2^31 x 2^30) are an overflow error, never a wrapped size
// that could match the file.
TEST(Llama2c, HeaderProductsOverflowCleanly) {
  std::vector<uint8_t> b(28, 0);
  const int32_t h[7] = {1 << 30, 0x7fffffff, 0x7fffffff, 1 << 29, 1 << 29, 0x7fffffff, 0x7fffffff};
  std::memcpy(b.data(), h, sizeof h);
  expect_error(parse_llama2c(b.data(), b.size(), "t.bin"), "t.bin", "overflows 64 bits");
}

}  // namespace
}  // namespace ndp
