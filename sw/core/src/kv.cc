// KV window transform of docs/spec.md section 6: token-major [t][h][c] <-> channel-major [h][c][t]
// with per-(h, c) base exponents and exponent deltas modulo 2^E.
#include "ndp/kv.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ndp {
namespace {

struct ExpField {
  int shift;      // M: exponent position
  uint16_t mask;  // 2^E - 1 (unshifted)
};

ExpField exp_field(DType t) {
  const auto& i = dtype_info(t);
  return {i.man_bits, static_cast<uint16_t>((1u << i.exp_bits) - 1)};
}

}  // namespace

Status kv_window_check(DType t, const KvGeometry& g, uint32_t w) {
  if (t != DType::kBF16 && t != DType::kFP16)
    return Status::Error(std::string("KV window: dtype ") + dtype_info(t).name + " is not bf16 or fp16");
  if (g.window == 0 || g.channels == 0 || g.heads == 0)
    return Status::Error("KV window: W, C and H must be >= 1 (W=" + std::to_string(g.window) +
                         " C=" + std::to_string(g.channels) + " H=" + std::to_string(g.heads) + ")");
  if (w == 0 || w > g.window)
    return Status::Error("KV window: " + std::to_string(w) + " tokens, expected 1.." + std::to_string(g.window));
  if (uint64_t{g.channels} * g.heads > 65536)
    return Status::Error("KV window: C x H = " + std::to_string(uint64_t{g.channels} * g.heads) +
                         " base bytes exceed one 65536-byte KVBASE block");
  return Status::Ok();
}

void kv_window_forward(DType t, const KvGeometry& g, uint32_t w, const uint16_t* token_major,
                       uint16_t* channel_major, uint8_t* base) {
  if (!kv_window_check(t, g, w).ok()) return;
  const ExpField f = exp_field(t);
  const uint16_t field = static_cast<uint16_t>(f.mask << f.shift);
  const size_t hc_count = size_t{g.channels} * g.heads;
  // Pass 1: base exponents, token by token (contiguous rows, vectorizes across channels).
  std::fill(base, base + hc_count, static_cast<uint8_t>(f.mask));
  for (uint32_t tok = 0; tok < w; ++tok) {
    const uint16_t* row = token_major + size_t{tok} * hc_count;
    for (size_t hc = 0; hc < hc_count; ++hc)
      base[hc] = std::min(base[hc], static_cast<uint8_t>((row[hc] >> f.shift) & f.mask));
  }
  // Pass 2: transpose to channel-major with the exponent replaced by its delta.
  for (uint32_t tok = 0; tok < w; ++tok) {
    const uint16_t* row = token_major + size_t{tok} * hc_count;
    for (size_t hc = 0; hc < hc_count; ++hc) {
      const uint16_t x = row[hc];
      const uint16_t delta = static_cast<uint16_t>((((x >> f.shift) & f.mask) - base[hc]) & f.mask);
      channel_major[hc * w + tok] = static_cast<uint16_t>((x & ~field) | delta << f.shift);
    }
  }
}

void kv_window_inverse(DType t, const KvGeometry& g, uint32_t w, const uint16_t* channel_major,
                       const uint8_t* base, uint16_t* token_major) {
  if (!kv_window_check(t, g, w).ok()) return;
  const ExpField f = exp_field(t);
  const uint16_t field = static_cast<uint16_t>(f.mask << f.shift);
  const size_t hc_count = size_t{g.channels} * g.heads;
  for (size_t hc = 0; hc < hc_count; ++hc) {
    const uint16_t* col = channel_major + hc * w;
    for (uint32_t tok = 0; tok < w; ++tok) {
      const uint16_t x = col[tok];
      const uint16_t e = static_cast<uint16_t>((((x >> f.shift) & f.mask) + base[hc]) & f.mask);
      token_major[size_t{tok} * hc_count + hc] = static_cast<uint16_t>((x & ~field) | e << f.shift);
    }
  }
}

}  // namespace ndp
