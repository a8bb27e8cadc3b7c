// analyze_kv: a KV trace through the device codecs, token-major vs channel-major windows.
#include "ndp/kv_analysis.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "ndp/block.h"
#include "ndp/image.h"

namespace ndp {

void KvSizes::add(const KvSizes& o) {
  raw += o.raw;
  lz4_token_major += o.lz4_token_major;
  zstd_token_major += o.zstd_token_major;
  lz4_planes += o.lz4_planes;
  zstd_planes += o.zstd_planes;
  lz4_window += o.lz4_window;
  zstd_window += o.zstd_window;
  device += o.device;
}

double kv_ratio(uint64_t raw, uint64_t stored) {
  return stored == 0 ? 0.0 : static_cast<double>(raw) / static_cast<double>(stored);
}

namespace {

const char* kKindName[2] = {"k", "v"};

// Heads g*H .. g*H+H-1 of layer l, kind, as one token-major [t][h][c] stream.
std::vector<uint16_t> head_group(const KvTrace& t, uint32_t l, uint32_t kind, uint32_t g, uint32_t H) {
  const uint32_t C = t.head_dim, T = t.n_tokens;
  std::vector<uint16_t> out(static_cast<size_t>(T) * H * C);
  for (uint32_t h = 0; h < H; ++h) {
    const uint16_t* s = t.stream(l, kind, g * H + h);
    for (uint32_t tok = 0; tok < T; ++tok)
      std::memcpy(&out[(static_cast<size_t>(tok) * H + h) * C], s + static_cast<size_t>(tok) * C, 2 * C);
  }
  return out;
}

// Stored bytes of `bytes` cut into blocks of `block` bytes, each through the device block encoder.
Result<uint64_t> token_major_bytes(BlockEncoder& enc, const uint8_t* p, size_t n, uint32_t block, CodecPolicy pol) {
  std::vector<uint8_t> out;
  uint64_t total = 0, id = 0;
  for (size_t off = 0; off < n; off += block, ++id) {
    out.clear();
    const size_t len = std::min<size_t>(block, n - off);
    auto r = enc.encode(p + off, len, 0, id, pol, false, out);
    if (!r.ok()) return r.status();
    total += out.size();
  }
  return total;
}

std::string stream_name(uint32_t l, uint32_t kind, uint32_t g) {
  return "L" + std::to_string(l) + "." + kKindName[kind] + ".g" + std::to_string(g);
}

Status check_options(const KvTrace& t, const KvAnalysisOptions& o) {
  NDP_RETURN_IF_ERROR(check_kv_trace(t));
  if (o.window == 0 || o.window > 65536) return Status::Error("analyze-kv: --window must be in 1..65536");
  if (o.heads == 0 || t.n_kv_heads % o.heads != 0)
    return Status::Error("analyze-kv: --heads " + std::to_string(o.heads) + " must divide the trace's " +
                         std::to_string(t.n_kv_heads) + " KV heads");
  if (o.block_bytes < 64 || o.block_bytes > 65536) return Status::Error("analyze-kv: --block must be in 64..65536");
  const uint64_t chunk = uint64_t{o.window} * o.heads * t.head_dim;
  if (o.layout == Layout::kExpByte && chunk > 65536)
    return Status::Error("analyze-kv: a window of W x H x C = " + std::to_string(chunk) +
                         " elements exceeds the 65536-byte EXPBYTE plane limit");
  return Status::Ok();
}

}  // namespace

Result<KvAnalysis> analyze_kv(const KvTrace& t, const KvAnalysisOptions& o) {
  NDP_RETURN_IF_ERROR(check_options(t, o));
  KvAnalysis a;
  a.options = o;
  a.model_name = t.model_name;
  a.n_layers = t.n_layers, a.n_kv_heads = t.n_kv_heads, a.head_dim = t.head_dim, a.n_tokens = t.n_tokens;
  const uint32_t H = o.heads, groups = t.n_kv_heads / H;
  const KvGeometry geo{o.window, t.head_dim, H};
  // Plane rows use the window's chunk size, rounded up to the spec's multiple of 64.
  const uint64_t wchunk = uint64_t{o.window} * H * t.head_dim;
  a.planes_chunk_elems = static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>((wchunk + 63) / 64 * 64, 64),
                                                                  o.layout == Layout::kExpByte ? 65536 : 524288));

  ImageWriter lz4w(false), zstdw(false), lz4p(false), zstdp(false), dev(true);
  BlockEncoder enc;
  a.layers.resize(t.n_layers);
  std::vector<KvSizes*> per_tensor;  // sizes each image tensor (in add order) belongs to
  for (uint32_t l = 0; l < t.n_layers; ++l) {
    a.layers[l].layer = l;
    for (uint32_t kind = 0; kind < 2; ++kind) {
      KvSizes& s = kind == 0 ? a.layers[l].k : a.layers[l].v;
      // Serving-system layout of the layer: [t][kv head][c].
      std::vector<uint16_t> tm = head_group(t, l, kind, 0, t.n_kv_heads);
      const auto* bytes = reinterpret_cast<const uint8_t*>(tm.data());
      s.raw = 2 * tm.size();
      auto lz = token_major_bytes(enc, bytes, s.raw, o.block_bytes, CodecPolicy::kLz4);
      auto zs = token_major_bytes(enc, bytes, s.raw, o.block_bytes, CodecPolicy::kZstd);
      if (!lz.ok()) return lz.status();
      if (!zs.ok()) return zs.status();
      s.lz4_token_major = lz.value();
      s.zstd_token_major = zs.value();
      for (uint32_t g = 0; g < groups; ++g) {
        const std::vector<uint16_t> grp = head_group(t, l, kind, g, H);
        const std::string name = stream_name(l, kind, g);
        TensorOptions to;
        to.layout = o.layout;
        to.policy = CodecPolicy::kLz4;
        NDP_RETURN_IF_ERROR(lz4w.add_kv_stream(name, t.dtype, geo, grp.data(), t.n_tokens, to));
        to.policy = CodecPolicy::kZstd;
        NDP_RETURN_IF_ERROR(zstdw.add_kv_stream(name, t.dtype, geo, grp.data(), t.n_tokens, to));
        to.policy = CodecPolicy::kAuto;
        NDP_RETURN_IF_ERROR(dev.add_kv_stream(name, t.dtype, geo, grp.data(), t.n_tokens, to));
        const std::vector<uint64_t> shape = {t.n_tokens, H, t.head_dim};
        to.chunk_elems = a.planes_chunk_elems;
        to.policy = CodecPolicy::kLz4;
        NDP_RETURN_IF_ERROR(lz4p.add_tensor(name, t.dtype, shape, reinterpret_cast<const uint8_t*>(grp.data()),
                                            2 * grp.size(), to));
        to.policy = CodecPolicy::kZstd;
        NDP_RETURN_IF_ERROR(zstdp.add_tensor(name, t.dtype, shape, reinterpret_cast<const uint8_t*>(grp.data()),
                                             2 * grp.size(), to));
        per_tensor.push_back(&s);
      }
    }
  }
  for (size_t i = 0; i < per_tensor.size(); ++i) {
    KvSizes& s = *per_tensor[i];
    s.lz4_window += lz4w.stats()[i].stored_bytes;
    s.zstd_window += zstdw.stats()[i].stored_bytes;
    s.lz4_planes += lz4p.stats()[i].stored_bytes;
    s.zstd_planes += zstdp.stats()[i].stored_bytes;
    const TensorStats& d = dev.stats()[i];
    s.device += d.stored_bytes + d.index_bytes + d.table_bytes;
  }
  for (auto& L : a.layers) {
    L.both = L.k;
    L.both.add(L.v);
    a.total.add(L.both);
  }
  a.total.device = dev.image_bytes();  // adds the 64-byte file header

  if (o.verify) {
    auto img = dev.finish();
    if (!img.ok()) return img.status();
    auto rd = ImageReader::open_bytes(std::move(img.value()));
    if (!rd.ok()) return rd.status();
    std::vector<uint8_t> back;
    size_t idx = 0;
    for (uint32_t l = 0; l < t.n_layers; ++l)
      for (uint32_t kind = 0; kind < 2; ++kind)
        for (uint32_t g = 0; g < groups; ++g, ++idx) {
          const std::vector<uint16_t> grp = head_group(t, l, kind, g, H);
          NDP_RETURN_IF_ERROR(rd.value()->read_tensor(idx, back));
          if (back.size() != 2 * grp.size() || std::memcmp(back.data(), grp.data(), back.size()) != 0)
            return Status::Error("analyze-kv: device image read-back of " + stream_name(l, kind, g) +
                                 " differs from the trace");
        }
    a.verified = true;
  }
  return a;
}

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string sizes_json(const KvSizes& s) {
  auto r = [&](uint64_t st) { return fmt("%.4f", kv_ratio(s.raw, st)); };
  std::string j = "{\"raw_bytes\": " + std::to_string(s.raw) + ", \"stored_bytes\": {";
  j += "\"lz4_token_major\": " + std::to_string(s.lz4_token_major);
  j += ", \"zstd_token_major\": " + std::to_string(s.zstd_token_major);
  j += ", \"lz4_planes_token_major\": " + std::to_string(s.lz4_planes);
  j += ", \"zstd_planes_token_major\": " + std::to_string(s.zstd_planes);
  j += ", \"lz4_window\": " + std::to_string(s.lz4_window);
  j += ", \"zstd_window\": " + std::to_string(s.zstd_window);
  j += ", \"device\": " + std::to_string(s.device) + "}, \"ratio\": {";
  j += "\"lz4_token_major\": " + r(s.lz4_token_major);
  j += ", \"zstd_token_major\": " + r(s.zstd_token_major);
  j += ", \"lz4_planes_token_major\": " + r(s.lz4_planes);
  j += ", \"zstd_planes_token_major\": " + r(s.zstd_planes);
  j += ", \"lz4_window\": " + r(s.lz4_window);
  j += ", \"zstd_window\": " + r(s.zstd_window);
  j += ", \"device\": " + r(s.device) + "}}";
  return j;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += static_cast<char>(ch);
    } else if (ch < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", ch);
      o += b;
    } else {
      o += static_cast<char>(ch);
    }
  }
  return o + "\"";
}

}  // namespace

