// An independent, deliberately naive Llama reference for the tests: double precision, whole-sequence
// (prefill) formulation with no KV cache, weights in its own plain arrays, RoPE through complex
// multiplication. It shares no code with ndp_model.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace naive {

using Vec = std::vector<double>;

struct Layer {
  Vec attn_norm, wq, wk, wv, wo, ffn_norm, w1, w2, w3;  // matrices row-major [out][in]
};

struct Llama {
  int dim = 0, hidden = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab = 0, head_size = 0;
  double eps = 1e-5, theta = 10000.0;
  bool half_rope = false;  // pairs (i, i + hs/2) instead of (2i, 2i+1)
  // Optional rotary tables [pos][hs/2] (cos, sin); when empty, computed from theta.
  Vec rope_cos, rope_sin;
  Vec emb, final_norm, cls;  // emb [vocab][dim], cls [vocab][dim]
  std::vector<Layer> layers;
};

inline Vec mat_vec(const Vec& w, const Vec& x, int rows) {
  const size_t cols = x.size();
  Vec y(rows, 0.0);
  for (int r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) y[r] += w[r * cols + c] * x[c];
  return y;
}

inline Vec rms(const Vec& x, const Vec& w, double eps) {
  double ms = 0;
  for (double v : x) ms += v * v;
  ms = ms / static_cast<double>(x.size()) + eps;
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = w[i] * x[i] / std::sqrt(ms);
  return y;
}

inline void rotate(const Llama& m, Vec& v, int head, int pos) {
  const int hs = m.head_size;
  for (int j = 0; j < hs / 2; ++j) {
    const int a = head * hs + (m.half_rope ? j : 2 * j);
    const int b = head * hs + (m.half_rope ? j + hs / 2 : 2 * j + 1);
    std::complex<double> rot;
    if (!m.rope_cos.empty()) {
      rot = {m.rope_cos[static_cast<size_t>(pos) * (hs / 2) + j], m.rope_sin[static_cast<size_t>(pos) * (hs / 2) + j]};
    } else {
      const double ang = pos * std::pow(m.theta, -2.0 * j / hs);
      rot = std::polar(1.0, ang);
    }
    const std::complex<double> z = std::complex<double>(v[a], v[b]) * rot;
    v[a] = z.real();
    v[b] = z.imag();
  }
}

// Logits for every position of `tokens`. If kv is given, kv[layer][0 or 1][pos] receives the key
// (after RoPE) and value vectors, n_kv_heads * head_size each.
inline std::vector<Vec> logits(const Llama& m, const std::vector<int>& tokens,
                               std::vector<std::vector<std::vector<Vec>>>* kv = nullptr) {
  const int T = static_cast<int>(tokens.size());
  const int hs = m.head_size, group = m.n_heads / m.n_kv_heads;
  std::vector<Vec> h(T);
  for (int t = 0; t < T; ++t) h[t] = Vec(m.emb.begin() + tokens[t] * m.dim, m.emb.begin() + (tokens[t] + 1) * m.dim);
  if (kv) kv->assign(m.n_layers, std::vector<std::vector<Vec>>(2, std::vector<Vec>(T)));
  for (int l = 0; l < m.n_layers; ++l) {
    const Layer& L = m.layers[l];
    std::vector<Vec> q(T), k(T), v(T);
    for (int t = 0; t < T; ++t) {
      Vec xn = rms(h[t], L.attn_norm, m.eps);
      q[t] = mat_vec(L.wq, xn, m.n_heads * hs);
      k[t] = mat_vec(L.wk, xn, m.n_kv_heads * hs);
      v[t] = mat_vec(L.wv, xn, m.n_kv_heads * hs);
      for (int hd = 0; hd < m.n_heads; ++hd) rotate(m, q[t], hd, t);
      for (int hd = 0; hd < m.n_kv_heads; ++hd) rotate(m, k[t], hd, t);
      if (kv) {
        (*kv)[l][0][t] = k[t];
        (*kv)[l][1][t] = v[t];
      }
    }
    for (int t = 0; t < T; ++t) {
      Vec heads(static_cast<size_t>(m.n_heads) * hs, 0.0);
      for (int hd = 0; hd < m.n_heads; ++hd) {
        const int kvh = hd / group;
        Vec w(t + 1);
        double mx = -1e300;
        for (int s = 0; s <= t; ++s) {
          double d = 0;
          for (int i = 0; i < hs; ++i) d += q[t][hd * hs + i] * k[s][kvh * hs + i];
          w[s] = d / std::sqrt(static_cast<double>(hs));
          mx = std::max(mx, w[s]);
        }
        double z = 0;
        for (double& x : w) z += (x = std::exp(x - mx));
        for (int s = 0; s <= t; ++s)
          for (int i = 0; i < hs; ++i) heads[hd * hs + i] += w[s] / z * v[s][kvh * hs + i];
      }
      Vec o = mat_vec(L.wo, heads, m.dim);
      for (int i = 0; i < m.dim; ++i) h[t][i] += o[i];
      Vec xn = rms(h[t], L.ffn_norm, m.eps);
      Vec a = mat_vec(L.w1, xn, m.hidden), b = mat_vec(L.w3, xn, m.hidden);
      for (int i = 0; i < m.hidden; ++i) a[i] = a[i] / (1.0 + std::exp(-a[i])) * b[i];
      Vec f = mat_vec(L.w2, a, m.dim);
      for (int i = 0; i < m.dim; ++i) h[t][i] += f[i];
    }
  }
  std::vector<Vec> out(T);
  for (int t = 0; t < T; ++t) out[t] = mat_vec(m.cls, rms(h[t], m.final_norm, m.eps), m.vocab);
  return out;
}

}  // namespace naive
