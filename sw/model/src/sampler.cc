// Sampler: transcription of llama2.c run.c's sampling functions.
#include "ndp/sampler.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ndp {

Status Sampler::check() const {
  if (vocab_ <= 0) return Status::Error("sampler: vocabulary size must be positive");
  if (state_ == 0) return Status::Error("sampler: seed must be non-zero (xorshift state)");
  if (!(temperature_ >= 0.0f) || !std::isfinite(temperature_))
    return Status::Error("sampler: temperature must be a finite value >= 0");
  if (!(topp_ >= 0.0f && topp_ <= 1.0f)) return Status::Error("sampler: top-p must be in [0, 1]");
  return Status::Ok();
}

uint32_t Sampler::random_u32() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return static_cast<uint32_t>((state_ * 0x2545F4914F6CDD1Dull) >> 32);
}

float Sampler::random_f32() { return static_cast<float>(random_u32() >> 8) / 16777216.0f; }

int Sampler::sample_topp(const std::vector<float>& probs, float coin) {
  const int n = vocab_;
  probindex_.clear();
  const float cutoff = (1.0f - topp_) / static_cast<float>(n > 1 ? n - 1 : 1);
  for (int i = 0; i < n; ++i)
    if (probs[i] >= cutoff) probindex_.push_back({probs[i], i});
  if (probindex_.empty()) return 0;
  std::stable_sort(probindex_.begin(), probindex_.end(),
                   [](const ProbIndex& a, const ProbIndex& b) { return a.prob > b.prob; });
  float cumulative = 0.0f;
  size_t last = probindex_.size() - 1;
  for (size_t i = 0; i < probindex_.size(); ++i) {
    cumulative += probindex_[i].prob;
    if (cumulative > topp_) {
      last = i;
      break;
    }
  }
  const float r = coin * cumulative;
  float cdf = 0.0f;
  for (size_t i = 0; i <= last; ++i) {
    cdf += probindex_[i].prob;
    if (r < cdf) return probindex_[i].index;
  }
  return probindex_[last].index;
}

int Sampler::sample(std::vector<float>& logits) {
  const int n = vocab_;
  if (temperature_ == 0.0f) {
    int best = 0;
    for (int i = 1; i < n; ++i)
      if (logits[i] > logits[best]) best = i;
    return best;
  }
  for (int i = 0; i < n; ++i) logits[i] /= temperature_;
  float mx = logits[0];
  for (int i = 1; i < n; ++i) mx = std::max(mx, logits[i]);
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    logits[i] = std::exp(logits[i] - mx);
    sum += logits[i];
  }
  for (int i = 0; i < n; ++i) logits[i] /= sum;
  const float coin = random_f32();
  if (topp_ <= 0.0f || topp_ >= 1.0f) {
    float cdf = 0.0f;
    for (int i = 0; i < n; ++i) {
      cdf += logits[i];
      if (coin < cdf) return i;
    }
    return n - 1;
  }
  return sample_topp(logits, coin);
}

}  // namespace ndp
