// analyze_model: figures agree with a real image and real reads, the JSON contract holds, and on real
// weights the baselines match the reference table of ../shared/data/README.md.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "ndp/analysis.h"
#include "ndp/demo_model.h"
#include "ndp/image.h"

namespace ndp {
namespace {

Model small_demo() {
  DemoModelShape s;
  s.dim = 128;
  s.hidden = 344;
  s.layers = 2;
  s.vocab = 512;
  return make_demo_model(7, s);
}

TEST(Analysis, DeviceFiguresMatchARealImageAndRealReads) {
  Model m = small_demo();
  auto rep = analyze_model(m, AnalyzeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ImageWriter w;
  for (const auto& t : m.tensors) ASSERT_TRUE(w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size()).ok());
  auto bytes = w.finish();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(rep->total.device, bytes->size());
  auto img = ImageReader::open_bytes(std::move(bytes.value()));
  ASSERT_TRUE(img.ok());
  size_t compared = 0;
  for (const auto& rf : rep->regions) {
    uint64_t fetched = 0;
    std::vector<uint8_t> out;
    for (size_t i = 0; i < m.tensors.size(); ++i) {
      auto reg = parse_region(rf.name, m.tensors[i].dtype, rf.guard);
      ASSERT_TRUE(reg.ok()) << rf.name;
      ReadStats st;
      ASSERT_TRUE(img.value()->read_region(i, reg.value(), out, &st).ok());
      fetched += st.fetched_bytes;
    }
    EXPECT_EQ(rf.dram_bytes, fetched) << rf.name << " g=" << rf.guard;
    ++compared;
  }
  EXPECT_GT(compared, 20u) << "regions compared";
}

TEST(Analysis, EntropyAndReferenceRatioFromFirstPrinciples) {
  Model m = small_demo();
  auto rep = analyze_model(m, AnalyzeOptions{});
  ASSERT_TRUE(rep.ok());
  std::vector<double> hist(256);
  double n = 0;
  for (const auto& t : m.tensors)
    for (uint64_t i = 0; i < t.elements; ++i, ++n) hist[(t.data[2 * i + 1] & 0x7F) << 1 | t.data[2 * i] >> 7] += 1;
  double h = 0;
  for (double c : hist)
    if (c > 0) h -= c / n * std::log2(c / n);
  EXPECT_NEAR(rep->total.exponent_entropy_bits(), h, 1e-9);
  EXPECT_NEAR(rep->total.entropy_reference_ratio(), 16.0 / (8.0 + h), 1e-9);
  // The device image reaches the entropy bound within 1% (the spec's goal).
  double device = Figures::ratio(rep->total.bytes, rep->total.device);
  EXPECT_GE(device, 0.99 * rep->total.entropy_reference_ratio());
  // Baselines are ordered as the format predicts on weight-like data.
  EXPECT_GT(Figures::ratio(rep->total.bytes, rep->total.zstd_bitplane), Figures::ratio(rep->total.bytes, rep->total.zstd_raw));
  EXPECT_GT(device, Figures::ratio(rep->total.bytes, rep->total.zstd_bitplane));
}

TEST(Analysis, JsonContract) {
  Model m = small_demo();
  auto rep = analyze_model(m, AnalyzeOptions{});
  ASSERT_TRUE(rep.ok());
  std::string s = report_json(rep.value());
  EXPECT_EQ(s.find('\n'), std::string::npos) << "JSON must be one line";
  auto j = nlohmann::json::parse(s);
  const auto& t = j.at("total");
  EXPECT_EQ(t.at("elements").get<uint64_t>(), rep->total.elements);
  EXPECT_EQ(t.at("bytes").get<uint64_t>(), rep->total.bytes);
  for (const char* k : {"lz4_raw", "zstd_raw", "lz4_bitplane", "zstd_bitplane", "device"})
    EXPECT_GT(t.at("ratio").at(k).get<double>(), 0.9) << k;
  EXPECT_GT(t.at("exponent_entropy_bits").get<double>(), 0.0);
  EXPECT_GT(t.at("entropy_reference_ratio").get<double>(), 1.0);
  EXPECT_TRUE(t.at("planes").at("bf16").contains("expbyte"));
  EXPECT_TRUE(t.at("planes").at("bf16").contains("b15"));
  bool e8m3 = false;
  for (const auto& r : t.at("regions"))
    if (r.at("region") == "e8m3" && r.at("guard") == 0) e8m3 = r.at("dram_bytes").get<uint64_t>() > 0;
  EXPECT_TRUE(e8m3);
  EXPECT_EQ(j.at("tensors").size(), m.tensors.size());
}

TEST(Analysis, SvgPlotIsWritten) {
  Model m = small_demo();
  auto rep = analyze_model(m, AnalyzeOptions{});
  ASSERT_TRUE(rep.ok());
  auto path = std::filesystem::temp_directory_path() / "ndp_test_plot.svg";
  ASSERT_TRUE(write_plane_plot_svg(rep.value(), path.string()).ok());
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
  std::filesystem::remove(path);
  EXPECT_FALSE(write_plane_plot_svg(rep.value(), "/nonexistent-dir/x.svg").ok());
}

TEST(Analysis, RejectsBadBlockSize) {
  Model m = small_demo();
  AnalyzeOptions o;
  o.block_bytes = 100;
  EXPECT_FALSE(analyze_model(m, o).ok());
}

// Reference figures of ../shared/data/README.md (BF16 by RNE, 4 KiB blocks, zstd 3, raw bypass).
struct RefCase {
  const char* path;
  const char* match;  // tensor subset the table covers ("" = all)
  double lz4_raw, zstd_raw, lz4_bp, zstd_bp, entropy;
};

void check_reference(const RefCase& c) {
  std::string p = std::string(NDP_DATA_DIR) + "/" + c.path;
  if (!std::filesystem::exists(p)) GTEST_SKIP() << p << " absent (../shared/data not present)";
  auto m = read_model(p);
  ASSERT_TRUE(m.ok()) << m.status().message();
  convert_model_to_bf16(m.value());
  if (*c.match) {
    std::vector<Tensor> keep;
    for (auto& t : m->tensors)
      if (t.name.find("att.") != std::string::npos && t.name.find(".w") != std::string::npos &&
          t.name.find("norm") == std::string::npos)
        keep.push_back(std::move(t));
    m->tensors = std::move(keep);
    ASSERT_EQ(m->tensors.size(), 24u);
  }
  auto rep = analyze_model(m.value(), AnalyzeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  const Figures& f = rep->total;
  EXPECT_NEAR(Figures::ratio(f.bytes, f.lz4_raw), c.lz4_raw, 0.01);
  EXPECT_NEAR(Figures::ratio(f.bytes, f.zstd_raw), c.zstd_raw, 0.01);
  EXPECT_NEAR(Figures::ratio(f.bytes, f.lz4_bitplane), c.lz4_bp, 0.01);
  EXPECT_NEAR(Figures::ratio(f.bytes, f.zstd_bitplane), c.zstd_bp, 0.01);
  EXPECT_NEAR(f.entropy_reference_ratio(), c.entropy, 0.005);
  EXPECT_GE(Figures::ratio(f.bytes, f.device), 0.99 * f.entropy_reference_ratio());
}

TEST(AnalysisRealData, Stories260KMatchesReferenceTable) {
  check_reference({"stories260K/stories260K.bin", "", 1.034, 1.296, 1.416, 1.464, 1.481});
}

TEST(AnalysisRealData, Gpt2AttentionMatchesReferenceTable) {
  check_reference({"gpt2-small-attn", "att", 1.000, 1.249, 1.360, 1.406, 1.483});
}

}  // namespace
}  // namespace ndp
