// LlamaRunner: one decoding step of a Llama-family model, transcribed from llama2.c run.c.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "ndp/convert.h"
#include "ndp/llama.h"

namespace ndp {

float WeightView::at(uint64_t r, uint64_t c) const {
  const uint64_t i = r * cols + c;
  switch (dtype) {
    case DType::kBF16: {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      return bits_f32(bf16_to_fp32(h));
    }
    case DType::kFP16: {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      return bits_f32(fp16_to_fp32(h));
    }
    default: {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      return f;
    }
  }
}

void matvec(const WeightView& w, const float* x, float* out) {
  const uint64_t n = w.cols;
  if (w.dtype == DType::kFP32) {
    for (uint64_t i = 0; i < w.rows; ++i) {
      const uint8_t* row = w.data + 4 * i * n;
      float acc = 0.0f;
      for (uint64_t j = 0; j < n; ++j) {
        float f;
        std::memcpy(&f, row + 4 * j, 4);
        acc += f * x[j];
      }
      out[i] = acc;
    }
    return;
  }
  for (uint64_t i = 0; i < w.rows; ++i) {
    float acc = 0.0f;
    for (uint64_t j = 0; j < n; ++j) acc += w.at(i, j) * x[j];
    out[i] = acc;
  }
}

namespace {

// run.c rmsnorm: o = w * (x / sqrt(mean(x^2) + eps)).
void rmsnorm(float* o, const float* x, const WeightView& w, int n, float eps) {
  float ss = 0.0f;
  for (int j = 0; j < n; ++j) ss += x[j] * x[j];
  ss /= static_cast<float>(n);
  ss += eps;
  ss = 1.0f / std::sqrt(ss);
  for (int j = 0; j < n; ++j) o[j] = w.at(0, static_cast<uint64_t>(j)) * (ss * x[j]);
}

void softmax(float* x, int n) {
  float mx = x[0];
  for (int i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  for (int i = 0; i < n; ++i) x[i] /= sum;
}

// Per pair index i: theta^(-2i/hs) in float as run.c computes it, then llama3 scaling if enabled.
float rope_frequency(const LlamaConfig& c, int i) {
  float freq = 1.0f / std::pow(c.rope_theta, static_cast<float>(2 * i) / static_cast<float>(c.head_size));
  if (!c.rope_freq_factors.empty()) return freq / c.rope_freq_factors[static_cast<size_t>(i)];
  if (c.rope_scale_factor <= 0.0f) return freq;
  const float pi = 3.14159265358979323846f;
  const float orig = static_cast<float>(c.rope_orig_context);
  const float low_wavelen = orig / c.rope_low_freq_factor;
  const float high_wavelen = orig / c.rope_high_freq_factor;
  const float wavelen = 2.0f * pi / freq;
  if (wavelen < high_wavelen) return freq;
  if (wavelen > low_wavelen) return freq / c.rope_scale_factor;
  const float smooth =
      (orig / wavelen - c.rope_low_freq_factor) / (c.rope_high_freq_factor - c.rope_low_freq_factor);
  return (1.0f - smooth) * freq / c.rope_scale_factor + smooth * freq;
}

// Rotate one head vector in place at the given cos/sin table row.
void rope_head(float* v, int hs, RopeStyle style, const float* cs, const float* sn) {
  for (int i = 0; i < hs / 2; ++i) {
    const int a = style == RopeStyle::kInterleaved ? 2 * i : i;
    const int b = style == RopeStyle::kInterleaved ? 2 * i + 1 : i + hs / 2;
    const float v0 = v[a], v1 = v[b];
    v[a] = v0 * cs[i] - v1 * sn[i];
    v[b] = v0 * sn[i] + v1 * cs[i];
  }
}

}  // namespace

Status validate_config(const LlamaConfig& c) {
  auto bad = [](const char* f, int v) {
    return Status::Error(std::string("model config: ") + f + " = " + std::to_string(v) + " is out of range");
  };
  if (c.dim <= 0 || c.dim > (1 << 16)) return bad("dim", c.dim);
  if (c.hidden_dim <= 0 || c.hidden_dim > (1 << 18)) return bad("hidden_dim", c.hidden_dim);
  if (c.n_layers <= 0 || c.n_layers > 1024) return bad("n_layers", c.n_layers);
  if (c.n_heads <= 0 || c.n_heads > 1024) return bad("n_heads", c.n_heads);
  if (c.n_kv_heads <= 0 || c.n_kv_heads > c.n_heads || c.n_heads % c.n_kv_heads != 0)
    return bad("n_kv_heads", c.n_kv_heads);
  if (c.vocab_size <= 0 || c.vocab_size > (1 << 22)) return bad("vocab_size", c.vocab_size);
  if (c.seq_len <= 0 || c.seq_len > (1 << 20)) return bad("seq_len", c.seq_len);
  if (c.head_size <= 0 || c.head_size % 2 != 0 || c.head_size > 4096) return bad("head_size", c.head_size);
  if (!(c.norm_eps > 0.0f) || !(c.rope_theta > 0.0f))
    return Status::Error("model config: norm_eps and rope_theta must be positive");
  if (!c.rope_freq_factors.empty() && c.rope_freq_factors.size() != static_cast<size_t>(c.head_size / 2))
    return Status::Error("model config: rope_freq_factors must hold head_size / 2 values");
  for (float f : c.rope_freq_factors)
    if (!(f > 0.0f)) return Status::Error("model config: rope_freq_factors must be positive");
  return Status::Ok();
}

LlamaRunner::LlamaRunner(const LlamaModel& m) : m_(m) {
  const LlamaConfig& c = m.config;
  const size_t wide = static_cast<size_t>(std::max(c.dim, c.q_dim()));
  x_.assign(c.dim, 0.0f);
  xb_.assign(wide, 0.0f);
  xb2_.assign(c.dim, 0.0f);
  hb_.assign(c.hidden_dim, 0.0f);
  hb2_.assign(c.hidden_dim, 0.0f);
  q_.assign(c.q_dim(), 0.0f);
  k_.assign(c.kv_dim(), 0.0f);
  v_.assign(c.kv_dim(), 0.0f);
  att_.assign(c.seq_len, 0.0f);
  logits_.assign(c.vocab_size, 0.0f);
  const size_t cache = static_cast<size_t>(c.n_layers) * c.seq_len * c.kv_dim();
  key_cache_.assign(cache, 0.0f);
  value_cache_.assign(cache, 0.0f);
  const int half = c.head_size / 2;
  rope_cos_.resize(static_cast<size_t>(c.seq_len) * half);
  rope_sin_.resize(rope_cos_.size());
  for (int i = 0; i < half; ++i) {
    const float freq = rope_frequency(c, i);
    for (int p = 0; p < c.seq_len; ++p) {
      const float val = static_cast<float>(p) * freq;
      rope_cos_[static_cast<size_t>(p) * half + i] = std::cos(val);
      rope_sin_[static_cast<size_t>(p) * half + i] = std::sin(val);
    }
  }
}

void LlamaRunner::attention(int l, int pos) {
  const LlamaConfig& c = m_.config;
  const LlamaLayerWeights& w = m_.weights.layers[l];
  const int hs = c.head_size, kv_dim = c.kv_dim(), kv_mul = c.n_heads / c.n_kv_heads;
  use(w.attn_norm);
  rmsnorm(xb_.data(), x_.data(), w.attn_norm, c.dim, c.norm_eps);
  use(w.wq);
  matvec(w.wq, xb_.data(), q_.data());
  use(w.wk);
  matvec(w.wk, xb_.data(), k_.data());
  use(w.wv);
  matvec(w.wv, xb_.data(), v_.data());
  const float* cs = &rope_cos_[static_cast<size_t>(pos) * (hs / 2)];
  const float* sn = &rope_sin_[static_cast<size_t>(pos) * (hs / 2)];
  for (int h = 0; h < c.n_heads; ++h) rope_head(&q_[static_cast<size_t>(h) * hs], hs, c.rope_style, cs, sn);
  for (int h = 0; h < c.n_kv_heads; ++h) rope_head(&k_[static_cast<size_t>(h) * hs], hs, c.rope_style, cs, sn);
  if (sink_) sink_->on_kv(l, pos, k_.data(), v_.data());

  const size_t loff = static_cast<size_t>(l) * c.seq_len * kv_dim;
  std::copy(k_.begin(), k_.end(), key_cache_.begin() + loff + static_cast<size_t>(pos) * kv_dim);
  std::copy(v_.begin(), v_.end(), value_cache_.begin() + loff + static_cast<size_t>(pos) * kv_dim);

  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  for (int h = 0; h < c.n_heads; ++h) {
    const float* q = &q_[static_cast<size_t>(h) * hs];
    const size_t hoff = static_cast<size_t>(h / kv_mul) * hs;
    for (int t = 0; t <= pos; ++t) {
      const float* k = &key_cache_[loff + static_cast<size_t>(t) * kv_dim + hoff];
      float score = 0.0f;
      for (int i = 0; i < hs; ++i) score += q[i] * k[i];
      att_[t] = score * scale;
    }
    softmax(att_.data(), pos + 1);
    float* xb = &xb_[static_cast<size_t>(h) * hs];
    std::fill(xb, xb + hs, 0.0f);
    for (int t = 0; t <= pos; ++t) {
      const float* v = &value_cache_[loff + static_cast<size_t>(t) * kv_dim + hoff];
      const float a = att_[t];
      for (int i = 0; i < hs; ++i) xb[i] += a * v[i];
    }
  }
  use(w.wo);
  matvec(w.wo, xb_.data(), xb2_.data());
  for (int i = 0; i < c.dim; ++i) x_[i] += xb2_[i];
}

void LlamaRunner::feed_forward(int l) {
  const LlamaConfig& c = m_.config;
  const LlamaLayerWeights& w = m_.weights.layers[l];
  use(w.ffn_norm);
  rmsnorm(xb_.data(), x_.data(), w.ffn_norm, c.dim, c.norm_eps);
  use(w.w1);
  matvec(w.w1, xb_.data(), hb_.data());
  use(w.w3);
  matvec(w.w3, xb_.data(), hb2_.data());
  for (int i = 0; i < c.hidden_dim; ++i) {
    float val = hb_[i];
    val *= 1.0f / (1.0f + std::exp(-val));  // SiLU
    hb_[i] = val * hb2_[i];
  }
  use(w.w2);
  matvec(w.w2, hb_.data(), xb_.data());
  for (int i = 0; i < c.dim; ++i) x_[i] += xb_[i];
}

Result<const std::vector<float>*> LlamaRunner::forward(int token, int pos) {
  const LlamaConfig& c = m_.config;
  if (token < 0 || token >= c.vocab_size)
    return Status::Error("forward: token " + std::to_string(token) + " outside the vocabulary of " +
                         std::to_string(c.vocab_size));
  if (pos != next_pos_ || pos >= c.seq_len)
    return Status::Error("forward: position " + std::to_string(pos) + " (expected " + std::to_string(next_pos_) +
                         ", context " + std::to_string(c.seq_len) + ")");
  use(m_.weights.tok_embeddings);
  for (int i = 0; i < c.dim; ++i) x_[i] = m_.weights.tok_embeddings.at(static_cast<uint64_t>(token), i);
  for (int l = 0; l < c.n_layers; ++l) {
    attention(l, pos);
    feed_forward(l);
  }
  use(m_.weights.final_norm);
  rmsnorm(x_.data(), x_.data(), m_.weights.final_norm, c.dim, c.norm_eps);
  use(m_.weights.classifier);
  matvec(m_.weights.classifier, x_.data(), logits_.data());
  ++next_pos_;
  return &logits_;
}

}  // namespace ndp
