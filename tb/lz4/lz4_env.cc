// Data helpers of the LZ4 benches: real plane blocks (stories260K and GPT-2 attention weights,
// BF16 by RNE), synthetic data flavours, liblz4 reference compression, rate summaries.
#include "lz4_env.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "ndp/convert.h"
#include "ndp/model_reader.h"
#include "ndp/planes.h"
#include "tb_data.h"

namespace ndp::tb {
namespace {

std::string data_dir() {
  const char* env = std::getenv("NDP_DATA_DIR");
  return (env && *env) ? env : NDP_TB_DATA_DIR;
}

std::string hex2(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", v & 0xff);
  return b;
}

// Cut a BF16 tensor (little-endian words) into chunks and append its planes.
void add_planes(const std::string& name, const std::vector<uint8_t>& bf16, std::vector<PlaneBlock>* out) {
  const uint64_t n = bf16.size() / 2;
  for (uint64_t c = 0; c < n; c += kDefaultChunkElems) {
    const uint64_t k = std::min<uint64_t>(kDefaultChunkElems, n - c);
    for (Layout l : {Layout::kExpByte, Layout::kBitplane}) {
      std::vector<std::vector<uint8_t>> planes;
      pack_chunk(DType::kBF16, l, bf16.data() + 2 * c, k, planes);
      const std::vector<uint8_t> ids = plane_order(DType::kBF16, l);
      for (size_t i = 0; i < ids.size(); ++i) {
        // the bitplane layout adds only its exponent bit-planes (14..7); the rest repeat expbyte's
        if (l == Layout::kBitplane && (ids[i] < 7 || ids[i] > 14)) continue;
        out->push_back({name + " chunk " + std::to_string(c / kDefaultChunkElems) + " plane " + hex2(ids[i]),
                        ids[i], std::move(planes[i])});
      }
    }
  }
}

}  // namespace

bool load_real_planes(std::vector<PlaneBlock>* out, int max_gpt2_layers, std::string* why) {
  out->clear();
  std::vector<Bf16Tensor> st;
  if (!load_stories260k_bf16(&st, why)) return false;
  for (const Bf16Tensor& t : st) add_planes("stories260K/" + t.name, t.bytes, out);
  if (max_gpt2_layers <= 0) return true;
  const std::string dir = data_dir() + "/gpt2-small-attn";
  if (!std::filesystem::exists(dir)) {
    *why = "real data not found: " + dir;
    return false;
  }
  Result<Model> m = read_model(dir, ModelFormat::kGpt2Raw);
  if (!m.ok()) {
    *why = m.status().message();
    return false;
  }
  for (const Tensor& t : m->tensors) {
    // decoderN/att.{query,key,value,proj}.w
    if (t.dtype != DType::kFP32 || t.name.rfind("decoder", 0) != 0 || t.name.find("/att.") == std::string::npos ||
        t.name.size() < 2 || t.name.compare(t.name.size() - 2, 2, ".w") != 0)
      continue;
    const int layer = std::atoi(t.name.c_str() + 7);
    if (layer < 1 || layer > max_gpt2_layers) continue;
    std::vector<uint8_t> bf(t.elements * 2);
    for (uint64_t i = 0; i < t.elements; ++i) {
      const uint32_t u = static_cast<uint32_t>(t.data[4 * i]) | (static_cast<uint32_t>(t.data[4 * i + 1]) << 8) |
                         (static_cast<uint32_t>(t.data[4 * i + 2]) << 16) |
                         (static_cast<uint32_t>(t.data[4 * i + 3]) << 24);
      const uint16_t h = fp32_to_bf16_rne(u);
      bf[2 * i] = static_cast<uint8_t>(h);
      bf[2 * i + 1] = static_cast<uint8_t>(h >> 8);
    }
    add_planes("gpt2/" + t.name, bf, out);
  }
  return true;
}

bool all_equal(const std::vector<uint8_t>& v) {
  for (uint8_t b : v)
    if (b != v[0]) return false;
  return true;
}

std::vector<uint8_t> synth_data(Rng& rng, size_t n, int flavour) {
  std::vector<uint8_t> v(n);
  const size_t period = 1 + rng.range(0, 40);
  for (size_t i = 0; i < n; ++i) {
    switch (flavour) {
      case 0: v[i] = static_cast<uint8_t>(rng.u32()); break;
      case 1: v[i] = rng.chance(0.1) ? static_cast<uint8_t>(rng.u32()) : 0; break;
      case 2: v[i] = i < period ? static_cast<uint8_t>(rng.u32()) : v[i - period]; break;
      case 3: v[i] = (i == 0 || rng.chance(0.05)) ? static_cast<uint8_t>(rng.u32()) : v[i - 1]; break;
      case 4: v[i] = static_cast<uint8_t>("ACGT"[rng.range(0, 3)]); break;
      default: v[i] = 0; break;
    }
  }
  return v;
}

namespace {

struct Liblz4 {
  int (*version)() = nullptr;
  int (*bound)(int) = nullptr;
  int (*def)(const char*, char*, int, int) = nullptr;
  int (*fast)(const char*, char*, int, int, int) = nullptr;
  int (*hc)(const char*, char*, int, int, int) = nullptr;
  int (*dec)(const char*, char*, int, int) = nullptr;
};

template <class F>
void sym(void* h, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(h, name));
  if (!*f) {
    std::fprintf(stderr, "liblz4.so.1 has no %s\n", name);
    std::abort();
  }
}

const Liblz4& lib() {
  static const Liblz4 l = [] {
    Liblz4 r;
    void* h = dlopen("liblz4.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "cannot load the system liblz4: %s\n", dlerror());
      std::abort();
    }
    sym(h, "LZ4_versionNumber", &r.version);
    sym(h, "LZ4_compressBound", &r.bound);
    sym(h, "LZ4_compress_default", &r.def);
    sym(h, "LZ4_compress_fast", &r.fast);
    sym(h, "LZ4_compress_HC", &r.hc);
    sym(h, "LZ4_decompress_safe", &r.dec);
    return r;
  }();
  return l;
}

}  // namespace

