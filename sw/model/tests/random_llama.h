// Random small Llama models for the tests: the same weights as an ndp::Model (in any of the naming
// schemes the loader accepts, FP32/BF16/FP16) and as the naive reference's arrays (naive_llama.h).
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "naive_llama.h"
#include "ndp/convert.h"
#include "ndp/model_reader.h"
#include "ndp/test_seed.h"

namespace testmodel {

enum class Naming { kMeta, kHf, kStacked };

struct Spec {
  int dim = 24, hidden = 40, layers = 2, heads = 6, kv_heads = 2, vocab = 37, seq = 16;
  bool shared = true;
  bool half_rope = false;
  ndp::DType wtype = ndp::DType::kFP32;
  Naming naming = Naming::kStacked;
};

// Round a double to what the stored dtype represents (so both implementations see equal weights).
inline double representable(double x, ndp::DType t) {
  const float f = static_cast<float>(x);
  if (t == ndp::DType::kBF16) return ndp::bits_f32(ndp::bf16_to_fp32(ndp::fp32_to_bf16_rne(ndp::f32_bits(f))));
  if (t == ndp::DType::kFP16) return std::round(x * 1024.0) / 1024.0;  // |x| < 2: exact in fp16
  return f;
}

inline uint16_t to_fp16(float f) {  // exact for the values drawn below (|f| < 2, multiples of 2^-10)
  if (f == 0.0f) return std::signbit(f) ? 0x8000 : 0;
  uint32_t u = ndp::f32_bits(f);
  uint16_t s = static_cast<uint16_t>((u >> 16) & 0x8000);
  int e = static_cast<int>((u >> 23) & 0xFF) - 127 + 15;
  uint32_t m = u & 0x7FFFFF;
  if (e <= 0) return static_cast<uint16_t>(s | ((m | 0x800000) >> (14 - e)));
  return static_cast<uint16_t>(s | (e << 10) | (m >> 13));
}

struct Built {
  naive::Llama ref;
  ndp::Model model;
  std::string config_json;
};

class Builder {
 public:
  Builder(const Spec& s, uint32_t seed) : s_(s), rng_(static_cast<uint32_t>(ndp::testing::test_seed(seed))) {}

