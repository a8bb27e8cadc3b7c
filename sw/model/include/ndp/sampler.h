// Seeded token sampler, identical in behaviour to llama2.c run.c's sampler: temperature, then
// top-p (nucleus) sampling with run.c's xorshift64* generator; temperature 0 is greedy argmax.
#pragma once

#include <cstdint>
#include <vector>

#include "ndp/status.h"

namespace ndp {

class Sampler {
 public:
  // seed must be non-zero (xorshift state), temperature >= 0, topp in [0, 1] (<= 0 or >= 1: plain
  // multinomial sampling). Call check() before use.
  Sampler(int vocab_size, float temperature, float topp, uint64_t seed)
      : vocab_(vocab_size), temperature_(temperature), topp_(topp), state_(seed) {}
  Status check() const;

  // Sample the next token from logits (vocab_size values; modified in place, as in run.c).
  int sample(std::vector<float>& logits);

  // run.c random_u32 / random_f32.
  uint32_t random_u32();
  float random_f32();

 private:
  int sample_topp(const std::vector<float>& probs, float coin);

  int vocab_;
  float temperature_, topp_;
  uint64_t state_;
  struct ProbIndex {
    float prob;
    int index;
  };
  std::vector<ProbIndex> probindex_;
};

}  // namespace ndp
