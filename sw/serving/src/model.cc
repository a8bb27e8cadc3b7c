// The serving model proper: geometry, placement, one decode step and the tier-full point
// (docs/serving.md gives every formula).
#include <algorithm>
#include <cmath>

#include "ndp/serving.h"

namespace ndp::serve {

const char* policy_name(Policy p) { return p == Policy::kWeightsFirst ? "weights-first" : "kv-first"; }

double Config::layer_params() const {
  const double q = heads * head_dim, kv = kv_heads * head_dim;
  return hidden * q + 2 * hidden * kv + q * hidden + 3 * hidden * intermediate + 2 * hidden;
}

double Config::total_params() const { return layers * layer_params() + vocab * hidden * (tied ? 1 : 2) + hidden; }

double Config::read_params() const {
  // Every layer, the final norm and the classifier; of an untied embedding table only the batch's rows.
  return layers * layer_params() + hidden + vocab * hidden + (tied ? 0 : batch * hidden);
}

double Config::hbm_usable() const { return hbm_bytes - staging_layers * 2 * layer_params(); }

Placement place(const Config& c, const Design& d, Policy p, uint64_t context) {
  const double tokens = std::ceil(double(context) / c.page_tokens) * c.page_tokens;
  const double kv = c.batch * tokens * c.kv_bytes_per_token(), w = c.weight_bytes(), hu = c.hbm_usable();
  Placement r;
  if (p == Policy::kWeightsFirst) {
    r.w_hbm = std::min(w, hu);
    r.kv_hbm = std::min(kv, hu - r.w_hbm);
  } else {
    r.kv_hbm = std::min(kv, hu);
    r.w_hbm = std::min(w, hu - r.kv_hbm);
  }
  r.w_tier = w - r.w_hbm;
  r.kv_tier = kv - r.kv_hbm;
  r.tier_stored = (c.tier_weight_copy ? w : r.w_tier) * d.w_store + r.kv_tier * d.kv_store;
  r.fits = r.tier_stored <= c.tier_bytes;
  return r;
}

namespace {

// Bytes, elements and FLOPs of one step.
void step_traffic(const Config& c, const Design& d, uint64_t context, Step& s) {
  const Placement& pl = s.where;
  const double read_frac = 2 * c.read_params() / c.weight_bytes();  // weights read per step / stored
  const double w_tier = pl.w_tier * read_frac, w_hbm = pl.w_hbm * read_frac;
  const double new_kv = c.batch * c.kv_bytes_per_token();  // this step's K and V
  const bool kv_to_tier = pl.kv_tier > 0;                  // HBM's KV share is full: new KV goes out
  s.link_read = w_tier * d.w_link + pl.kv_tier * d.kv_link;
  s.link_write = kv_to_tier ? new_kv * d.kv_link : 0;
  s.dram = w_tier * d.w_dram + pl.kv_tier * d.kv_dram + (kv_to_tier ? new_kv * d.kv_store : 0);
  // HBM: resident weights and KV, plus every streamed byte written by the copy and read by the kernel.
  s.hbm = w_hbm + pl.kv_hbm + 2 * s.link_read + (kv_to_tier ? 0 : new_kv);
  const double matmul_params = c.layers * (c.layer_params() - 2 * c.hidden) + c.vocab * c.hidden;
  s.flops = 2 * c.batch * matmul_params + 4 * c.batch * c.layers * c.heads * c.head_dim * double(context);
  s.ndp_elems = d.ndp ? (w_tier + pl.kv_tier + (kv_to_tier ? new_kv : 0)) / 2 : 0;
}

}  // namespace

Step decode_step(const Config& c, const Design& d, Policy p, uint64_t context, Overlap o) {
  Step s;
  s.policy = p;
  s.where = place(c, d, p, context);
  step_traffic(c, d, context, s);
  s.t_link_read = s.link_read / c.link_bps;
  s.t_link_write = s.link_write / c.link_bps;
  s.t_dram = s.dram / c.dram_bps;
  s.t_ndp = s.ndp_elems / c.ndp_elems_per_s;
  s.t_hbm = s.hbm / c.hbm_bps;
  s.t_compute = s.flops / (d.fp8_compute ? c.fp8_flops : c.bf16_flops);
  s.t_latency = d.ndp && s.link_read > 0 ? c.ndp_latency_s : 0;  // the pipeline fills once per step
  const std::pair<double, const char*> terms[] = {{s.t_link_read, "link-read"},
                                                  {s.t_link_write, "link-write"},
                                                  {s.t_dram, "cxl-dram"},
                                                  {s.t_ndp, "ndp"},
                                                  {s.t_hbm, "hbm"},
                                                  {s.t_compute, "compute"}};
  const auto* top = std::max_element(std::begin(terms), std::end(terms),
                                     [](const auto& a, const auto& b) { return a.first < b.first; });
  s.bottleneck = top->second;
  if (o == Overlap::kFull) {
    s.t_step = top->first + s.t_latency;
  } else {  // the GPU waits for the step's transfers, then runs
    const double tier = std::max({s.t_link_read, s.t_link_write, s.t_dram, s.t_ndp});
    s.t_step = tier + std::max(s.t_hbm, s.t_compute) + s.t_latency;
  }
  s.tok_s = c.batch / s.t_step;
  return s;
}

uint64_t max_context(const Config& c, const Design& d, Policy p) {
  const auto page = static_cast<uint64_t>(c.page_tokens);
  auto fits = [&](uint64_t pages) { return place(c, d, p, pages * page).fits; };
  if (!fits(1)) return 0;
  uint64_t lo = 1, hi = 2;  // fits(lo), and hi is doubled until it does not fit
  while (fits(hi)) {
    lo = hi;
    if (hi > (uint64_t{1} << 40)) return lo * page;  // a tier larger than any context needs
    hi *= 2;
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo * page;
}

std::optional<Step> best_step(const Report& r, const Design& d, uint64_t context) {
  std::optional<Step> best;
  for (Policy p : {Policy::kWeightsFirst, Policy::kKvFirst}) {
    if (r.policy && *r.policy != p) continue;
    Step s = decode_step(r.config, d, p, context, r.overlap);
    if (s.where.fits && (!best || s.tok_s > best->tok_s)) best = s;
  }
  return best;
}

Result<Report> run_model(const Inputs& in, const std::vector<std::string>& modes, const std::vector<uint64_t>& contexts,
                         Overlap o, std::optional<Policy> policy, const std::string& model_name) {
  auto cfg = make_config(in, modes);
  if (!cfg.ok()) return cfg.status();
  for (uint64_t ctx : contexts)
    if (ctx == 0) return Status::Error("contexts must be positive");
  Report r{model_name, in, std::move(cfg.value()), o, policy, contexts, {}};
  for (const Design& d : r.config.designs) {
    DesignResult dr;
    dr.name = d.name;
    for (Policy p : {Policy::kWeightsFirst, Policy::kKvFirst})
      dr.max_context_by_policy[size_t(p)] = max_context(r.config, d, p);
    if (policy)
      dr.max_context_policy = *policy;
    else if (dr.max_context_by_policy[1] > dr.max_context_by_policy[0])
      dr.max_context_policy = Policy::kKvFirst;
    dr.max_context = dr.max_context_by_policy[size_t(dr.max_context_policy)];
    for (uint64_t ctx : contexts) dr.steps.push_back(best_step(r, d, ctx));
    r.designs.push_back(std::move(dr));
  }
  return r;
}

}  // namespace ndp::serve