  Built build() {
    Built b;
    naive::Llama& r = b.ref;
    r.dim = s_.dim, r.hidden = s_.hidden, r.n_layers = s_.layers, r.n_heads = s_.heads;
    r.n_kv_heads = s_.kv_heads, r.vocab = s_.vocab, r.head_size = s_.dim / s_.heads;
    r.half_rope = s_.half_rope;
    r.eps = s_.naming == Naming::kHf ? 1e-6 : 1e-5;
    const int hs = r.head_size, qd = s_.heads * hs, kvd = s_.kv_heads * hs;
    b.model.path = "random";
    b.model.format = s_.naming == Naming::kHf ? ndp::ModelFormat::kSafetensors : ndp::ModelFormat::kLlama2c;
    r.emb = add(b.model, "tok_embeddings.weight", "model.embed_tokens.weight", "token_embedding_table", -1,
                s_.vocab, s_.dim, 1.0);
    r.layers.resize(s_.layers);
    // Stacked tensors are added layer by layer into one buffer per role.
    for (int l = 0; l < s_.layers; ++l) {
      naive::Layer& L = r.layers[l];
      L.attn_norm = add(b.model, "layers.%d.attention_norm.weight", "model.layers.%d.input_layernorm.weight",
                        "rms_att_weight", l, 1, s_.dim, 0.5, 1.0);
      L.wq = add(b.model, "layers.%d.attention.wq.weight", "model.layers.%d.self_attn.q_proj.weight", "wq", l, qd,
                 s_.dim, 0.4);
      L.wk = add(b.model, "layers.%d.attention.wk.weight", "model.layers.%d.self_attn.k_proj.weight", "wk", l, kvd,
                 s_.dim, 0.4);
      L.wv = add(b.model, "layers.%d.attention.wv.weight", "model.layers.%d.self_attn.v_proj.weight", "wv", l, kvd,
                 s_.dim, 0.4);
      L.wo = add(b.model, "layers.%d.attention.wo.weight", "model.layers.%d.self_attn.o_proj.weight", "wo", l,
                 s_.dim, qd, 0.4);
      L.ffn_norm = add(b.model, "layers.%d.ffn_norm.weight", "model.layers.%d.post_attention_layernorm.weight",
                       "rms_ffn_weight", l, 1, s_.dim, 0.5, 1.0);
      L.w1 = add(b.model, "layers.%d.feed_forward.w1.weight", "model.layers.%d.mlp.gate_proj.weight", "w1", l,
                 s_.hidden, s_.dim, 0.4);
      L.w2 = add(b.model, "layers.%d.feed_forward.w2.weight", "model.layers.%d.mlp.down_proj.weight", "w2", l,
                 s_.dim, s_.hidden, 0.4);
      L.w3 = add(b.model, "layers.%d.feed_forward.w3.weight", "model.layers.%d.mlp.up_proj.weight", "w3", l,
                 s_.hidden, s_.dim, 0.4);
    }
    r.final_norm = add(b.model, "norm.weight", "model.norm.weight", "rms_final_weight", -1, 1, s_.dim, 0.5, 1.0);
    r.cls = s_.shared ? r.emb : add(b.model, "output.weight", "lm_head.weight", "wcls", -1, s_.vocab, s_.dim, 0.5);
    auto& meta = b.model.meta;
    meta["dim"] = s_.dim, meta["hidden_dim"] = s_.hidden, meta["n_layers"] = s_.layers;
    meta["n_heads"] = s_.heads, meta["n_kv_heads"] = s_.kv_heads;
    meta["vocab_size"] = s_.shared ? s_.vocab : -s_.vocab;
    meta["seq_len"] = s_.seq, meta["shared_classifier"] = s_.shared ? 1 : 0;
    b.config_json = "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"hidden_size\": " +
                    std::to_string(s_.dim) + ", \"intermediate_size\": " + std::to_string(s_.hidden) +
                    ", \"num_hidden_layers\": " + std::to_string(s_.layers) + ", \"num_attention_heads\": " +
                    std::to_string(s_.heads) + ", \"num_key_value_heads\": " + std::to_string(s_.kv_heads) +
                    ", \"vocab_size\": " + std::to_string(s_.vocab) + ", \"max_position_embeddings\": " +
                    std::to_string(s_.seq) + ", \"rms_norm_eps\": 1e-06, \"rope_scaling\": null, " +
                    "\"tie_word_embeddings\": " + (s_.shared ? "true" : "false") + "}";
    return b;
  }

 private:
  // Draw rows x cols weights, store them in the model under the chosen naming, return them.
  naive::Vec add(ndp::Model& m, const char* meta, const char* hf, const char* stacked, int layer, int rows,
                 int cols, double scale, double offset = 0.0) {
    naive::Vec w(static_cast<size_t>(rows) * cols);
    std::uniform_int_distribution<int> d(-4096, 4095);
    for (double& x : w) x = representable(offset + scale * d(rng_) / 4096.0, s_.wtype);
    std::string name;
    if (s_.naming == Naming::kStacked) {
      name = stacked;
    } else {
      name = s_.naming == Naming::kMeta ? meta : hf;
      auto at = name.find("%d");
      if (at != std::string::npos) name.replace(at, 2, std::to_string(layer));
    }
    ndp::Tensor* t = nullptr;
    for (auto& x : m.tensors)
      if (x.name == name) t = &x;
    if (!t) {
      m.tensors.push_back({});
      t = &m.tensors.back();
      t->name = name;
      t->dtype = s_.wtype;
    }
    const bool stack = s_.naming == Naming::kStacked && layer >= 0;
    t->shape = stack ? std::vector<uint64_t>{uint64_t(layer + 1), uint64_t(rows), uint64_t(cols)}
                     : std::vector<uint64_t>{uint64_t(rows), uint64_t(cols)};
    if (rows == 1) t->shape.erase(t->shape.end() - 2);
    t->elements += w.size();
    for (double x : w) {
      const float f = static_cast<float>(x);
      uint8_t buf[4];
      size_t n = 4;
      if (s_.wtype == ndp::DType::kBF16) {
        uint16_t h = ndp::fp32_to_bf16_rne(ndp::f32_bits(f));
        std::memcpy(buf, &h, 2), n = 2;
      } else if (s_.wtype == ndp::DType::kFP16) {
        uint16_t h = to_fp16(f);
        std::memcpy(buf, &h, 2), n = 2;
      } else {
        std::memcpy(buf, &f, 4);
      }
      t->data.insert(t->data.end(), buf, buf + n);
    }
    return w;
  }

  Spec s_;
  std::mt19937 rng_;
};

}  // namespace testmodel
