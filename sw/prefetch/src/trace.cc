// Profiling pass over the Llama forward pass and scaling to larger shapes (trace.h).
#include "ndp/prefetch/trace.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace ndp::pf {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t view_bytes(const WeightView& w) { return dtype_bytes(w.dtype, w.rows * w.cols); }

struct Named {
  const uint8_t* data;
  Tensor t;
};

std::vector<Named> name_weights(const LlamaModel& m) {
  const LlamaWeights& w = m.weights;
  std::vector<Named> v = {{w.tok_embeddings.data, {"tok_embeddings", Role::kEmbedding, -1, view_bytes(w.tok_embeddings)}}};
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const LlamaLayerWeights& L = w.layers[l];
    const std::pair<const WeightView*, Role> parts[] = {
        {&L.attn_norm, Role::kAttnNorm}, {&L.wq, Role::kWq}, {&L.wk, Role::kWk}, {&L.wv, Role::kWv},
        {&L.wo, Role::kWo}, {&L.ffn_norm, Role::kFfnNorm}, {&L.w1, Role::kW1}, {&L.w3, Role::kW3}, {&L.w2, Role::kW2}};
    for (const auto& [view, role] : parts)
      v.push_back({view->data, {"layers." + std::to_string(l) + "." + role_name(role), role, int(l), view_bytes(*view)}});
  }
  v.push_back({w.final_norm.data, {"final_norm", Role::kFinalNorm, -1, view_bytes(w.final_norm)}});
  // A classifier shared with the embedding is one tensor used twice.
  if (w.classifier.data != w.tok_embeddings.data)
    v.push_back({w.classifier.data, {"classifier", Role::kClassifier, -1, view_bytes(w.classifier)}});
  return v;
}

class Recorder : public WeightObserver {
 public:
  explicit Recorder(const std::map<const uint8_t*, uint32_t>& ids) : ids_(ids) {}
  void on_weight(const WeightView& w) override {
    const auto now = Clock::now();
    if (!order_.empty()) close_last(now);
    auto it = ids_.find(w.data);
    order_.push_back(it == ids_.end() ? ~0u : it->second);
    last_ = now;
  }
  void end_step() {
    close_last(Clock::now());
    if (step_order_.empty()) step_order_ = order_;
    order_.clear();
  }
  std::vector<uint32_t> step_order_;
  std::vector<double> seconds_;  // summed per position over the steps

 private:
  void close_last(Clock::time_point now) {
    const size_t pos = order_.size() - 1;
    if (seconds_.size() <= pos) seconds_.resize(pos + 1, 0.0);
    seconds_[pos] += std::chrono::duration<double>(now - last_).count();
  }
  const std::map<const uint8_t*, uint32_t>& ids_;
  std::vector<uint32_t> order_;
  Clock::time_point last_;
};

}  // namespace

const char* role_name(Role r) {
  static const char* n[] = {"tok_embeddings", "attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w1", "w3", "w2", "final_norm", "classifier"};
  return n[static_cast<int>(r)];
}

uint64_t AccessTrace::total_bytes() const {
  uint64_t b = 0;
  for (const Tensor& t : tensors) b += t.bytes;
  return b;
}

double AccessTrace::compute_s() const {
  double s = 0;
  for (const Use& u : uses) s += u.compute_s;
  return s;
}

Result<AccessTrace> profile_llama(const LlamaModel& m, int steps) {
  if (steps <= 0 || steps > m.config.seq_len) return Status::Error("profile: steps must be 1.." + std::to_string(m.config.seq_len));
  AccessTrace t;
  std::map<const uint8_t*, uint32_t> ids;
  for (auto& n : name_weights(m)) {
    ids[n.data] = uint32_t(t.tensors.size());
    t.tensors.push_back(n.t);
  }
  Recorder rec(ids);
  LlamaRunner run(m);
  run.set_weight_observer(&rec);
  for (int pos = 0; pos < steps; ++pos) {
    auto r = run.forward(1 + pos % (m.config.vocab_size - 1), pos);
    if (!r.ok()) return r.status();
    rec.end_step();
  }
  for (size_t i = 0; i < rec.step_order_.size(); ++i) {
    if (rec.step_order_[i] == ~0u) return Status::Error("profile: a weight the model map does not name was used");
    t.uses.push_back(Use{rec.step_order_[i], rec.seconds_[i] / steps});
  }
  return t;
}

