// ndp dev demo [--model PATH] [--backend B]: what `make demo` runs. The host driver against the
// emulated CXL node (a node daemon, started on demand): pack the model, load the image into the
// node, read several precision regions of every tensor through the API and one through a mapped
// region, checking every byte against the golden reader and the golden conversion of the original
// weights, a KV stream round trip, and the bytes fetched against the raw size, speed and energy.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "cli_util.h"
#include "dev_common.h"
#include "ndp/demo_model.h"
#include "ndp/image.h"

namespace ndp::cli {
namespace {

using Clock = std::chrono::steady_clock;
double secs(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Result<Model> demo_model(const Args& a) {
  if (!a.has("--model")) return make_demo_model();
  Args la = a;
  la.pos = {a.get("--model")};
  la.opt["--as"] = "bf16";
  return load_model_arg(la);
}

// One region of every tensor through Device::read_region: equal to the golden reader and to the
// golden conversion of the original data. Prints one table row.
Status demo_region(drv::Device& d, uint32_t img, const Model& m, ImageReader& gold, const char* name, int g,
                   uint64_t raw) {
  drv::CallStats total;
  uint64_t out_bytes = 0;
  std::vector<uint8_t> got, want, conv;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    auto r = parse_region(name, t.dtype, g);
    if (!r.ok()) return r.status();
    drv::CallStats st;
    NDP_RETURN_IF_ERROR(d.read_region(img, i, r.value(), got, &st));
    total.add(st);
    NDP_RETURN_IF_ERROR(gold.read_region(i, r.value(), want));
    conv.resize(region_output_bytes(r.value(), t.dtype, t.elements));
    NDP_RETURN_IF_ERROR(assemble_region(r.value(), t.dtype, t.data.data(), t.elements, conv.data()));
    if (got != want || got != conv)
      return Status::Error(std::string("region ") + name + " of '" + t.name + "' differs from the golden model");
    out_bytes += got.size();
  }
  std::printf("   %-9s %d %12" PRIu64 " %12" PRIu64 " %9.3f %12" PRIu64 " %8.0f\n", name, g, out_bytes,
              total.device_bytes, double(total.device_bytes) / double(raw), total.link_bytes,
              double(out_bytes) / total.seconds / 1e6);
  return Status::Ok();
}

// The largest tensor's fp8-e4m3 region through a mapping, scanned and compared.
Status demo_map(drv::Device& d, uint32_t img, const Model& m, ImageReader& gold) {
  size_t big = 0;
  for (size_t i = 0; i < m.tensors.size(); ++i)
    if (m.tensors[i].elements > m.tensors[big].elements) big = i;
  const Region r = parse_region("fp8-e4m3", m.tensors[big].dtype, 1).value();
  std::vector<uint8_t> want;
  NDP_RETURN_IF_ERROR(gold.read_region(big, r, want));
  auto t0 = Clock::now();
  auto map = d.map(img, big, r, 0, want.size());
  if (!map.ok()) return map.status();
  const bool same = std::memcmp(map.value()->data(), want.data(), want.size()) == 0;
  const double s = secs(t0);
  NDP_RETURN_IF_ERROR(map.value()->status());
  if (!same) return Status::Error("mapped region differs from the golden region");
  std::printf("== map: fp8-e4m3 (g=1) of '%s' mapped, %zu bytes scanned bit-exact: %" PRIu64
              " faults of 4 KiB, %.1f us each, %.0f MB/s\n",
              m.tensors[big].name.c_str(), want.size(), map.value()->faults(), s * 1e6 / double(map.value()->faults()),
              double(want.size()) / s / 1e6);
  return Status::Ok();
}

// KV-like words (per-channel magnitudes drifting over tokens) through a KV stream.
Status demo_kv(drv::Device& d) {
  const KvGeometry g{32, 128, 1};
  const uint64_t tokens = 200, per = 128;
  std::vector<uint16_t> in(tokens * per), out(in.size());
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (uint64_t i = 0; i < in.size(); ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i] = static_cast<uint16_t>((x & 0x8000) | (118 + (i % per) % 11) << 7 | (x >> 20 & 0x7F));
  }
  auto id = d.kv_create(DType::kBF16, g);
  if (!id.ok()) return id.status();
  drv::CallStats w, r;
  NDP_RETURN_IF_ERROR(d.kv_append(id.value(), in.data(), tokens, &w));
  NDP_RETURN_IF_ERROR(d.kv_read(id.value(), 0, tokens, out.data(), &r));
  NDP_RETURN_IF_ERROR(d.kv_free(id.value()));
  if (in != out) return Status::Error("KV stream did not read back bit-exactly");
  std::printf("== kv: %" PRIu64 " tokens x %" PRIu64 " channels appended and read back bit-exact; 6 full windows "
              "read %" PRIu64 " device bytes for %" PRIu64 " raw (%.3f)\n",
              tokens, per, r.device_bytes, 2 * 6 * 32 * per, double(r.device_bytes) / double(2 * 6 * 32 * per));
  return Status::Ok();
}

int cmd_dev_demo(const Args& a) {
  const auto t_start = Clock::now();
  auto m = demo_model(a);
  if (!m.ok()) return fail(a, m.status().message());
  ImageWriter w;
  uint64_t raw = 0;
  for (const auto& t : m->tensors) {
    Status s = w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size());
    if (!s.ok()) return fail(a, "tensor '" + t.name + "': " + s.message());
    raw += t.data.size();
  }
  auto image = w.finish();
  if (!image.ok()) return fail(a, image.status().message());
  std::printf("== input: %s, %zu tensors, %.2f MiB of BF16; image %zu bytes (ratio %.4f)\n",
              m->path.empty() ? "embedded demo model" : m->path.c_str(), m->tensors.size(), double(raw) / 1048576.0,
              image->size(), double(raw) / double(image->size()));
  auto dev = open_backend(a);
  if (!dev.ok()) return fail(a, dev.status().message());
  drv::Device& d = *dev.value();
  const double energy0 = d.stats().dram_energy_nj;  // a running node has its own past
  auto t0 = Clock::now();
  auto img = d.load(image->data(), image->size());
  if (!img.ok()) return fail(a, img.status().message());
  std::printf("== device %s: image loaded in %.3f s (store window), %zu tensors mapped in the region windows\n",
              d.backend_name().c_str(), secs(t0), d.tensors(img.value())->size());
  auto gold = ImageReader::open_bytes(image.value());
  if (!gold.ok()) return fail(a, gold.status().message());
  std::printf("== regions through the API (each byte checked against the golden reader and conversion):\n");
  std::printf("   %-9s %s %12s %12s %9s %12s %8s\n", "region", "g", "output B", "device B", "dev/raw", "link B", "MB/s");
  struct Want {
    const char* name;
    int g;
  };
  for (Want x : {Want{"full", 0}, Want{"e8m3", 1}, Want{"e8m1", 2}, Want{"fp8-e4m3", 1}, Want{"fp4-e2m1", 1},
                 Want{"mxfp8", 1}, Want{"mxfp4", 1}}) {
    Status s = demo_region(d, img.value(), m.value(), *gold.value(), x.name, x.g, raw);
    if (!s.ok()) return fail(a, s.message());
  }
  std::printf("   (device B: device DRAM bytes the node read; raw: %" PRIu64 " bytes of BF16)\n", raw);
  Status s = demo_map(d, img.value(), m.value(), *gold.value());
  if (s.ok()) s = demo_kv(d);
  if (!s.ok()) return fail(a, s.message());
  const drv::DeviceStats ds = d.stats();
  if (ds.failed_calls || ds.total.errors) return fail(a, "the device reported errors");
  std::printf("== done in %.2f s: %" PRIu64 " driver calls, %" PRIu64 " device bytes, %.1f uJ of DRAM energy, "
              "0 errors; every check passed\n",
              secs(t_start), ds.calls, ds.total.device_bytes, (ds.dram_energy_nj - energy0) / 1000.0);
  return 0;
}

}  // namespace

NDP_COMMAND("dev demo", "dev demo [--model PATH] [--backend B]   (what `make demo` runs)", cmd_dev_demo);

}  // namespace ndp::cli
