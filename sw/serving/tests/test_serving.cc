// Unit tests of the serving model: hand-computed bytes, capacity and step time on a one-layer toy
// geometry, the presets against their published sizes, the config.json and analysis readers, and the
// built-in project figures against a fresh analysis of the real data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "ndp/analysis.h"
#include "ndp/kv_analysis.h"
#include "ndp/kv_record.h"
#include "ndp/llama_file.h"
#include "ndp/model_reader.h"
#include "ndp/serving.h"

namespace {

using namespace ndp::serve;
using json = nlohmann::json;

// One layer: hidden 4, intermediate 8, 2 heads of 2 channels, 1 KV head, vocabulary 8, untied.
//   layer params = 4*4 (q) + 2*4*2 (k, v) + 4*4 (o) + 3*4*8 (MLP) + 2*4 (norms) = 152
//   total = 152 + 2*8*4 (embedding, classifier) + 4 (final norm) = 220 params = 440 bytes
//   read per step (batch 1) = 152 + 4 + 32 + 4 (one embedding row) = 192 params = 384 bytes
//   KV per token = 2 (K, V) * 1 layer * 1 head * 2 channels * 2 bytes = 8 bytes
// Machine: HBM 200 B at 1000 B/s, 1000 FLOP/s BF16, 2000 FP8; tier 1000 B, link 100 B/s per
// direction, device DRAM 200 B/s; NDP 100 elements/s, 10-cycle chunk latency at 100 Hz (0.1 s).
Inputs toy_inputs() {
  Inputs in;
  auto set = [&](const char* k, double v) { in[k] = {v, "", "test"}; };
  set("model.layers", 1);
  set("model.hidden", 4);
  set("model.intermediate", 8);
  set("model.heads", 2);
  set("model.kv_heads", 1);
  set("model.head_dim", 2);
  set("model.vocab", 8);
  set("model.tied_embeddings", 0);
  set("gpu.hbm_gb", 200e-9);
  set("gpu.hbm_gbps", 1000e-9);
  set("gpu.bf16_tflops", 1000e-12);
  set("gpu.fp8_tflops", 2000e-12);
  set("gpu.staging_layers", 0);
  set("cxl.capacity_gb", 1000e-9);
  set("cxl.link_gbps", 100e-9);
  set("cxl.dram_channels", 1);
  set("cxl.dram_channel_gbps", 200e-9);
  set("ndp.elems_per_cycle", 1);
  set("ndp.clock_mhz", 100e-6);
  set("ndp.engines", 1);
  set("ndp.chunk_latency_cycles", 10);
  set("ratio.weights", 2);
  set("ratio.kv", 4);
  set("serve.batch", 1);
  set("serve.page_tokens", 4);
  set("serve.tier_weight_copy", 0);
  set("mode.fp8-e4m3.link_bits", mode_link_bits("fp8-e4m3"));
  set("mode.fp8-e4m3.dram_fraction", 0.5);
  return in;
}

Config toy_config(const Inputs& in = toy_inputs()) {
  auto c = make_config(in, {"fp8-e4m3"});
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.value();
}

void expect_rel(double got, double want, const char* what) {
  EXPECT_NEAR(got, want, std::abs(want) * 1e-12 + 1e-12) << what;
}

TEST(Serving, ToyGeometry) {
  const Config c = toy_config();
  EXPECT_EQ(c.layer_params(), 152);
  EXPECT_EQ(c.total_params(), 220);
  EXPECT_EQ(c.weight_bytes(), 440);
  EXPECT_EQ(c.read_params(), 192);
  EXPECT_EQ(c.kv_bytes_per_token(), 8);
  EXPECT_EQ(c.hbm_usable(), 200);
  ASSERT_EQ(c.designs.size(), 2u);
  EXPECT_EQ(c.designs[1].w_link, 0.5);  // FP8 bytes over BF16 bytes
  EXPECT_EQ(c.designs[1].w_store, 0.5);
  EXPECT_EQ(c.designs[1].kv_dram, 0.25);
  EXPECT_TRUE(c.designs[1].fp8_compute);
}

TEST(Serving, ToyPlacement) {
  const Config c = toy_config();
  // Context 10 -> 3 pages of 4 tokens -> 96 KV bytes.
  Placement p = place(c, c.designs[0], Policy::kWeightsFirst, 10);
  EXPECT_EQ(p.w_hbm, 200);
  EXPECT_EQ(p.w_tier, 240);
  EXPECT_EQ(p.kv_hbm, 0);
  EXPECT_EQ(p.kv_tier, 96);
  EXPECT_EQ(p.tier_stored, 336);
  EXPECT_TRUE(p.fits);
  EXPECT_EQ(place(c, c.designs[1], Policy::kWeightsFirst, 10).tier_stored, 240 / 2 + 96 / 4);
  p = place(c, c.designs[1], Policy::kKvFirst, 10);
  EXPECT_EQ(p.kv_hbm, 96);
  EXPECT_EQ(p.w_hbm, 104);
  EXPECT_EQ(p.w_tier, 336);
  EXPECT_EQ(p.tier_stored, 168);
  // A full weight copy in the tier: every weight is stored there whatever HBM holds.
  Inputs in = toy_inputs();
  in["serve.tier_weight_copy"].value = 1;
  EXPECT_EQ(place(toy_config(in), c.designs[0], Policy::kWeightsFirst, 10).tier_stored, 440 + 96);
}

TEST(Serving, ToyTierFullPoint) {
  const Config c = toy_config();
  // Baseline: 240 B of weights + KV <= 1000 -> KV <= 760 B = 95 tokens -> 23 whole pages.
  EXPECT_EQ(max_context(c, c.designs[0], Policy::kWeightsFirst), 92u);
  EXPECT_EQ(max_context(c, c.designs[0], Policy::kKvFirst), 92u);
  // NDP weights first: 240/2 + KV/4 <= 1000 -> KV <= 3520 B = 440 tokens = 110 pages.
  EXPECT_EQ(max_context(c, c.designs[1], Policy::kWeightsFirst), 440u);
  // NDP KV first: 440/2 + (KV - 200)/4 <= 1000 -> KV <= 3320 B = 415 tokens -> 103 pages.
  EXPECT_EQ(max_context(c, c.designs[1], Policy::kKvFirst), 412u);
  // A tier too small for the weights alone: no context fits.
  Inputs in = toy_inputs();
  in["cxl.capacity_gb"].value = 100e-9;
  const Config small = toy_config(in);
  EXPECT_EQ(max_context(small, small.designs[0], Policy::kWeightsFirst), 0u);
}

TEST(Serving, ToyDecodeStepBaseline) {
  const Config c = toy_config();
  const Step s = decode_step(c, c.designs[0], Policy::kWeightsFirst, 10, Overlap::kFull);
  const double wt = 240.0 * 384 / 440, wh = 200.0 * 384 / 440;  // weights read per step
  expect_rel(s.link_read, wt + 96, "link read");
  expect_rel(s.link_write, 8, "link write: the new token's K and V");
  expect_rel(s.dram, wt + 96 + 8, "device DRAM");
  expect_rel(s.hbm, wh + 2 * (wt + 96), "HBM");
  expect_rel(s.flops, 2 * (152 - 8 + 32) + 4 * 2 * 2 * 10, "FLOPs");
  EXPECT_EQ(s.ndp_elems, 0);
  expect_rel(s.t_link_read, (wt + 96) / 100, "link time");
  expect_rel(s.t_compute, 512.0 / 1000, "compute time");
  EXPECT_EQ(s.t_latency, 0);
  EXPECT_EQ(s.bottleneck, "link-read");
  expect_rel(s.t_step, (wt + 96) / 100, "step");
  expect_rel(s.tok_s, 100 / (wt + 96), "tokens/s");
  const Step serial = decode_step(c, c.designs[0], Policy::kWeightsFirst, 10, Overlap::kSerial);
  expect_rel(serial.t_step, (wt + 96) / 100 + (wh + 2 * (wt + 96)) / 1000, "serial: tier, then HBM");
}

TEST(Serving, ToyDecodeStepNdp) {
  const Config c = toy_config();
  const Step s = decode_step(c, c.designs[1], Policy::kWeightsFirst, 10, Overlap::kFull);
  const double wt = 240.0 * 384 / 440, wh = 200.0 * 384 / 440;
  expect_rel(s.link_read, wt / 2 + 96, "link: FP8 weights, BF16 KV");
  expect_rel(s.dram, wt * 0.5 + 96.0 / 4 + 8.0 / 4, "DRAM: fetched planes, compressed KV read and write");
  expect_rel(s.hbm, wh + 2 * (wt / 2 + 96), "HBM");
  expect_rel(s.ndp_elems, (wt + 96 + 8) / 2, "elements through the device");
  expect_rel(s.t_ndp, (wt + 96 + 8) / 2 / 100, "device time");
  expect_rel(s.t_compute, 512.0 / 2000, "FP8 compute");
  expect_rel(s.t_latency, 0.1, "chunk latency");
  EXPECT_EQ(s.bottleneck, "link-read");
  expect_rel(s.t_step, (wt / 2 + 96) / 100 + 0.1, "step");
  // KV first keeps the KV in HBM: only weights cross the link.
  const Step k = decode_step(c, c.designs[1], Policy::kKvFirst, 10, Overlap::kFull);
  expect_rel(k.link_read, 336.0 * 384 / 440 / 2, "KV first: weights only");
  EXPECT_EQ(k.link_write, 0);
  EXPECT_GT(k.tok_s, s.tok_s);
}

TEST(Serving, RunModelPicksPolicyAndMarksTierFull) {
  auto r = run_model(toy_inputs(), {"fp8-e4m3"}, {10, 100, 420, 500}, Overlap::kFull, std::nullopt, "toy");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& base = r->designs[0];
  const auto& ndp = r->designs[1];
  EXPECT_EQ(base.max_context, 92u);
  EXPECT_EQ(ndp.max_context, 440u);
  EXPECT_EQ(ndp.max_context_policy, Policy::kWeightsFirst);
  ASSERT_TRUE(base.steps[0] && ndp.steps[0]);
  EXPECT_FALSE(base.steps[1]);  // 100 tokens > 92
  EXPECT_EQ(ndp.steps[0]->policy, Policy::kKvFirst);
  ASSERT_TRUE(ndp.steps[2]);  // 420: only weights first fits (412 < 420 <= 440)
  EXPECT_EQ(ndp.steps[2]->policy, Policy::kWeightsFirst);
  EXPECT_FALSE(ndp.steps[3]);
  auto fixed = run_model(toy_inputs(), {"fp8-e4m3"}, {10}, Overlap::kFull, Policy::kWeightsFirst, "toy");
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->designs[1].steps[0]->policy, Policy::kWeightsFirst);
}

