// `ndp kvtrace MODEL -o TRACE`: run a Llama-family model (llama2.c checkpoint, GGUF or safetensors)
// and record its KV cache (K after RoPE, V; BF16) in the trace format of docs/kv.md. The sequence is
// generated from BOS, prefilled from token ids (--prompt) or from a text tokenized with the model's
// own tokenizer (--prompt-file).
#if defined(HAVE_NDP_MODEL) && defined(NDP_MODEL_HAVE_IO)
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "ndp/kv_record.h"
#include "ndp/llama_file.h"

namespace {

using ndp::cli::Args;

// Prompt file: whitespace-separated token ids (no tokenizer is involved).
ndp::Status read_prompt(const std::string& path, int vocab, std::vector<int>& out) {
  std::ifstream f(path);
  if (!f) return ndp::Status::Error(path + ": cannot open the prompt file");
  std::string word;
  size_t index = 0;
  while (f >> word) {
    char* end = nullptr;
    const long v = std::strtol(word.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v >= vocab)
      return ndp::Status::Error(path + ": token " + std::to_string(index) + " ('" + word +
                                "') is not an id in 0.." + std::to_string(vocab - 1));
    out.push_back(static_cast<int>(v));
    ++index;
  }
  if (out.empty()) return ndp::Status::Error(path + ": the prompt file holds no token ids");
  return ndp::Status::Ok();
}

// Prompt text (--prompt-file) tokenized with the model's tokenizer, cut to the positions recorded.
ndp::Status read_prompt_text(const std::string& path, const ndp::LoadedLlama& m, int positions, std::vector<int>& out,
                             size_t* cut) {
  if (!m.has_tokenizer) return ndp::Status::Error(m.tokenizer_error);
  std::ifstream f(path, std::ios::binary);
  if (!f) return ndp::Status::Error(path + ": cannot open the prompt text");
  std::ostringstream text;
  text << f.rdbuf();
  auto ids = m.tokenizer.encode(text.str());
  if (!ids.ok()) return ndp::Status::Error(path + ": " + ids.status().message());
  out = std::move(ids.value());
  if (out.empty()) return ndp::Status::Error(path + ": the prompt text is empty");
  for (int id : out)
    if (id < 0 || id >= m.llama.config.vocab_size)
      return ndp::Status::Error(path + ": token id " + std::to_string(id) + " outside the model's vocabulary");
  *cut = out.size() > static_cast<size_t>(positions) ? out.size() - positions : 0;
  out.resize(std::min(out.size(), static_cast<size_t>(positions)));
  return ndp::Status::Ok();
}

bool parse_float(const Args& a, const char* key, float& out) {
  if (!a.has(key)) return true;
  char* end = nullptr;
  const std::string s = a.get(key);
  out = std::strtof(s.c_str(), &end);
  return !s.empty() && *end == '\0';
}

int cmd_kvtrace(const Args& a) {
  if (a.pos.size() != 1 || !a.has("-o"))
    return ndp::cli::fail(a, "usage: ndp kvtrace MODEL -o TRACE [--tokens N] [--seed S] [--prompt IDS | --prompt-file TEXT]");
  if (a.has("--prompt") && a.has("--prompt-file")) return ndp::cli::fail(a, "--prompt and --prompt-file exclude each other");
  const std::string model_path = a.pos[0], out_path = a.get("-o");
  auto tokens = a.get_int("--tokens", 0, 0, INT32_MAX);  // 0: the model's whole context
  auto seed = a.get_int("--seed", 1, 1, INT64_MAX);      // non-zero xorshift state
  if (!tokens || !seed) return 1;
  ndp::GenerateOptions opt;
  opt.tokens = static_cast<int>(*tokens);
  opt.seed = static_cast<uint64_t>(*seed);
  if (!parse_float(a, "--temperature", opt.temperature) || !parse_float(a, "--topp", opt.topp))
    return ndp::cli::fail(a, "--temperature and --topp expect numbers");

  const auto t0 = std::chrono::steady_clock::now();
  auto loaded = ndp::load_llama(model_path);
  if (!loaded.ok()) return ndp::cli::fail(a, loaded.status().message());
  const ndp::LlamaConfig& c = loaded.value().llama.config;
  if (loaded.value().has_tokenizer && loaded.value().tokenizer.bos >= 0) opt.bos = loaded.value().tokenizer.bos;
  size_t cut = 0;
  if (a.has("--prompt")) {
    ndp::Status st = read_prompt(a.get("--prompt"), c.vocab_size, opt.prompt);
    if (!st.ok()) return ndp::cli::fail(a, st.message());
  } else if (a.has("--prompt-file")) {
    const int positions = opt.tokens == 0 ? c.seq_len : std::min(opt.tokens, c.seq_len);
    ndp::Status st = read_prompt_text(a.get("--prompt-file"), loaded.value(), positions, opt.prompt, &cut);
    if (!st.ok()) return ndp::cli::fail(a, st.message());
  }
  std::string name = model_path;
  if (auto slash = name.find_last_of('/'); slash != std::string::npos && slash + 1 < name.size())
    name = name.substr(slash + 1);
  auto trace = ndp::record_kv_trace(loaded.value().llama, opt, name);
  if (!trace.ok()) return ndp::cli::fail(a, trace.status().message());
  ndp::Status st = ndp::write_kv_trace(out_path, trace.value());
  if (!st.ok()) return ndp::cli::fail(a, st.message());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ndp::KvTrace& t = trace.value();
  std::printf("%s: dim %d, %d layers, %d heads, %d KV heads, head size %d, context %d\n", name.c_str(), c.dim,
              c.n_layers, c.n_heads, c.n_kv_heads, c.head_size, c.seq_len);
  std::printf("recorded %u positions (%zu prompt tokens, seed %llu, temperature %g, top-p %g) in %.2f s\n",
              t.n_tokens, opt.prompt.size(), static_cast<unsigned long long>(opt.seed), opt.temperature, opt.topp,
              secs);
  if (cut) std::printf("the prompt text's last %zu tokens were left out (more tokens than positions)\n", cut);
  std::printf("wrote %s: %llu KV streams (layer x K/V x KV head) of %u x %u bf16, %llu KV bytes\n",
              out_path.c_str(), static_cast<unsigned long long>(t.streams()), t.n_tokens, t.head_dim,
              static_cast<unsigned long long>(2 * t.kv.size()));
  return 0;
}

}  // namespace

NDP_COMMAND("kvtrace",
            "kvtrace MODEL -o TRACE [--tokens N] [--seed S] [--prompt IDS_FILE | --prompt-file TEXT] [--temperature T] "
            "[--topp P]   record a real KV cache (llama2.c, GGUF or safetensors Llama model)",
            cmd_kvtrace);
#endif