std::string kv_analysis_json(const KvAnalysis& a) {
  std::string j = "{\n  \"trace\": {\"model\": " + json_string(a.model_name) +
                  ", \"layers\": " + std::to_string(a.n_layers) + ", \"kv_heads\": " + std::to_string(a.n_kv_heads) +
                  ", \"head_dim\": " + std::to_string(a.head_dim) + ", \"tokens\": " + std::to_string(a.n_tokens) +
                  "},\n  \"options\": {\"window\": " + std::to_string(a.options.window) +
                  ", \"heads_per_window\": " + std::to_string(a.options.heads) +
                  ", \"channels\": " + std::to_string(a.head_dim) +
                  ", \"token_major_block_bytes\": " + std::to_string(a.options.block_bytes) +
                  ", \"planes_chunk_elems\": " + std::to_string(a.planes_chunk_elems) + ", \"layout\": \"" +
                  (a.options.layout == Layout::kExpByte ? "expbyte" : "bitplane") +
                  "\", \"verified\": " + (a.verified ? "true" : "false") + "},\n  \"layers\": [\n";
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const auto& L = a.layers[i];
    j += "    {\"layer\": " + std::to_string(L.layer) + ", \"k\": " + sizes_json(L.k) + ",\n     \"v\": " +
         sizes_json(L.v) + ",\n     \"total\": " + sizes_json(L.both) + "}" + (i + 1 < a.layers.size() ? ",\n" : "\n");
  }
  j += "  ],\n  \"total\": " + sizes_json(a.total) + "\n}\n";
  return j;
}

