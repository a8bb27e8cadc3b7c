// Text -> token ids with a model's own tokenizer, as llama.cpp and Hugging Face `tokenizers` do it,
// for the two families Llama-class models use (docs/kv.md section 1):
//
//  * SentencePiece-style (Llama 1/2, Mistral, TinyLlama, llama2.c's own): the text gets a "▁" (U+2581)
//    prefix and every space becomes "▁"; starting from single characters, adjacent pieces are merged
//    while some pair's concatenation is in the vocabulary, best pair first - by the merged token's
//    score (GGUF `tokenizer.ggml.model` = "llama", llama.cpp's SPM tokenizer) or by merge rank
//    (tokenizer.json BPE with the Prepend/Replace normalizer or the Metaspace pre-tokenizer). Pieces
//    not in the vocabulary fall back to their UTF-8 bytes as `<0xXX>` tokens.
//  * byte-level BPE (GPT-2, Llama 3): the text is split by the family's pre-tokenizer regex (GPT-2's
//    or Llama 3's), each piece's bytes are mapped to GPT-2's printable byte characters, and merges are
//    applied by rank (GGUF "gpt2" with `tokenizer.ggml.merges`; tokenizer.json BPE with a ByteLevel
//    pre-tokenizer).
//
// Ties between equally good pairs go to the leftmost. The text is plain text: special-token strings
// in it are not parsed. BOS is prepended when the tokenizer says so (GGUF add_bos_token, the
// tokenizer.json post-processor template).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ndp/model_reader.h"
#include "ndp/status.h"

namespace ndp {

enum class TokenizerKind : uint8_t { kSentencePiece, kByteLevelBpe };
// Pre-tokenizer regex of a byte-level BPE tokenizer.
//  kGpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//  kLlama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
//           \s*[\r\n]+|\s+(?!\S)|\s+
enum class PreTokenizer : uint8_t { kNone, kGpt2, kLlama3 };

struct Tokenizer {
  TokenizerKind kind = TokenizerKind::kSentencePiece;
  std::vector<std::string> vocab;                   // id -> piece
  std::unordered_map<std::string, int> ids;         // piece -> id
  std::vector<float> scores;                        // per id; non-empty: merge by score (SentencePiece)
  std::unordered_map<std::string, int> merge_rank;  // "left right" -> rank (BPE merges)
  std::array<int, 256> byte_ids{};                  // id of <0xXX> (byte fallback), -1 if absent
  int unk = -1;                                     // used for a missing byte token, if set
  bool add_space_prefix = true;                     // SentencePiece: "▁" before the text
  bool split_on_space = false;                      // Metaspace split: each "▁word" merged on its own
  PreTokenizer pre = PreTokenizer::kNone;           // byte-level BPE only
  int bos = -1, eos = -1;
  bool add_bos = false;

  // Token ids of UTF-8 `text` (BOS first when add_bos). Errors: a piece that is neither in the
  // vocabulary nor coverable by byte tokens (names it and its byte offset).
  Result<std::vector<int>> encode(const std::string& text) const;
};

// The pieces of `text` under a pre-tokenizer regex (kNone: the whole text). Exposed for tests.
std::vector<std::string> pretokenize(PreTokenizer p, const std::string& text);

// From a GGUF model's metadata (tokenizer.ggml.model "llama" or "gpt2", tokens, scores / merges,
// bos/eos ids, add_bos_token, add_space_prefix, pre). Errors name the missing or unsupported key.
Result<Tokenizer> tokenizer_from_gguf(const Model& m);
// From the text of a Hugging Face tokenizer.json (model type BPE; ByteLevel, Split+ByteLevel,
// Metaspace or no pre-tokenizer; Prepend/Replace normalizer; TemplateProcessing post-processor).
// `what` names the file in errors.
Result<Tokenizer> tokenizer_from_hf_json(const std::string& json, const std::string& what);

}  // namespace ndp
