// analyze_kv: a KV trace through the device codecs, token-major vs channel-major windows.
#include "ndp/kv_analysis.h"

#include <algorithm>
#include <cmath>
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
  for (const auto& [id, p] : o.planes) {
    planes[id].raw += p.raw;
    planes[id].stored += p.stored;
  }
  for (int b = 0; b < kKvBaseCount; ++b) {
    device_by_base[b] += o.device_by_base[b];
    exp_bits[b] += o.exp_bits[b];
  }
  elems += o.elems;
  sign_mantissa_bits += o.sign_mantissa_bits;
}

double KvSizes::exp_entropy(KvBase b) const {
  return elems ? exp_bits[static_cast<int>(b)] / static_cast<double>(elems) : 0.0;
}

double KvSizes::entropy_reference(KvBase b) const {
  const double bits = static_cast<double>(sign_mantissa_bits) + exp_bits[static_cast<int>(b)];
  return bits > 0 ? 8.0 * static_cast<double>(raw) / bits : 0.0;
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

// Fills in the default geometry and checks the options against the trace.
Result<KvAnalysisOptions> resolve_options(const KvTrace& t, const KvAnalysisOptions& in) {
  NDP_RETURN_IF_ERROR(check_kv_trace(t));
  KvAnalysisOptions o = in;
  if (o.heads == 0) o.heads = kv_default_geometry(t.head_dim, t.n_kv_heads).heads;
  if (t.n_kv_heads % o.heads != 0)
    return Status::Error("analyze-kv: --heads " + std::to_string(o.heads) + " must divide the trace's " +
                         std::to_string(t.n_kv_heads) + " KV heads");
  if (o.window == 0) o.window = kv_default_window(o.heads * t.head_dim);
  if (o.window > 65536) return Status::Error("analyze-kv: --window must be in 1..65536");
  if (o.block_bytes < 64 || o.block_bytes > 65536) return Status::Error("analyze-kv: --block must be in 64..65536");
  const uint64_t chunk = uint64_t{o.window} * o.heads * t.head_dim;
  if (o.layout == Layout::kExpByte && chunk > 65536)
    return Status::Error("analyze-kv: a window of W x H x C = " + std::to_string(chunk) +
                         " elements exceeds the 65536-byte EXPBYTE plane limit");
  if (static_cast<int>(o.base) > kKvBaseCount) return Status::Error("analyze-kv: unknown base choice");
  o.base = kv_resolve_base(o.base, o.layout);
  return o;
}

// Sum over the windows of one head group of n x (order-0 entropy of the exponent field after the
// window transform), for every base choice.
void exponent_entropy(DType dt, const KvGeometry& g, const uint16_t* grp, uint32_t T, KvSizes& s) {
  const auto& info = dtype_info(dt);
  const size_t per_token = size_t{g.channels} * g.heads;
  std::vector<uint16_t> cm(per_token * g.window);
  std::vector<uint8_t> base(per_token);
  for (int b = 0; b < kKvBaseCount; ++b)
    for (uint32_t t0 = 0; t0 < T; t0 += g.window) {
      const uint32_t w = std::min(g.window, T - t0);
      const size_t n = per_token * w;
      kv_window_forward(dt, g, w, grp + t0 * per_token, cm.data(), base.data(), static_cast<KvBase>(b));
      std::array<uint64_t, 256> hist{};
      for (size_t i = 0; i < n; ++i) ++hist[(cm[i] >> info.man_bits) & ((1u << info.exp_bits) - 1)];
      double bits = 0;
      for (uint64_t c : hist)
        if (c) bits -= static_cast<double>(c) * std::log2(static_cast<double>(c) / static_cast<double>(n));
      s.exp_bits[b] += bits;
    }
}

// The image writers of one analysis: the four baseline/window columns and one device image per base.
struct Writers {
  ImageWriter lz4w{false}, zstdw{false}, lz4p{false}, zstdp{false};
  std::array<std::unique_ptr<ImageWriter>, kKvBaseCount> dev;
  explicit Writers(const KvAnalysisOptions& o) {
    for (int b = 0; b < kKvBaseCount; ++b)
      dev[b] = std::make_unique<ImageWriter>(o.verify && b == static_cast<int>(o.base));
  }
  ImageWriter& device(KvBase b) { return *dev[static_cast<int>(b)]; }
};

Status add_group(Writers& wr, const KvTrace& t, const KvAnalysisOptions& o, const KvGeometry& geo,
                 uint32_t chunk_elems, const std::string& name, const std::vector<uint16_t>& grp) {
  TensorOptions to;
  to.layout = o.layout;
  to.kv_base = o.base;
  to.policy = CodecPolicy::kLz4;
  NDP_RETURN_IF_ERROR(wr.lz4w.add_kv_stream(name, t.dtype, geo, grp.data(), t.n_tokens, to));
  to.policy = CodecPolicy::kZstd;
  NDP_RETURN_IF_ERROR(wr.zstdw.add_kv_stream(name, t.dtype, geo, grp.data(), t.n_tokens, to));
  to.policy = CodecPolicy::kAuto;
  for (int b = 0; b < kKvBaseCount; ++b) {
    to.kv_base = static_cast<KvBase>(b);
    NDP_RETURN_IF_ERROR(wr.dev[b]->add_kv_stream(name, t.dtype, geo, grp.data(), t.n_tokens, to));
  }
  const std::vector<uint64_t> shape = {t.n_tokens, geo.heads, t.head_dim};
  const auto* bytes = reinterpret_cast<const uint8_t*>(grp.data());
  to.chunk_elems = chunk_elems;
  to.policy = CodecPolicy::kLz4;
  NDP_RETURN_IF_ERROR(wr.lz4p.add_tensor(name, t.dtype, shape, bytes, 2 * grp.size(), to));
  to.policy = CodecPolicy::kZstd;
  return wr.zstdp.add_tensor(name, t.dtype, shape, bytes, 2 * grp.size(), to);
}

// Token-major baselines of one layer and kind: the serving-system layout [t][kv head][c].
Status token_major_sizes(BlockEncoder& enc, const KvTrace& t, uint32_t l, uint32_t kind, uint32_t block,
                         KvSizes& s) {
  const std::vector<uint16_t> tm = head_group(t, l, kind, 0, t.n_kv_heads);
  const auto* bytes = reinterpret_cast<const uint8_t*>(tm.data());
  s.raw = 2 * tm.size();
  s.elems = tm.size();
  s.sign_mantissa_bits = tm.size() * (1 + dtype_info(t.dtype).man_bits);
  auto lz = token_major_bytes(enc, bytes, s.raw, block, CodecPolicy::kLz4);
  if (!lz.ok()) return lz.status();
  auto zs = token_major_bytes(enc, bytes, s.raw, block, CodecPolicy::kZstd);
  if (!zs.ok()) return zs.status();
  s.lz4_token_major = lz.value();
  s.zstd_token_major = zs.value();
  return Status::Ok();
}

// Adds tensor i's stored sizes from every writer to s.
void collect(Writers& wr, size_t i, KvBase chosen, KvSizes& s) {
  s.lz4_window += wr.lz4w.stats()[i].stored_bytes;
  s.zstd_window += wr.zstdw.stats()[i].stored_bytes;
  s.lz4_planes += wr.lz4p.stats()[i].stored_bytes;
  s.zstd_planes += wr.zstdp.stats()[i].stored_bytes;
  for (int b = 0; b < kKvBaseCount; ++b) {
    const TensorStats& d = wr.dev[b]->stats()[i];
    s.device_by_base[b] += d.stored_bytes + d.index_bytes + d.table_bytes;
  }
  const TensorStats& d = wr.device(chosen).stats()[i];
  s.device += d.stored_bytes + d.index_bytes + d.table_bytes;
  for (const PlaneStats& p : d.planes) {
    s.planes[p.plane_id].raw += p.raw_bytes;
    s.planes[p.plane_id].stored += p.stored_bytes;
  }
}

Status verify_image(ImageWriter& dev, const KvTrace& t, uint32_t H) {
  auto img = dev.finish();
  if (!img.ok()) return img.status();
  auto rd = ImageReader::open_bytes(std::move(img.value()));
  if (!rd.ok()) return rd.status();
  std::vector<uint8_t> back;
  size_t idx = 0;
  for (uint32_t l = 0; l < t.n_layers; ++l)
    for (uint32_t kind = 0; kind < 2; ++kind)
      for (uint32_t g = 0; g < t.n_kv_heads / H; ++g, ++idx) {
        const std::vector<uint16_t> grp = head_group(t, l, kind, g, H);
        NDP_RETURN_IF_ERROR(rd.value()->read_tensor(idx, back));
        if (back.size() != 2 * grp.size() || std::memcmp(back.data(), grp.data(), back.size()) != 0)
          return Status::Error("analyze-kv: device image read-back of " + stream_name(l, kind, g) +
                               " differs from the trace");
      }
  return Status::Ok();
}

}  // namespace

