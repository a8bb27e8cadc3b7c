// GGUF reader on GGUF v2/v3 files written by the test (all metadata types, F32/F16/BF16, Q8_0).
#include <gtest/gtest.h>

#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"

namespace ndp {
namespace {

using testing::expect_error;

Result<Model> parse(const std::vector<uint8_t>& b) { return parse_gguf(b.data(), b.size(), "t.gguf"); }

TEST(Gguf, ReadsV3WithAllMetadataTypes) {
  auto r = parse(synth::tiny_gguf(3));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Model& m = r.value();
  EXPECT_EQ(m.format, ModelFormat::kGGUF);
  ASSERT_EQ(m.tensors.size(), 3u);
  // ne {4, 3} innermost first -> shape [3, 4].
  EXPECT_EQ(m.tensors[0].name, "tok_embd");
  EXPECT_EQ(m.tensors[0].shape, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(m.tensors[0].dtype, DType::kFP32);
  EXPECT_EQ(m.tensors[0].data, synth::f32_ramp(12, 0.0f, 0.25f));
  EXPECT_EQ(m.tensors[1].dtype, DType::kFP16);
  EXPECT_EQ(m.tensors[1].data, synth::f16_ramp(4));
  EXPECT_EQ(m.tensors[2].name, "proj");
  EXPECT_EQ(m.tensors[2].dtype, DType::kBF16);
  EXPECT_EQ(m.tensors[2].shape, (std::vector<uint64_t>{2, 2, 2}));
  EXPECT_EQ(m.tensors[2].data, synth::bf16_ramp(8, -2.0f, 0.5f));
  EXPECT_EQ(m.meta.at("llama.block_count"), 1);
  EXPECT_EQ(m.meta.at("llama.context_length"), 16);
  EXPECT_EQ(m.meta.at("test.negative"), -7);
  EXPECT_EQ(m.meta.at("test.flag"), 1);
  EXPECT_EQ(m.meta.at("test.byte"), 200);
  EXPECT_EQ(m.meta.at("gguf.version"), 3);
  EXPECT_EQ(m.meta_str.at("general.architecture"), "llama");
  EXPECT_EQ(m.meta.count("tokenizer.ggml.tokens"), 0u);  // arrays and floats have their own maps
  EXPECT_EQ(m.meta.count("llama.rope.freq_base"), 0u);
  EXPECT_EQ(m.meta_f64.at("llama.rope.freq_base"), 10000.0);
  EXPECT_EQ(m.meta_f64.at("test.double"), 0.125);
  EXPECT_EQ(m.meta_str_arrays.at("tokenizer.ggml.tokens"), (std::vector<std::string>{"<s>", "</s>", "hello", ""}));
  EXPECT_EQ(m.meta_num_arrays.at("tokenizer.ggml.token_type"), (std::vector<double>{1, 3, 1, 1}));
  EXPECT_EQ(m.meta_str_arrays.count("test.nested") + m.meta_num_arrays.count("test.nested"), 0u);  // skipped
}

TEST(Gguf, ReadsV2AndCustomAlignment) {
  auto r2 = parse(synth::tiny_gguf(2));
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2->tensors.size(), 3u);
  auto r64 = parse(synth::tiny_gguf(3, false, 64));
  ASSERT_TRUE(r64.ok()) << r64.status().message();
  EXPECT_EQ(r64->meta.at("general.alignment"), 64);
  EXPECT_EQ(r64->tensors[2].data, synth::bf16_ramp(8, -2.0f, 0.5f));
}

TEST(Gguf, RejectsQuantizedTensorNamingIt) {
  expect_error(parse(synth::tiny_gguf(3, true)), "t.gguf", "tensor 'blk.0.ffn_q8': ggml type Q8_0 (8) is not supported");
  for (uint32_t t : {2u, 12u, 14u, 28u}) {
    synth::GgufWriter w;
    w.tensor("q", t, {32}, std::vector<uint8_t>(256, 0));
    expect_error(parse(w.build()), "t.gguf", std::string("ggml type ") + ggml_type_name(t));
  }
  EXPECT_STREQ(ggml_type_name(12), "Q4_K");
  EXPECT_STREQ(ggml_type_name(30), "BF16");
  EXPECT_STREQ(ggml_type_name(1000), "unknown");
}

TEST(Gguf, RejectsBadHeaders) {
  auto b = synth::tiny_gguf(3);
  b[4] = 1;  // version 1
  expect_error(parse(b), "t.gguf", "GGUF version 1 is not supported");
  b[4] = 0;
  b[7] = 3;  // big-endian version 3 read as little-endian
  expect_error(parse(b), "t.gguf", "big-endian");
  b = synth::tiny_gguf(3);
  b[0] = 'X';
  expect_error(parse(b), "t.gguf", "not a GGUF file");
}

TEST(Gguf, RejectsBadTensorInfos) {
  synth::GgufWriter w1;
  w1.kv_u32("general.alignment", 48);
  w1.tensor("a", 0, {4}, synth::f32_ramp(4, 0, 1));
  expect_error(parse(w1.build(16)), "t.gguf", "general.alignment 48 is not a power of two");

  synth::GgufWriter w2;  // tensor data claims more than the file holds
  w2.tensor("big", 0, {1000}, synth::f32_ramp(4, 0, 1));
  expect_error(parse(w2.build()), "t.gguf", "tensor 'big': data [0, +4000) is beyond the");

  synth::GgufWriter w3;
  w3.tensor("five", 0, {5, 1, 1, 1, 1}, synth::f32_ramp(5, 0, 1));
  expect_error(parse(w3.build()), "t.gguf", "n_dims 5 exceeds 4");

  synth::GgufWriter w4;
  w4.tensor("dup", 0, {1}, synth::f32_ramp(1, 0, 1));
  w4.tensor("dup", 0, {1}, synth::f32_ramp(1, 0, 1));
  expect_error(parse(w4.build()), "t.gguf", "duplicate tensor name 'dup'");

  // Overlap: first tensor 64 bytes at 0, second moved from offset 64 to 32.
  synth::GgufWriter w5;
  w5.tensor("a", 0, {16}, synth::f32_ramp(16, 0, 1));
  w5.tensor("b", 0, {8}, synth::f32_ramp(8, 0, 1));
  auto b5 = w5.build();
  const uint64_t want = 64, patched = 32;
  for (size_t i = 0; i + 8 <= b5.size(); ++i)
    if (std::memcmp(b5.data() + i, &want, 8) == 0) {
      std::memcpy(b5.data() + i, &patched, 8);
      break;
    }
  expect_error(parse(b5), "t.gguf", "tensor 'b' data [32, 64) overlaps tensor 'a' [0, 64)");

  synth::Bytes hdr;  // hand-built: one tensor at the misaligned offset 4
  hdr.str("GGUF");
  hdr.u32(3);
  hdr.u64(1);
  hdr.u64(0);
  hdr.u64(1);
  hdr.str("a");
  hdr.u32(1);
  hdr.u64(1);
  hdr.u32(0);
  hdr.u64(4);
  hdr.b.resize(64 + 8, 0);
  expect_error(parse(hdr.b), "t.gguf", "data offset 4 is not a multiple of the alignment 32");
}

TEST(Gguf, RejectsBadMetadata) {
  synth::GgufWriter w;
  w.kv_u32("k", 1);
  w.kv_u32("k", 2);
  expect_error(parse(w.build()), "t.gguf", "duplicate metadata key \"k\"");

  synth::Bytes b;  // a value of unknown type 13
  b.str("GGUF");
  b.u32(3);
  b.u64(0);
  b.u64(1);
  b.u64(1);
  b.str("k");
  b.u32(9);
  b.u32(13);
  b.u64(1);
  expect_error(parse(b.b), "t.gguf", "unknown array element type 13");
}

TEST(Gguf, HugeCountsFailFastWithoutAllocating) {
  synth::Bytes b;  // claims 2^62 tensors and 2^62 key/values in a 40-byte file
  b.str("GGUF");
  b.u32(3);
  b.u64(uint64_t{1} << 62);
  b.u64(uint64_t{1} << 62);
  b.u64(1);
  b.str("k");
  b.u32(9);  // array of 2^60 strings
  b.u32(8);
  b.u64(uint64_t{1} << 60);
  expect_error(parse(b.b), "t.gguf", "cannot fit");

  synth::Bytes c;
  c.str("GGUF");
  c.u32(3);
  c.u64(uint64_t{1} << 62);
  c.u64(0);
  expect_error(parse(c.b), "t.gguf", "tensor count 4611686018427387904 exceeds 65536");  // kMaxModelTensors
  synth::Bytes d;
  d.str("GGUF");
  d.u32(3);
  d.u64(65536);
  d.u64(0);
  expect_error(parse(d.b), "t.gguf", "tensor infos cannot fit");
}

}  // namespace
}  // namespace ndp
