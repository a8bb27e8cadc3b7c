// Test data for the KV window benches: synthetic token-major KV sequences (with the corner values
// the spec calls out) and a real KV cache recorded from stories260K with ndp_model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/kvtrace.h"
#include "tb_rng.h"

namespace ndp::tb {

enum class KvMix {
  kKvLike,    // per-channel magnitude, exponents within a few steps of it; a few zeros/subnormals/NaN/Inf
  kUniform,   // every 16-bit pattern equally likely (exponents spread over the whole range)
  kEqualExp,  // one exponent for every element, random sign and mantissa
  kZeros,     // +0 and -0 only
  kSpecials,  // zeros, subnormals, +-Inf, NaNs, min/max normals
};

// tokens x N BF16 words, token-major.
std::vector<uint16_t> kv_random(Rng& rng, uint64_t tokens, uint32_t N, KvMix mix);

// A real KV cache: stories260K generating from BOS (seed 1, run.c sampling) for 512 positions.
// Recorded once per process. False with *why when the model file is absent or ndp_io is missing.
bool stories_kv_trace(const KvTrace** out, std::string* why);

// Heads h0 .. h0+H-1 of (layer, kind) of a trace as one token-major [t][h][c] sequence.
std::vector<uint16_t> kv_trace_group(const KvTrace& t, uint32_t layer, uint32_t kind, uint32_t h0, uint32_t H);

}  // namespace ndp::tb