int liblz4_version() { return lib().version(); }

std::vector<uint8_t> liblz4_compress(const std::vector<uint8_t>& src, int level) {
  const Liblz4& l = lib();
  std::vector<uint8_t> out(static_cast<size_t>(l.bound(static_cast<int>(src.size()))) + 1);
  const char* s = reinterpret_cast<const char*>(src.data());
  char* d = reinterpret_cast<char*>(out.data());
  const int n = static_cast<int>(src.size()), cap = static_cast<int>(out.size());
  int r = 0;
  if (level == 0) r = l.def(s, d, n, cap);
  else if (level < 0) r = l.fast(s, d, n, cap, -level);
  else r = l.hc(s, d, n, cap, level);
  out.resize(r > 0 ? static_cast<size_t>(r) : 0);
  return out;
}

int liblz4_decompress(const uint8_t* src, size_t n, uint8_t* dst, size_t cap) {
  static const uint8_t kNone = 0;  // liblz4 dereferences a null source even for size 0
  return lib().dec(reinterpret_cast<const char*>(n ? src : &kNone), reinterpret_cast<char*>(dst),
                   static_cast<int>(n), static_cast<int>(cap));
}

uint8_t lz4_ref_decode(const uint8_t* in, size_t n, uint32_t raw, uint32_t max_block,
                       std::vector<uint8_t>* out) {
  enum : uint8_t { kOk, kTrunc, kOffZero, kOffRange, kOverrun, kEndRule, kNoLast, kShort, kBadSize };
  out->clear();
  if (raw == 0 || raw > max_block) return kBadSize;
  size_t ip = 0;
  uint64_t pos = 0;
  bool any = false;
  while (true) {
    if (ip == n) return any ? kNoLast : kTrunc;
    const uint8_t tok = in[ip++];
    uint64_t ll = tok >> 4;
    if (ll == 15) {
      uint8_t b;
      do {
        if (ip == n) return kTrunc;
        b = in[ip++];
        ll += b;
        if (pos + ll > raw) return kOverrun;
      } while (b == 255);
    }
    if (pos + ll > raw) return kOverrun;
    if (ip + ll > n) return kTrunc;
    out->insert(out->end(), in + ip, in + ip + ll);
    ip += ll;
    pos += ll;
    if (ip == n) return pos == raw ? kOk : kShort;
    if (ip + 2 > n) return kTrunc;
    const uint32_t off = in[ip] | (in[ip + 1] << 8);
    ip += 2;
    uint64_t ml = (tok & 15u) + 4;
    if ((tok & 15u) == 15) {
      uint8_t b;
      do {
        if (ip == n) return kTrunc;
        b = in[ip++];
        ml += b;
        if (pos + ml > raw) return kOverrun;
      } while (b == 255);
    }
    if (pos + ml > raw) return kOverrun;
    if (off == 0) return kOffZero;
    if (off > pos) return kOffRange;
    if (pos + 12 > raw || pos + ml + 5 > raw) return kEndRule;
    for (uint64_t i = 0; i < ml; ++i) out->push_back((*out)[pos - off + i]);
    pos += ml;
    any = true;
  }
}

std::vector<Lz4SeqPos> lz4_sequence_positions(const std::vector<uint8_t>& c) {
  std::vector<Lz4SeqPos> s;
  size_t ip = 0;
  uint32_t pos = 0;
  while (ip < c.size()) {
    Lz4SeqPos q;
    q.token = ip;
    const uint8_t tok = c[ip++];
    uint32_t ll = tok >> 4;
    if (ll == 15) {
      uint8_t b;
      do {
        b = c[ip++];
        ll += b;
      } while (b == 255 && ip < c.size());
    }
    q.lit = ll;
    ip += ll;
    pos += ll;
    if (ip >= c.size()) {
      s.push_back(q);
      break;
    }
    q.off_at = ip;
    ip += 2;
    uint32_t ml = (tok & 15u) + 4;
    if ((tok & 15u) == 15) {
      uint8_t b;
      do {
        b = c[ip++];
        ml += b;
      } while (b == 255 && ip < c.size());
    }
    q.match = ml;
    q.out_match = pos;
    pos += ml;
    s.push_back(q);
  }
  return s;
}

const char* lz4_err_name(uint8_t code) {
  static const char* k[] = {"ok",      "truncated", "offset-zero",     "offset-range", "overrun",
                            "end-rule", "no-last-literals", "short", "bad-size"};
  return code < 9 ? k[code] : "?";
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

std::string RateSummary::text() const {
  char b[256];
  std::snprintf(b, sizeof b, "%zu blocks, aggregate %.2f B/cycle, per block p5 %.2f p50 %.2f p95 %.2f min %.2f",
                per_block.size(), aggregate(), percentile(per_block, 5), percentile(per_block, 50),
                percentile(per_block, 95), per_block.empty() ? 0.0 : *std::min_element(per_block.begin(), per_block.end()));
  return b;
}

}  // namespace ndp::tb
