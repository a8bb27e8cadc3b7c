// llama_from_model: find the Llama tensors in a model read by ndp::read_model and check them.
//
// Four naming schemes are accepted, tried in this order for every weight:
//  * per-layer Meta / llama2.c export names: tok_embeddings.weight, layers.N.attention.wq.weight, ...
//  * Hugging Face names: model.embed_tokens.weight, model.layers.N.self_attn.q_proj.weight, ...
//  * GGUF (llama.cpp) names: token_embd.weight, blk.N.attn_q.weight, ..., output_norm.weight
//  * llama2.c run.c struct names with all layers stacked in one tensor: token_embedding_table,
//    rms_att_weight, wq, wk, wv, wo, rms_ffn_weight, w1, w2, w3, rms_final_weight, wcls, with or
//    without a "layers." prefix on the per-layer ones (ndp_io's llama2.c reader uses the prefix).
#include <cstring>
#include <map>
#include <string>

#include "ndp/llama.h"

namespace ndp {
namespace {

struct Role {
  const char* meta;     // per-layer Meta name with %d for the layer ("" for none)
  const char* hf;       // per-layer Hugging Face name with %d
  const char* stacked;  // run.c struct name (all layers in one tensor)
  const char* gguf;     // llama.cpp GGUF name with %d
};

std::string with_layer(const char* pattern, int l) {
  std::string s = pattern;
  auto at = s.find("%d");
  if (at != std::string::npos) s.replace(at, 2, std::to_string(l));
  return s;
}

class Resolver {
 public:
  explicit Resolver(const Model& m) : m_(m) {
    for (size_t i = 0; i < m.tensors.size(); ++i) index_[m.tensors[i].name] = i;
  }

  // Find role `r` for layer l (l < 0: a global tensor) with shape rows x cols.
  Result<WeightView> find(const Role& r, int l, int n_layers, uint64_t rows, uint64_t cols) const {
    for (const char* pat : {r.meta, r.hf, r.gguf}) {
      if (!*pat) continue;
      auto it = index_.find(with_layer(pat, l));
      if (it != index_.end()) return view(m_.tensors[it->second], 0, rows, cols, 1);
    }
    for (const std::string& name : {std::string(r.stacked), "layers." + std::string(r.stacked)}) {
      if (!*r.stacked) break;
      auto it = index_.find(name);
      if (it != index_.end()) {
        const uint64_t slices = l < 0 ? 1 : static_cast<uint64_t>(n_layers);
        return view(m_.tensors[it->second], l < 0 ? 0 : static_cast<uint64_t>(l), rows, cols, slices);
      }
    }
    std::string want = *r.meta ? with_layer(r.meta, l) : std::string(r.stacked);
    return Status::Error(m_.path + ": tensor " + want + " (or its Hugging Face / llama2.c equivalent) not found");
  }

  bool has(const char* name) const { return *name && index_.count(name) != 0; }

 private:
  // Slice `slice` of `slices` equal parts of t, each rows x cols.
  static Result<WeightView> view(const Tensor& t, uint64_t slice, uint64_t rows, uint64_t cols, uint64_t slices) {
    if (t.dtype != DType::kFP32 && t.dtype != DType::kBF16 && t.dtype != DType::kFP16)
      return Status::Error("tensor " + t.name + ": dtype " + dtype_info(t.dtype).name +
                           " is not supported by the forward pass (fp32, bf16, fp16)");
    const uint64_t each = rows * cols;
    const uint64_t ebytes = static_cast<uint64_t>(dtype_info(t.dtype).bits / 8);
    if (t.elements != each * slices || t.data.size() != t.elements * ebytes)
      return Status::Error("tensor " + t.name + ": " + std::to_string(t.elements) + " elements, expected " +
                           std::to_string(slices) + " x " + std::to_string(rows) + " x " + std::to_string(cols));
    if (!t.shape.empty() && t.shape.back() != cols)
      return Status::Error("tensor " + t.name + ": innermost dimension " + std::to_string(t.shape.back()) +
                           ", expected " + std::to_string(cols));
    WeightView w;
    w.dtype = t.dtype;
    w.data = t.data.data() + slice * each * ebytes;
    w.rows = rows;
    w.cols = cols;
    return w;
  }

