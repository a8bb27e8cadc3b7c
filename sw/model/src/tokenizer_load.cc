// Tokenizers from GGUF metadata and from Hugging Face tokenizer.json files.
#include <nlohmann/json.hpp>

#include "ndp/tokenizer.h"

namespace ndp {
namespace {

using Json = nlohmann::json;

// GPT-2's and Llama 3's pre-tokenizer patterns as tokenizer.json stores them (after JSON unescaping).
const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char* const kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Vocabulary bookkeeping shared by both loaders: ids, and the <0xXX> byte tokens.
void index_vocab(Tokenizer& t) {
  t.ids.clear();
  t.byte_ids.fill(-1);
  for (size_t i = 0; i < t.vocab.size(); ++i) {
    const std::string& p = t.vocab[i];
    t.ids.emplace(p, static_cast<int>(i));
    if (p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>') {
      const std::string hex = p.substr(3, 2);
      if (hex.find_first_not_of("0123456789ABCDEF") == std::string::npos) t.byte_ids[std::stoi(hex, nullptr, 16)] = static_cast<int>(i);
    }
  }
}

// "a b" merges (GGUF strings, or tokenizer.json strings / two-element arrays) -> ranks.
Status add_merge(Tokenizer& t, const std::string& m, size_t rank, const std::string& what) {
  if (m.find(' ') == std::string::npos) return Status::Error(what + ": merge " + std::to_string(rank) + " '" + m + "' has no space");
  t.merge_rank.emplace(m, static_cast<int>(rank));
  return Status::Ok();
}

int64_t meta_int(const Model& m, const std::string& k, int64_t def) {
  auto it = m.meta.find(k);
  return it == m.meta.end() ? def : it->second;
}

}  // namespace

Result<Tokenizer> tokenizer_from_gguf(const Model& m) {
  const std::string what = m.path + ": GGUF tokenizer";
  auto model = m.meta_str.find("tokenizer.ggml.model");
  if (model == m.meta_str.end()) return Status::Error(what + ": no tokenizer.ggml.model key");
  auto tokens = m.meta_str_arrays.find("tokenizer.ggml.tokens");
  if (tokens == m.meta_str_arrays.end()) return Status::Error(what + ": no tokenizer.ggml.tokens array");
  Tokenizer t;
  t.vocab = tokens->second;
  index_vocab(t);
  if (model->second == "llama") {
    auto scores = m.meta_num_arrays.find("tokenizer.ggml.scores");
    if (scores == m.meta_num_arrays.end() || scores->second.size() != t.vocab.size())
      return Status::Error(what + ": tokenizer.ggml.scores missing or not one per token");
    t.scores.assign(scores->second.begin(), scores->second.end());
    t.add_space_prefix = meta_int(m, "tokenizer.ggml.add_space_prefix", 1) != 0;
    t.add_bos = meta_int(m, "tokenizer.ggml.add_bos_token", 1) != 0;
  } else if (model->second == "gpt2") {
    t.kind = TokenizerKind::kByteLevelBpe;
    auto merges = m.meta_str_arrays.find("tokenizer.ggml.merges");
    if (merges == m.meta_str_arrays.end()) return Status::Error(what + ": no tokenizer.ggml.merges array");
    for (size_t i = 0; i < merges->second.size(); ++i) NDP_RETURN_IF_ERROR(add_merge(t, merges->second[i], i, what));
    auto pre = m.meta_str.find("tokenizer.ggml.pre");
    const std::string p = pre == m.meta_str.end() ? "default" : pre->second;
    if (p == "default" || p == "gpt-2" || p == "gpt2") t.pre = PreTokenizer::kGpt2;
    else if (p == "llama-bpe" || p == "llama3" || p == "llama-v3") t.pre = PreTokenizer::kLlama3;
    else return Status::Error(what + ": pre-tokenizer '" + p + "' is not supported (default, gpt-2, llama-bpe)");
    t.add_bos = meta_int(m, "tokenizer.ggml.add_bos_token", 0) != 0;
  } else {
    return Status::Error(what + ": tokenizer model '" + model->second + "' is not supported (llama, gpt2)");
  }
  t.bos = static_cast<int>(meta_int(m, "tokenizer.ggml.bos_token_id", -1));
  t.eos = static_cast<int>(meta_int(m, "tokenizer.ggml.eos_token_id", -1));
  t.unk = static_cast<int>(meta_int(m, "tokenizer.ggml.unknown_token_id", -1));
  for (int id : {t.bos, t.eos, t.unk})
    if (id >= static_cast<int>(t.vocab.size())) return Status::Error(what + ": special token id " + std::to_string(id) + " out of range");
  return t;
}

namespace {

// The pre-tokenizer objects of tokenizer.json: ByteLevel, Split + ByteLevel, Metaspace, or none.
Status hf_pre_tokenizer(const Json& pt, Tokenizer& t, const std::string& what, bool& spaces) {
  if (pt.is_null()) return Status::Ok();
  const std::string type = pt.value("type", "");
  if (type == "Sequence") {
    for (const Json& p : pt.value("pretokenizers", Json::array())) NDP_RETURN_IF_ERROR(hf_pre_tokenizer(p, t, what, spaces));
    return Status::Ok();
  }
  if (type == "ByteLevel") {
    t.kind = TokenizerKind::kByteLevelBpe;
    if (pt.value("use_regex", true)) t.pre = PreTokenizer::kGpt2;
    if (pt.value("add_prefix_space", false)) return Status::Error(what + ": ByteLevel add_prefix_space is not supported");
    return Status::Ok();
  }
  if (type == "Split") {
    const std::string pat = pt.contains("pattern") ? pt["pattern"].value("Regex", std::string()) : "";
    if (pat == kLlama3Pattern) t.pre = PreTokenizer::kLlama3;
    else if (pat == kGpt2Pattern) t.pre = PreTokenizer::kGpt2;
    else return Status::Error(what + ": Split pattern is neither GPT-2's nor Llama 3's: " + pat.substr(0, 80));
    return Status::Ok();
  }
  if (type == "Metaspace") {
    if (pt.value("replacement", std::string("\xE2\x96\x81")) != "\xE2\x96\x81")
      return Status::Error(what + ": Metaspace replacement other than U+2581 is not supported");
    t.add_space_prefix = pt.value("prepend_scheme", std::string(pt.value("add_prefix_space", true) ? "always" : "never")) != "never";
    t.split_on_space = pt.value("split", true);
    spaces = true;
    return Status::Ok();
  }
  return Status::Error(what + ": pre-tokenizer '" + type + "' is not supported");
}

// Normalizer: Prepend("▁") + Replace(" ", "▁") is SentencePiece's space handling; nothing else is
// accepted (it would change the text).
Status hf_normalizer(const Json& n, Tokenizer& t, const std::string& what, bool& spaces) {
  if (n.is_null()) return Status::Ok();
  const std::string type = n.value("type", "");
  if (type == "Sequence") {
    t.add_space_prefix = false;
    for (const Json& x : n.value("normalizers", Json::array())) NDP_RETURN_IF_ERROR(hf_normalizer(x, t, what, spaces));
    return Status::Ok();
  }
  if (type == "Prepend" && n.value("prepend", "") == "\xE2\x96\x81") {
    t.add_space_prefix = true;
    return Status::Ok();
  }
  if (type == "Replace" && n.contains("pattern") && n["pattern"].value("String", "") == " " &&
      n.value("content", "") == "\xE2\x96\x81") {
    spaces = true;
    return Status::Ok();
  }
  return Status::Error(what + ": normalizer '" + type + "' is not supported");
}

// BOS from a TemplateProcessing post-processor (alone or inside a Sequence).
void hf_post_processor(const Json& pp, Tokenizer& t) {
  if (pp.is_null()) return;
  if (pp.value("type", "") == "Sequence") {
    for (const Json& p : pp.value("processors", Json::array())) hf_post_processor(p, t);
    return;
  }
  if (pp.value("type", "") != "TemplateProcessing") return;
  const Json single = pp.value("single", Json::array());
  if (!single.empty() && single[0].contains("SpecialToken")) {
    auto it = t.ids.find(single[0]["SpecialToken"].value("id", ""));
    if (it != t.ids.end()) t.bos = it->second, t.add_bos = true;
  }
}

Status hf_vocab(const Json& model, const Json& added, Tokenizer& t, const std::string& what) {
  if (model.value("type", "") != "BPE") return Status::Error(what + ": model type '" + model.value("type", "") + "' is not BPE");
  const Json& v = model.at("vocab");
  size_t size = 0;
  for (const auto& [piece, id] : v.items()) size = std::max(size, id.get<size_t>() + 1);
  for (const Json& a : added) size = std::max(size, a.at("id").get<size_t>() + 1);
  if (size > (1u << 20)) return Status::Error(what + ": vocabulary of " + std::to_string(size) + " ids is implausible");
  t.vocab.assign(size, "");
  for (const auto& [piece, id] : v.items()) t.vocab[id.get<size_t>()] = piece;
  for (const Json& a : added) t.vocab[a.at("id").get<size_t>()] = a.at("content").get<std::string>();
  index_vocab(t);
  const Json merges = model.value("merges", Json::array());
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string m = merges[i].is_array() ? merges[i].at(0).get<std::string>() + " " + merges[i].at(1).get<std::string>()
                                               : merges[i].get<std::string>();
    NDP_RETURN_IF_ERROR(add_merge(t, m, i, what));
  }
  if (!model.value("byte_fallback", false)) t.byte_ids.fill(-1);
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    auto it = t.ids.find(model["unk_token"].get<std::string>());
    if (it != t.ids.end()) t.unk = it->second;
  }
  return Status::Ok();
}

}  // namespace

Result<Tokenizer> tokenizer_from_hf_json(const std::string& text, const std::string& what) {
  try {
    const Json j = Json::parse(text);
    Tokenizer t;
    t.add_space_prefix = false;
    t.add_bos = false;
    NDP_RETURN_IF_ERROR(hf_vocab(j.at("model"), j.value("added_tokens", Json::array()), t, what));
    bool spaces = false;  // SentencePiece space handling seen (Replace normalizer or Metaspace)
    NDP_RETURN_IF_ERROR(hf_normalizer(j.value("normalizer", Json()), t, what, spaces));
    NDP_RETURN_IF_ERROR(hf_pre_tokenizer(j.value("pre_tokenizer", Json()), t, what, spaces));
    hf_post_processor(j.value("post_processor", Json()), t);
    if (t.kind == TokenizerKind::kByteLevelBpe) t.add_space_prefix = false;
    else if (!spaces)
      return Status::Error(what + ": BPE with neither a ByteLevel pre-tokenizer nor SentencePiece space handling "
                                  "(Replace \" \" -> U+2581, Metaspace) is not supported");
    return t;
  } catch (const Json::exception& e) {
    return Status::Error(what + ": " + e.what());
  }
}

}  // namespace ndp