Result<KvAnalysis> analyze_kv(const KvTrace& t, const KvAnalysisOptions& in) {
  auto ro = resolve_options(t, in);
  if (!ro.ok()) return ro.status();
  const KvAnalysisOptions& o = ro.value();
  KvAnalysis a;
  a.options = o;
  a.default_geometry = in.window == 0 && in.heads == 0;
  a.model_name = t.model_name;
  a.n_layers = t.n_layers, a.n_kv_heads = t.n_kv_heads, a.head_dim = t.head_dim, a.n_tokens = t.n_tokens;
  const uint32_t H = o.heads, groups = t.n_kv_heads / H;
  const KvGeometry geo{o.window, t.head_dim, H};
  // Plane rows use the window's chunk size, rounded up to the spec's multiple of 64.
  const uint64_t wchunk = uint64_t{o.window} * H * t.head_dim;
  a.planes_chunk_elems = static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>((wchunk + 63) / 64 * 64, 64),
                                                                  o.layout == Layout::kExpByte ? 65536 : 524288));
  Writers wr(o);
  BlockEncoder enc;
  a.layers.resize(t.n_layers);
  std::vector<KvSizes*> per_tensor;  // sizes each image tensor (in add order) belongs to
  for (uint32_t l = 0; l < t.n_layers; ++l) {
    a.layers[l].layer = l;
    for (uint32_t kind = 0; kind < 2; ++kind) {
      KvSizes& s = kind == 0 ? a.layers[l].k : a.layers[l].v;
      NDP_RETURN_IF_ERROR(token_major_sizes(enc, t, l, kind, o.block_bytes, s));
      for (uint32_t g = 0; g < groups; ++g) {
        const std::vector<uint16_t> grp = head_group(t, l, kind, g, H);
        NDP_RETURN_IF_ERROR(add_group(wr, t, o, geo, a.planes_chunk_elems, stream_name(l, kind, g), grp));
        exponent_entropy(t.dtype, geo, grp.data(), t.n_tokens, s);
        per_tensor.push_back(&s);
      }
    }
  }
  for (size_t i = 0; i < per_tensor.size(); ++i) collect(wr, i, o.base, *per_tensor[i]);
  for (auto& L : a.layers) {
    L.both = L.k;
    L.both.add(L.v);
    a.total.add(L.both);
  }
  a.total.device = wr.device(o.base).image_bytes();  // adds the 64-byte file header
  for (int b = 0; b < kKvBaseCount; ++b) a.total.device_by_base[b] = wr.dev[b]->image_bytes();
  if (o.verify) {
    NDP_RETURN_IF_ERROR(verify_image(wr.device(o.base), t, H));
    a.verified = true;
  }
  return a;
}

}  // namespace ndp
