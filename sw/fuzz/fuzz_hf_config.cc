// libFuzzer target: parse_hf_llama_config (a Hugging Face config.json) on arbitrary text. Oracle: an
// accepted config has every integer in the documented range (0..2^30, heads > 0), every float finite,
// llama3 rope factors consistent; writing it back as a config.json and parsing that gives the same
// config; validate_config runs on it without crashing.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ndp/llama.h"

namespace {

void fail(const char* why) {
  std::fprintf(stderr, "fuzz_hf_config: %s\n", why);
  std::abort();
}

std::string num(float f) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", static_cast<double>(f));  // the float's exact double value
  return b;
}

std::string to_json(const ndp::LlamaConfig& c) {
  std::string j = "{\"model_type\": \"llama\", \"hidden_size\": " + std::to_string(c.dim) +
                  ", \"intermediate_size\": " + std::to_string(c.hidden_dim) +
                  ", \"num_hidden_layers\": " + std::to_string(c.n_layers) +
                  ", \"num_attention_heads\": " + std::to_string(c.n_heads) +
                  ", \"num_key_value_heads\": " + std::to_string(c.n_kv_heads) +
                  ", \"vocab_size\": " + std::to_string(c.vocab_size) +
                  ", \"max_position_embeddings\": " + std::to_string(c.seq_len) +
                  ", \"head_dim\": " + std::to_string(c.head_size) + ", \"rms_norm_eps\": " + num(c.norm_eps) +
                  ", \"rope_theta\": " + num(c.rope_theta);
  if (c.rope_scale_factor != 0.0f)
    j += ", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": " + num(c.rope_scale_factor) +
         ", \"low_freq_factor\": " + num(c.rope_low_freq_factor) +
         ", \"high_freq_factor\": " + num(c.rope_high_freq_factor) +
         ", \"original_max_position_embeddings\": " + std::to_string(c.rope_orig_context) + "}";
  return j + "}";
}

bool same(const ndp::LlamaConfig& a, const ndp::LlamaConfig& b) {
  return a.dim == b.dim && a.hidden_dim == b.hidden_dim && a.n_layers == b.n_layers && a.n_heads == b.n_heads &&
         a.n_kv_heads == b.n_kv_heads && a.vocab_size == b.vocab_size && a.seq_len == b.seq_len &&
         a.head_size == b.head_size && a.norm_eps == b.norm_eps && a.rope_theta == b.rope_theta &&
         a.rope_style == b.rope_style && a.rope_scale_factor == b.rope_scale_factor &&
         a.rope_low_freq_factor == b.rope_low_freq_factor && a.rope_high_freq_factor == b.rope_high_freq_factor &&
         a.rope_orig_context == b.rope_orig_context;
}

void check(const ndp::LlamaConfig& c) {
  for (int v : {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len, c.head_size,
                c.rope_orig_context})
    if (v < 0 || v > (1 << 30)) fail("integer field out of 0..2^30");
  if (c.n_heads <= 0) fail("accepted num_attention_heads <= 0");
  for (float f : {c.norm_eps, c.rope_theta, c.rope_scale_factor, c.rope_low_freq_factor, c.rope_high_freq_factor})
    if (!std::isfinite(f)) fail("accepted a non-finite float");
  if (c.rope_scale_factor != 0.0f && !(c.rope_scale_factor > 0.0f && c.rope_high_freq_factor > c.rope_low_freq_factor))
    fail("accepted inconsistent llama3 rope factors");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ndp::LlamaConfig c;
  if (!ndp::parse_hf_llama_config(std::string(reinterpret_cast<const char*>(data), size), c).ok()) return 0;
  check(c);
  (void)ndp::validate_config(c);
  ndp::LlamaConfig back;
  ndp::Status s = ndp::parse_hf_llama_config(to_json(c), back);
  if (!s.ok()) fail(("written config does not parse: " + s.message()).c_str());
  if (!same(c, back)) fail("config differs after a write/parse round trip");
  return 0;
}
