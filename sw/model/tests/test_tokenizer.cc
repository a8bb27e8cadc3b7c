// Tokenizers (ndp/tokenizer.h) on small vocabularies written here, with token ids worked out by hand
// from the algorithms' definitions (the merge order is spelled out next to each expectation), and the
// pre-tokenizer regexes on texts whose splits were checked against Python's `regex` module.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ndp/tokenizer.h"

namespace {

using ndp::PreTokenizer;
using Json = nlohmann::ordered_json;
const std::string kSp = "\xE2\x96\x81";  // U+2581

TEST(Tokenizer, Gpt2PreTokenizer) {
  EXPECT_EQ(ndp::pretokenize(PreTokenizer::kGpt2, "Hello world's 123  end\n"),
            (std::vector<std::string>{"Hello", " world", "'s", " 123", " ", " end", "\n"}));
  // 'S is not a contraction for GPT-2 (case-sensitive): the quote is punctuation, S a word.
  EXPECT_EQ(ndp::pretokenize(PreTokenizer::kGpt2, "IT'S ok!!"),
            (std::vector<std::string>{"IT", "'", "S", " ok", "!!"}));
  EXPECT_EQ(ndp::pretokenize(PreTokenizer::kGpt2, "caf\xC3\xA9 \xE6\x9D\xB1\xE4\xBA\xAC 42"),  // café 東京 42
            (std::vector<std::string>{"caf\xC3\xA9", " \xE6\x9D\xB1\xE4\xBA\xAC", " 42"}));
}

TEST(Tokenizer, Llama3PreTokenizer) {
  EXPECT_EQ(ndp::pretokenize(PreTokenizer::kLlama3, "Hello world's 1234 ok\n\n  x"),
            (std::vector<std::string>{"Hello", " world", "'s", " ", "123", "4", " ok", "\n\n", " ", " x"}));
  EXPECT_EQ(ndp::pretokenize(PreTokenizer::kLlama3, "IT'S\tgo"), (std::vector<std::string>{"IT", "'S", "\tgo"}));
  EXPECT_TRUE(ndp::pretokenize(PreTokenizer::kLlama3, "").empty());
}

// SentencePiece vocabulary: <unk> <s> </s>, the 256 byte tokens <0x00>..<0xFF> (ids 3..258), then
// pieces with scores.
struct SpmVocab {
  std::vector<std::string> tokens{"<unk>", "<s>", "</s>"};
  std::vector<float> scores{0, 0, 0};
  int id(const std::string& p) const {
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] == p) return static_cast<int>(i);
    return -1;
  }
  SpmVocab() {
    const char* hex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
      tokens.push_back(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
      scores.push_back(0);
    }
    const std::pair<std::string, float> pieces[] = {
        {kSp, -10}, {"h", -10},  {"e", -10},  {"l", -10},         {"o", -10},  {"w", -10},   {"r", -10},
        {"d", -10}, {"he", -1},  {"ll", -2},  {"lo", -0.5f},      {kSp + "h", -3}, {kSp + "w", -1.5f},
        {"or", -0.7f}, {"ld", -2.5f}, {kSp + "wor", -0.1f}};
    for (const auto& [p, s] : pieces) tokens.push_back(p), scores.push_back(s);
  }
};

ndp::Model gguf_meta_spm(const SpmVocab& v) {
  ndp::Model m;
  m.path = "t.gguf";
  m.meta_str["tokenizer.ggml.model"] = "llama";
  m.meta_str_arrays["tokenizer.ggml.tokens"] = v.tokens;
  m.meta_num_arrays["tokenizer.ggml.scores"].assign(v.scores.begin(), v.scores.end());
  m.meta["tokenizer.ggml.bos_token_id"] = 1;
  m.meta["tokenizer.ggml.eos_token_id"] = 2;
  return m;
}

TEST(Tokenizer, SentencePieceByScore) {
  const SpmVocab v;
  auto t = ndp::tokenizer_from_gguf(gguf_meta_spm(v));
  ASSERT_TRUE(t.ok()) << t.status().message();
  // "▁hello▁world": best-score pairs in turn: lo (-0.5), or (-0.7), he (-1), ▁w (-1.5), then ▁wor
  // (-0.1, formed by the last merge), ld (-2.5); ll and ▁h went stale. -> ▁ he l lo ▁wor ld.
  auto ids = t.value().encode("hello world");
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(ids.value(), (std::vector<int>{1, v.id(kSp), v.id("he"), v.id("l"), v.id("lo"), v.id(kSp + "wor"), v.id("ld")}));
  // A character outside the vocabulary falls back to its UTF-8 bytes: é = C3 A9.
  auto e = t.value().encode("h\xC3\xA9");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.value(), (std::vector<int>{1, v.id(kSp + "h"), 3 + 0xC3, 3 + 0xA9}));
  // No space prefix, no BOS when the metadata says so.
  ndp::Model m = gguf_meta_spm(v);
  m.meta["tokenizer.ggml.add_space_prefix"] = 0;
  m.meta["tokenizer.ggml.add_bos_token"] = 0;
  auto t2 = ndp::tokenizer_from_gguf(m);
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(t2.value().encode("he lo").value(), (std::vector<int>{v.id("he"), v.id(kSp), v.id("lo")}));
}

