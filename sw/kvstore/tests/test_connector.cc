// The connector on real KV: stories260K (../shared/data) runs its forward pass, the K/V of every
// layer go into the store page by page as vLLM would hand them over, a second request that
// shares the first 32 tokens finds exactly those blocks, and loading restores the pages
// bit-exactly, layer by layer. Also the C API, compiled as C.
#include <filesystem>

#include "kv_test_util.h"
#include "ndp/kv_record.h"
#include "ndp/kvstore/connector.h"
#include "ndp/kvstore/prefix.h"
#include "ndp/llama_file.h"

extern "C" int ndp_kv_c_smoke(const char* path);

namespace ndp::kv::test {
namespace {

constexpr uint32_t kBlockTokens = 16;

// vLLM-style pages of a trace: pages[layer][kind][block] = [token][head][channel] BF16.
using Pages = std::vector<std::vector<std::vector<std::vector<uint16_t>>>>;

Pages pages_of(const KvTrace& t) {
  const uint32_t blocks = t.n_tokens / kBlockTokens;
  Pages p(t.n_layers, std::vector<std::vector<std::vector<uint16_t>>>(2));
  for (uint32_t l = 0; l < t.n_layers; ++l)
    for (uint32_t kind = 0; kind < 2; ++kind)
      for (uint32_t b = 0; b < blocks; ++b) {
        std::vector<uint16_t> page(kBlockTokens * t.n_kv_heads * t.head_dim);
        for (uint32_t tok = 0; tok < kBlockTokens; ++tok)
          for (uint32_t h = 0; h < t.n_kv_heads; ++h)
            for (uint32_t c = 0; c < t.head_dim; ++c)
              page[(tok * t.n_kv_heads + h) * t.head_dim + c] =
                  t.stream(l, kind, h)[uint64_t(b * kBlockTokens + tok) * t.head_dim + c];
        p[l][kind].push_back(std::move(page));
      }
  return p;
}

std::vector<int32_t> tokens_of(const KvTrace& t) { return std::vector<int32_t>(t.tokens.begin(), t.tokens.end()); }

Status save_request(KvConnector& c, RequestId id, const KvTrace& t, Pages& p) {
  NDP_RETURN_IF_ERROR(c.begin_save(id, tokens_of(t)));
  for (uint32_t l = 0; l < t.n_layers; ++l) {
    std::vector<const void*> k, v;
    for (auto& pg : p[l][0]) k.push_back(pg.data());
    for (auto& pg : p[l][1]) v.push_back(pg.data());
    NDP_RETURN_IF_ERROR(c.save_layer(id, l, k, v));
  }
  return Status::Ok();
}

class KvConnectorReal : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = std::string(NDP_DATA_DIR) + "/stories260K/stories260K.bin";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
    auto m = load_llama(path);
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(m.value());
    GenerateOptions g;
    g.tokens = 64, g.seed = seed();
    auto a = record_kv_trace(model_.llama, g, "stories260K");
    ASSERT_TRUE(a.ok()) << a.status().message();
    a_ = std::move(a.value());
    g.prompt.assign(a_.tokens.begin(), a_.tokens.begin() + 32);  // same first 32 tokens
    g.seed = seed() + 99;
    auto b = record_kv_trace(model_.llama, g, "stories260K");
    ASSERT_TRUE(b.ok()) << b.status().message();
    b_ = std::move(b.value());
  }
  Geometry geometry() const { return Geometry{kBlockTokens, a_.n_layers, a_.n_kv_heads, a_.head_dim, 2}; }
  LoadedLlama model_;
  KvTrace a_, b_;
};

