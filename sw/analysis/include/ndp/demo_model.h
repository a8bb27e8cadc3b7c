// The embedded default input of `ndp demo`: a deterministic, weight-like BF16 model made by the
// project itself (no file needed). It imitates what trained LLM weights look like to the device
// format: per-output-row scales drawn log-normally, heavy-tailed (Student-t, 5 degrees of freedom)
// entries, norm vectors near 1.0, an embedding table, in a small Llama-shaped set of tensors.
#pragma once

#include <cstdint>

#include "ndp/model_reader.h"

namespace ndp {

struct DemoModelShape {
  uint32_t dim = 256;
  uint32_t hidden = 688;
  uint32_t layers = 4;
  uint32_t vocab = 2048;
};

// Deterministic for a given seed and shape (splitmix64 PRNG; values rounded to BF16 with RNE). The
// sampling uses libm log/cos/sqrt, so bytes can differ across libm versions; tests never compare
// against stored bytes, only against properties and round trips.
Model make_demo_model(uint64_t seed = 0x4E44503031ull, const DemoModelShape& shape = {});

}  // namespace ndp
