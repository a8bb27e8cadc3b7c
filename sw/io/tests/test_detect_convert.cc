// Format detection, format names, and the BF16 conversion.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "ndp/convert.h"
#include "ndp/model_load.h"
#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"

namespace ndp {
namespace {

namespace fs = std::filesystem;

class Detect : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ndp_detect_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string put(const std::string& name, const std::vector<uint8_t>& b) {
    std::string p = (dir_ / name).string();
    EXPECT_TRUE(synth::write_file(p, b));
    return p;
  }
  fs::path dir_;
};

TEST_F(Detect, SyntheticFilesOfEveryFormat) {
  const std::pair<std::string, ModelFormat> cases[] = {
      {put("a.safetensors", synth::tiny_safetensors()), ModelFormat::kSafetensors},
      {put("a.gguf", synth::tiny_gguf()), ModelFormat::kGGUF},
      {put("a.rwkv.bin", synth::tiny_rwkv()), ModelFormat::kRwkv},
      {put("a.bin", synth::llama2c_file(synth::Llama2cConfig{})), ModelFormat::kLlama2c},
  };
  for (const auto& [path, f] : cases) {
    auto d = detect_model_format(path);
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(d.value(), f) << path;
    auto m = read_model(path);
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ(m->format, f);
    EXPECT_EQ(m->path, path);
  }
}

TEST_F(Detect, UnknownFormatListsTheFormats) {
  std::string p = put("junk.bin", std::vector<uint8_t>(100, 7));
  auto r = read_model(p);
  ASSERT_FALSE(r.ok());
  for (const char* f : {"safetensors", "gguf", "rwkv", "llama2c", "gpt2-raw"})
    EXPECT_NE(r.status().message().find(f), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().rfind(p + ": unrecognised model format", 0), 0u);
  // A llama2.c file with one extra byte is not detected, and the reason is given.
  auto b = synth::llama2c_file(synth::Llama2cConfig{});
  b.push_back(0);
  auto r2 = read_model(put("extra.bin", b));
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("does not match"), std::string::npos) << r2.status().message();
  EXPECT_FALSE(read_model((dir_ / "missing.bin").string()).ok());
  EXPECT_FALSE(read_model(dir_.string()).ok());  // a directory without model.properties
  EXPECT_FALSE(read_model(put("e.bin", {})).ok());
  // Explicit format on the wrong file.
  EXPECT_FALSE(read_model(put("g.gguf", synth::tiny_gguf()), ModelFormat::kSafetensors).ok());
}

TEST(DetectReal, RealFiles) {
  const std::pair<const char*, ModelFormat> cases[] = {
      {"stories260K/stories260K.bin", ModelFormat::kLlama2c},
      {"rwkv-tiny/tiny-rwkv-7v0-834K-FP16.bin", ModelFormat::kRwkv},
      {"gpt2-small-attn", ModelFormat::kGpt2Raw},
  };
  for (const auto& [rel, f] : cases) {
    NDP_REQUIRE_DATA(p, rel);
    auto d = detect_model_format(p);
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(d.value(), f) << rel;
  }
}

TEST(FormatNames, RoundTrip) {
  for (const char* n : {"auto", "safetensors", "gguf", "llama2c", "rwkv", "gpt2-raw"}) {
    auto f = parse_model_format(n);
    ASSERT_TRUE(f.ok());
    EXPECT_STREQ(model_format_name(f.value()), n);
  }
  EXPECT_FALSE(parse_model_format("onnx").ok());
}

