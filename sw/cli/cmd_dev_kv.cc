// ndp dev kv TRACE [--backend B] [--window W] [--heads H] [--dram BYTES]: a recorded KV cache
// (`ndp kvtrace`) written through the host driver's KV streams as a serving loop writes it (every
// (layer, K/V, head group) stream one token at a time, all streams interleaved), then read back and
// compared word for word. On emu and rtl devices with KV pages the windows are transformed, encoded
// and stored by the device (docs/spec.md 7.7); elsewhere on the golden model. The last stdout line is
// JSON: the geometry, which path stored the windows (kv_path: device or node), the device memory the KV cache holds after the last token and its ratio
// against the raw words, the golden KV streams' ratio (ImageWriter, blocks only) for comparison.
#include <chrono>
#include <cstdio>
#include <cstring>

#include "cli_util.h"
#include "dev_common.h"
#include "ndp/image.h"
#include "ndp/kvtrace.h"

namespace ndp::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct KvRun {
  KvGeometry g;
  uint32_t streams = 0, tokens = 0;
  uint64_t raw = 0, used = 0, golden = 0;
  std::string path = "-";  // "device": the device's KV pages, "node": the node's golden encoder
  drv::CallStats wr, rd;
  double seconds = 0;
};

// Token-major [t][h][c] words of head group `grp` (H heads) of (layer, kind).
std::vector<uint16_t> group_words(const KvTrace& t, uint32_t layer, uint32_t kind, uint32_t grp, uint32_t H) {
  const uint64_t C = t.head_dim, N = uint64_t{H} * C;
  std::vector<uint16_t> v(uint64_t{t.n_tokens} * N);
  for (uint32_t h = 0; h < H; ++h) {
    const uint16_t* s = t.stream(layer, kind, grp * H + h);
    for (uint64_t k = 0; k < t.n_tokens; ++k) std::memcpy(&v[k * N + h * C], s + k * C, 2 * C);
  }
  return v;
}

Status run_kv(drv::Device& d, const KvTrace& t, KvRun& r) {
  const uint32_t groups = t.n_kv_heads / r.g.heads;
  std::vector<std::vector<uint16_t>> words;
  for (uint32_t l = 0; l < t.n_layers; ++l)
    for (uint32_t kind = 0; kind < 2; ++kind)
      for (uint32_t grp = 0; grp < groups; ++grp) words.push_back(group_words(t, l, kind, grp, r.g.heads));
  r.streams = static_cast<uint32_t>(words.size());
  r.tokens = t.n_tokens;
  const uint64_t N = uint64_t{r.g.heads} * r.g.channels;
  for (const auto& w : words) {  // the golden KV streams of the same windows
    ImageWriter gw;
    NDP_RETURN_IF_ERROR(gw.add_kv_stream("kv", t.dtype, r.g, w.data(), t.n_tokens));
    r.golden += gw.stats()[0].stored_bytes;
    r.raw += 2 * w.size();
  }
  const uint64_t used0 = d.stats().device_memory - d.stats().device_free;
  std::vector<uint32_t> ids;
  for (size_t s = 0; s < words.size(); ++s) {
    auto id = d.kv_create(t.dtype, r.g);
    if (!id.ok()) return id.status();
    ids.push_back(id.value());
    auto on = d.kv_on_device(id.value());
    if (!on.ok()) return on.status();
    const std::string p = on.value() ? "device" : "node";
    r.path = r.path == "-" || r.path == p ? p : "mixed";
  }
  const auto t0 = Clock::now();
  drv::CallStats st;
  for (uint64_t k = 0; k < t.n_tokens; ++k)
    for (size_t s = 0; s < words.size(); ++s) {
      NDP_RETURN_IF_ERROR(d.kv_append(ids[s], words[s].data() + k * N, 1, &st));
      r.wr.add(st);
    }
  r.used = d.stats().device_memory - d.stats().device_free - used0;
  std::vector<uint16_t> back;
  for (size_t s = 0; s < words.size(); ++s) {
    back.assign(words[s].size(), 0);
    NDP_RETURN_IF_ERROR(d.kv_read(ids[s], 0, t.n_tokens, back.data(), &st));
    r.rd.add(st);
    if (back != words[s]) return Status::Error("KV stream " + std::to_string(s) + " read back differs");
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (uint32_t id : ids) NDP_RETURN_IF_ERROR(d.kv_free(id));
  return Status::Ok();
}

int cmd_dev_kv(const Args& a) {
  if (a.pos.empty()) return fail(a, "missing TRACE");
  auto tr = read_kv_trace(a.pos[0]);
  if (!tr.ok()) return fail(a, tr.status().message());
  const KvTrace& t = tr.value();
  KvRun r;
  r.g = kv_default_geometry(t.head_dim, t.n_kv_heads);
  auto W = a.get_int("--window", r.g.window, 1, 65536);
  auto H = a.get_int("--heads", r.g.heads, 1, t.n_kv_heads);
  if (!W || !H) return 1;
  if (t.n_kv_heads % *H) return fail(a, "--heads must divide the trace's " + std::to_string(t.n_kv_heads) + " KV heads");
  r.g.window = static_cast<uint32_t>(*W);
  r.g.heads = static_cast<uint32_t>(*H);
  r.g.channels = t.head_dim;
  auto dev = open_backend(a);
  if (!dev.ok()) return fail(a, dev.status().message());
  Status s = run_kv(*dev.value(), t, r);
  const double ratio = r.used ? double(r.raw) / double(r.used) : 0, gold = r.golden ? double(r.raw) / double(r.golden) : 0;
  if (s.ok())
    std::printf("%u streams x %u tokens (W %u, %u heads x %u channels, windows stored by the %s): raw %llu B, "
                "device memory %llu B (ratio %.4f; golden KV blocks %.4f), read back exactly\n",
                r.streams, r.tokens, r.g.window, r.g.heads, r.g.channels, r.path.c_str(),
                static_cast<unsigned long long>(r.raw),
                static_cast<unsigned long long>(r.used), ratio, gold);
  std::printf("%s\n", json_obj({{"backend", json_str(dev.value()->backend_name())},
                                {"trace", json_str(a.pos[0])},
                                {"streams", json_num(uint64_t{r.streams})},
                                {"tokens", json_num(uint64_t{r.tokens})},
                                {"window", json_num(uint64_t{r.g.window})},
                                {"heads", json_num(uint64_t{r.g.heads})},
                                {"channels", json_num(uint64_t{r.g.channels})},
                                {"kv_path", json_str(r.path)},
                                {"raw_bytes", json_num(r.raw)},
                                {"device_memory_bytes", json_num(r.used)},
                                {"ratio", json_num(ratio)},
                                {"golden_ratio", json_num(gold)},
                                {"link_bytes", json_num(r.wr.link_bytes + r.rd.link_bytes)},
                                {"device_bytes_read", json_num(r.rd.device_bytes)},
                                {"blocks_read", json_num(r.rd.blocks)},
                                {"seconds", json_num(r.seconds)},
                                {"status", json_str(s.ok() ? "ok" : "error")}})
                          .c_str());
  if (!s.ok()) return fail(a, s.message());
  return 0;
}

}  // namespace

NDP_COMMAND("dev kv", "dev kv TRACE [--backend B] [--window W] [--heads H] [--dram BYTES]   (a KV trace through the "
            "driver's KV streams: device KV pages on emu/rtl)", cmd_dev_kv);

}  // namespace ndp::cli
