// LlamaRunner against the independent naive reference (naive_llama.h) on random small models:
// every naming scheme the loader accepts, GQA, both RoPE styles, shared/unshared classifier,
// FP32/BF16/FP16 weights, and the recorded KV (K after RoPE, V) against the reference's K/V.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "naive_llama.h"
#include "random_llama.h"
#include "ndp/convert.h"
#include "ndp/kv_record.h"
#include "ndp/llama.h"
#include "ndp/test_seed.h"

namespace {

using namespace testmodel;

// Run both implementations on a fixed token sequence and compare logits and recorded K/V.
void check(const Spec& s, uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  Built b = Builder(s, seed).build();
  auto lm = ndp::llama_from_model(b.model, s.naming == Naming::kHf ? b.config_json : "");
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  std::mt19937 rng(static_cast<uint32_t>(ndp::testing::test_seed(seed ^ 0x5555u)));
  std::vector<int> tokens(s.seq);
  for (int& t : tokens) t = static_cast<int>(rng() % s.vocab);
  std::vector<std::vector<std::vector<naive::Vec>>> ref_kv;
  const auto ref = naive::logits(b.ref, tokens, &ref_kv);

  struct Capture : ndp::KvSink {
    int kvd;
    std::vector<std::vector<float>> k, v;  // [layer * seq + pos]
    void on_kv(int layer, int pos, const float* kk, const float* vv) override {
      k.emplace_back(kk, kk + kvd);
      v.emplace_back(vv, vv + kvd);
      (void)layer, (void)pos;
    }
  } cap;
  cap.kvd = lm.value().config.kv_dim();
  ndp::LlamaRunner run(lm.value());
  run.set_sink(&cap);
  double worst = 0;
  for (int pos = 0; pos < s.seq; ++pos) {
    auto lg = run.forward(tokens[pos], pos);
    ASSERT_TRUE(lg.ok()) << lg.status().message();
    double mx = 0;
    for (double x : ref[pos]) mx = std::max(mx, std::fabs(x));
    for (int i = 0; i < s.vocab; ++i) {
      const double d = std::fabs((*lg.value())[i] - ref[pos][i]);
      worst = std::max(worst, d / (1.0 + mx));
      ASSERT_LE(d, 1e-4 * (1.0 + mx)) << "pos " << pos << " logit " << i;
    }
  }
  EXPECT_GT(worst, 0.0) << "FP32 and double agree bit for bit: the comparison is not exercising anything";
  ASSERT_EQ(cap.k.size(), static_cast<size_t>(s.layers * s.seq));
  for (int l = 0; l < s.layers; ++l)
    for (int pos = 0; pos < s.seq; ++pos)
      for (int i = 0; i < cap.kvd; ++i) {
        // sink is called layer by layer within each position
        const size_t idx = static_cast<size_t>(pos) * s.layers + l;
        ASSERT_NEAR(cap.k[idx][i], ref_kv[l][0][pos][i], 1e-4 * (1 + std::fabs(ref_kv[l][0][pos][i])));
        ASSERT_NEAR(cap.v[idx][i], ref_kv[l][1][pos][i], 1e-4 * (1 + std::fabs(ref_kv[l][1][pos][i])));
      }
}

TEST(LlamaNaive, StackedNamesGqaInterleavedRope) { for (uint32_t seed : {1u, 2u, 3u}) check(Spec{}, seed); }

TEST(LlamaNaive, MetaNamesUnsharedClassifier) {
  Spec s;
  s.naming = Naming::kMeta;
  s.shared = false;
  check(s, 11);
}

TEST(LlamaNaive, MultiHeadNoGqa) {
  Spec s;
  s.kv_heads = s.heads;
  check(s, 12);
}

TEST(LlamaNaive, MultiQueryOneKvHead) {
  Spec s;
  s.kv_heads = 1;
  s.naming = Naming::kMeta;
  check(s, 13);
}

TEST(LlamaNaive, HfNamesHalfRopeBf16Weights) {
  Spec s;
  s.naming = Naming::kHf;
  s.half_rope = true;
  s.wtype = ndp::DType::kBF16;
  s.shared = false;
  check(s, 14);
}

TEST(LlamaNaive, Fp16Weights) {
  Spec s;
  s.wtype = ndp::DType::kFP16;
  check(s, 15);
}

TEST(LlamaNaive, RopeStyleMatters) {
  // The interleaved and half RoPE pairings give different results: the test above can tell them apart.
  Spec s;
  Built b = Builder(s, 21).build();
  auto lm = ndp::llama_from_model(b.model);
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  b.ref.half_rope = true;
  const auto ref = naive::logits(b.ref, {1, 2, 3, 4});
  ndp::LlamaRunner run(lm.value());
  double diff = 0;
  for (int pos = 0; pos < 4; ++pos) {
    auto lg = run.forward(pos + 1, pos);
    ASSERT_TRUE(lg.ok());
    for (int i = 0; i < s.vocab; ++i) diff = std::max(diff, std::fabs((*lg.value())[i] - ref[pos][i]));
  }
  EXPECT_GT(diff, 1e-3);
}

TEST(LlamaNaive, RecordedTraceIsBf16OfTheReferenceKv) {
  Spec s;
  Built b = Builder(s, 31).build();
  auto lm = ndp::llama_from_model(b.model);
  ASSERT_TRUE(lm.ok()) << lm.status().message();
  ndp::GenerateOptions opt;
  opt.seed = 7;
  auto tr = ndp::record_kv_trace(lm.value(), opt, "random");
  ASSERT_TRUE(tr.ok()) << tr.status().message();
  const ndp::KvTrace& t = tr.value();
  ASSERT_EQ(t.n_tokens, static_cast<uint32_t>(s.seq));
  EXPECT_EQ(t.tokens[0], 1u);  // BOS
  std::vector<int> toks(t.tokens.begin(), t.tokens.end());
  std::vector<std::vector<std::vector<naive::Vec>>> ref_kv;
  naive::logits(b.ref, toks, &ref_kv);
  const int hs = s.dim / s.heads;
  size_t exact = 0, total = 0;
  for (uint32_t l = 0; l < t.n_layers; ++l)
    for (uint32_t kind = 0; kind < 2; ++kind)
      for (uint32_t h = 0; h < t.n_kv_heads; ++h)
        for (uint32_t pos = 0; pos < t.n_tokens; ++pos)
          for (int c = 0; c < hs; ++c) {
            const uint16_t got = t.stream(l, kind, h)[pos * hs + c];
            const double want = ref_kv[l][kind][pos][h * hs + c];
            const double gotf = ndp::bits_f32(ndp::bf16_to_fp32(got));
            // BF16 keeps 8 significant bits: within half an ulp (plus FP32 noise) of the reference.
            ASSERT_LE(std::fabs(gotf - want), std::fabs(want) * (1.0 / 256 + 1e-5) + 1e-6);
            exact += got == ndp::fp32_to_bf16_rne(ndp::f32_bits(static_cast<float>(want)));
            ++total;
          }
  EXPECT_GT(static_cast<double>(exact), 0.99 * static_cast<double>(total));
}

TEST(LlamaNaive, ForwardRejectsBadTokenAndPosition) {
  Built b = Builder(Spec{}, 41).build();
  auto lm = ndp::llama_from_model(b.model);
  ASSERT_TRUE(lm.ok());
  ndp::LlamaRunner run(lm.value());
  EXPECT_FALSE(run.forward(-1, 0).ok());
  EXPECT_FALSE(run.forward(Spec{}.vocab, 0).ok());
  EXPECT_FALSE(run.forward(1, 1).ok());  // positions must be consecutive
  EXPECT_TRUE(run.forward(1, 0).ok());
}

TEST(LlamaNaive, LoaderRejectsMissingAndMisshapenTensors) {
  Built b = Builder(Spec{}, 51).build();
  ndp::Model m = b.model;
  m.tensors.erase(m.tensors.begin() + 2);
  auto r = ndp::llama_from_model(m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not found"), std::string::npos) << r.status().message();
  m = b.model;
  m.tensors[1].data.resize(m.tensors[1].data.size() - 4);
  m.tensors[1].elements -= 1;
  EXPECT_FALSE(ndp::llama_from_model(m).ok());
  m = b.model;
  m.meta["n_kv_heads"] = 4;  // 6 heads are not a multiple of 4
  EXPECT_FALSE(ndp::llama_from_model(m).ok());
  m = b.model;
  m.meta.erase("dim");
  EXPECT_FALSE(ndp::llama_from_model(m).ok());
  m = b.model;
  m.tensors[0].dtype = ndp::DType::kINT8;
  EXPECT_FALSE(ndp::llama_from_model(m).ok());
}

}  // namespace
