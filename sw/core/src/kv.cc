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

// Base of one (h, c) channel: exponent fields e[0..w-1] (scratch, may be reordered).
uint8_t channel_base(KvBase choice, std::vector<uint8_t>& e) {
  switch (choice) {
    case KvBase::kAuto:
    case KvBase::kMax: return *std::max_element(e.begin(), e.end());
    case KvBase::kMin: return *std::min_element(e.begin(), e.end());
    case KvBase::kMedian: {
      auto mid = e.begin() + (e.size() - 1) / 2;
      std::nth_element(e.begin(), mid, e.end());
      return *mid;
    }
    case KvBase::kZero: break;
  }
  return 0;
}

constexpr const char* kBaseNames[kKvBaseCount + 1] = {"max", "min", "median", "zero", "auto"};

}  // namespace

KvGeometry kv_default_geometry(uint32_t head_dim, uint32_t n_kv_heads) {
  const uint64_t C = std::max<uint32_t>(head_dim, 1), kv = std::max<uint32_t>(n_kv_heads, 1);
  uint64_t H = kv;
  for (uint64_t d = 1; d <= kv; ++d)
    if (kv % d == 0 && d * C >= kKvWindowTargetElems / 32) {
      H = d;
      break;
    }
  return KvGeometry{kv_default_window(static_cast<uint32_t>(H * C)), static_cast<uint32_t>(C),
                    static_cast<uint32_t>(H)};
}

uint32_t kv_default_window(uint32_t channels_per_token) {
  const uint64_t n = std::max<uint32_t>(channels_per_token, 1);
  const uint64_t tokens = (kKvWindowTargetElems + n - 1) / n;  // ceil(target / N)
  return static_cast<uint32_t>(std::max<uint64_t>(32, (tokens + 15) / 16 * 16));
}

const char* kv_base_name(KvBase b) {
  const auto i = static_cast<size_t>(b);
  return i <= kKvBaseCount ? kBaseNames[i] : "?";
}

KvBase kv_reference_base(Layout l) { return l == Layout::kBitplane ? KvBase::kMin : KvBase::kMax; }

KvBase kv_resolve_base(KvBase b, Layout l) { return b == KvBase::kAuto ? kv_reference_base(l) : b; }

bool kv_base_from_name(const std::string& name, KvBase* out) {
  for (int i = 0; i <= kKvBaseCount; ++i)
    if (name == kBaseNames[i]) {
      *out = static_cast<KvBase>(i);
      return true;
    }
  return false;
}

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
                       uint16_t* channel_major, uint8_t* base, KvBase choice) {
  if (!kv_window_check(t, g, w).ok()) return;
  const ExpField f = exp_field(t);
  const uint16_t field = static_cast<uint16_t>(f.mask << f.shift);
  const size_t hc_count = size_t{g.channels} * g.heads;
  // Pass 1: base exponents, one channel at a time.
  std::vector<uint8_t> e(w);
  for (size_t hc = 0; hc < hc_count; ++hc) {
    for (uint32_t tok = 0; tok < w; ++tok)
      e[tok] = static_cast<uint8_t>((token_major[size_t{tok} * hc_count + hc] >> f.shift) & f.mask);
    base[hc] = channel_base(choice, e);
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
