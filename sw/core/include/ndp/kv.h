// KV channel-major window transform (docs/spec.md section 6).
#pragma once

#include <cstdint>
#include <string>

#include "ndp/dtype.h"
#include "ndp/planes.h"
#include "ndp/status.h"

namespace ndp {

struct KvGeometry {
  uint32_t window = 32;     // W: tokens per window
  uint32_t channels = 128;  // C: channels per head
  uint32_t heads = 1;       // H: heads co-packed in one window
};

// Default window geometry for a model with `head_dim` channels per head and `n_kv_heads` KV heads
// per layer (docs/spec.md section 6): windows of at least kKvWindowTargetElems elements (the
// paper's LLaMA point C = 128, W = 32) so every plane block is large enough to pay for its header.
// H = the smallest divisor of n_kv_heads with H x C >= target / 32 (all heads if none), then
// W = max(32, ceil(target / (H x C)) rounded up to a multiple of 16). Inputs of 0 count as 1.
constexpr uint32_t kKvWindowTargetElems = 4096;
KvGeometry kv_default_geometry(uint32_t head_dim, uint32_t n_kv_heads);
// The W of that rule for N = H x C channels per token.
uint32_t kv_default_window(uint32_t channels_per_token);

// Per-(h, c) base exponent the encoder subtracts (docs/spec.md section 6: the decoder only adds the
// stored base back, so any base is valid).
//   kMax    the largest exponent field over the window's tokens (NaN/Inf count as 2^E - 1)
//   kMin    the smallest (zeros and subnormals count as 0)
//   kMedian the lower median: the ceil(w/2)-th smallest exponent field
//   kZero   0 (the window is only transposed; exponents are stored unchanged)
//   kAuto   the reference choice of the tensor's layout (kv_reference_base); not a choice by itself
// The reference choices (what kv_window computes) are kMax for the expbyte layout and kMin for the
// bitplane layout; the others are there to measure against them.
enum class KvBase : uint8_t { kMax = 0, kMin = 1, kMedian = 2, kZero = 3, kAuto = 4 };
constexpr int kKvBaseCount = 4;  // the concrete choices kMax .. kZero
const char* kv_base_name(KvBase b);
// "max", "min", "median", "zero", "auto"; false if unknown.
bool kv_base_from_name(const std::string& name, KvBase* out);
// kMax for Layout::kExpByte (a Huffman-coded delta byte: only the spread of the deltas matters, and
// the maximum spreads them least), kMin for Layout::kBitplane (deltas from the minimum are small
// positive numbers whose high bit-planes are zero; from the maximum they are small negative ones
// that set every high bit). Measured: docs/results/kv.md section 0.
KvBase kv_reference_base(Layout l);
// b itself, or kv_reference_base(l) for kAuto.
KvBase kv_resolve_base(KvBase b, Layout l);

// OK if the transform is defined for these arguments: t is bf16 or fp16, W, C, H >= 1,
// 1 <= w <= W, and C x H <= 65536 (the KVBASE block is one plane block). The error names the field.
Status kv_window_check(DType t, const KvGeometry& g, uint32_t w);

// token_major: w tokens, each H*C elements ordered [t][h][c] (bf16 or fp16, natural encoding).
// channel_major receives w*H*C elements ordered [h][c][t] with exponent fields replaced by
// delta = (e - base) mod 2^E; base receives H*C bytes in (h, c) order, chosen per `choice` over the
// biased exponent fields e of the channel's w tokens (zeros/subnormals have e = 0, NaN/Inf the
// all-ones exponent). kAuto means kMax here (the expbyte layout's reference choice). Requires
// kv_window_check(t, g, w).ok(); otherwise nothing is written.
void kv_window_forward(DType t, const KvGeometry& g, uint32_t w, const uint16_t* token_major,
                       uint16_t* channel_major, uint8_t* base, KvBase choice = KvBase::kMax);
// Exact inverse of kv_window_forward (e = (delta + base) mod 2^E), for any input bits.
// Requires kv_window_check(t, g, w).ok(); otherwise nothing is written.
void kv_window_inverse(DType t, const KvGeometry& g, uint32_t w, const uint16_t* channel_major,
                       const uint8_t* base, uint16_t* token_major);

}  // namespace ndp