TEST(Serving, JsonContract) {
  auto r = run_model(toy_inputs(), {"fp8-e4m3"}, {10, 100}, Overlap::kFull, std::nullopt, "toy");
  ASSERT_TRUE(r.ok());
  const std::string text = report_json(r.value());
  EXPECT_EQ(text.find('\n'), std::string::npos);
  const json j = json::parse(text);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_NEAR(j["tok_s"]["baseline"][0].get<double>(), r->designs[0].steps[0]->tok_s, 1e-12);
  EXPECT_TRUE(j["tok_s"]["baseline"][1].is_null());
  EXPECT_EQ(j["tok_s"]["fp8-e4m3"].size(), 2u);
  EXPECT_EQ(j["max_context"]["baseline"], 92);
  EXPECT_EQ(j["max_context"]["fp8-e4m3"], 440);
  EXPECT_EQ(j["inputs"].size(), toy_inputs().size());
  for (const auto& [name, v] : j["inputs"].items()) EXPECT_EQ(v["source"], "test") << name;
  EXPECT_EQ(json::parse(error_json("bad \"x\""))["error"], "bad \"x\"");
}

TEST(Serving, TextAndPlot) {
  auto r = run_model(toy_inputs(), {"fp8-e4m3"}, {10, 100}, Overlap::kFull, std::nullopt, "toy");
  ASSERT_TRUE(r.ok());
  const std::string t = report_text(r.value());
  EXPECT_NE(t.find("baseline"), std::string::npos);
  EXPECT_NE(t.find("tier-full point"), std::string::npos);
  const std::string path = ::testing::TempDir() + "serving_plot.svg";
  ASSERT_TRUE(write_plot_svg(r.value(), path).ok());
  std::ifstream f(path);
  const std::string svg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("tier full at 92: baseline"), std::string::npos);
  EXPECT_NE(svg.find("tier full at 440: fp8-e4m3"), std::string::npos);
  EXPECT_EQ(write_plot_svg(r.value(), "/nonexistent-dir/x.svg").ok(), false);
}

