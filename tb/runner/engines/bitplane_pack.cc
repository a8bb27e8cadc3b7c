// Engine `bitplane-pack`: element file -> plane blocks (bp_aggregator model, BF16, 16 elements per
// cycle). OUT receives every chunk's raw plane blocks in storage order, back to back (no headers).
// The output is checked against the golden model (ndp::pack_chunk) while it streams.
#include <algorithm>

#include "agg_env.h"
#include "engine.h"
#include "input.h"
#include "tb_report.h"

namespace {

int run_pack(const ndp::rtl::EngineArgs& a, ndp::rtl::EngineResult& r) {
  using namespace ndp;
  uint32_t chunk = 0;
  bool expbyte = true;
  std::vector<tb::Bf16Tensor> tensors;
  if (!rtl::chunk_and_layout(a, &chunk, &expbyte, &r.message) ||
      !rtl::load_tensors(a, a.get("--input", "elems"), &tensors, &r.message)) {
    return 2;
  }
  tb::AggEnv env(a.seed, a.fst, a.gaps, a.backpressure);
  env.keep_output(true);
  uint64_t elems = 0;
  for (const tb::Bf16Tensor& t : tensors) {
    env.push_tensor(t.bytes.data(), t.elements(), chunk, expbyte ? Layout::kExpByte : Layout::kBitplane, t.name);
    elems += t.elements();
  }
  uint64_t before = tb::failure_count();
  bool ran = env.run(64 * elems + 100000);
  bool match = env.finish() && tb::failure_count() == before;
  if (!rtl::write_file(a.out_path, env.output(), &r.message)) return 1;
  const tb::StreamStats& s = env.stats();
  r.cycles = s.cycles;
  r.in_bytes = s.in_bytes;
  r.out_bytes = s.out_bytes;
  r.bytes_per_cycle = s.overall_rate(s.in_bytes);
  r.status = !ran ? "error" : (match ? "ok" : "mismatch");
  if (!ran) r.message = "simulation did not complete";
  r.add("sustained_in_bytes_per_cycle", s.in_rate());
  r.add("sustained_out_bytes_per_cycle", s.out_rate());
  r.add("in_stalls", s.in_stalls);
  r.add("tensors", static_cast<uint64_t>(tensors.size()));
  r.add("chunk_elems", static_cast<uint64_t>(chunk));
  r.add("layout", std::string(expbyte ? "expbyte" : "bitplane"));
  return 0;
}

}  // namespace

NDP_RTL_ENGINE("bitplane-pack",
               "IN OUT [--input elems|fp32|model [--concat]] [--chunk N] [--layout expbyte|bitplane]",
               run_pack, {"--concat"});
