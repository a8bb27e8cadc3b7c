// ndp demo [--model PATH] [--format F] [--keep IMAGE]: the device format end to end.
// analyse -> pack -> verify -> read back full (bit-exact check) -> read precision regions (only their
// planes; each checked against the golden conversion of the original data) -> figures and timings.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "cli_util.h"
#include "ndp/analysis.h"
#include "ndp/convert.h"
#include "ndp/demo_model.h"
#include "ndp/image.h"

namespace ndp::cli {
namespace {

using Clock = std::chrono::steady_clock;
double secs(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int cmd_demo(const Args& a) {
  auto t_start = Clock::now();
  Model m;
  if (a.has("--model")) {
    Args la = a;
    la.pos = {a.get("--model")};
    la.opt["--as"] = "bf16";
    auto r = load_model_arg(la);
    if (!r.ok()) return fail(a, r.status().message());
    m = std::move(r.value());
  } else {
    m = make_demo_model();
  }
  uint64_t raw = 0;
  for (const auto& t : m.tensors) raw += t.data.size();
  std::printf("== input: %s, %zu tensors, %.2f MiB of BF16 (FP32 sources converted with RNE)\n", m.path.c_str(),
              m.tensors.size(), double(raw) / 1048576.0);

  // 1. Analysis.
  auto t0 = Clock::now();
  auto rep = analyze_model(m, AnalyzeOptions{});
  if (!rep.ok()) return fail(a, rep.status().message());
  const Figures& f = rep->total;
  std::printf("== analyze (%.2f s): ratios on 4 KiB blocks with raw bypass\n", secs(t0));
  std::printf("   LZ4 raw %.3f | ZSTD raw %.3f | LZ4 bit-plane %.3f | ZSTD bit-plane %.3f | device image %.3f\n",
              Figures::ratio(f.bytes, f.lz4_raw), Figures::ratio(f.bytes, f.zstd_raw),
              Figures::ratio(f.bytes, f.lz4_bitplane), Figures::ratio(f.bytes, f.zstd_bitplane),
              Figures::ratio(f.bytes, f.device));
  std::printf("   exponent entropy %.3f bits -> entropy reference ratio %.3f; device reaches %.2f%% of it\n",
              f.exponent_entropy_bits(), f.entropy_reference_ratio(),
              100.0 * Figures::ratio(f.bytes, f.device) / f.entropy_reference_ratio());

  // 2. Pack.
  t0 = Clock::now();
  ImageWriter w;
  for (const auto& t : m.tensors) {
    Status s = w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size());
    if (!s.ok()) return fail(a, "tensor '" + t.name + "': " + s.message());
  }
  auto bytes = w.finish();
  if (!bytes.ok()) return fail(a, bytes.status().message());
  double pack_s = secs(t0);
  std::printf("== pack: %llu -> %zu bytes in %.3f s (%.0f MB/s)\n", (unsigned long long)raw, bytes->size(), pack_s,
              double(raw) / pack_s / 1e6);
  if (a.has("--keep")) {
    Status s = write_file(a.get("--keep"), bytes.value());
    if (!s.ok()) return fail(a, s.message());
  }

  // 3. Verify and read back.
  auto img = ImageReader::open_bytes(std::move(bytes.value()));
  if (!img.ok()) return fail(a, img.status().message());
  auto& r = *img.value();
  t0 = Clock::now();
  auto bad = r.verify();
  if (!bad.empty()) return fail(a, std::to_string(bad.size()) + " bad blocks after packing: " + bad[0].message);
  std::printf("== verify: every block decodes and matches its XXH32 (%.3f s)\n", secs(t0));
  t0 = Clock::now();
  std::vector<uint8_t> back;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    Status s = r.read_tensor(i, back);
    if (!s.ok()) return fail(a, s.message());
    if (back != m.tensors[i].data) return fail(a, "tensor '" + m.tensors[i].name + "' did not read back bit-exactly");
  }
  double full_s = secs(t0);
  std::printf("== full read: all %zu tensors bit-exact (%.3f s, %.0f MB/s)\n", m.tensors.size(), full_s,
              double(raw) / full_s / 1e6);

  // 4. Precision regions.
  std::printf("== precision regions (each checked against the golden conversion of the original):\n");
  std::printf("   %-9s %2s %12s %12s %9s %10s %8s\n", "region", "g", "fetched B", "output B", "fetch/raw", "max relerr", "MB/s*");
  struct Want { const char* name; int g; };
  for (Want wnt : {Want{"e8m7", 0}, Want{"e8m3", 0}, Want{"e8m3", 1}, Want{"e8m1", 2}, Want{"fp8-e4m3", 1},
                   Want{"fp8-e5m2", 1}, Want{"fp4-e2m1", 1}, Want{"mxfp8", 1}, Want{"mxfp4", 1}}) {
    ReadStats total;
    uint64_t out_bytes = 0;
    double max_rel = 0, read_s = 0;
    for (size_t i = 0; i < m.tensors.size(); ++i) {
      const Tensor& t = m.tensors[i];
      auto reg = parse_region(wnt.name, t.dtype, wnt.g);
      if (!reg.ok()) return fail(a, reg.status().message());
      ReadStats st;
      auto tr = Clock::now();
      Status s = r.read_region(i, reg.value(), back, &st);
      read_s += secs(tr);
      if (!s.ok()) return fail(a, s.message());
      std::vector<uint8_t> want(region_output_bytes(reg.value(), t.dtype, t.elements));
      s = assemble_region(reg.value(), t.dtype, t.data.data(), t.elements, want.data());
      if (!s.ok()) return fail(a, s.message());
      if (back != want) return fail(a, std::string("region ") + wnt.name + " of '" + t.name + "' differs from the golden conversion");
      total.fetched_bytes += st.fetched_bytes;
      out_bytes += back.size();
      if (reg->kind == RegionKind::kEmK) {  // BF16 words: measure the quantisation error
        for (uint64_t e = 0; e < t.elements; ++e) {
          float x = bits_f32(uint32_t(t.data[2 * e] | t.data[2 * e + 1] << 8) << 16);
          float y = bits_f32(uint32_t(back[2 * e] | back[2 * e + 1] << 8) << 16);
          if (std::isfinite(x) && x != 0) max_rel = std::max(max_rel, double(std::fabs((y - x) / x)));
        }
      }
    }
    char err[16] = "-";
    if (max_rel > 0 || std::string(wnt.name).rfind("e8m", 0) == 0) std::snprintf(err, sizeof err, "%.2e", max_rel);
    std::printf("   %-9s %2d %12llu %12llu %9.3f %10s %8.0f\n", wnt.name, wnt.g, (unsigned long long)total.fetched_bytes,
                (unsigned long long)out_bytes, double(total.fetched_bytes) / double(raw), err, double(raw) / read_s / 1e6);
  }
  std::printf("   (* element bytes per second of read_region: fetch, decode, unpack, assemble)\n");
  std::printf("== done in %.2f s: image ratio %.4f, every check passed\n", secs(t_start),
              double(raw) / double(r.image_bytes()));
  return 0;
}

}  // namespace

NDP_COMMAND("demo", "demo [--model PATH] [--format F] [--keep IMAGE]   (what `make demo` runs)", cmd_demo);

}  // namespace ndp::cli