TEST(Serving, BadInputsAreErrors) {
  Inputs in = toy_inputs();
  in.erase("cxl.link_gbps");
  auto c = make_config(in, {"fp8-e4m3"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("cxl.link_gbps"), std::string::npos);
  in = toy_inputs();
  in["model.kv_heads"].value = 3;
  EXPECT_FALSE(make_config(in, {"fp8-e4m3"}).ok());
  in = toy_inputs();
  in["serve.batch"].value = 1.5;
  EXPECT_FALSE(make_config(in, {"fp8-e4m3"}).ok());
  EXPECT_FALSE(make_config(toy_inputs(), {"mxfp4"}).ok());  // its link_bits / dram_fraction are not set
  EXPECT_FALSE(check_mode("fp7").ok());
  EXPECT_FALSE(make_config(toy_inputs(), {"fp8-e4m3", "fp8-e4m3"}).ok());
  in = toy_inputs();
  EXPECT_TRUE(set_overrides("serve.batch=4,cxl.link_gbps=2e-7", in).ok());
  EXPECT_EQ(in["serve.batch"].value, 4);
  EXPECT_EQ(in["serve.batch"].source, "command line (--set serve.batch)");
  EXPECT_FALSE(set_overrides("serve.bacth=4", in).ok());
  EXPECT_FALSE(set_overrides("serve.batch=four", in).ok());
  EXPECT_FALSE(set_overrides("serve.batch", in).ok());
  EXPECT_FALSE(run_model(toy_inputs(), {"fp8-e4m3"}, {0}, Overlap::kFull, std::nullopt, "toy").ok());
}

TEST(Serving, ModeFormats) {
  EXPECT_EQ(mode_link_bits("full"), 16);
  EXPECT_EQ(mode_link_bits("e8m3"), 16);  // BF16 words
  EXPECT_EQ(mode_link_bits("fp8-e4m3"), 8);
  EXPECT_EQ(mode_link_bits("mxfp4"), 4.25);  // 32 elements of 4 bits + one scale byte
  EXPECT_EQ(mode_link_bits("fp6-e3m2"), 6);
  EXPECT_EQ(mode_link_bits("5bit"), 5);
  EXPECT_EQ(mode_fetch_region("5bit"), "fp6-e3m2");
}

// The paper's figures: ratios from 25.2 % / 46.9 % savings, planes (element bits + guard) of 16.
TEST(Serving, PaperFigures) {
  Inputs in;
  ASSERT_TRUE(set_figures(FigureSet::kPaper, {"full", "e8m3", "fp8-e4m3", "mxfp4", "5bit"}, 1, in).ok());
  const double wr = 1 / 0.748;
  expect_rel(in["ratio.weights"].value, wr, "weights");
  expect_rel(in["ratio.kv"].value, 1 / 0.531, "kv");
  expect_rel(in["mode.full.dram_fraction"].value, 1 / wr, "full");
  expect_rel(in["mode.e8m3.dram_fraction"].value, 13.0 / 16 / wr, "e8m3 g=1");
  expect_rel(in["mode.fp8-e4m3.dram_fraction"].value, 9.0 / 16 / wr, "fp8");
  expect_rel(in["mode.mxfp4.dram_fraction"].value, 5.0 / 16 / wr, "mxfp4");
  expect_rel(in["mode.5bit.dram_fraction"].value, 6.0 / 16 / wr, "5bit");
  EXPECT_FALSE(set_figures(FigureSet::kPaper, {"full"}, 3, in).ok());
}

// Presets: the parameter counts Meta publishes (8.03 B, 70.55 B) and the KV bytes per token.
TEST(Serving, Presets) {
  Inputs in = toy_inputs();
  ASSERT_TRUE(set_model_preset("llama3.1-70b", in).ok());
  Config c = toy_config(in);
  EXPECT_NEAR(c.total_params() / 1e9, 70.55, 0.01);
  EXPECT_EQ(c.kv_bytes_per_token(), 2 * 80 * 8 * 128 * 2);
  ASSERT_TRUE(set_model_preset("llama3.1-8b", in).ok());
  EXPECT_NEAR(toy_config(in).total_params() / 1e9, 8.03, 0.01);
  EXPECT_FALSE(set_model_preset("llama2-7b", in).ok());
  ASSERT_TRUE(set_gpu_preset("h100", in).ok());
  EXPECT_EQ(in["gpu.hbm_gb"].value, 80);
  EXPECT_EQ(in["gpu.hbm_gbps"].value, 3350);
  EXPECT_FALSE(set_gpu_preset("a100", in).ok());
  set_tier_defaults(256, in);
  EXPECT_NEAR(in["cxl.link_gbps"].value, 63.015, 0.001);  // PCIe 5.0 x16 per direction
  EXPECT_NEAR(in["cxl.dram_channels"].value * in["cxl.dram_channel_gbps"].value, 76.92, 0.01);
}

TEST(Serving, HfConfig) {
  const std::string cfg = R"({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
    "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 131072, "head_dim": 64, "tie_word_embeddings": true, "torch_dtype": "bfloat16"})";
  Inputs in = toy_inputs();
  ASSERT_TRUE(set_model_from_hf_config(cfg, "llama-1b/config.json", in).ok());
  EXPECT_EQ(in["model.layers"].value, 16);
  EXPECT_EQ(in["model.kv_heads"].value, 8);
  EXPECT_EQ(in["model.head_dim"].value, 64);
  EXPECT_EQ(in["model.tied_embeddings"].value, 1);
  EXPECT_NE(in["model.hidden"].source.find("llama-1b/config.json"), std::string::npos);
  // Llama 3.2 1B: 1.24 B parameters with the tied embedding.
  EXPECT_NEAR(toy_config(in).total_params() / 1e9, 1.236, 0.001);
  auto bad = set_model_from_hf_config(R"({"model_type": "llama", "hidden_size": 8})", "x.json", in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("x.json"), std::string::npos);
  EXPECT_FALSE(set_model_from_hf_config("{not json", "y.json", in).ok());
  EXPECT_FALSE(set_model_from_hf_config(R"({"model_type": "gpt2"})", "z.json", in).ok());
}

TEST(Serving, AnalysisJsonReaders) {
  Inputs in;
  const std::string w = R"({"path": "m", "total": {"bytes": 1000, "stored_bytes": 800, "regions": [
      {"region": "full", "guard": 0, "dram_bytes": 790}, {"region": "fp8-e4m3", "guard": 1, "dram_bytes": 450},
      {"region": "fp6-e3m2", "guard": 1, "dram_bytes": 400}]}})";
  ASSERT_TRUE(set_weights_from_analyze_json(w, "w.json", {"full", "fp8-e4m3", "5bit"}, 1, in).ok());
  EXPECT_EQ(in["ratio.weights"].value, 1.25);
  EXPECT_EQ(in["mode.full.dram_fraction"].value, 0.79);
  EXPECT_EQ(in["mode.fp8-e4m3.dram_fraction"].value, 0.45);
  EXPECT_EQ(in["mode.5bit.dram_fraction"].value, 0.4);
  EXPECT_EQ(in["mode.5bit.link_bits"].value, 5);
  auto missing = set_weights_from_analyze_json(w, "w.json", {"mxfp4"}, 1, in);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("mxfp4 g=1"), std::string::npos);
  EXPECT_FALSE(set_weights_from_analyze_json("{}", "w.json", {"full"}, 1, in).ok());
  const std::string kv = R"({"trace": {"model": "s"}, "options": {"window": 32, "heads_per_window": 4},
      "total": {"raw_bytes": 1000, "stored_bytes": {"device": 500}}})";
  ASSERT_TRUE(set_kv_from_analyze_kv_json(kv, "kv.json", in).ok());
  EXPECT_EQ(in["ratio.kv"].value, 2);
  EXPECT_NE(in["ratio.kv"].source.find("window 32 tokens x 4 heads"), std::string::npos);
  EXPECT_FALSE(set_kv_from_analyze_kv_json(R"({"total": {"raw_bytes": 0}})", "kv.json", in).ok());
}