TEST(ConvertBf16, RoundsToNearestEven) {
  Model m;
  Tensor f32;
  f32.dtype = DType::kFP32;
  // 1.0, halfway with even lower half (down), halfway with odd (up), above halfway, -2.5, NaN, Inf
  const uint32_t in[] = {0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0xC0200000, 0x7FC00001, 0x7F800000};
  const uint16_t want[] = {0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC020, 0x7FC0, 0x7F80};
  for (uint32_t u : in) {
    synth::Bytes b;
    b.u32(u);
    f32.data.insert(f32.data.end(), b.b.begin(), b.b.end());
  }
  f32.elements = 7;
  Tensor f16;
  f16.dtype = DType::kFP16;
  f16.elements = 3;
  f16.data = {0x00, 0x3C, 0x01, 0x3C, 0x00, 0xC0};  // 1.0, 1 + 2^-10 (rounds down), -2.0
  Tensor keep;
  keep.dtype = DType::kBF16;
  keep.elements = 1;
  keep.data = {0x34, 0x12};
  m.tensors = {f32, f16, keep};
  convert_model_to_bf16(m);
  for (const Tensor& t : m.tensors) {
    EXPECT_EQ(t.dtype, DType::kBF16);
    EXPECT_EQ(t.data.size(), t.elements * 2);
  }
  for (int i = 0; i < 7; ++i) {
    uint16_t h;
    std::memcpy(&h, m.tensors[0].data.data() + 2 * i, 2);
    EXPECT_EQ(h, want[i]) << i;
  }
  EXPECT_EQ(m.tensors[1].data, (std::vector<uint8_t>{0x80, 0x3F, 0x80, 0x3F, 0x00, 0xC0}));
  EXPECT_EQ(m.tensors[2].data, (std::vector<uint8_t>{0x34, 0x12}));
}

TEST(ConvertBf16, RealModelWithinHalfUlp) {
  NDP_REQUIRE_DATA(path, "stories260K/stories260K.bin");
  auto r = read_model(path);
  ASSERT_TRUE(r.ok());
  Model bf = r.value();
  convert_model_to_bf16(bf);
  uint64_t n = 0;
  for (size_t k = 0; k < bf.tensors.size(); ++k)
    for (uint64_t i = 0; i < bf.tensors[k].elements; ++i, ++n) {
      float x = testing::f32_at(r->tensors[k], i);
      uint16_t h;
      std::memcpy(&h, bf.tensors[k].data.data() + 2 * i, 2);
      float y = bits_f32(bf16_to_fp32(h));
      ASSERT_LE(std::fabs(x - y), std::fabs(x) * std::ldexp(1.0, -8) + 1e-38) << bf.tensors[k].name << "[" << i << "]";
    }
  EXPECT_EQ(n, model_elements(r.value()));
}

// ndp::load_model: the options of `ndp pack` (and `ndp-rtl pack`) in one place.
TEST_F(Detect, LoadModelOptions) {
  const std::string p = put("a.safetensors", synth::tiny_safetensors());  // a.weight F32, "b\u00e9" F16, c BF16
  auto all = load_model(p, {});
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->tensors.size(), 3u);
  auto bf = load_model(p, {"safetensors", "bf16", "", "^(a|c)"});
  ASSERT_TRUE(bf.ok()) << bf.status().message();
  ASSERT_EQ(bf->tensors.size(), 2u);
  for (const Tensor& t : bf->tensors) EXPECT_EQ(t.dtype, DType::kBF16) << t.name;
  EXPECT_EQ(bf->tensors[0].data.size(), 2u * all->tensors[0].elements);
  const std::pair<ModelLoadOptions, const char*> bad[] = {
      {{"onnx", "", "", ""}, "onnx"},
      {{"auto", "fp4", "", ""}, "fp4"},
      {{"auto", "int8", "0", ""}, "--group must be an integer in 1..65536, got '0'"},
      {{"auto", "int8", "12x", ""}, "--group"},
      {{"auto", "", "", "("}, "not a valid regular expression"},
      {{"auto", "", "", "^zzz"}, "no tensor name matches --match '^zzz'"},
  };
  for (const auto& [o, want] : bad) {
    auto r = load_model(p, o);
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(load_model((dir_ / "missing.bin").string(), {}).ok());
}

}  // namespace
}  // namespace ndp
