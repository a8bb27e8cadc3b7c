#include "ndp/demo_model.h"

#include <cmath>

#include "ndp/convert.h"

namespace ndp {
namespace {

// splitmix64: small, fast, reproducible.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {
    double u = uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(6.283185307179586 * v);
  }
  // Student-t with 5 degrees of freedom, unit variance.
  double student5() {
    double chi = 0;
    for (int i = 0; i < 5; ++i) {
      double z = normal();
      chi += z * z;
    }
    return normal() / std::sqrt(chi / 5.0) * std::sqrt(3.0 / 5.0);
  }
};

Tensor make_tensor(const std::string& name, std::vector<uint64_t> shape) {
  Tensor t;
  t.name = name;
  t.dtype = DType::kBF16;
  t.shape = std::move(shape);
  t.elements = 1;
  for (auto d : t.shape) t.elements *= d;
  t.data.resize(t.elements * 2);
  return t;
}

void put(Tensor& t, uint64_t i, double v) {
  uint16_t h = fp32_to_bf16_rne(f32_bits(static_cast<float>(v)));
  t.data[2 * i] = uint8_t(h);
  t.data[2 * i + 1] = uint8_t(h >> 8);
}

// rows x cols matrix: entry = row_scale * t5 noise, row scales log-normal around `scale`.
Tensor matrix(Rng& rng, const std::string& name, uint64_t rows, uint64_t cols, double scale) {
  Tensor t = make_tensor(name, {rows, cols});
  for (uint64_t r = 0; r < rows; ++r) {
    double rs = scale * std::exp(0.35 * rng.normal());
    for (uint64_t c = 0; c < cols; ++c) put(t, r * cols + c, rs * rng.student5());
  }
  return t;
}

Tensor norm(Rng& rng, const std::string& name, uint64_t n) {
  Tensor t = make_tensor(name, {n});
  for (uint64_t i = 0; i < n; ++i) put(t, i, 1.0 + 0.15 * rng.normal());
  return t;
}

}  // namespace

Model make_demo_model(uint64_t seed, const DemoModelShape& s) {
  Rng rng{seed};
  Model m;
  m.path = "<embedded demo model>";
  m.format = ModelFormat::kAuto;
  m.tensors.push_back(matrix(rng, "tok_embeddings", s.vocab, s.dim, 0.02));
  for (uint32_t l = 0; l < s.layers; ++l) {
    std::string p = "layers." + std::to_string(l) + ".";
    double a = 1.0 / std::sqrt(double(s.dim)), f = 1.0 / std::sqrt(double(s.hidden));
    m.tensors.push_back(norm(rng, p + "attention_norm", s.dim));
    for (const char* w : {"wq", "wk", "wv", "wo"}) m.tensors.push_back(matrix(rng, p + "attention." + w, s.dim, s.dim, a));
    m.tensors.push_back(norm(rng, p + "ffn_norm", s.dim));
    m.tensors.push_back(matrix(rng, p + "feed_forward.w1", s.hidden, s.dim, a));
    m.tensors.push_back(matrix(rng, p + "feed_forward.w3", s.hidden, s.dim, a));
    m.tensors.push_back(matrix(rng, p + "feed_forward.w2", s.dim, s.hidden, f));
  }
  m.tensors.push_back(norm(rng, "norm", s.dim));
  m.meta["dim"] = s.dim;
  m.meta["hidden_dim"] = s.hidden;
  m.meta["n_layers"] = s.layers;
  m.meta["vocab_size"] = s.vocab;
  return m;
}

}  // namespace ndp
