// ndp place topo|plan|bench: the placement runtime from the command line.
//   ndp place topo [--topology FILE] [--json]
//   ndp place plan CONFIG.json [--topology FILE] [--json] [-o PLAN.json] [--execute]
//   ndp place bench [--node N] [--iters N] [--json]
#ifdef HAVE_NDP_RUNTIME
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "command.h"
#include "ndp/file.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/plan_exec.h"
#include "ndp/runtime/planner.h"
#include "ndp/runtime/report.h"
#include "ndp/runtime/size.h"

namespace ndp::cli {
namespace {

using namespace ndp::rt;

Result<std::string> slurp(const std::string& path) { return read_text_file(path); }  // <= 16 MiB

int cmd_topo(const Args& a) {
  auto t = discover_topology(a.get("--topology"));
  if (!t.ok()) return fail(a, t.status().message());
  std::fputs((a.has("--json") ? topology_json(t.value()) : topology_text(t.value())).c_str(), stdout);
  return 0;
}

// Topology for a plan: --topology, else the request's (path relative to the request file, or
// inline), else discovery.
Result<Topology> plan_topology(const Args& a, const PlanRequest& r, const std::string& req_path) {
  if (a.has("--topology")) return discover_topology(a.get("--topology"));
  if (!r.topology_inline.empty()) return parse_topology_override(r.topology_inline, req_path + ".topology");
  if (!r.topology_path.empty()) {
    std::filesystem::path p(r.topology_path);
    if (p.is_relative()) p = std::filesystem::path(req_path).parent_path() / p;
    return load_topology_override(p.string());
  }
  return discover_topology();
}

int execute(const Args& a, const Plan& plan, const Topology& topo) {
  Runtime rt(topo);
  auto allocs = execute_plan(rt, plan);
  if (!allocs.ok()) return fail(a, "execute: " + allocs.status().message());
  std::printf("executed %zu items on this machine:\n", allocs.value().size());
  for (size_t i = 0; i < allocs.value().size(); ++i) {
    const Allocation& al = allocs.value()[i];
    auto w = rt.where(al);
    std::printf("  %-28s %-22s %s\n", plan.items[i].name.c_str(), mechanism_name(al.mechanism()),
                w.ok() ? w.value().describe().c_str() : w.status().message().c_str());
  }
  return 0;
}

int cmd_plan(const Args& a) {
  if (a.pos.empty()) return fail(a, "missing CONFIG.json (see docs/runtime.md)");
  const std::string path = a.pos[0];
  auto text = slurp(path);
  if (!text.ok()) return fail(a, text.status().message());
  auto req = parse_plan_request(text.value(), path);
  if (!req.ok()) return fail(a, req.status().message());
  auto topo = plan_topology(a, req.value(), path);
  if (!topo.ok()) return fail(a, topo.status().message());
  PlannerOptions po = req.value().options;
  std::string wsrc;
  auto in = planner_input(topo.value(), po, &wsrc);
  if (!in.ok()) return fail(a, in.status().message());
  in.value().align = kernel_caps().page_size;
  std::vector<TensorReq> tensors = req.value().tensors;
  if (req.value().from_config) {
    auto t = tensors_from_config(req.value().config);
    if (!t.ok()) return fail(a, path + ": " + t.status().message());
    tensors = t.value();
  }
  auto plan = plan_latency_first(tensors, in.value());
  if (!plan.ok()) return fail(a, plan.status().message());
  plan.value().weight_source = wsrc;
  const std::string json = plan_to_json(plan.value());
  if (a.has("-o")) {
    std::ofstream f(a.get("-o"));
    if (!(f << json)) return fail(a, a.get("-o") + ": cannot write");
  }
  if (a.has("--json")) {
    std::fputs(json.c_str(), stdout);
  } else {
    const auto& c = req.value().config;
    if (req.value().from_config)
      std::printf("model %s: P=%llu L=%llu H=%llu, context %llu, batch %llu, %llu GPU(s)\n", c.model.c_str(),
                  (unsigned long long)c.params, (unsigned long long)c.layers, (unsigned long long)c.hidden,
                  (unsigned long long)c.context, (unsigned long long)c.batch, (unsigned long long)c.gpus);
    std::printf("topology %s\n", topo.value().source.c_str());
    std::fputs(plan_summary(plan.value()).c_str(), stdout);
  }
  return a.has("--execute") ? execute(a, plan.value(), topo.value()) : 0;
}

int cmd_bench(const Args& a) {
  auto t = discover_topology(a.get("--topology"));
  if (!t.ok()) return fail(a, t.status().message());
  auto nodes = allowed_memory_nodes();
  if (nodes.empty()) return fail(a, "no NUMA memory node available");
  auto node = a.get_int("--node", nodes.front(), 0, INT32_MAX);
  auto iters = a.get_int("--iters", 2000, 1, INT32_MAX);
  if (!node || !iters) return 1;
  Runtime rt(t.value());
  auto rows = measure_alloc_latency(rt, static_cast<int>(*node), {16 << 10, 1 << 20, 16 << 20}, static_cast<int>(*iters));
  if (!rows.ok()) return fail(a, rows.status().message());
  if (!a.has("--json"))
    std::printf("allocate+free pair latency on node %lld (median of 5 rounds x %lld):\n%-10s %12s %12s %18s\n",
                (long long)*node, (long long)*iters, "size", "slab (ns)", "malloc (ns)", "numa_alloc_onnode (ns)");
  std::string js = "[";
  for (const auto& r : rows.value()) {
    if (a.has("--json")) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s{\"bytes\": %llu, \"slab_ns\": %.1f, \"malloc_ns\": %.1f, \"numa_ns\": %.1f}",
                    js.size() > 1 ? ", " : "", (unsigned long long)r.bytes, r.slab_ns, r.malloc_ns, r.numa_ns);
      js += buf;
    } else {
      std::printf("%-10s %12.1f %12.1f %18.1f\n", format_size(r.bytes).c_str(), r.slab_ns, r.malloc_ns, r.numa_ns);
    }
  }
  if (a.has("--json")) std::printf("%s]\n", js.c_str());
  return 0;
}

NDP_COMMAND("place topo", "place topo [--topology FILE] [--json]   memory nodes, HMAT perf, kernel/CUDA support",
            cmd_topo, {"--json"});
NDP_COMMAND("place plan",
            "place plan CONFIG.json [--topology FILE] [--json] [-o PLAN.json] [--execute]   latency-first placement plan",
            cmd_plan, {"--json", "--execute"});
NDP_COMMAND("place bench", "place bench [--node N] [--iters N] [--json]   16K/1M/16M allocation latency", cmd_bench,
            {"--json"});

}  // namespace
}  // namespace ndp::cli
#endif  // HAVE_NDP_RUNTIME
