// Golden-model helpers of the KV window environments (kv_env.h) and the bench data (kv_data.h).
#include "kv_env.h"

#include <memory>

#include "kv_data.h"
#include "ndp/kv.h"
#ifdef NDP_MODEL_HAVE_IO
#include "ndp/kv_record.h"
#include "ndp/llama_file.h"
#endif

namespace ndp::tb {

std::vector<KvGoldenWindow> kv_golden_windows(const KvGeo& g, const std::vector<uint16_t>& tm, KvBase base) {
  const KvGeometry geo{g.W, g.C, g.H};
  const uint64_t tokens = tm.size() / g.N();
  std::vector<KvGoldenWindow> out;
  for (uint64_t t0 = 0; t0 < tokens; t0 += g.W) {
    KvGoldenWindow w;
    w.w = static_cast<uint32_t>(std::min<uint64_t>(g.W, tokens - t0));
    w.seq_last = (t0 + w.w == tokens);
    w.elems.resize(uint64_t{w.w} * g.N());
    w.base.resize(g.N());
    kv_window_forward(DType::kBF16, geo, w.w, &tm[t0 * g.N()], w.elems.data(), w.base.data(), base);
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<uint16_t> kv_golden_inverse(const KvGeo& g, const std::vector<KvGoldenWindow>& win) {
  const KvGeometry geo{g.W, g.C, g.H};
  std::vector<uint16_t> out;
  for (const KvGoldenWindow& w : win) {
    std::vector<uint16_t> tm(uint64_t{w.w} * g.N());
    kv_window_inverse(DType::kBF16, geo, w.w, w.elems.data(), w.base.data(), tm.data());
    out.insert(out.end(), tm.begin(), tm.end());
  }
  return out;
}

void kv_append_window(const KvGoldenWindow& w, std::vector<uint8_t>& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(w.w >> (8 * i)));
  out.insert(out.end(), w.base.begin(), w.base.end());
  const auto* p = reinterpret_cast<const uint8_t*>(w.elems.data());
  out.insert(out.end(), p, p + 2 * w.elems.size());
}

bool kv_parse_windows(const KvGeo& g, const std::vector<uint8_t>& bytes, std::vector<KvGoldenWindow>* out,
                      std::string* err) {
  size_t off = 0;
  while (off < bytes.size()) {
    if (bytes.size() - off < 4 + g.N()) {
      *err = "window stream: truncated window header at offset " + std::to_string(off);
      return false;
    }
    KvGoldenWindow w;
    for (int i = 0; i < 4; ++i) w.w |= static_cast<uint32_t>(bytes[off + i]) << (8 * i);
    if (w.w == 0 || w.w > g.W) {
      *err = "window stream: offset " + std::to_string(off) + ": token count " + std::to_string(w.w) +
             " outside 1.." + std::to_string(g.W) + " (geometry " + g.name + ")";
      return false;
    }
    off += 4;
    w.base.assign(bytes.begin() + off, bytes.begin() + off + g.N());
    off += g.N();
    const size_t eb = 2 * size_t{w.w} * g.N();
    if (bytes.size() - off < eb) {
      *err = "window stream: offset " + std::to_string(off) + ": truncated elements";
      return false;
    }
    w.elems.resize(eb / 2);
    std::memcpy(w.elems.data(), bytes.data() + off, eb);
    off += eb;
    w.seq_last = w.w < g.W;
    out->push_back(std::move(w));
  }
  return true;
}

namespace {

uint16_t special(Rng& rng) {
  static const uint16_t kSpecial[] = {0x0000, 0x8000, 0x0001, 0x807F, 0x0040, 0x7F80, 0xFF80, 0x7FC0,
                                      0xFFC1, 0x7F81, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3F80, 0x0000};
  return kSpecial[rng.range(0, sizeof kSpecial / sizeof kSpecial[0] - 1)];
}

}  // namespace

std::vector<uint16_t> kv_random(Rng& rng, uint64_t tokens, uint32_t N, KvMix mix) {
  std::vector<uint16_t> v(tokens * N);
  std::vector<int> scale(N);
  for (int& s : scale) s = static_cast<int>(rng.range(100, 140));
  const uint16_t equal_exp = static_cast<uint16_t>(rng.range(0, 255));
  for (uint64_t t = 0; t < tokens; ++t)
    for (uint32_t n = 0; n < N; ++n) {
      uint16_t& x = v[t * N + n];
      const uint16_t sm = static_cast<uint16_t>(rng.u32() & 0x807F);  // sign and mantissa
      switch (mix) {
        case KvMix::kKvLike: {
          const uint64_t r = rng.range(0, 999);
          if (r < 10) x = special(rng);
          else x = static_cast<uint16_t>(sm | (scale[n] + static_cast<int>(rng.range(0, 6)) - 3) << 7);
          break;
        }
        case KvMix::kUniform: x = static_cast<uint16_t>(rng.u32()); break;
        case KvMix::kEqualExp: x = static_cast<uint16_t>(sm | equal_exp << 7); break;
        case KvMix::kZeros: x = rng.chance(0.5) ? 0x8000 : 0x0000; break;
        case KvMix::kSpecials: x = special(rng); break;
      }
    }
  return v;
}

bool stories_kv_trace(const KvTrace** out, std::string* why) {
#ifndef NDP_MODEL_HAVE_IO
  *why = "ndp_io is not built: cannot load stories260K";
  return false;
#else
  static std::unique_ptr<KvTrace> cached;
  static std::string cached_why;
  if (!cached && cached_why.empty()) {
    const std::string path = std::string(NDP_DATA_DIR) + "/stories260K/stories260K.bin";
    auto m = load_llama(path);
    if (!m.ok()) {
      cached_why = "real data not available: " + m.status().message();
    } else {
      GenerateOptions o;
      o.seed = 1;
      auto t = record_kv_trace(m.value().llama, o, "stories260K.bin");
      if (!t.ok()) cached_why = t.status().message();
      else cached = std::make_unique<KvTrace>(std::move(t.value()));
    }
  }
  if (!cached) {
    *why = cached_why;
    return false;
  }
  *out = cached.get();
  return true;
#endif
}

std::vector<uint16_t> kv_trace_group(const KvTrace& t, uint32_t layer, uint32_t kind, uint32_t h0, uint32_t H) {
  const uint32_t C = t.head_dim;
  std::vector<uint16_t> v(uint64_t{t.n_tokens} * H * C);
  for (uint32_t h = 0; h < H; ++h) {
    const uint16_t* s = t.stream(layer, kind, h0 + h);
    for (uint32_t tok = 0; tok < t.n_tokens; ++tok)
      std::memcpy(&v[(uint64_t{tok} * H + h) * C], s + uint64_t{tok} * C, 2 * C);
  }
  return v;
}

}  // namespace ndp::tb