TEST_F(KvConnectorReal, SaveReuseAndLoadStories260K) {
  ScratchPath p("conn");
  CreateOptions o;
  o.geometry = geometry(), o.blocks = 16;
  auto s = KvStore::create(p.str(), o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  KvConnector c(*s.value(), ConnectorOptions{model_salt("stories260K.bin bf16"), false});
  Pages pa = pages_of(a_), pb = pages_of(b_);
  ASSERT_EQ(pa[0][0].size(), 4u);  // 64 tokens = four 16-token blocks
  EXPECT_EQ(c.matched_tokens(tokens_of(a_)).value(), 0u);
  ASSERT_TRUE(save_request(c, 1, a_, pa).ok());
  EXPECT_EQ(c.matched_tokens(tokens_of(a_)).value(), 0u);  // nothing visible before the publish
  ASSERT_EQ(c.wait_for_save(1).value(), 4u);
  EXPECT_EQ(c.matched_tokens(tokens_of(a_)).value(), 64u);

  // Request B shares 32 tokens: two blocks found, and their real K/V are the same bytes as A's.
  ASSERT_EQ(c.matched_tokens(tokens_of(b_)).value(), 32u);
  for (uint32_t l = 0; l < a_.n_layers; ++l) EXPECT_EQ(pb[l][0][1], pa[l][0][1]);
  ASSERT_TRUE(save_request(c, 2, b_, pb).ok());
  ASSERT_EQ(c.wait_for_save(2).value(), 2u);  // only the two new blocks were written
  EXPECT_EQ(s.value()->stats().sealed, 6u);

  // Load B back into fresh pages, layer by layer.
  Pages back(b_.n_layers, std::vector<std::vector<std::vector<uint16_t>>>(
                              2, std::vector<std::vector<uint16_t>>(4, std::vector<uint16_t>(pb[0][0][0].size()))));
  LoadPages lp;
  lp.k.resize(b_.n_layers), lp.v.resize(b_.n_layers);
  for (uint32_t l = 0; l < b_.n_layers; ++l)
    for (uint32_t i = 0; i < 4; ++i) lp.k[l].push_back(back[l][0][i].data()), lp.v[l].push_back(back[l][1][i].data());
  ASSERT_TRUE(c.start_load(3, tokens_of(b_), 4, lp).ok());
  ASSERT_TRUE(c.wait_for_layer_load(3, 0).ok());
  EXPECT_EQ(back[0][0], pb[0][0]);  // layer 0 is usable before the others are waited for
  ASSERT_TRUE(c.wait_for_load(3).ok());
  EXPECT_EQ(back, pb);
  c.request_finished(3);
}

TEST_F(KvConnectorReal, UnfinishedSaveIsNeverPublished) {
  ScratchPath p("conn2");
  CreateOptions o;
  o.geometry = geometry(), o.blocks = 8;
  auto s = KvStore::create(p.str(), o);
  ASSERT_TRUE(s.ok());
  KvConnector c(*s.value(), ConnectorOptions{1, false});
  Pages pa = pages_of(a_);
  ASSERT_TRUE(c.begin_save(1, tokens_of(a_)).ok());
  std::vector<const void*> k, v;
  for (auto& pg : pa[0][0]) k.push_back(pg.data());
  for (auto& pg : pa[0][1]) v.push_back(pg.data());
  ASSERT_TRUE(c.save_layer(1, 0, k, v).ok());  // only layer 0 of 5
  EXPECT_EQ(c.wait_for_save(1).value(), 0u);
  EXPECT_EQ(s.value()->stats().free, 8u);
  ASSERT_TRUE(c.begin_save(2, tokens_of(a_)).ok());
  c.request_finished(2);  // cancelled request: its blocks go back
  EXPECT_EQ(s.value()->stats().free, 8u);
  LoadPages none;
  EXPECT_NE(c.start_load(4, tokens_of(a_), 1, none).message().find("pages for 5 layers"), std::string::npos);
  none.k.assign(5, std::vector<void*>(1, nullptr)), none.v = none.k;
  EXPECT_NE(c.start_load(4, tokens_of(a_), 1, none).message().find("not stored"), std::string::npos);
}

TEST(KvCApi, SmokeFromC) {
  ScratchPath p("capi");
  EXPECT_EQ(ndp_kv_c_smoke(p.str().c_str()), 0);
}

}  // namespace
}  // namespace ndp::kv::test