// tokenizer.json of a SentencePiece-style BPE (Llama 2 HF): vocab, merges by rank, byte fallback,
// Prepend/Replace normalizer, <s> template.
Json hf_spm_json(const SpmVocab& v) {
  Json vocab = Json::object();
  for (size_t i = 0; i < v.tokens.size(); ++i) vocab[v.tokens[i]] = i;
  Json j;
  j["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"byte_fallback", true}, {"unk_token", "<unk>"},
                {"merges", {"h e", "l l", "l o", kSp + " h", kSp + " w", "o r", "l d", kSp + "w or"}}};
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers", {{{"type", "Prepend"}, {"prepend", kSp}},
                                      {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSp}}}}};
  j["pre_tokenizer"] = nullptr;
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}}}}}}};
  return j;
}

TEST(Tokenizer, SentencePieceByMergeRank) {
  const SpmVocab v;
  Json j = hf_spm_json(v);
  auto t = ndp::tokenizer_from_hf_json(j.dump(), "tokenizer.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  // Ranks: he 0, ll 1, lo 2, ▁h 3, ▁w 4, or 5, ld 6, ▁wor 7. "▁hello▁world": he, ll (lo and ▁h go
  // stale), ▁w, or, ld, ▁wor -> ▁ he ll o ▁wor ld (by score it was ▁ he l lo ...).
  EXPECT_EQ(t.value().encode("hello world").value(),
            (std::vector<int>{1, v.id(kSp), v.id("he"), v.id("ll"), v.id("o"), v.id(kSp + "wor"), v.id("ld")}));
  EXPECT_EQ(t.value().encode("\xC3\xA9").value(), (std::vector<int>{1, v.id(kSp), 3 + 0xC3, 3 + 0xA9}));
  // The same with the Metaspace pre-tokenizer (split into words, prepend "first") and no normalizer.
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"prepend_scheme", "first"}, {"split", true}};
  auto m = ndp::tokenizer_from_hf_json(j.dump(), "tokenizer.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_TRUE(m.value().split_on_space);
  EXPECT_EQ(m.value().encode("hello world").value(), t.value().encode("hello world").value());
  // Without byte fallback an unknown character is one <unk>; without <unk> it is an error.
  j["model"]["byte_fallback"] = false;
  EXPECT_EQ(ndp::tokenizer_from_hf_json(j.dump(), "t").value().encode("\xC3\xA9").value(),
            (std::vector<int>{1, v.id(kSp), 0}));
  j["model"].erase("unk_token");
  auto err = ndp::tokenizer_from_hf_json(j.dump(), "t").value().encode("h\xC3\xA9");
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("<0xC3>"), std::string::npos) << err.status().message();
}

// GPT-2's byte -> character table, written out from its definition (bytes_to_unicode).
std::vector<std::string> byte_vocab() {
  std::vector<std::string> v(256);
  int n = 0;
  for (int b = 0; b < 256; ++b) {
    const bool keep = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    const int cp = keep ? b : 256 + n++;
    v[b] = cp < 128 ? std::string(1, static_cast<char>(cp))
                    : std::string{static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
  }
  return v;
}

// Byte-level vocabulary: ids 0..255 the byte characters, then he (256), Ġt (257), Ġthe (258), the (259).
const std::vector<std::string> kMerges = {"h e", "\xC4\xA0 t", "\xC4\xA0t he", "t he"};

void expect_byte_level(const ndp::Tokenizer& t, int bos) {
  // "the": he (rank 0), then "t he" (3) -> the. " the": he (0), Ġt (1), then "Ġt he" (2) -> Ġthe.
  std::vector<int> want = {259, 258, '!'};
  if (bos >= 0) want.insert(want.begin(), bos);
  EXPECT_EQ(t.encode("the the!").value(), want);
  // é = C3 A9: two byte characters, no merge.
  EXPECT_EQ(t.encode("\xC3\xA9").value().back(), 0xA9);
  // A space is Ġ (U+0120), its own id 32.
  auto sp = t.encode("a  b");
  ASSERT_TRUE(sp.ok());
  EXPECT_EQ(std::vector<int>(sp.value().end() - 4, sp.value().end()), (std::vector<int>{'a', ' ', ' ', 'b'}));
}

TEST(Tokenizer, ByteLevelBpeFromGguf) {
  ndp::Model m;
  m.meta_str["tokenizer.ggml.model"] = "gpt2";
  m.meta_str["tokenizer.ggml.pre"] = "llama-bpe";
  auto toks = byte_vocab();
  for (const char* p : {"he", "\xC4\xA0t", "\xC4\xA0the", "the", "<|begin_of_text|>"}) toks.push_back(p);
  m.meta_str_arrays["tokenizer.ggml.tokens"] = toks;
  m.meta_str_arrays["tokenizer.ggml.merges"] = kMerges;
  m.meta["tokenizer.ggml.bos_token_id"] = 260;
  m.meta["tokenizer.ggml.add_bos_token"] = 1;
  auto t = ndp::tokenizer_from_gguf(m);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t.value().pre, PreTokenizer::kLlama3);
  expect_byte_level(t.value(), 260);
  m.meta_str["tokenizer.ggml.pre"] = "qwen2";
  EXPECT_FALSE(ndp::tokenizer_from_gguf(m).ok());
  m.meta_str["tokenizer.ggml.model"] = "t5";
  EXPECT_FALSE(ndp::tokenizer_from_gguf(m).ok());
}

