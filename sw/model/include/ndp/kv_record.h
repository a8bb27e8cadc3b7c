// Run a Llama model over a token sequence and record its KV cache into a KvTrace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/kvtrace.h"
#include "ndp/llama.h"

namespace ndp {

struct GenerateOptions {
  int tokens = 0;              // positions to run (0: the model's whole context, seq_len)
  uint64_t seed = 1;           // sampler seed (non-zero)
  float temperature = 1.0f;    // run.c defaults
  float topp = 0.9f;
  std::vector<int> prompt;     // prefilled token ids (empty: start from BOS)
  int bos = 1;                 // llama2.c / SentencePiece BOS id
};

// KvSink that stores every K/V vector as BF16 (FP32 -> BF16 round-to-nearest-even) into a trace
// laid out as in kvtrace.h. The trace geometry is set from the model config and n_tokens.
class KvRecorder : public KvSink {
 public:
  KvRecorder(const LlamaConfig& c, uint32_t n_tokens, KvTrace& out);
  void on_kv(int layer, int pos, const float* k, const float* v) override;

 private:
  KvTrace& t_;
};

// Generate (or prefill `prompt`, then generate) `tokens` positions from the model and return the
// recorded trace (tokens[] holds the token fed at each position). The sequence runs to the
// requested length even across BOS tokens the model emits (a story boundary in llama2.c models).
Result<KvTrace> record_kv_trace(const LlamaModel& m, const GenerateOptions& opt, const std::string& model_name);

}  // namespace ndp
