// load_llama on real files: a random Hugging Face-style Llama written as a .safetensors file (and as
// two shards in a directory) with its config.json, read back through ndp::read_model, must give the
// naive reference's logits. Also the llama2.c path's errors.
#include <gtest/gtest.h>

#ifdef NDP_MODEL_HAVE_IO
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "naive_llama.h"
#include "ndp/kv_record.h"
#include "ndp/llama_file.h"
#include "random_llama.h"
#include "synth.h"

namespace {

namespace fs = std::filesystem;
using namespace testmodel;

// Write tensors [begin, end) of m as one safetensors file.
void write_safetensors(const fs::path& p, const ndp::Model& m, size_t begin, size_t end) {
  std::string hdr = "{";
  uint64_t off = 0;
  for (size_t i = begin; i < end; ++i) {
    const ndp::Tensor& t = m.tensors[i];
    const char* dt = t.dtype == ndp::DType::kBF16 ? "BF16" : t.dtype == ndp::DType::kFP16 ? "F16" : "F32";
    std::string shape;
    for (uint64_t d : t.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    hdr += (i > begin ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"" + dt + "\",\"shape\":[" + shape +
           "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + t.data.size()) + "]}";
    off += t.data.size();
  }
  hdr += "}";
  while (hdr.size() % 8) hdr += ' ';
  std::ofstream f(p, std::ios::binary);
  const uint64_t n = hdr.size();
  f.write(reinterpret_cast<const char*>(&n), 8);
  f.write(hdr.data(), static_cast<std::streamsize>(hdr.size()));
  for (size_t i = begin; i < end; ++i)
    f.write(reinterpret_cast<const char*>(m.tensors[i].data.data()), static_cast<std::streamsize>(m.tensors[i].data.size()));
}

void expect_matches_reference(const ndp::LlamaModel& lm, const naive::Llama& ref, int seq, int vocab) {
  std::vector<int> toks;
  for (int i = 0; i < seq; ++i) toks.push_back((i * 7 + 3) % vocab);
  const auto want = naive::logits(ref, toks);
  ndp::LlamaRunner run(lm);
  for (int pos = 0; pos < seq; ++pos) {
    auto lg = run.forward(toks[pos], pos);
    ASSERT_TRUE(lg.ok()) << lg.status().message();
    double mx = 0;
    for (double x : want[pos]) mx = std::max(mx, std::fabs(x));
    for (int i = 0; i < vocab; ++i) ASSERT_NEAR((*lg.value())[i], want[pos][i], 1e-4 * (1 + mx)) << pos << " " << i;
  }
}

TEST(LlamaFile, SafetensorsFileAndShardedDirectory) {
  Spec s;
  s.naming = Naming::kHf;
  s.half_rope = true;
  s.wtype = ndp::DType::kBF16;
  s.shared = false;
  Built b = Builder(s, 77).build();
  const fs::path dir = fs::temp_directory_path() / "ndp_llama_file_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "one");
  fs::create_directories(dir / "sharded");
  write_safetensors(dir / "one" / "model.safetensors", b.model, 0, b.model.tensors.size());
  const size_t half = b.model.tensors.size() / 2;
  write_safetensors(dir / "sharded" / "model-00001-of-00002.safetensors", b.model, 0, half);
  write_safetensors(dir / "sharded" / "model-00002-of-00002.safetensors", b.model, half, b.model.tensors.size());
  for (const char* sub : {"one", "sharded"}) {
    std::ofstream(dir / sub / "config.json") << b.config_json;
  }
  // A byte-level BPE tokenizer.json beside the single file (GPT-2 pre-tokenizer, a vocabulary of the
  // model's 37 pieces: a..z, space as Ġ, and merges to "he", "Ġh"); none beside the shards.
  std::ofstream(dir / "one" / "tokenizer.json")
      << R"({"model": {"type": "BPE", "merges": ["h e", "Ġ h"], "vocab": {)"
      << [] {
           std::string v;
           for (int i = 0; i < 26; ++i) v += "\"" + std::string(1, char('a' + i)) + "\": " + std::to_string(i) + ", ";
           return v + R"("Ġ": 26, "he": 27, "Ġh": 28})";
         }()
      << R"(}, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}})";
  for (const fs::path& p : {dir / "one" / "model.safetensors", dir / "one", dir / "sharded"}) {
    SCOPED_TRACE(p.string());
    auto ll = ndp::load_llama(p.string());
    ASSERT_TRUE(ll.ok()) << ll.status().message();
    EXPECT_EQ(ll.value().llama.config.rope_style, ndp::RopeStyle::kHalf);
    expect_matches_reference(ll.value().llama, b.ref, s.seq, s.vocab);
    if (p.parent_path().filename() == "sharded" || p.filename() == "sharded") {
      EXPECT_FALSE(ll.value().has_tokenizer);
      EXPECT_NE(ll.value().tokenizer_error.find("tokenizer.json"), std::string::npos) << ll.value().tokenizer_error;
    } else {
      ASSERT_TRUE(ll.value().has_tokenizer) << ll.value().tokenizer_error;
      // "he hehe": pieces "he", " hehe"; Ġh (rank 1) waits for "h e" (rank 0): Ġ he he.
      EXPECT_EQ(ll.value().tokenizer.encode("he hehe").value(), (std::vector<int>{27, 26, 27, 27}));
    }
  }
  // Without config.json a safetensors model is refused with a message naming the file.
  fs::remove(dir / "one" / "config.json");
  auto no_cfg = ndp::load_llama((dir / "one" / "model.safetensors").string());
  ASSERT_FALSE(no_cfg.ok());
  EXPECT_NE(no_cfg.status().message().find("config.json"), std::string::npos) << no_cfg.status().message();
  // A directory without safetensors files, and a path that does not exist.
  fs::create_directories(dir / "empty");
  EXPECT_FALSE(ndp::load_llama((dir / "empty").string()).ok());
  EXPECT_FALSE(ndp::load_llama((dir / "missing.bin").string()).ok());
  fs::remove_all(dir);
}

// The Meta name of a random model's tensor -> llama.cpp's GGUF name.
std::string gguf_name(std::string n) {
  if (n == "tok_embeddings.weight") return "token_embd.weight";
  if (n == "norm.weight") return "output_norm.weight";
  const std::pair<std::string, std::string> map[] = {
      {"layers.", "blk."},          {"attention_norm", "attn_norm"},  {"attention.wq", "attn_q"},
      {"attention.wk", "attn_k"},   {"attention.wv", "attn_v"},       {"attention.wo", "attn_output"},
      {"feed_forward.w1", "ffn_gate"}, {"feed_forward.w2", "ffn_down"}, {"feed_forward.w3", "ffn_up"}};
  for (const auto& [from, to] : map)
    if (auto at = n.find(from); at != std::string::npos) n.replace(at, from.size(), to);
  return n;  // output.weight and blk.N.ffn_norm.weight keep their names
}

// A tokenizer vocabulary of exactly `vocab` pieces for the GGUF: <unk> <s> </s>, then pieces with
// scores (the rest padding).
void add_spm_tokenizer(ndp::synth::GgufWriter& w, int vocab) {
  const std::string sp = "\xE2\x96\x81";
  std::vector<std::string> t = {"<unk>", "<s>", "</s>", sp, "h", "e", "l", "o", "w", "r", "d",
                                "he", "ll", "lo", sp + "h", sp + "w", "or", "ld", sp + "wor"};
  std::vector<float> sc = {0, 0, 0, -10, -10, -10, -10, -10, -10, -10, -10, -1, -2, -0.5f, -3, -1.5f, -0.7f, -2.5f, -0.1f};
  while (static_cast<int>(t.size()) < vocab) t.push_back("pad" + std::to_string(t.size())), sc.push_back(-20);
  w.kv_string("tokenizer.ggml.model", "llama");
  w.kv_array_strings("tokenizer.ggml.tokens", t);
  w.kv_array_f32("tokenizer.ggml.scores", sc);
  w.kv_u32("tokenizer.ggml.bos_token_id", 1);
  w.kv_u32("tokenizer.ggml.eos_token_id", 2);
}

std::vector<uint8_t> gguf_llama(const Spec& s, const ndp::Model& m, const std::vector<float>& rope_freqs) {
  ndp::synth::GgufWriter w;
  w.kv_string("general.architecture", "llama");
  w.kv_u32("llama.embedding_length", s.dim);
  w.kv_u32("llama.block_count", s.layers);
  w.kv_u32("llama.attention.head_count", s.heads);
  w.kv_u32("llama.attention.head_count_kv", s.kv_heads);
  w.kv_u32("llama.feed_forward_length", s.hidden);
  w.kv_u32("llama.context_length", s.seq);
  w.kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.kv_f32("llama.rope.freq_base", 10000.0f);
  add_spm_tokenizer(w, s.vocab);
  for (const ndp::Tensor& t : m.tensors) {
    const uint32_t type = t.dtype == ndp::DType::kFP32 ? 0 : t.dtype == ndp::DType::kFP16 ? 1 : 30;
    w.tensor(gguf_name(t.name), type, std::vector<uint64_t>(t.shape.rbegin(), t.shape.rend()), t.data);
  }
  if (!rope_freqs.empty()) {
    std::vector<uint8_t> d(4 * rope_freqs.size());
    std::memcpy(d.data(), rope_freqs.data(), d.size());
    w.tensor("rope_freqs.weight", 0, {rope_freqs.size()}, d);
  }
  return w.build();
}

TEST(LlamaFile, GgufLlamaWithItsTokenizer) {
  const fs::path dir = fs::temp_directory_path() / "ndp_llama_gguf_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (ndp::DType wt : {ndp::DType::kFP32, ndp::DType::kBF16, ndp::DType::kFP16}) {
    Spec s;
    s.naming = Naming::kMeta;
    s.wtype = wt;
    s.shared = wt != ndp::DType::kBF16;  // one unshared classifier (output.weight)
    Built b = Builder(s, 91).build();
    const fs::path p = dir / (std::string("m-") + ndp::dtype_info(wt).name + ".gguf");
    const std::vector<uint8_t> bytes = gguf_llama(s, b.model, wt == ndp::DType::kFP16 ? std::vector<float>(2, 1.0f)
                                                                                      : std::vector<float>{});
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    SCOPED_TRACE(p.string());
    auto ll = ndp::load_llama(p.string());
    ASSERT_TRUE(ll.ok()) << ll.status().message();
    const ndp::LlamaConfig& c = ll.value().llama.config;
    EXPECT_EQ(c.rope_style, ndp::RopeStyle::kInterleaved);
    EXPECT_EQ(c.n_kv_heads, s.kv_heads);
    EXPECT_EQ(c.vocab_size, s.vocab);
    EXPECT_EQ(c.rope_freq_factors.size(), wt == ndp::DType::kFP16 ? 2u : 0u);
    expect_matches_reference(ll.value().llama, b.ref, s.seq, s.vocab);
    // The tokenizer stored in the file, and a trace prefilled with a tokenized text.
    ASSERT_TRUE(ll.value().has_tokenizer) << ll.value().tokenizer_error;
    auto ids = ll.value().tokenizer.encode("hello world");
    ASSERT_TRUE(ids.ok());
    EXPECT_EQ(ids.value(), (std::vector<int>{1, 3, 11, 6, 13, 18, 17}));  // <s> ▁ he l lo ▁wor ld
    ndp::GenerateOptions o;
    o.tokens = 10;
    o.prompt = ids.value();
    auto tr = ndp::record_kv_trace(ll.value().llama, o, "m.gguf");
    ASSERT_TRUE(tr.ok()) << tr.status().message();
    EXPECT_EQ(std::vector<uint32_t>(tr.value().tokens.begin(), tr.value().tokens.begin() + 7),
              (std::vector<uint32_t>{1, 3, 11, 6, 13, 18, 17}));
  }
  // rope_freqs of the wrong length, and a GGUF of another architecture, are refused by name.
  Spec s;
  s.naming = Naming::kMeta;
  Built b = Builder(s, 5).build();
  std::vector<uint8_t> bad = gguf_llama(s, b.model, std::vector<float>(3, 1.0f));
  std::ofstream(dir / "bad.gguf", std::ios::binary).write(reinterpret_cast<const char*>(bad.data()), std::streamsize(bad.size()));
  auto r = ndp::load_llama((dir / "bad.gguf").string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("rope_freqs"), std::string::npos) << r.status().message();
  ndp::synth::GgufWriter other;
  other.kv_string("general.architecture", "gpt2");
  other.tensor("x", 0, {2}, std::vector<uint8_t>(8, 0));
  const auto ob = other.build();
  std::ofstream(dir / "gpt2.gguf", std::ios::binary).write(reinterpret_cast<const char*>(ob.data()), std::streamsize(ob.size()));
  auto g = ndp::load_llama((dir / "gpt2.gguf").string());
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("gpt2"), std::string::npos) << g.status().message();
  fs::remove_all(dir);
}

}  // namespace
#else
TEST(LlamaFile, NeedsModelReader) { GTEST_SKIP() << "ndp_io is not built"; }
#endif
