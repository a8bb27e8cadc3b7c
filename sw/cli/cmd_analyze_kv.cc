// `ndp analyze-kv TRACE`: compression of a recorded KV cache through the device codecs, token-major
// versus the channel-major window with exponent deltas (docs/kv.md).
#if defined(HAVE_NDP_MODEL) && defined(NDP_MODEL_HAVE_IMAGE)
#include <cstdio>
#include <string>

#include "command.h"
#include "ndp/kv_analysis.h"

namespace {

using ndp::cli::Args;

int cmd_analyze_kv(const Args& a) {
  if (a.pos.size() != 1)
    return ndp::cli::fail(a, "usage: ndp analyze-kv TRACE [--window W] [--heads H] [--block BYTES] [--json]");
  auto window = a.get_int("--window", 32, 1, 65536);
  auto heads = a.get_int("--heads", 1, 1, 65536);
  auto block = a.get_int("--block", 4096, 64, 65536);
  if (!window || !heads || !block) return 1;
  ndp::KvAnalysisOptions o;
  o.window = static_cast<uint32_t>(*window);
  o.heads = static_cast<uint32_t>(*heads);
  o.block_bytes = static_cast<uint32_t>(*block);
  if (a.has("--layout")) {
    const std::string l = a.get("--layout");
    if (l == "bitplane") o.layout = ndp::Layout::kBitplane;
    else if (l != "expbyte") return ndp::cli::fail(a, "--layout must be expbyte or bitplane");
  }
  auto trace = ndp::read_kv_trace(a.pos[0]);
  if (!trace.ok()) return ndp::cli::fail(a, trace.status().message());
  auto r = ndp::analyze_kv(trace.value(), o);
  if (!r.ok()) return ndp::cli::fail(a, a.pos[0] + ": " + r.status().message());
  const std::string out = a.has("--json") ? ndp::kv_analysis_json(r.value()) : ndp::kv_analysis_text(r.value());
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

NDP_COMMAND("analyze-kv",
            "analyze-kv TRACE [--window W] [--heads H] [--block BYTES] [--layout expbyte|bitplane] [--json]"
            "   KV compression: token-major vs channel-major window, LZ4/ZSTD/device",
            cmd_analyze_kv, {"--json"});
#endif