  const Model& m_;
  std::map<std::string, size_t> index_;
};

const Role kEmbed{"tok_embeddings.weight", "model.embed_tokens.weight", "token_embedding_table", "token_embd.weight"};
const Role kAttnNorm{"layers.%d.attention_norm.weight", "model.layers.%d.input_layernorm.weight", "rms_att_weight",
                     "blk.%d.attn_norm.weight"};
const Role kWq{"layers.%d.attention.wq.weight", "model.layers.%d.self_attn.q_proj.weight", "wq", "blk.%d.attn_q.weight"};
const Role kWk{"layers.%d.attention.wk.weight", "model.layers.%d.self_attn.k_proj.weight", "wk", "blk.%d.attn_k.weight"};
const Role kWv{"layers.%d.attention.wv.weight", "model.layers.%d.self_attn.v_proj.weight", "wv", "blk.%d.attn_v.weight"};
const Role kWo{"layers.%d.attention.wo.weight", "model.layers.%d.self_attn.o_proj.weight", "wo",
               "blk.%d.attn_output.weight"};
const Role kFfnNorm{"layers.%d.ffn_norm.weight", "model.layers.%d.post_attention_layernorm.weight", "rms_ffn_weight",
                    "blk.%d.ffn_norm.weight"};
const Role kW1{"layers.%d.feed_forward.w1.weight", "model.layers.%d.mlp.gate_proj.weight", "w1", "blk.%d.ffn_gate.weight"};
const Role kW2{"layers.%d.feed_forward.w2.weight", "model.layers.%d.mlp.down_proj.weight", "w2", "blk.%d.ffn_down.weight"};
const Role kW3{"layers.%d.feed_forward.w3.weight", "model.layers.%d.mlp.up_proj.weight", "w3", "blk.%d.ffn_up.weight"};
const Role kNorm{"norm.weight", "model.norm.weight", "rms_final_weight", "output_norm.weight"};
const Role kOutput{"output.weight", "lm_head.weight", "wcls", ""};

// GGUF (llama.cpp) metadata of general.architecture "llama": dims, heads, eps, RoPE base and the
// optional rope_freqs.weight tensor (per-frequency divisors, how llama.cpp stores Llama 3 scaling).
Result<LlamaConfig> config_from_gguf(const Model& m) {
  auto arch_it = m.meta_str.find("general.architecture");
  const std::string arch = arch_it == m.meta_str.end() ? "" : arch_it->second;
  if (arch != "llama")
    return Status::Error(m.path + ": GGUF architecture '" + arch + "' is not supported (llama)");
  LlamaConfig c;
  auto get = [&](const std::string& key, int& out, int def) -> Status {
    auto it = m.meta.find(arch + "." + key);
    if (it == m.meta.end() && def < 0) return Status::Error(m.path + ": GGUF key " + arch + "." + key + " missing");
    const int64_t v = it == m.meta.end() ? def : it->second;
    if (v < 0 || v > (1LL << 30)) return Status::Error(m.path + ": GGUF key " + arch + "." + key + " out of range");
    out = static_cast<int>(v);
    return Status::Ok();
  };
  NDP_RETURN_IF_ERROR(get("embedding_length", c.dim, -1));
  NDP_RETURN_IF_ERROR(get("block_count", c.n_layers, -1));
  NDP_RETURN_IF_ERROR(get("attention.head_count", c.n_heads, -1));
  NDP_RETURN_IF_ERROR(get("attention.head_count_kv", c.n_kv_heads, c.n_heads));
  NDP_RETURN_IF_ERROR(get("feed_forward_length", c.hidden_dim, -1));
  NDP_RETURN_IF_ERROR(get("context_length", c.seq_len, -1));
  NDP_RETURN_IF_ERROR(get("attention.key_length", c.head_size, c.n_heads > 0 ? c.dim / c.n_heads : 0));
  int rope_dim = 0;
  NDP_RETURN_IF_ERROR(get("rope.dimension_count", rope_dim, c.head_size));
  if (rope_dim != c.head_size)
    return Status::Error(m.path + ": partial rotary embedding (rope.dimension_count " + std::to_string(rope_dim) +
                         " of head size " + std::to_string(c.head_size) + ") is not supported");
  auto f = [&](const std::string& key, double def) {
    auto it = m.meta_f64.find(arch + "." + key);
    return static_cast<float>(it == m.meta_f64.end() ? def : it->second);
  };
  c.norm_eps = f("attention.layer_norm_rms_epsilon", 1e-5);
  c.rope_theta = f("rope.freq_base", 10000.0);
  auto scaling = m.meta_str.find(arch + ".rope.scaling.type");
  if (scaling != m.meta_str.end() && scaling->second != "none")
    return Status::Error(m.path + ": GGUF rope scaling '" + scaling->second + "' is not supported");
  c.rope_style = RopeStyle::kInterleaved;  // llama.cpp's converter permutes Q/K rows for it
  const Tensor* emb = find_tensor(m, "token_embd.weight");
  if (!emb || emb->shape.size() != 2) return Status::Error(m.path + ": GGUF tensor token_embd.weight missing or not 2-D");
  c.vocab_size = static_cast<int>(emb->shape[0]);
  if (const Tensor* rf = find_tensor(m, "rope_freqs.weight")) {
    if (rf->dtype != DType::kFP32 || rf->elements != static_cast<uint64_t>(c.head_size / 2))
      return Status::Error(m.path + ": rope_freqs.weight must hold head_size / 2 FP32 values");
    c.rope_freq_factors.resize(rf->elements);
    std::memcpy(c.rope_freq_factors.data(), rf->data.data(), 4 * rf->elements);
  }
  return c;
}

Result<LlamaConfig> config_from_meta(const Model& m) {
  LlamaConfig c;
  auto get = [&](const char* k, int& out) -> Status {
    auto it = m.meta.find(k);
    if (it == m.meta.end()) return Status::Error(m.path + ": llama2.c header field " + k + " missing");
    if (it->second < -(1LL << 30) || it->second > (1LL << 30))
      return Status::Error(m.path + ": llama2.c header field " + k + " out of range");
    out = static_cast<int>(it->second);
    return Status::Ok();
  };
  NDP_RETURN_IF_ERROR(get("dim", c.dim));
  NDP_RETURN_IF_ERROR(get("hidden_dim", c.hidden_dim));
  NDP_RETURN_IF_ERROR(get("n_layers", c.n_layers));
  NDP_RETURN_IF_ERROR(get("n_heads", c.n_heads));
  NDP_RETURN_IF_ERROR(get("n_kv_heads", c.n_kv_heads));
  NDP_RETURN_IF_ERROR(get("vocab_size", c.vocab_size));
  NDP_RETURN_IF_ERROR(get("seq_len", c.seq_len));
  if (c.vocab_size < 0) c.vocab_size = -c.vocab_size;  // negative: unshared classifier (v0 header)
  if (c.n_heads > 0) c.head_size = c.dim / c.n_heads;
  if (c.n_heads > 0 && c.dim % c.n_heads != 0)
    return Status::Error(m.path + ": dim " + std::to_string(c.dim) + " is not a multiple of n_heads");
  c.norm_eps = 1e-5f;
  c.rope_theta = 10000.0f;
  c.rope_style = RopeStyle::kInterleaved;
  return c;
}

}  // namespace

Result<LlamaModel> llama_from_model(const Model& m, const std::string& hf_config_json) {
  LlamaModel lm;
  const bool hf = m.format == ModelFormat::kSafetensors;
  if (hf) {
    if (hf_config_json.empty())
      return Status::Error(m.path + ": a safetensors Llama model needs its config.json");
    Status st = parse_hf_llama_config(hf_config_json, lm.config);
    if (!st.ok()) return st.prepend(m.path + ": config.json: ");
  } else {
    auto c = m.format == ModelFormat::kGGUF ? config_from_gguf(m) : config_from_meta(m);
    if (!c.ok()) return c.status();
    lm.config = c.value();
  }
  const LlamaConfig& c = lm.config;
  NDP_RETURN_IF_ERROR(validate_config(c));
  Resolver r(m);
  const int L = c.n_layers;
  const uint64_t dim = c.dim, hid = c.hidden_dim, qd = c.q_dim(), kvd = c.kv_dim(), V = c.vocab_size;
  auto take = [&](WeightView& dst, const Role& role, int l, uint64_t rows, uint64_t cols) -> Status {
    auto w = r.find(role, l, L, rows, cols);
    if (!w.ok()) return w.status();
    dst = w.value();
    return Status::Ok();
  };
  NDP_RETURN_IF_ERROR(take(lm.weights.tok_embeddings, kEmbed, -1, V, dim));
  lm.weights.layers.resize(L);
  for (int l = 0; l < L; ++l) {
    LlamaLayerWeights& w = lm.weights.layers[l];
    NDP_RETURN_IF_ERROR(take(w.attn_norm, kAttnNorm, l, 1, dim));
    NDP_RETURN_IF_ERROR(take(w.wq, kWq, l, qd, dim));
    NDP_RETURN_IF_ERROR(take(w.wk, kWk, l, kvd, dim));
    NDP_RETURN_IF_ERROR(take(w.wv, kWv, l, kvd, dim));
    NDP_RETURN_IF_ERROR(take(w.wo, kWo, l, dim, qd));
    NDP_RETURN_IF_ERROR(take(w.ffn_norm, kFfnNorm, l, 1, dim));
    NDP_RETURN_IF_ERROR(take(w.w1, kW1, l, hid, dim));
    NDP_RETURN_IF_ERROR(take(w.w2, kW2, l, dim, hid));
    NDP_RETURN_IF_ERROR(take(w.w3, kW3, l, hid, dim));
  }
  NDP_RETURN_IF_ERROR(take(lm.weights.final_norm, kNorm, -1, 1, dim));
  // A classifier tensor, when present, is used; otherwise the embedding table is shared.
  if (r.has(kOutput.meta) || r.has(kOutput.hf) || r.has(kOutput.stacked)) {  // GGUF: output.weight (= meta)
    NDP_RETURN_IF_ERROR(take(lm.weights.classifier, kOutput, -1, V, dim));
  } else {
    auto shared = m.meta.find("shared_classifier");
    if (!hf && shared != m.meta.end() && shared->second == 0)
      return Status::Error(m.path + ": header says the classifier is not shared, but no classifier tensor was found");
    lm.weights.classifier = lm.weights.tok_embeddings;
  }
  return lm;
}

}  // namespace ndp
