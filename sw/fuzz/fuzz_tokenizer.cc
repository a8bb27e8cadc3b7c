// libFuzzer target: tokenizer.json loading and encoding must reject or accept any input without
// crashing. The input is split at its first NUL byte: before it the tokenizer.json text, after it the
// text to encode; every id an accepted tokenizer returns must be in its vocabulary. The pre-tokenizers
// see the text too (every piece boundary on the input, pieces concatenating to it).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ndp/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  const std::string json = in.substr(0, nul), text = nul == std::string::npos ? "" : in.substr(nul + 1);
  for (ndp::PreTokenizer p : {ndp::PreTokenizer::kGpt2, ndp::PreTokenizer::kLlama3}) {
    std::string joined;
    for (const std::string& piece : ndp::pretokenize(p, text)) {
      if (piece.empty()) std::abort();
      joined += piece;
    }
    if (joined != text) std::abort();
  }
  auto t = ndp::tokenizer_from_hf_json(json, "fuzz");
  if (!t.ok()) return 0;
  auto ids = t.value().encode(text);
  if (!ids.ok()) return 0;
  for (int id : ids.value())
    if (id < 0 || static_cast<size_t>(id) >= t.value().vocab.size()) std::abort();
  return 0;
}
