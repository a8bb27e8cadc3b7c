// `ndp serve-model`: decode tokens/s and the tier-full context of an LLM on one GPU with a CXL tier,
// byte-level baseline against the NDP device per precision mode (docs/serving.md).
#if defined(HAVE_NDP_SERVING)
#include <charconv>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli_util.h"
#include "ndp/serving.h"

namespace ndp::cli {
namespace {

namespace sv = ndp::serve;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t c = s.find(',', start);
    out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

Result<std::vector<uint64_t>> parse_contexts(const std::string& s) {
  std::vector<uint64_t> out;
  for (const auto& item : split(s)) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || p != item.data() + item.size() || v == 0 || v > (uint64_t{1} << 40))
      return Status::Error("--context: '" + item + "' is not a positive token count");
    out.push_back(v);
  }
  return out;
}

Result<double> parse_double(const Args& a, const std::string& k, double def) {
  if (!a.has(k)) return def;
  const std::string s = a.get(k);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !(v >= 0))
    return Status::Error(k + " expects a number, got '" + s + "'");
  return v;
}

Result<sv::FigureSet> parse_figures(const Args& a, const std::string& k, const std::string& def) {
  const std::string v = a.get(k, def);
  if (v == "project") return sv::FigureSet::kProject;
  if (v == "paper") return sv::FigureSet::kPaper;
  return Status::Error(k + " must be project or paper, got '" + v + "'");
}

Status model_inputs(const Args& a, sv::Inputs& in, std::string& name) {
  if (a.has("--config") && a.has("--preset")) return Status::Error("give --preset or --config, not both");
  if (a.has("--config")) {
    name = a.get("--config");
    auto text = read_file(name);
    if (!text.ok()) return text.status();
    return sv::set_model_from_hf_config(std::string(text->begin(), text->end()), name, in);
  }
  name = a.get("--preset", "llama3.1-70b");
  return sv::set_model_preset(name, in);
}

// Figures: built-in (paper or project), then the measurement files, then --batch and --set.
Status figure_inputs(const Args& a, const std::vector<std::string>& modes, int guard, sv::Inputs& in) {
  auto fig = parse_figures(a, "--figures", "project");
  if (!fig.ok()) return fig.status();
  auto dev = parse_figures(a, "--device", a.get("--figures", "project"));
  if (!dev.ok()) return dev.status();
  NDP_RETURN_IF_ERROR(sv::set_figures(fig.value(), modes, guard, in));
  sv::set_device(dev.value(), in);
  if (a.has("--weights-json")) {
    auto t = read_file(a.get("--weights-json"));
    if (!t.ok()) return t.status();
    NDP_RETURN_IF_ERROR(sv::set_weights_from_analyze_json(std::string(t->begin(), t->end()), a.get("--weights-json"),
                                                          modes, guard, in));
  }
  if (a.has("--kv-json")) {
    auto t = read_file(a.get("--kv-json"));
    if (!t.ok()) return t.status();
    NDP_RETURN_IF_ERROR(sv::set_kv_from_analyze_kv_json(std::string(t->begin(), t->end()), a.get("--kv-json"), in));
  }
  return Status::Ok();
}

Status build_inputs(const Args& a, const std::vector<std::string>& modes, sv::Inputs& in, std::string& name) {
  NDP_RETURN_IF_ERROR(model_inputs(a, in, name));
  NDP_RETURN_IF_ERROR(sv::set_gpu_preset(a.get("--gpu", "h100"), in));
  auto cxl = parse_double(a, "--cxl-gb", 256);
  if (!cxl.ok()) return cxl.status();
  sv::set_tier_defaults(cxl.value(), in);
  if (!a.has("--cxl-gb")) in["cxl.capacity_gb"].source = "paper section IV-A: a 256 GB CXL tier (default)";
  sv::set_serving_defaults(in);
  auto guard = parse_double(a, "--guard", 1);
  if (!guard.ok()) return guard.status();
  if (guard.value() != 0 && guard.value() != 1 && guard.value() != 2) return Status::Error("--guard must be 0, 1 or 2");
  NDP_RETURN_IF_ERROR(figure_inputs(a, modes, static_cast<int>(guard.value()), in));
  if (a.has("--batch")) {
    auto b = parse_double(a, "--batch", 1);
    if (!b.ok()) return b.status();
    in["serve.batch"] = {b.value(), "sequences", "command line (--batch)"};
  }
  return sv::set_overrides(a.get("--set"), in);
}

int finish_error(const Args& a, const std::string& msg) {
  if (a.has("--json")) std::printf("%s\n", sv::error_json(msg).c_str());
  return fail(a, msg);
}

int cmd_serve_model(const Args& a) {
  std::vector<std::string> modes = split(a.get("--mode", "full,e8m3,fp8-e4m3,mxfp4,5bit"));
  modes.insert(modes.end(), a.pos.begin(), a.pos.end());  // "--mode a b c" leaves b and c positional
  auto contexts = parse_contexts(a.get("--context", "4096,8192,16384,32768,65536,98304,131072,196608"));
  if (!contexts.ok()) return finish_error(a, contexts.status().message());
  const std::string overlap = a.get("--overlap", "full");
  if (overlap != "full" && overlap != "serial") return finish_error(a, "--overlap must be full or serial");
  const std::string pol = a.get("--policy", "best");
  std::optional<sv::Policy> policy;
  if (pol == "weights-first")
    policy = sv::Policy::kWeightsFirst;
  else if (pol == "kv-first")
    policy = sv::Policy::kKvFirst;
  else if (pol != "best")
    return finish_error(a, "--policy must be best, weights-first or kv-first");
  sv::Inputs in;
  std::string name;
  Status s = build_inputs(a, modes, in, name);
  if (!s.ok()) return finish_error(a, s.message());
  auto r = sv::run_model(in, modes, contexts.value(), overlap == "full" ? sv::Overlap::kFull : sv::Overlap::kSerial,
                         policy, name);
  if (!r.ok()) return finish_error(a, r.status().message());
  if (a.has("--plot")) {
    Status p = sv::write_plot_svg(r.value(), a.get("--plot"));
    if (!p.ok()) return finish_error(a, p.message());
  }
  if (a.has("--json"))
    std::printf("%s\n", sv::report_json(r.value()).c_str());
  else
    std::fputs(sv::report_text(r.value()).c_str(), stdout);
  return 0;
}

}  // namespace

NDP_COMMAND("serve-model",
            "serve-model [--preset llama3.1-70b|llama3.1-8b | --config config.json] [--gpu h100] [--cxl-gb 256] "
            "[--mode full,e8m3,fp8-e4m3,mxfp4,5bit] [--context N,...] [--batch B] [--guard G] "
            "[--figures project|paper] [--device project|paper] [--weights-json F] [--kv-json F] "
            "[--policy best|weights-first|kv-first] [--overlap full|serial] [--set NAME=V,...] [--json] [--plot F.svg]",
            cmd_serve_model, {"--json"}, {"--mode", "--context", "--set"});

}  // namespace ndp::cli
#endif