// The paper's setup that reproduces its baseline (docs/results/serving.md): tier 256 GiB holding a
// full weight copy, batch 4, weights first. Expected values from the closed forms, independently.
TEST(Serving, PaperSetupClosedForm) {
  Inputs in;
  ASSERT_TRUE(set_model_preset("llama3.1-70b", in).ok());
  ASSERT_TRUE(set_gpu_preset("h100", in).ok());
  set_tier_defaults(256 * 1.073741824, in);
  set_serving_defaults(in);
  ASSERT_TRUE(set_figures(FigureSet::kPaper, {"5bit"}, 1, in).ok());
  set_device(FigureSet::kPaper, in);
  ASSERT_TRUE(set_overrides("serve.batch=4,serve.tier_weight_copy=1", in).ok());
  auto r = run_model(in, {"5bit"}, {65536}, Overlap::kFull, Policy::kWeightsFirst, "llama3.1-70b");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Config& c = r->config;
  const double kv_tok = 327680, tier = 256.0 * (1ull << 30), w = c.weight_bytes();
  const double page_bytes = 4 * 32 * kv_tok;
  EXPECT_EQ(r->designs[0].max_context, uint64_t(std::floor((tier - w) / page_bytes)) * 32);
  EXPECT_EQ(r->designs[1].max_context, uint64_t(std::floor((tier - w * 0.748) * (1 / 0.531) / page_bytes)) * 32);
  // At 65,536 tokens both designs are link-bound: streamed weights + the whole KV.
  const double w_tier = (w - c.hbm_usable()) * 2 * c.read_params() / w, kv = 4 * 65536 * kv_tok;
  const auto& b = *r->designs[0].steps[0];
  const auto& n = *r->designs[1].steps[0];
  EXPECT_EQ(b.bottleneck, "link-read");
  EXPECT_EQ(n.bottleneck, "link-read");
  EXPECT_NEAR(n.tok_s / b.tok_s, (w_tier + kv) / (w_tier * 5 / 16 + kv + c.ndp_latency_s * c.link_bps), 1e-9);
}

