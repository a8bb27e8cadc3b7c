// `ndp analyze-kv TRACE`: compression of a recorded KV cache through the device codecs, token-major
// versus the channel-major window with exponent deltas (docs/kv.md).
#if defined(HAVE_NDP_MODEL) && defined(NDP_MODEL_HAVE_IMAGE)
#include <cstdio>
#include <string>

#include "command.h"
#include "ndp/kv_analysis.h"

namespace {

using ndp::cli::Args;

// --window W|auto and --heads H|auto: 0 = the default geometry (kv_default_geometry).
bool parse_geometry(const Args& a, const char* key, uint32_t& out) {
  if (!a.has(key) || a.get(key) == "auto") return true;
  auto v = a.get_int(key, 0, 1, 65536);
  if (!v) return false;
  out = static_cast<uint32_t>(*v);
  return true;
}

int cmd_analyze_kv(const Args& a) {
  if (a.pos.size() != 1)
    return ndp::cli::fail(a, "usage: ndp analyze-kv TRACE [--window W|auto] [--heads H|auto] [--base B] [--block BYTES] "
                             "[--json] [--plot FILE.svg]");
  ndp::KvAnalysisOptions o;
  if (!parse_geometry(a, "--window", o.window) || !parse_geometry(a, "--heads", o.heads)) return 1;
  auto block = a.get_int("--block", 4096, 64, 65536);
  if (!block) return 1;
  o.block_bytes = static_cast<uint32_t>(*block);
  if (a.has("--layout")) {
    const std::string l = a.get("--layout");
    if (l == "bitplane") o.layout = ndp::Layout::kBitplane;
    else if (l != "expbyte") return ndp::cli::fail(a, "--layout must be expbyte or bitplane");
  }
  if (a.has("--base") && !ndp::kv_base_from_name(a.get("--base"), &o.base))
    return ndp::cli::fail(a, "--base must be auto, max, min, median or zero");
  auto trace = ndp::read_kv_trace(a.pos[0]);
  if (!trace.ok()) return ndp::cli::fail(a, trace.status().message());
  auto r = ndp::analyze_kv(trace.value(), o);
  if (!r.ok()) return ndp::cli::fail(a, a.pos[0] + ": " + r.status().message());
  if (a.has("--plot")) {
    ndp::Status st = ndp::write_kv_plot_svg(r.value(), a.get("--plot"));
    if (!st.ok()) return ndp::cli::fail(a, st.message());
  }
  const std::string out = a.has("--json") ? ndp::kv_analysis_json(r.value()) : ndp::kv_analysis_text(r.value());
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

NDP_COMMAND("analyze-kv",
            "analyze-kv TRACE [--window W|auto] [--heads H|auto] [--base auto|max|min|median|zero] [--block BYTES] "
            "[--layout expbyte|bitplane] [--json] [--plot FILE.svg]"
            "   KV compression: token-major vs channel-major window, LZ4/ZSTD/device",
            cmd_analyze_kv, {"--json"});
#endif
