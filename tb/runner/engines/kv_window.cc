// Engine `kv-window`: token-major KV -> channel-major windows with base exponents and deltas
// (kv_window model). IN is an NKVT trace from `ndp kvtrace` (every layer, K and V, each group of
// H KV heads is one sequence) or raw token-major BF16 words (--input raw, one sequence of N = C x H
// channels per token). --geometry ref|s260|odd picks the verilated parameter point (default: the
// one whose C equals the trace's head size, else ref). OUT is a window stream: a 16-byte header
// ("NKVW", u32 C, H, W) then per window a u32 token count, N base bytes and N x w BF16 words
// (docs/kv.md). --base max|min configures cfg_base_max_i (default max, the expbyte layout's
// reference base; min is the bitplane layout's). Checked against the golden model
// (ndp::kv_window_forward with that base) while it streams.
#include <cstring>

#include "../../kv/kv_data.h"
#include "../../kv/kv_env.h"
#include "Vkv_window_odd.h"
#include "Vkv_window_ref.h"
#include "Vkv_window_s260.h"
#include "engine.h"
#include "ndp/kvtrace.h"
#include "tb_report.h"

namespace {

using namespace ndp;

const tb::KvGeo* geometry(const std::string& name) {
  for (const tb::KvGeo* g : {&tb::kKvRef, &tb::kKvS260, &tb::kKvOdd})
    if (name == g->name) return g;
  return nullptr;
}

template <class M>
int run(const tb::KvGeo& g, const rtl::EngineArgs& a, const std::vector<std::vector<uint16_t>>& seqs,
        KvBase base, rtl::EngineResult& r) {
  tb::KvWindowEnv<M> env(g, a.seed, a.fst, a.gaps, a.backpressure, base);
  env.keep_output(true);
  uint64_t tokens = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    env.push_sequence(seqs[i], "sequence " + std::to_string(i));
    tokens += seqs[i].size() / g.N();
  }
  const uint64_t before = tb::failure_count();
  const bool ran = env.run(8 * uint64_t{g.P} * g.NB() * tokens * 4 + 100000);
  const bool match = env.finish() && tb::failure_count() == before;
  std::vector<uint8_t> out(16, 0);
  std::memcpy(out.data(), "NKVW", 4);
  for (int i = 0; i < 3; ++i) {
    const uint32_t v = i == 0 ? g.C : i == 1 ? g.H : g.W;
    std::memcpy(out.data() + 4 + 4 * i, &v, 4);
  }
  out.insert(out.end(), env.output().begin(), env.output().end());
  if (!rtl::write_file(a.out_path, out, &r.message)) return 1;
  const tb::KvRates& s = env.rates();
  r.cycles = s.cycles();
  r.in_bytes = s.in_bytes;
  r.out_bytes = s.out_bytes;
  r.bytes_per_cycle = r.cycles ? double(s.in_bytes) / double(r.cycles) : 0.0;
  r.status = !ran ? "error" : (match ? "ok" : "mismatch");
  if (!ran) r.message = "simulation did not complete";
  r.add("sustained_in_bytes_per_cycle", s.in_rate());
  r.add("sustained_out_bytes_per_cycle", s.out_rate());
  r.add("in_stalls", s.in_stalls);
  r.add("sequences", static_cast<uint64_t>(seqs.size()));
  r.add("tokens", tokens);
  r.add("geometry", std::string(g.name));
  r.add("base", std::string(kv_base_name(base)));
  return 0;
}

int run_kv_window(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  std::vector<uint8_t> in;
  if (!rtl::read_file(a.in_path, &in, &r.message)) return 2;
  const bool raw = a.get("--input", "trace") == "raw";
  std::vector<std::vector<uint16_t>> seqs;
  const tb::KvGeo* g = geometry(a.get("--geometry", ""));
  const std::string base_name = a.get("--base", "max");
  if (base_name != "max" && base_name != "min") {
    r.message = "--base must be max or min";
    return 2;
  }
  const KvBase base = base_name == "max" ? KvBase::kMax : KvBase::kMin;
  if (a.has("--geometry") && !g) {
    r.message = "--geometry must be ref, s260 or odd";
    return 2;
  }
  if (raw) {
    if (!g) g = &tb::kKvRef;
    if (in.empty() || in.size() % (2 * g->N()) != 0) {
      r.message = a.in_path + ": size is not a whole number of tokens of " + std::to_string(g->N()) + " BF16 words";
      return 2;
    }
    seqs.emplace_back(in.size() / 2);
    std::memcpy(seqs.back().data(), in.data(), in.size());
  } else {
    auto t = parse_kv_trace(in.data(), in.size(), a.in_path);
    if (!t.ok()) {
      r.message = t.status().message();
      return 2;
    }
    const KvTrace& tr = t.value();
    if (!g) g = tr.head_dim == tb::kKvS260.C ? &tb::kKvS260 : &tb::kKvRef;
    if (tr.dtype != DType::kBF16 || tr.head_dim != g->C || tr.n_kv_heads % g->H != 0) {
      r.message = a.in_path + ": trace head size " + std::to_string(tr.head_dim) + " x " +
                  std::to_string(tr.n_kv_heads) + " KV heads does not fit geometry " + g->name + " (C=" +
                  std::to_string(g->C) + ", H=" + std::to_string(g->H) + ")";
      return 2;
    }
    for (uint32_t l = 0; l < tr.n_layers; ++l)
      for (uint32_t kind = 0; kind < 2; ++kind)
        for (uint32_t h = 0; h < tr.n_kv_heads; h += g->H) seqs.push_back(tb::kv_trace_group(tr, l, kind, h, g->H));
  }
  if (g == &tb::kKvS260) return run<Vkv_window_s260>(*g, a, seqs, base, r);
  if (g == &tb::kKvOdd) return run<Vkv_window_odd>(*g, a, seqs, base, r);
  return run<Vkv_window_ref>(*g, a, seqs, base, r);
}

}  // namespace

NDP_RTL_ENGINE("kv-window", "IN OUT [--input trace|raw] [--geometry ref|s260|odd] [--base max|min]", run_kv_window);
