// KvRecorder and record_kv_trace.
#include "ndp/kv_record.h"

#include "ndp/convert.h"
#include "ndp/sampler.h"

namespace ndp {

KvRecorder::KvRecorder(const LlamaConfig& c, uint32_t n_tokens, KvTrace& out) : t_(out) {
  t_.dtype = DType::kBF16;
  t_.n_layers = static_cast<uint32_t>(c.n_layers);
  t_.n_kv_heads = static_cast<uint32_t>(c.n_kv_heads);
  t_.head_dim = static_cast<uint32_t>(c.head_size);
  t_.n_tokens = n_tokens;
  t_.n_heads = static_cast<uint32_t>(c.n_heads);
  t_.dim = static_cast<uint32_t>(c.dim);
  t_.rope_style = static_cast<uint16_t>(c.rope_style);
  t_.tokens.assign(n_tokens, 0);
  t_.kv.assign(t_.streams() * t_.stream_elems(), 0);
}

void KvRecorder::on_kv(int layer, int pos, const float* k, const float* v) {
  if (pos < 0 || static_cast<uint32_t>(pos) >= t_.n_tokens) return;
  const uint32_t C = t_.head_dim;
  for (uint32_t h = 0; h < t_.n_kv_heads; ++h) {
    uint16_t* ks = t_.stream(static_cast<uint32_t>(layer), 0, h) + static_cast<uint64_t>(pos) * C;
    uint16_t* vs = t_.stream(static_cast<uint32_t>(layer), 1, h) + static_cast<uint64_t>(pos) * C;
    for (uint32_t c = 0; c < C; ++c) {
      ks[c] = fp32_to_bf16_rne(f32_bits(k[h * C + c]));
      vs[c] = fp32_to_bf16_rne(f32_bits(v[h * C + c]));
    }
  }
}

Result<KvTrace> record_kv_trace(const LlamaModel& m, const GenerateOptions& opt, const std::string& model_name) {
  const LlamaConfig& c = m.config;
  NDP_RETURN_IF_ERROR(validate_config(c));
  const int n = opt.tokens == 0 ? c.seq_len : opt.tokens;
  if (n < 1 || n > c.seq_len)
    return Status::Error("record: --tokens " + std::to_string(n) + " outside 1.." + std::to_string(c.seq_len) +
                         " (the model's context)");
  if (static_cast<int>(opt.prompt.size()) > n)
    return Status::Error("record: the prompt has " + std::to_string(opt.prompt.size()) + " tokens, more than " +
                         std::to_string(n) + " positions");
  Sampler sampler(c.vocab_size, opt.temperature, opt.topp, opt.seed);
  NDP_RETURN_IF_ERROR(sampler.check());
  uint64_t elems = 0;  // the trace the recorder allocates: n_layers x 2 x kv_heads x n x head_size
  if (!product_ok({uint64_t(c.n_layers), 2, uint64_t(c.n_kv_heads), uint64_t(n), uint64_t(c.head_size)}, &elems) ||
      elems > kKvTraceMaxElems)
    return Status::Error("record: a trace of " + std::to_string(n) + " tokens exceeds the KV trace limit of 2^33 elements");
  KvTrace trace;
  KvRecorder rec(c, static_cast<uint32_t>(n), trace);
  trace.seed = opt.seed;
  trace.model_name = model_name;
  LlamaModel sized = m;  // the runner's cache and RoPE tables for the n positions run, not the whole context
  sized.config.seq_len = n;
  LlamaRunner runner(sized);
  runner.set_sink(&rec);
  int token = opt.prompt.empty() ? opt.bos : opt.prompt[0];
  for (int pos = 0; pos < n; ++pos) {
    auto logits = runner.forward(token, pos);
    if (!logits.ok()) return logits.status();
    trace.tokens[pos] = static_cast<uint32_t>(token);
    if (pos + 1 < static_cast<int>(opt.prompt.size())) {
      token = opt.prompt[pos + 1];
    } else {
      std::vector<float> l = *logits.value();
      token = sampler.sample(l);
    }
  }
  return trace;
}

}  // namespace ndp