TEST(Tokenizer, ByteLevelBpeFromTokenizerJson) {
  Json vocab = Json::object();
  auto bytes = byte_vocab();
  for (int b = 0; b < 256; ++b) vocab[bytes[b]] = b;
  vocab["he"] = 256, vocab["\xC4\xA0t"] = 257, vocab["\xC4\xA0the"] = 258, vocab["the"] = 259;
  Json j;
  j["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", Json::array()}};
  for (const std::string& m : kMerges) j["model"]["merges"].push_back({m.substr(0, m.find(' ')), m.substr(m.find(' ') + 1)});
  j["added_tokens"] = {{{"id", 260}, {"content", "<|begin_of_text|>"}, {"special", true}}};
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  auto gpt2 = ndp::tokenizer_from_hf_json(j.dump(), "t");  // GPT-2: no template, no BOS
  ASSERT_TRUE(gpt2.ok()) << gpt2.status().message();
  EXPECT_EQ(gpt2.value().pre, PreTokenizer::kGpt2);
  expect_byte_level(gpt2.value(), -1);
  // Llama 3: Split with its regex, then ByteLevel without one; BOS from the template.
  const std::string l3 =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers", {{{"type", "Split"}, {"pattern", {{"Regex", l3}}}, {"behavior", "Isolated"}},
                                           {{"type", "ByteLevel"}, {"use_regex", false}}}}};
  j["post_processor"] = {{"type", "Sequence"},
                         {"processors", {{{"type", "ByteLevel"}},
                                         {{"type", "TemplateProcessing"},
                                          {"single", {{{"SpecialToken", {{"id", "<|begin_of_text|>"}}}}, {{"Sequence", {{"id", "A"}}}}}}}}}};
  auto llama3 = ndp::tokenizer_from_hf_json(j.dump(), "t");
  ASSERT_TRUE(llama3.ok()) << llama3.status().message();
  EXPECT_EQ(llama3.value().pre, PreTokenizer::kLlama3);
  expect_byte_level(llama3.value(), 260);
  // Other patterns and pre-tokenizers are refused by name.
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\w+";
  EXPECT_FALSE(ndp::tokenizer_from_hf_json(j.dump(), "t").ok());
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  EXPECT_FALSE(ndp::tokenizer_from_hf_json(j.dump(), "t").ok());
}

TEST(Tokenizer, Errors) {
  EXPECT_FALSE(ndp::tokenizer_from_hf_json("{not json", "t").ok());
  EXPECT_FALSE(ndp::tokenizer_from_hf_json(R"({"model": {"type": "Unigram", "vocab": []}})", "t").ok());
  // A SentencePiece-style BPE needs its space handling.
  EXPECT_FALSE(ndp::tokenizer_from_hf_json(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})", "t").ok());
  ndp::Model m;
  EXPECT_FALSE(ndp::tokenizer_from_gguf(m).ok());  // no tokenizer keys
  const SpmVocab v;
  ndp::Model s = gguf_meta_spm(v);
  s.meta_num_arrays["tokenizer.ggml.scores"].pop_back();  // not one score per token
  EXPECT_FALSE(ndp::tokenizer_from_gguf(s).ok());
  s = gguf_meta_spm(v);
  s.meta["tokenizer.ggml.bos_token_id"] = 100000;
  EXPECT_FALSE(ndp::tokenizer_from_gguf(s).ok());
}

}  // namespace
