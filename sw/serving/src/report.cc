// JSON, text and SVG renderings of a serving-model Report.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ndp/serving.h"
#include "serving_internal.h"

namespace ndp::serve {
namespace {

using json = nlohmann::json;

json step_json(const Step& s, double batch) {
  const auto& w = s.where;
  return {{"policy", policy_name(s.policy)},
          {"bottleneck", s.bottleneck},
          {"step_s", s.t_step},
          {"per_token",
           {{"link_read_bytes", s.link_read / batch},
            {"link_write_bytes", s.link_write / batch},
            {"cxl_dram_bytes", s.dram / batch},
            {"hbm_bytes", s.hbm / batch},
            {"flops", s.flops / batch},
            {"ndp_elements", s.ndp_elems / batch},
            {"time_s", s.t_step / batch}}},
          {"step_time_s",
           {{"link_read", s.t_link_read},
            {"link_write", s.t_link_write},
            {"cxl_dram", s.t_dram},
            {"ndp", s.t_ndp},
            {"hbm", s.t_hbm},
            {"compute", s.t_compute},
            {"latency", s.t_latency}}},
          {"placement_bytes",
           {{"weights_hbm", w.w_hbm},
            {"weights_tier", w.w_tier},
            {"kv_hbm", w.kv_hbm},
            {"kv_tier", w.kv_tier},
            {"tier_stored", w.tier_stored}}}};
}

json inputs_json(const Inputs& in) {
  json o = json::object();
  for (const auto& [name, v] : in) o[name] = {{"value", v.value}, {"unit", v.unit}, {"source", v.source}};
  return o;
}

}  // namespace

std::string report_json(const Report& r) {
  const Config& c = r.config;
  json tok = json::object(), maxc = json::object(), byp = json::object(), pol = json::object(), speed = json::object(),
       detail = json::object();
  const DesignResult& base = r.designs.front();
  for (const DesignResult& d : r.designs) {
    json t = json::array(), p = json::array(), sp = json::array(), det = json::array();
    for (size_t i = 0; i < d.steps.size(); ++i) {
      const auto& s = d.steps[i];
      t.push_back(s ? json(s->tok_s) : json());
      p.push_back(s ? json(policy_name(s->policy)) : json());
      sp.push_back(s && base.steps[i] ? json(s->tok_s / base.steps[i]->tok_s) : json());
      det.push_back(s ? step_json(*s, c.batch) : json());
    }
    tok[d.name] = t;
    pol[d.name] = p;
    if (&d != &base) speed[d.name] = sp;
    detail[d.name] = det;
    maxc[d.name] = d.max_context;
    byp[d.name] = {{"weights-first", d.max_context_by_policy[0]}, {"kv-first", d.max_context_by_policy[1]}};
  }
  json designs = json::array();
  for (const auto& d : r.designs) designs.push_back(d.name);
  json o = {{"tool", "ndp serve-model"},
            {"model", r.model},
            {"overlap", r.overlap == Overlap::kFull ? "full" : "serial"},
            {"placement_policy", r.policy ? policy_name(*r.policy) : "best"},
            {"contexts", r.contexts},
            {"designs", designs},
            {"tok_s", tok},
            {"speedup_vs_baseline", speed},
            {"policy", pol},
            {"max_context", maxc},
            {"max_context_by_policy", byp},
            {"derived",
             {{"params", c.total_params()},
              {"weight_bytes", c.weight_bytes()},
              {"kv_bytes_per_token", c.kv_bytes_per_token()},
              {"hbm_usable_bytes", c.hbm_usable()},
              {"tier_bytes", c.tier_bytes},
              {"link_bytes_per_s", c.link_bps},
              {"cxl_dram_bytes_per_s", c.dram_bps},
              {"ndp_elements_per_s", c.ndp_elems_per_s}}},
            {"detail", detail},
            {"inputs", inputs_json(r.inputs)},
            {"status", "ok"}};
  return o.dump();
}

std::string error_json(const std::string& msg) {
  return json{{"tool", "ndp serve-model"}, {"status", "error"}, {"error", msg}}.dump();
}

namespace {

void text_header(std::ostringstream& o, const Report& r) {
  const Config& c = r.config;
  char b[512];
  std::snprintf(b, sizeof b,
                "%s: %.2f B params, %.1f GB of BF16 weights, %.0f KV bytes/token; HBM %.1f GB usable of %.1f; "
                "tier %.1f GB; batch %.0f, %.0f-token KV pages, overlap %s\n",
                r.model.c_str(), c.total_params() / 1e9, c.weight_bytes() / 1e9, c.kv_bytes_per_token(),
                c.hbm_usable() / 1e9, c.hbm_bytes / 1e9, c.tier_bytes / 1e9, c.batch, c.page_tokens,
                r.overlap == Overlap::kFull ? "full" : "serial");
  o << b;
}

void text_tok_s(std::ostringstream& o, const Report& r) {
  char b[128];
  o << "\ntokens/s (W = weights first in HBM, K = KV first; - = past the tier-full point)\n";
  std::snprintf(b, sizeof b, "%10s", "context");
  o << b;
  for (const auto& d : r.designs) {
    std::snprintf(b, sizeof b, " %14s", d.name.c_str());
    o << b;
  }
  o << "\n";
  for (size_t i = 0; i < r.contexts.size(); ++i) {
    std::snprintf(b, sizeof b, "%10llu", (unsigned long long)r.contexts[i]);
    o << b;
    for (const auto& d : r.designs) {
      const auto& s = d.steps[i];
      if (s)
        std::snprintf(b, sizeof b, " %12.3f %c", s->tok_s, s->policy == Policy::kWeightsFirst ? 'W' : 'K');
      else
        std::snprintf(b, sizeof b, " %14s", "-");
      o << b;
    }
    o << "\n";
  }
  o << "\ntier-full point (largest context that fits; weights-first / kv-first):\n";
  for (const auto& d : r.designs) {
    std::snprintf(b, sizeof b, "  %-10s %10llu tokens  (%llu / %llu)\n", d.name.c_str(),
                  (unsigned long long)d.max_context, (unsigned long long)d.max_context_by_policy[0],
                  (unsigned long long)d.max_context_by_policy[1]);
    o << b;
  }
}

void text_breakdown(std::ostringstream& o, const Report& r) {
  char b[512];
  o << "\nper token: bytes moved and step-time terms (each term alone; the step is the largest"
    << (r.overlap == Overlap::kFull ? "" : ", serial: tier + GPU") << " plus the NDP chunk latency)\n";
  std::snprintf(b, sizeof b, "%9s %-10s %-6s %10s %10s %10s %10s %8s %9s %9s %9s %9s %9s %9s  %s\n", "context",
                "design", "policy", "link rd GB", "link wr MB", "dram GB", "hbm GB", "GFLOP", "link ms", "dram ms",
                "ndp ms", "hbm ms", "gpu ms", "token ms", "bound");
  o << b;
  const double k = 1 / r.config.batch;
  for (size_t i = 0; i < r.contexts.size(); ++i)
    for (const auto& d : r.designs) {
      if (!d.steps[i]) continue;
      const Step& s = *d.steps[i];
      std::snprintf(b, sizeof b,
                    "%9llu %-10s %-6s %10.3f %10.3f %10.3f %10.3f %8.1f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f  %s\n",
                    (unsigned long long)r.contexts[i], d.name.c_str(), s.policy == Policy::kWeightsFirst ? "W" : "K",
                    s.link_read * k / 1e9, s.link_write * k / 1e6, s.dram * k / 1e9, s.hbm * k / 1e9, s.flops * k / 1e9,
                    std::max(s.t_link_read, s.t_link_write) * k * 1e3, s.t_dram * k * 1e3, s.t_ndp * k * 1e3,
                    s.t_hbm * k * 1e3, s.t_compute * k * 1e3, s.t_step * k * 1e3, s.bottleneck.c_str());
      o << b;
    }
}

}  // namespace

std::string report_text(const Report& r) {
  std::ostringstream o;
  text_header(o, r);
  text_tok_s(o, r);
  text_breakdown(o, r);
  o << "\ninputs:\n";
  for (const auto& [name, v] : r.inputs)
    o << "  " << name << " = " << fmt_num(v.value) << (v.unit.empty() ? "" : " " + v.unit) << "  [" << v.source
      << "]\n";
  return o.str();
}

}  // namespace ndp::serve
