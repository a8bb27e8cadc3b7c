// rwkv.cpp ggmf reader: the three real tiny RWKV files and synthetic files written by the test.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ndp/convert.h"
#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"

namespace ndp {
namespace {

using testing::expect_error;

// Structural facts every RWKV checkpoint satisfies: emb/head are [n_vocab, n_embed], every block
// index is below n_layer and all blocks appear.
void check_rwkv_structure(const Model& m) {
  const uint64_t V = m.meta.at("n_vocab"), E = m.meta.at("n_embed"), L = m.meta.at("n_layer");
  EXPECT_EQ(find_tensor(m, "emb.weight")->shape, (std::vector<uint64_t>{V, E}));
  ASSERT_NE(find_tensor(m, "head.weight"), nullptr);
  EXPECT_EQ(find_tensor(m, "head.weight")->shape, (std::vector<uint64_t>{V, E}));
  std::set<uint64_t> blocks;
  for (const Tensor& t : m.tensors)
    if (t.name.rfind("blocks.", 0) == 0) blocks.insert(std::stoull(t.name.substr(7)));
  ASSERT_EQ(blocks.size(), L);
  EXPECT_EQ(*blocks.rbegin(), L - 1);
}

TEST(Rwkv, RealFilesHeadersAndStructure) {
  struct Case {
    const char* file;
    int64_t dtype;
    size_t tensors;
    uint64_t elements;  // counted with an independent Python walk of the files
  };
  const Case cases[] = {{"rwkv-tiny/tiny-rwkv-5v1-730K-FP16.bin", 1, 246, 680640},
                        {"rwkv-tiny/tiny-rwkv-5v1-730K-FP32.bin", 0, 246, 680640},
                        {"rwkv-tiny/tiny-rwkv-7v0-834K-FP16.bin", 1, 339, 829888}};
  for (const Case& c : cases) {
    NDP_REQUIRE_DATA(path, c.file);
    auto r = read_model(path);  // auto-detected by the ggmf magic
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Model& m = r.value();
    EXPECT_EQ(m.format, ModelFormat::kRwkv);
    EXPECT_EQ(m.meta.at("version"), 101);
    EXPECT_EQ(m.meta.at("n_vocab"), 256);
    EXPECT_EQ(m.meta.at("n_embed"), 64);
    EXPECT_EQ(m.meta.at("n_layer"), 12);
    EXPECT_EQ(m.meta.at("file_dtype"), c.dtype);
    EXPECT_EQ(m.tensors.size(), c.tensors) << c.file;
    EXPECT_EQ(model_elements(m), c.elements) << c.file;
    check_rwkv_structure(m);
  }
}

TEST(Rwkv, Fp16FileMatchesFp32File) {
  NDP_REQUIRE_DATA(p16, "rwkv-tiny/tiny-rwkv-5v1-730K-FP16.bin");
  NDP_REQUIRE_DATA(p32, "rwkv-tiny/tiny-rwkv-5v1-730K-FP32.bin");
  auto a = read_model(p16), b = read_model(p32);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->tensors.size(), b->tensors.size());
  uint64_t compared = 0;
  for (size_t i = 0; i < a->tensors.size(); ++i) {
    const Tensor &h = a->tensors[i], &f = b->tensors[i];
    ASSERT_EQ(h.name, f.name);
    ASSERT_EQ(h.shape, f.shape);
    if (h.dtype != DType::kFP16) continue;
    for (uint64_t k = 0; k < h.elements; ++k, ++compared) {
      uint16_t hb;
      std::memcpy(&hb, h.data.data() + 2 * k, 2);
      float hv = bits_f32(fp16_to_fp32(hb)), fv = testing::f32_at(f, k);
      ASSERT_NEAR(hv, fv, std::fabs(fv) * 1e-3 + 1e-7) << h.name << "[" << k << "]";
    }
  }
  EXPECT_GT(compared, 100000u);
}

TEST(Rwkv, SyntheticFile) {
  auto b = synth::tiny_rwkv();
  auto r = parse_rwkv(b.data(), b.size(), "t.rwkv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tensors.size(), 3u);
  EXPECT_EQ(r->tensors[0].shape, (std::vector<uint64_t>{5, 4}));  // PyTorch order restored
  EXPECT_EQ(r->tensors[0].data, synth::f16_ramp(20));
  EXPECT_EQ(r->tensors[1].dtype, DType::kFP32);
  check_rwkv_structure(r.value());
}

TEST(Rwkv, RejectsQuantizedAndBadHeaders) {
  auto q = synth::rwkv_file(101, 5, 4, 1, 9, {{"emb.weight", 9, {32}, std::vector<uint8_t>(34, 0)}});
  expect_error(parse_rwkv(q.data(), q.size(), "t.rwkv"), "t.rwkv", "tensor 'emb.weight': data type Q8_0 (9) is not supported");
  auto v = synth::rwkv_file(102, 5, 4, 1, 0, {});
  expect_error(parse_rwkv(v.data(), v.size(), "t.rwkv"), "t.rwkv", "version 102 is not supported");
  auto e = synth::rwkv_file(101, 5, 0, 1, 0, {});
  expect_error(parse_rwkv(e.data(), e.size(), "t.rwkv"), "t.rwkv", "n_embed 0 must be positive");
  auto none = synth::rwkv_file(101, 5, 4, 1, 0, {});
  expect_error(parse_rwkv(none.data(), none.size(), "t.rwkv"), "t.rwkv", "holds no tensors");
  auto dims = synth::rwkv_file(101, 5, 4, 1, 0, {{"x", 0, {1, 1, 1, 1, 1}, synth::f32_ramp(1, 0, 0)}});
  expect_error(parse_rwkv(dims.data(), dims.size(), "t.rwkv"), "t.rwkv", "n_dims 5 is not in 1..4");
  auto neg = synth::rwkv_file(101, 5, 4, 1, 0, {{"x", 0, {-2}, {}}});
  expect_error(parse_rwkv(neg.data(), neg.size(), "t.rwkv"), "t.rwkv", "dimension -2 must be positive");
  auto dup = synth::rwkv_file(101, 5, 4, 1, 0, {{"x", 0, {1}, synth::f32_ramp(1, 0, 0)}, {"x", 0, {1}, synth::f32_ramp(1, 0, 0)}});
  expect_error(parse_rwkv(dup.data(), dup.size(), "t.rwkv"), "t.rwkv", "duplicate tensor 'x'");
  auto big = synth::rwkv_file(101, 5, 4, 1, 0, {{"x", 0, {65536, 65536, 65536, 65536}, {}}});
  expect_error(parse_rwkv(big.data(), big.size(), "t.rwkv"), "t.rwkv", "overflows");
  auto shortdata = synth::rwkv_file(101, 5, 4, 1, 0, {{"x", 0, {3}, synth::f32_ramp(2, 0, 0)}});
  expect_error(parse_rwkv(shortdata.data(), shortdata.size(), "t.rwkv"), "t.rwkv", "data of tensor 'x' needs 12 bytes, 8 left");
}

}  // namespace
}  // namespace ndp
