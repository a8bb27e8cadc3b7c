// libFuzzer target: the runtime's plan JSON, both directions of `ndp place plan`: every input goes to
// plan_from_json (a saved plan) and to parse_plan_request (a request). Oracles: a saved plan that is
// accepted has parts summing to its items' aligned sizes and round-trips (plan_to_json, then
// plan_from_json gives the same JSON); an accepted request yields tensors whose Table I components
// sum exactly to 8P/4P/4P/2P/activations/2P when given a training config, an inline topology that
// parses or fails cleanly, and plans on a fixed two-CXL-node input whose parts sum to each aligned
// size and stay within every node's capacity.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "ndp/runtime/planner.h"

namespace {

using namespace ndp::rt;

void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_plan_json: %s\n", why.c_str());
  std::abort();
}

uint64_t aligned(uint64_t b, uint64_t a) { return (b + a - 1) / a * a; }

void check_parts(const Plan& p) {
  for (const PlanItem& it : p.items) {
    unsigned __int128 sum = 0;
    for (const NodeBytes& nb : it.parts) sum += nb.bytes;
    if (sum != aligned(it.bytes, p.input.align)) fail("parts of '" + it.name + "' do not sum to its aligned size");
  }
}

void check_saved_plan(const std::string& text) {
  auto p = plan_from_json(text, "plan.json");
  if (!p.ok()) return;
  check_parts(p.value());
  const std::string j = plan_to_json(p.value());
  auto back = plan_from_json(j, "back.json");
  if (!back.ok()) fail("written plan does not parse: " + back.status().message());
  if (plan_to_json(back.value()) != j) fail("plan JSON differs after a round trip");
}

void check_config_tensors(const TrainConfig& c, const std::vector<TensorReq>& ts) {
  std::map<std::string, unsigned __int128> sums;
  for (const TensorReq& t : ts) sums[t.name.substr(0, t.name.find('.'))] += t.bytes;
  const unsigned __int128 P = c.params;
  const unsigned __int128 want[] = {8 * P, 4 * P, 4 * P, 2 * P, 2 * P};
  const char* names[] = {"fp32_optimizer_states", "fp32_master_params", "fp32_master_grads", "bf16_params",
                         "bf16_grads"};
  for (int i = 0; i < 5; ++i)
    if (sums[names[i]] != want[i]) fail(std::string("component ") + names[i] + " does not sum to its share of P");
}

void plan_on_fixed_input(const std::vector<TensorReq>& ts) {
  PlannerInput in;
  in.dram_capacity = uint64_t{1} << 30;
  in.cxl = {{1, uint64_t{64} << 30, 2}, {2, uint64_t{64} << 30, 1}};
  auto p = plan_latency_first(ts, in);
  if (!p.ok()) return;
  check_parts(p.value());
  std::map<int, unsigned __int128> used;
  for (const PlanItem& it : p.value().items)
    for (const NodeBytes& nb : it.parts) used[nb.node] += nb.bytes;
  if (used[0] > in.dram_capacity || used[1] > in.cxl[0].capacity || used[2] > in.cxl[1].capacity)
    fail("plan exceeds a node's capacity");
}

void check_request(const std::string& text) {
  auto r = parse_plan_request(text, "req.json");
  if (!r.ok()) {
    if (r.status().message().find("req.json") == std::string::npos) fail("request error does not name the file");
    return;
  }
  if (!r.value().topology_inline.empty()) (void)parse_topology_override(r.value().topology_inline, "req.json.topology");
  std::vector<TensorReq> ts = r.value().tensors;
  if (r.value().from_config) {
    auto t = tensors_from_config(r.value().config);
    if (!t.ok()) return;
    check_config_tensors(r.value().config, t.value());
    ts = t.value();
  }
  if (ts.size() <= 4096) plan_on_fixed_input(ts);  // keeps each execution fast
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_saved_plan(text);
  check_request(text);
  return 0;
}
