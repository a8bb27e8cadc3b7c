// ndp analyze PATH [--format F] [--as bf16|fp8-e4m3|int8|int4] [--group G] [--block BYTES] [--layout L] [--codec C] [--json] [--plot FILE.svg]
#include <cstdio>

#include "cli_util.h"
#include "ndp/analysis.h"

namespace ndp::cli {
namespace {

int cmd_analyze(const Args& a) {
  AnalyzeOptions opt;
  auto block = a.get_int("--block", 4096, 8, 65536);  // analyze_model also requires a multiple of 8
  auto level = a.get_int("--zstd-level", 3, -131072, 22);  // ZSTD_minCLevel() .. ZSTD_maxCLevel()
  if (!block || !level) return 1;
  auto m = load_model_arg(a);
  if (!m.ok()) return fail(a, m.status().message());
  opt.block_bytes = static_cast<uint32_t>(*block);
  opt.zstd_level = static_cast<int>(*level);
  opt.codec = a.get("--codec", "auto");
  std::string layout = a.get("--layout", "expbyte");
  if (layout == "bitplane") opt.layout = Layout::kBitplane;
  else if (layout != "expbyte") return fail(a, "unknown --layout '" + layout + "' (bitplane or expbyte)");
  auto r = analyze_model(m.value(), opt);
  if (!r.ok()) return fail(a, r.status().message());
  if (a.has("--plot")) {
    Status s = write_plane_plot_svg(r.value(), a.get("--plot"));
    if (!s.ok()) return fail(a, s.message());
  }
  if (a.has("--json")) {
    std::printf("%s\n", report_json(r.value()).c_str());
  } else {
    std::printf("%s", report_text(r.value()).c_str());
  }
  return 0;
}

}  // namespace

NDP_COMMAND("analyze",
            "analyze PATH [--format auto|safetensors|gguf|llama2c|rwkv|gpt2-raw] [--as bf16|fp8-e4m3|int8|int4] [--group G] [--match REGEX] [--block BYTES] "
            "[--layout expbyte|bitplane] [--codec auto|lz4|zstd|raw] [--json] [--plot FILE.svg]",
            cmd_analyze, {"--json"});

}  // namespace ndp::cli
