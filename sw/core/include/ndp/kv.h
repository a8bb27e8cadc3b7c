// KV channel-major window transform (docs/spec.md section 6).
#pragma once

#include <cstdint>

#include "ndp/dtype.h"
#include "ndp/status.h"

namespace ndp {

struct KvGeometry {
  uint32_t window = 32;     // W: tokens per window
  uint32_t channels = 128;  // C: channels per head
  uint32_t heads = 1;       // H: heads co-packed in one window
};

// OK if the transform is defined for these arguments: t is bf16 or fp16, W, C, H >= 1,
// 1 <= w <= W, and C x H <= 65536 (the KVBASE block is one plane block). The error names the field.
Status kv_window_check(DType t, const KvGeometry& g, uint32_t w);

// token_major: w tokens, each H*C elements ordered [t][h][c] (bf16 or fp16, natural encoding).
// channel_major receives w*H*C elements ordered [h][c][t] with exponent fields replaced by
// delta = (e - base) mod 2^E; base receives H*C bytes in (h, c) order (base = min e over the window,
// zeros/subnormals count as e = 0 and NaN/Inf as the all-ones exponent).
// Requires kv_window_check(t, g, w).ok(); otherwise nothing is written.
void kv_window_forward(DType t, const KvGeometry& g, uint32_t w, const uint16_t* token_major,
                       uint16_t* channel_major, uint8_t* base);
// Exact inverse of kv_window_forward (e = (delta + base) mod 2^E), for any input bits.
// Requires kv_window_check(t, g, w).ok(); otherwise nothing is written.
void kv_window_inverse(DType t, const KvGeometry& g, uint32_t w, const uint16_t* channel_major,
                       const uint8_t* base, uint16_t* token_major);

}  // namespace ndp