// ---- Real data: the built-in project figures equal a fresh analysis ------------------------------

const std::string kData = NDP_DATA_DIR;

TEST(ServingRealData, ProjectWeightFiguresMatchAnalyze) {
  const std::string dir = kData + "/gpt2-small-attn";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " absent";
  auto m = ndp::read_model(dir);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ndp::convert_model_to_bf16(m.value());
  const std::regex re("att\\.(query|key|value|proj)\\.w", std::regex::extended);
  std::erase_if(m->tensors, [&](const ndp::Tensor& t) { return !std::regex_search(t.name, re); });
  ASSERT_EQ(m->tensors.size(), 24u);
  auto rep = ndp::analyze_model(m.value(), ndp::AnalyzeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  const std::vector<std::string> modes = {"full",     "e8m0",     "e8m3",  "e8m7",  "fp8-e4m3", "fp8-e5m2",
                                          "fp6-e2m3", "fp4-e2m1", "mxfp8", "mxfp4", "5bit"};
  for (int g = 0; g <= 2; ++g) {
    Inputs built_in, measured;
    ASSERT_TRUE(set_figures(FigureSet::kProject, modes, g, built_in).ok());
    ASSERT_TRUE(set_weights_from_analyze_json(ndp::report_json(rep.value()), "fresh", modes, g, measured).ok());
    EXPECT_DOUBLE_EQ(built_in["ratio.weights"].value, measured["ratio.weights"].value);
    for (const auto& mode : modes)
      EXPECT_DOUBLE_EQ(built_in["mode." + mode + ".dram_fraction"].value,
                       measured["mode." + mode + ".dram_fraction"].value)
          << mode << " g=" << g;
  }
}

TEST(ServingRealData, ProjectKvFigureMatchesAnalyzeKv) {
  const std::string path = kData + "/stories260K/stories260K.bin";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent";
  auto loaded = ndp::load_llama(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ndp::GenerateOptions g;  // seed 1, the model's 512 positions: `ndp kvtrace --seed 1`
  auto trace = ndp::record_kv_trace(loaded->llama, g, "stories260K.bin");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ndp::KvAnalysisOptions o;
  o.window = 32;
  o.heads = 4;
  o.base = ndp::KvBase::kMin;  // as the built-in figure was measured (figures.cc kKvCmd)
  auto a = ndp::analyze_kv(trace.value(), o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  Inputs built_in, measured;
  ASSERT_TRUE(set_figures(FigureSet::kProject, {}, 1, built_in).ok());
  ASSERT_TRUE(set_kv_from_analyze_kv_json(ndp::kv_analysis_json(a.value()), "fresh", measured).ok());
  EXPECT_DOUBLE_EQ(built_in["ratio.kv"].value, measured["ratio.kv"].value);
}

}  // namespace
