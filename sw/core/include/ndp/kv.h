// KV channel-major window transform (docs/spec.md section 6).
#pragma once

#include <cstdint>

#include "ndp/dtype.h"

namespace ndp {

struct KvGeometry {
  uint32_t window = 32;     // W: tokens per window
  uint32_t channels = 128;  // C: channels per head
  uint32_t heads = 1;       // H: heads co-packed in one window
};

// token_major: w tokens, each H*C elements ordered [t][h][c] (bf16 or fp16, natural encoding).
// channel_major receives w*H*C elements ordered [h][c][t] with exponent fields replaced by
// delta = (e - base) mod 2^E; base receives H*C bytes in (h, c) order (base = min e over the window).
void kv_window_forward(DType t, const KvGeometry& g, uint32_t w, const uint16_t* token_major,
                       uint16_t* channel_major, uint8_t* base);
// Exact inverse of kv_window_forward.
void kv_window_inverse(DType t, const KvGeometry& g, uint32_t w, const uint16_t* channel_major,
                       const uint8_t* base, uint16_t* token_major);

}  // namespace ndp
