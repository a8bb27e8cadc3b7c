// Engine `kv-unwindow`: a window stream as written by `kv-window` (header "NKVW", C, H, W; per
// window a token count, N base bytes, N x w channel-major BF16 words) -> token-major BF16 words
// (kv_unwindow model), windows in order. The geometry comes from the header. Checked against the
// golden model (ndp::kv_window_inverse) while it streams.
#include <cstring>

#include "../../kv/kv_env.h"
#include "Vkv_unwindow_odd.h"
#include "Vkv_unwindow_ref.h"
#include "Vkv_unwindow_s260.h"
#include "engine.h"
#include "tb_report.h"

namespace {

using namespace ndp;

template <class M>
int run(const tb::KvGeo& g, const rtl::EngineArgs& a, const std::vector<tb::KvGoldenWindow>& win,
        rtl::EngineResult& r) {
  tb::KvUnwindowEnv<M> env(g, a.seed, a.fst, a.gaps, a.backpressure);
  env.keep_output(true);
  env.push_windows(win, "window stream");
  uint64_t tokens = 0;
  for (const auto& w : win) tokens += w.w;
  const uint64_t before = tb::failure_count();
  const bool ran = env.run(8 * uint64_t{g.P} * g.NB() * tokens * 4 + 100000);
  const bool match = env.finish() && tb::failure_count() == before;
  if (!rtl::write_file(a.out_path, env.output(), &r.message)) return 1;
  const tb::KvRates& s = env.rates();
  r.cycles = s.cycles();
  r.in_bytes = s.in_bytes;
  r.out_bytes = s.out_bytes;
  r.bytes_per_cycle = r.cycles ? double(s.out_bytes) / double(r.cycles) : 0.0;
  r.status = !ran ? "error" : (match ? "ok" : "mismatch");
  if (!ran) r.message = "simulation did not complete";
  r.add("sustained_in_bytes_per_cycle", s.in_rate());
  r.add("sustained_out_bytes_per_cycle", s.out_rate());
  r.add("in_stalls", s.in_stalls);
  r.add("windows", static_cast<uint64_t>(win.size()));
  r.add("tokens", tokens);
  r.add("geometry", std::string(g.name));
  return 0;
}

int run_kv_unwindow(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  std::vector<uint8_t> in;
  if (!rtl::read_file(a.in_path, &in, &r.message)) return 2;
  if (in.size() < 16 || std::memcmp(in.data(), "NKVW", 4) != 0) {
    r.message = a.in_path + ": not a window stream (no NKVW header)";
    return 2;
  }
  uint32_t c, h, w;
  std::memcpy(&c, in.data() + 4, 4);
  std::memcpy(&h, in.data() + 8, 4);
  std::memcpy(&w, in.data() + 12, 4);
  const tb::KvGeo* g = nullptr;
  for (const tb::KvGeo* x : {&tb::kKvRef, &tb::kKvS260, &tb::kKvOdd})
    if (x->C == c && x->H == h && x->W == w) g = x;
  if (!g) {
    r.message = a.in_path + ": no verilated geometry with C=" + std::to_string(c) + " H=" + std::to_string(h) +
                " W=" + std::to_string(w);
    return 2;
  }
  std::vector<tb::KvGoldenWindow> win;
  if (!tb::kv_parse_windows(*g, std::vector<uint8_t>(in.begin() + 16, in.end()), &win, &r.message)) return 2;
  if (win.empty()) {
    r.message = a.in_path + ": no windows";
    return 2;
  }
  if (g == &tb::kKvS260) return run<Vkv_unwindow_s260>(*g, a, win, r);
  if (g == &tb::kKvOdd) return run<Vkv_unwindow_odd>(*g, a, win, r);
  return run<Vkv_unwindow_ref>(*g, a, win, r);
}

}  // namespace

NDP_RTL_ENGINE("kv-unwindow", "IN OUT  (IN: window stream written by kv-window)", run_kv_unwindow);