std::string kv_analysis_text(const KvAnalysis& a) {
  std::string s = a.model_name + ": " + std::to_string(a.n_layers) + " layers x K/V x " + std::to_string(a.n_kv_heads) +
                  " KV heads, " + std::to_string(a.n_tokens) + " tokens, C = " + std::to_string(a.head_dim) +
                  "; window W = " + std::to_string(a.options.window) + ", H = " + std::to_string(a.options.heads) +
                  " head(s) per window\n";
  s += "ratios (raw / stored, 12-byte block headers counted; token-major in " + std::to_string(a.options.block_bytes) +
       "-byte blocks)\n";
  s += "              token-major      planes (no window)  window+delta     device\n";
  s += "  layer       LZ4     ZSTD     LZ4     ZSTD        LZ4     ZSTD     auto\n";
  auto row = [&](const std::string& label, const KvSizes& z) {
    char b[160];
    std::snprintf(b, sizeof b, "  %-9s %6.3f   %6.3f   %6.3f   %6.3f      %6.3f   %6.3f   %6.3f\n", label.c_str(),
                  kv_ratio(z.raw, z.lz4_token_major), kv_ratio(z.raw, z.zstd_token_major), kv_ratio(z.raw, z.lz4_planes),
                  kv_ratio(z.raw, z.zstd_planes), kv_ratio(z.raw, z.lz4_window), kv_ratio(z.raw, z.zstd_window),
                  kv_ratio(z.raw, z.device));
    s += b;
  };
  for (const auto& L : a.layers) {
    row(std::to_string(L.layer) + " K", L.k);
    row(std::to_string(L.layer) + " V", L.v);
  }
  row("total", a.total);
  s += std::string("device image read back bit-exact: ") + (a.verified ? "yes" : "not checked") + "\n";
  return s;
}

}  // namespace ndp
