// GPT-2 raw (big-endian, one file per tensor) reader: the real partial GPT-2 small directory and
// synthetic directories written by the test.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"

namespace ndp {
namespace {

namespace fs = std::filesystem;
using testing::f32_at;

double mean(const Tensor& t) {
  double s = 0;
  for (uint64_t i = 0; i < t.elements; ++i) s += f32_at(t, i);
  return s / static_cast<double>(t.elements);
}

TEST(Gpt2Raw, RealDirectory) {
  NDP_REQUIRE_DATA(dir, "gpt2-small-attn");
  auto fmt = detect_model_format(dir);
  ASSERT_TRUE(fmt.ok()) << fmt.status().message();
  EXPECT_EQ(fmt.value(), ModelFormat::kGpt2Raw);
  auto r = read_model(dir);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Model& m = r.value();
  const uint64_t h = m.meta.at("hidden_size"), ctx = m.meta.at("context_size");
  EXPECT_EQ(h, 768u);
  EXPECT_EQ(ctx, 1024u);
  EXPECT_EQ(m.meta.at("decoders_present"), m.meta.at("decoder_count"));
  // Every .dat file is read, and nothing else: compare with an independent walk of the folder.
  uint64_t files = 0, bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".dat") {
      ++files;
      bytes += e.file_size();
    }
  EXPECT_EQ(m.tensors.size(), files);
  EXPECT_EQ(model_elements(m) * 4, bytes);
  // ... and the total matches the architecture: per decoder 4 h x h matrices + 13 h vectors.
  const uint64_t L = m.meta.at("decoders_present");
  EXPECT_EQ(model_elements(m), L * (4 * h * h + 13 * h) + ctx * h + 2 * h);
  const Tensor* wpe = find_tensor(m, "input/wpe");
  ASSERT_NE(wpe, nullptr);
  EXPECT_EQ(wpe->shape, (std::vector<uint64_t>{1024, 768}));
  // Known trained values (data README): wpe[0, :3] and layer-norm gamma means.
  EXPECT_NEAR(f32_at(*wpe, 0), -0.0188, 5e-5);
  EXPECT_NEAR(f32_at(*wpe, 1), -0.1974, 5e-5);
  EXPECT_NEAR(f32_at(*wpe, 2), 0.0040, 5e-5);
  EXPECT_NEAR(mean(*find_tensor(m, "decoder1/att.norm.w")), 0.18, 0.006);
  EXPECT_NEAR(mean(*find_tensor(m, "decoder6/att.norm.w")), 0.37, 0.006);
  EXPECT_NEAR(mean(*find_tensor(m, "output/norm.w")), 1.51, 0.006);
  EXPECT_EQ(find_tensor(m, "decoder3/att.query.w")->shape, (std::vector<uint64_t>{768, 768}));
  EXPECT_EQ(find_tensor(m, "decoder3/mlp.layer1.b")->shape, (std::vector<uint64_t>{3072}));
  EXPECT_EQ(m.tensors.front().name, "input/wpe");
  EXPECT_EQ(m.tensors.back().name, "output/norm.w");
  EXPECT_EQ(m.meta_str.at("name"), "GPT-2 SMALL (124M)");
}

class Gpt2Synthetic : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ndp_gpt2_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "decoder1");
    fs::create_directories(dir_ / "input");
    props("hidden.size = 4\ndecoder.count = 2\ncontext.size = 3\n# comment\n\n");
    be_floats("decoder1/att.query.w.dat", 16);
    be_floats("decoder1/mlp.layer1.b.dat", 16);
    be_floats("input/wpe.dat", 12);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void props(const std::string& s) { synth::write_file((dir_ / "model.properties").string(), {s.begin(), s.end()}); }
  // n big-endian floats 0.5 * i.
  void be_floats(const std::string& rel, int n) {
    std::vector<uint8_t> b;
    for (int i = 0; i < n; ++i) {
      float f = 0.5f * static_cast<float>(i);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      for (int k = 3; k >= 0; --k) b.push_back(static_cast<uint8_t>(u >> (8 * k)));
    }
    synth::write_file((dir_ / rel).string(), b);
  }
  fs::path dir_;
};

TEST_F(Gpt2Synthetic, ReadsAndConvertsEndianness) {
  auto r = read_model(dir_.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tensors.size(), 3u);
  EXPECT_EQ(r->tensors[0].name, "input/wpe");
  EXPECT_EQ(r->tensors[0].shape, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(r->tensors[1].name, "decoder1/att.query.w");
  EXPECT_EQ(r->tensors[2].name, "decoder1/mlp.layer1.b");
  EXPECT_EQ(f32_at(r->tensors[1], 3), 1.5f);
  EXPECT_EQ(r->meta.at("decoders_present"), 1);
}

TEST_F(Gpt2Synthetic, SizeErrorsNameTheFile) {
  synth::write_file((dir_ / "decoder1/att.key.b.dat").string(), {1, 2, 3, 4, 5, 6});
  auto r = read_model(dir_.string());
  testing::expect_error(r, (dir_ / "decoder1/att.key.b.dat").string(), "size 6 is not a multiple of 4");
  fs::remove(dir_ / "decoder1/att.key.b.dat");
  be_floats("decoder1/att.key.w.dat", 12);
  testing::expect_error(read_model(dir_.string()), (dir_ / "decoder1/att.key.w.dat").string(),
                        "does not match the expected shape [4, 4] (16 floats)");
}

TEST_F(Gpt2Synthetic, PropertyAndFolderErrors) {
  fs::create_directories(dir_ / "decoder3");
  EXPECT_NE(read_model(dir_.string()).status().message().find("outside decoder1..decoder2"), std::string::npos);
  fs::remove_all(dir_ / "decoder3");
  props("decoder.count = 2\n");
  EXPECT_NE(read_model(dir_.string()).status().message().find("missing property \"hidden.size\""), std::string::npos);
  props("hidden.size = 4x\ndecoder.count = 2\n");
  EXPECT_NE(read_model(dir_.string()).status().message().find("is not a positive integer"), std::string::npos);
  props("hidden.size = 4\ndecoder.count = 2\n");  // no context.size but input/wpe.dat present
  EXPECT_NE(read_model(dir_.string()).status().message().find("lacks \"context.size\""), std::string::npos);
  props("hidden.size 4\n");
  EXPECT_NE(read_model(dir_.string()).status().message().find("expected \"key = value\""), std::string::npos);
}

}  // namespace
}  // namespace ndp