const std::vector<ModelShape>& known_shapes() {
  static const std::vector<ModelShape> s = {
      {"llama2-7b", 4096, 11008, 32, 32, 32, 128, 32000},
      {"qwen2.5-7b", 3584, 18944, 28, 28, 4, 128, 152064},
      {"mistral-nemo-12b", 5120, 14336, 40, 32, 8, 128, 131072},
  };
  return s;
}

Result<ModelShape> find_shape(const std::string& name) {
  std::string names;
  for (const ModelShape& s : known_shapes()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  return Status::Error("unknown model shape '" + name + "' (known: " + names + ")");
}

namespace {

// rows x cols of a role's matrix in `s` (a norm is 1 x dim).
std::pair<uint64_t, uint64_t> role_shape(Role r, const ModelShape& s) {
  const uint64_t q = uint64_t{s.heads} * s.head_dim, kv = uint64_t{s.kv_heads} * s.head_dim;
  switch (r) {
    case Role::kEmbedding: case Role::kClassifier: return {s.vocab, s.dim};
    case Role::kWq: return {q, s.dim};
    case Role::kWk: case Role::kWv: return {kv, s.dim};
    case Role::kWo: return {s.dim, q};
    case Role::kW1: case Role::kW3: return {s.hidden, s.dim};
    case Role::kW2: return {s.dim, s.hidden};
    default: return {1, s.dim};
  }
}

double role_seconds(Role r, const ModelShape& s, const ScaleOptions& o) {
  const auto [rows, cols] = role_shape(r, s);
  double flops = 2.0 * double(rows) * double(cols) * double(o.tokens);
  if (r == Role::kEmbedding) flops = 0;  // a row gather
  if (rows == 1) flops = 5.0 * double(cols) * double(o.tokens);  // a norm
  return std::max(o.min_kernel_s, flops / (o.gpu_tflops * 1e12));
}

}  // namespace

Result<AccessTrace> scale_trace(const AccessTrace& p, const ModelShape& s, const ScaleOptions& o) {
  if (!s.dim || !s.hidden || !s.layers || !s.heads || !s.kv_heads || !s.head_dim || !s.vocab || !o.tokens || !(o.gpu_tflops > 0))
    return Status::Error("scale: shape and options must be positive");
  std::vector<Role> pre, block, post;
  for (const Use& u : p.uses) {
    const Tensor& t = p.tensors[u.tensor];
    if (t.layer == 0) block.push_back(t.role);
    else if (t.layer < 0) (block.empty() ? pre : post).push_back(t.role);
  }
  if (block.empty()) return Status::Error("scale: the profiled trace has no layer 0");
  AccessTrace out;
  out.model = s.name + " (order of " + p.model + ")";
  std::map<std::pair<int, Role>, uint32_t> ids;
  auto add = [&](Role r, int layer) {
    const auto key = std::make_pair(layer, r);
    auto it = ids.find(key);
    if (it == ids.end()) {
      const auto [rows, cols] = role_shape(r, s);
      std::string name = layer < 0 ? role_name(r) : "layers." + std::to_string(layer) + "." + role_name(r);
      it = ids.emplace(key, uint32_t(out.tensors.size())).first;
      out.tensors.push_back(Tensor{name, r, layer, rows * cols * s.elem_bytes});
    }
    out.uses.push_back(Use{it->second, role_seconds(r, s, o)});
  };
  for (Role r : pre) add(r, -1);
  for (uint32_t l = 0; l < s.layers; ++l)
    for (Role r : block) add(r, int(l));
  // A classifier tied to the embedding (stories260K) is the embedding used again; the shapes here
  // have their own classifier.
  for (Role r : post) add(r == Role::kEmbedding ? Role::kClassifier : r, -1);
  return o.backward ? with_backward(out) : out;
}

AccessTrace with_backward(const AccessTrace& t) {
  AccessTrace out = t;
  for (auto it = t.uses.rbegin(); it != t.uses.rend(); ++it) out.uses.push_back(Use{it->tensor, 2 * it->compute_s});
  return out;
}

}  // namespace ndp::pf
