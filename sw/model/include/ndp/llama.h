// Llama-family decoder forward pass in plain C++ (FP32 compute), used to record real KV caches.
//
// The computation follows llama2.c's run.c step for step: RMSNorm (eps from the config), Q/K/V
// projections, rotary position embedding, grouped-query attention over the cached positions,
// output projection, residual, RMSNorm, SwiGLU feed-forward (w2(silu(w1 x) * w3 x)), residual,
// final RMSNorm and classifier. Weights stay in their stored type (FP32, BF16 or FP16) and are
// widened to FP32 element by element inside the matrix-vector products; activations, the KV
// cache and all accumulations are FP32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/dtype.h"
#include "ndp/model_reader.h"
#include "ndp/status.h"

namespace ndp {

// How the rotary embedding pairs the channels of a head.
//  kInterleaved: pairs (2i, 2i+1), frequency index i (llama2.c run.c, Meta's original checkpoints).
//  kHalf:        pairs (i, i + hs/2), frequency index i (Hugging Face `rotate_half`; HF Llama
//                checkpoints have Q/K rows permuted for it).
enum class RopeStyle : uint8_t { kInterleaved = 0, kHalf = 1 };

struct LlamaConfig {
  int dim = 0;          // model width
  int hidden_dim = 0;   // feed-forward width
  int n_layers = 0;
  int n_heads = 0;      // query heads
  int n_kv_heads = 0;   // key/value heads (GQA: n_heads % n_kv_heads == 0)
  int vocab_size = 0;
  int seq_len = 0;      // context length
  int head_size = 0;    // per-head channels (dim / n_heads unless the checkpoint says otherwise)
  float norm_eps = 1e-5f;
  float rope_theta = 10000.0f;
  RopeStyle rope_style = RopeStyle::kInterleaved;
  // Llama 3 "llama3" rope scaling (0 = off): factor, low/high frequency factors, original context.
  float rope_scale_factor = 0.0f;
  float rope_low_freq_factor = 1.0f;
  float rope_high_freq_factor = 4.0f;
  int rope_orig_context = 8192;
  // Per-frequency divisors (GGUF rope_freqs.weight, head_size / 2 values; empty = none): frequency i
  // is divided by factor i, which is how llama.cpp applies Llama 3 scaling.
  std::vector<float> rope_freq_factors;

  int kv_dim() const { return n_kv_heads * head_size; }
  int q_dim() const { return n_heads * head_size; }
};

// Checks the geometry (positive sizes, GQA divisibility, even head size). Error names the field.
Status validate_config(const LlamaConfig& c);

// A read-only view of one weight matrix [rows][cols] (row-major, out x in) or vector (rows = 1).
struct WeightView {
  DType dtype = DType::kFP32;   // kFP32, kBF16 or kFP16
  const uint8_t* data = nullptr;
  uint64_t rows = 0, cols = 0;
  // Element (r, c) widened to FP32.
  float at(uint64_t r, uint64_t c) const;
};

struct LlamaLayerWeights {
  WeightView attn_norm, wq, wk, wv, wo, ffn_norm, w1, w2, w3;
};

// Weights referencing the tensors of an ndp::Model (the Model must outlive them).
struct LlamaWeights {
  WeightView tok_embeddings;  // [vocab][dim]
  std::vector<LlamaLayerWeights> layers;
  WeightView final_norm;      // [dim]
  WeightView classifier;      // [vocab][dim] (the embedding table when shared)
};

struct LlamaModel {
  LlamaConfig config;
  LlamaWeights weights;
};

// Map a model read by ndp::read_model onto the Llama structure.
//  llama2.c checkpoints: configuration from Model::meta, tensors by the reader's names.
//  safetensors (Hugging Face Llama naming, `model.layers.N.self_attn.q_proj.weight`, ...): the
//  configuration comes from `hf_config_json` (the text of the model's config.json), RoPE style kHalf.
//  GGUF (general.architecture "llama", F32/F16/BF16 tensors, llama.cpp names): configuration from
//  the GGUF metadata, RoPE style kInterleaved (llama.cpp's converter permutes Q/K back to it).
// Every tensor's presence, dtype and shape is checked; errors name the tensor.
Result<LlamaModel> llama_from_model(const Model& m, const std::string& hf_config_json = "");

// Parse the fields of a Hugging Face config.json that the forward pass needs into c (dims, heads,
// eps, rope_theta, rope_scaling of type "llama3"); unknown keys are ignored, unsupported rope
// scaling is an error.
Status parse_hf_llama_config(const std::string& json, LlamaConfig& c);

// Receives, for every forward step, the key (after RoPE) and value vectors of each layer:
// k and v hold n_kv_heads * head_size FP32 values in [head][channel] order.
class KvSink {
 public:
  virtual ~KvSink() = default;
  virtual void on_kv(int layer, int pos, const float* k, const float* v) = 0;
};

// Told of every weight tensor just before the forward pass uses it, in execution order (the
// profiling pass of a prefetcher: order, sizes and the time between uses).
class WeightObserver {
 public:
  virtual ~WeightObserver() = default;
  virtual void on_weight(const WeightView& w) = 0;
};

// Incremental decoder with a KV cache (run.c's RunState).
class LlamaRunner {
 public:
  explicit LlamaRunner(const LlamaModel& m);
  // Run token `token` at position `pos` (pos must equal the number of tokens run so far, and both
  // token and pos must be in range) and return the vocab_size logits. Reports K/V to the sink.
  Result<const std::vector<float>*> forward(int token, int pos);
  void set_sink(KvSink* s) { sink_ = s; }
  void set_weight_observer(WeightObserver* o) { observer_ = o; }
  const LlamaConfig& config() const { return m_.config; }

 private:
  void attention(int layer, int pos);
  void feed_forward(int layer);
  void use(const WeightView& w) {
    if (observer_) observer_->on_weight(w);
  }

  const LlamaModel& m_;
  KvSink* sink_ = nullptr;
  WeightObserver* observer_ = nullptr;
  int next_pos_ = 0;
  std::vector<float> x_, xb_, xb2_, hb_, hb2_, q_, k_, v_, att_, logits_;
  std::vector<float> key_cache_, value_cache_;  // [layer][pos][kv_dim]
  std::vector<float> rope_cos_, rope_sin_;      // [pos][head_size/2]
};

// out[i] = sum_j W[i][j] * x[j] for i < w.rows (FP32 accumulation, j ascending as in run.c).
void matvec(const WeightView& w, const float* x, float* out);

}  // namespace ndp
