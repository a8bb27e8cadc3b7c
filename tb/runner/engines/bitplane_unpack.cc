// Engine `bitplane-unpack --region FORMAT`: plane blocks -> one precision region (bp_assembler
// model, BF16 source, 16 elements per cycle). Only the planes the region fetches are streamed to
// the model. IN is either a plane-block file as written by `bitplane-pack` (--input planes, the
// default; --elems N gives the element count when the last chunk is partial) or elements that are
// packed in software first (--input elems|fp32|model). OUT receives the region bytes. Checked
// against the golden model (ndp::unpack_chunk of the fetched planes + ndp::assemble_region).
#include <algorithm>

#include "asm_env.h"
#include "engine.h"
#include "input.h"
#include "ndp/planes.h"
#include "ndp/precision.h"
#include "tb_report.h"

namespace {

using ndp::DType;
using ndp::Layout;
using Planes = std::vector<std::vector<std::vector<uint8_t>>>;

uint64_t chunk_bytes(Layout l, uint64_t nc) {
  uint64_t s = 0;
  for (uint8_t p : ndp::plane_order(DType::kBF16, l)) s += ndp::plane_raw_bytes(p, nc);
  return s;
}

// Split a bitplane-pack output file into chunks of planes.
bool split_planes(const std::vector<uint8_t>& f, uint64_t n, uint32_t chunk, Layout l, Planes* out,
                  std::string* err) {
  const std::vector<uint8_t> order = ndp::plane_order(DType::kBF16, l);
  uint64_t off = 0;
  for (uint64_t first = 0; first < n; first += chunk) {
    uint64_t nc = std::min<uint64_t>(chunk, n - first);
    std::vector<std::vector<uint8_t>> c;
    for (uint8_t p : order) {
      uint64_t b = ndp::plane_raw_bytes(p, nc);
      if (off + b > f.size()) {
        *err = "plane file too short: chunk at element " + std::to_string(first) + " plane " + std::to_string(p) +
               " needs bytes up to " + std::to_string(off + b) + ", file has " + std::to_string(f.size());
        return false;
      }
      c.emplace_back(f.begin() + static_cast<std::ptrdiff_t>(off), f.begin() + static_cast<std::ptrdiff_t>(off + b));
      off += b;
    }
    out->push_back(std::move(c));
  }
  if (off != f.size()) {
    *err = "plane file has " + std::to_string(f.size() - off) + " bytes beyond " + std::to_string(n) + " elements";
    return false;
  }
  return true;
}

int run_unpack(const ndp::rtl::EngineArgs& a, ndp::rtl::EngineResult& r) {
  using namespace ndp;
  uint32_t chunk = 0;
  bool expbyte = true;
  if (!rtl::chunk_and_layout(a, &chunk, &expbyte, &r.message)) return 2;
  Layout layout = expbyte ? Layout::kExpByte : Layout::kBitplane;
  bool ok = true;
  int64_t guard = a.get_int("--guard", 0, &ok);
  if (!ok || guard < 0 || guard > 2) {
    r.message = "--guard must be 0, 1 or 2";
    return 2;
  }
  if (!a.has("--region")) {
    r.message = "--region FORMAT is required (full, e8m0..e8m7, fp8-e4m3, fp8-e5m2, fp6-e3m2, fp6-e2m3, "
                "fp4-e2m1, mxfp8, mxfp4)";
    return 2;
  }
  Result<Region> reg = parse_region(a.get("--region"), DType::kBF16, static_cast<int>(guard));
  if (!reg.ok()) {
    r.message = reg.status().message();
    return 2;
  }
  tb::AsmEnv env(a.seed, a.fst, a.gaps, a.backpressure);
  env.keep_output(true);
  uint64_t elems = 0;
  std::string input = a.get("--input", "planes");
  if (input == "planes") {
    std::vector<uint8_t> f;
    if (!rtl::read_file(a.in_path, &f, &r.message)) return 2;
    uint64_t full = chunk_bytes(layout, chunk);
    int64_t n = a.get_int("--elems", 0, &ok);
    if (!ok) return 2;
    if (n == 0) {
      if (f.empty() || f.size() % full) {
        r.message = a.in_path + ": size " + std::to_string(f.size()) + " is not a whole number of " +
                    std::to_string(chunk) + "-element chunks; give --elems N";
        return 2;
      }
      n = static_cast<int64_t>(f.size() / full * chunk);
    }
    if (n < 0 || n > 0xFFFFFFFFll) {
      r.message = "--elems out of range";
      return 2;
    }
    Planes planes;
    if (!split_planes(f, static_cast<uint64_t>(n), chunk, layout, &planes, &r.message)) {
      r.message = a.in_path + ": " + r.message;
      return 2;
    }
    env.push_region_planes(planes, static_cast<uint64_t>(n), chunk, layout, *reg, a.in_path);
    elems = static_cast<uint64_t>(n);
  } else {
    std::vector<tb::Bf16Tensor> tensors;
    if (!rtl::load_tensors(a, input, &tensors, &r.message)) return 2;
    for (const tb::Bf16Tensor& t : tensors) {
      env.push_region(t.bytes.data(), t.elements(), chunk, layout, *reg, t.name);
      elems += t.elements();
    }
  }
  uint64_t before = tb::failure_count();
  bool ran = env.run(64 * elems + 100000);
  bool match = env.finish() && tb::failure_count() == before;
  if (!rtl::write_file(a.out_path, env.output(), &r.message)) return 1;
  const tb::StreamStats& s = env.stats();
  r.cycles = s.cycles;
  r.in_bytes = s.in_bytes;
  r.out_bytes = s.out_bytes;
  r.bytes_per_cycle = s.overall_rate(s.out_bytes);
  r.status = !ran ? "error" : (match ? "ok" : "mismatch");
  if (!ran) r.message = "simulation did not complete";
  r.add("sustained_out_bytes_per_cycle", s.out_rate());
  r.add("elems_per_cycle", s.cycles ? double(elems) / double(s.cycles) : 0.0);
  r.add("region", region_name(*reg, DType::kBF16));
  r.add("guard", static_cast<uint64_t>(reg->guard));
  r.add("layout", std::string(expbyte ? "expbyte" : "bitplane"));
  return 0;
}

}  // namespace

NDP_RTL_ENGINE("bitplane-unpack",
               "IN OUT --region FORMAT [--guard G] [--input planes|elems|fp32|model [--concat]] [--elems N] "
               "[--chunk N] [--layout expbyte|bitplane]",
               run_unpack, {"--concat"});
