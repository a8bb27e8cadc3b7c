// ndp dev bench IMAGE --backend B [--threads N] [--regions LIST] [--seconds S] [--fault-bytes 4096|2097152]
// Read throughput per region (output bytes per second, every tensor of the image, N threads taking
// chunk-aligned pieces), and the same through mapped regions (map, fault in, sequential scan,
// unmap) with the cost per fault.
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "dev_common.h"

namespace ndp::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Piece {
  size_t tensor;
  Region r;
  uint64_t offset, bytes;
};

struct RegionResult {
  std::string name;
  int guard = 0;
  uint64_t output = 0, fetched = 0, faults = 0;
  double read_gbps = 0, map_gbps = 0, us_per_fault = 0;
};

// "full,e8m3:1,fp8-e4m3:1" -> (name, guard) pairs.
Result<std::vector<std::pair<std::string, int>>> parse_list(const std::string& s) {
  std::vector<std::pair<std::string, int>> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t c = item.find(':');
    const int g = c == std::string::npos ? 0 : std::atoi(item.c_str() + c + 1);
    if (g < 0 || g > 2) return Status::Error("--regions: guard of '" + item + "' must be 0..2");
    out.push_back({item.substr(0, c), g});
  }
  if (out.empty()) return Status::Error("--regions: empty list");
  return out;
}

// The weight tensors that expose region (name, g): whole regions, and pieces of about 4 MiB cut at
// chunk boundaries (so no chunk is decoded twice). Returns the output bytes of one pass.
uint64_t make_pieces(const std::vector<TensorInfo>& ts, const std::vector<size_t>& which, const std::string& name, int g,
                     std::vector<Piece>& pieces, std::vector<Piece>& whole) {
  uint64_t out = 0;
  for (size_t t : which) {
    const TensorInfo& ti = ts[t];
    auto r = parse_region(name, ti.dtype, g);
    if (!r.ok() || ti.kind != TensorKind::kWeight || ti.elems == 0) continue;
    const uint64_t n = region_output_bytes(r.value(), ti.dtype, ti.elems);
    const uint64_t rc = region_output_bytes(r.value(), ti.dtype, ti.chunk_elems);
    const uint64_t step = std::max<uint64_t>(1, (uint64_t{4} << 20) / rc) * rc;
    for (uint64_t o = 0; o < n; o += step) pieces.push_back({t, r.value(), o, std::min(step, n - o)});
    whole.push_back({t, r.value(), 0, n});
    out += n;
  }
  return out;
}

// Run `work(thread)` on n threads; wall seconds.
template <class F>
double on_threads(int n, F work) {
  const auto t0 = Clock::now();
  std::vector<std::thread> th;
  for (int t = 1; t < n; ++t) th.emplace_back(work, t);
  work(0);
  for (auto& x : th) x.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Repeated passes over the pieces until `seconds` have passed: output bytes per second.
Result<double> bench_reads(drv::Device& d, uint32_t img, const std::vector<Piece>& pieces, int threads, double seconds,
                           uint64_t* fetched) {
  uint64_t total = 0, passes = 0;
  double elapsed = 0;
  std::atomic<bool> failed{false};
  std::string err;
  while (passes == 0 || elapsed < seconds) {
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> dev_bytes{0};
    elapsed += on_threads(threads, [&](int) {
      std::vector<uint8_t> buf;
      for (size_t i; (i = next++) < pieces.size();) {
        const Piece& p = pieces[i];
        buf.resize(p.bytes);
        drv::CallStats st;
        Status s = d.read(img, p.tensor, p.r, p.offset, p.bytes, buf.data(), &st);
        if (!s.ok() && !failed.exchange(true)) err = s.message();
        dev_bytes += st.device_bytes;
      }
    });
    if (failed) return Status::Error(err);
    for (const Piece& p : pieces) total += p.bytes;
    if (passes++ == 0) *fetched = dev_bytes;
  }
  return double(total) / elapsed / 1e9;
}

// Map every tensor's region, scan it sequentially on the threads (disjoint slices), unmap.
Result<double> bench_maps(drv::Device& d, uint32_t img, const std::vector<Piece>& whole, int threads, double seconds,
                          uint64_t unit, RegionResult& res) {
  uint64_t total = 0, faults = 0;
  double elapsed = 0;
  while (total == 0 || elapsed < seconds) {
    for (const Piece& p : whole) {
      auto m = d.map(img, p.tensor, p.r, 0, p.bytes, unit);
      if (!m.ok()) return m.status();
      const uint8_t* base = m.value()->data();
      std::atomic<uint64_t> sink{0};
      elapsed += on_threads(threads, [&](int t) {
        const uint64_t per = (p.bytes / threads + 4095) / 4096 * 4096, lo = std::min(p.bytes, per * t),
                       hi = std::min(p.bytes, lo + per);
        uint64_t acc = 0;
        for (uint64_t i = lo; i < hi; i += 8) {
          uint64_t v = 0;
          std::memcpy(&v, base + i, std::min<uint64_t>(8, hi - i));
          acc += v;
        }
        sink += acc;
      });
      if (!m.value()->status().ok()) return m.value()->status();
      faults += m.value()->faults();
      total += p.bytes;
    }
  }
  res.faults = faults;
  res.us_per_fault = faults ? elapsed * 1e6 / double(faults) : 0;
  return double(total) / elapsed / 1e9;
}

int cmd_dev_bench(const Args& a) {
  if (a.pos.empty()) return fail(a, "missing IMAGE");
  auto threads = a.get_int("--threads", 1, 1, 1024), unit = a.get_int("--fault-bytes", 4096, 4096, int64_t{1} << 30);
  if (!threads || !unit) return 1;
  if (*threads < 1 || *threads > 256) return fail(a, "--threads must be 1..256");
  const double seconds = a.has("--seconds") ? std::atof(a.get("--seconds").c_str()) : 1.0;
  auto list = parse_list(a.get("--regions", "full,e8m3:1,fp8-e4m3:1,fp8-e5m2:1,fp4-e2m1:1,mxfp8:1,mxfp4:1"));
  if (!list.ok()) return fail(a, list.status().message());
  auto dev = open_backend(a);
  if (!dev.ok()) return fail(a, dev.status().message());
  drv::Device& d = *dev.value();
  auto img = d.load_file(a.pos[0]);
  if (!img.ok()) return fail(a, img.status().message());
  auto which = select_tensors(a, d, img.value());
  if (!which.ok()) return fail(a, which.status().message());
  std::printf("%s on %s, %d thread(s), pieces of about 4 MiB, maps with %" PRId64 "-byte faults\n", a.pos[0].c_str(),
              d.backend_name().c_str(), static_cast<int>(*threads), *unit);
  std::printf("%-10s %2s %12s %12s %10s %10s %8s %9s\n", "region", "g", "output B", "fetched B", "read GB/s", "map GB/s",
              "faults", "us/fault");
  std::vector<RegionResult> results;
  for (const auto& [name, g] : list.value()) {
    RegionResult res;
    res.name = name;
    res.guard = g;
    std::vector<Piece> pieces, whole;
    res.output = make_pieces(*d.tensors(img.value()), which.value(), name, g, pieces, whole);
    if (pieces.empty()) return fail(a, "no tensor of the image exposes region " + name);
    auto rg = bench_reads(d, img.value(), pieces, static_cast<int>(*threads), seconds, &res.fetched);
    if (!rg.ok()) return fail(a, rg.status().message());
    res.read_gbps = rg.value();
    if (!a.has("--no-map")) {
      auto mg = bench_maps(d, img.value(), whole, static_cast<int>(*threads), seconds, static_cast<uint64_t>(*unit), res);
      if (!mg.ok()) return fail(a, mg.status().message());
      res.map_gbps = mg.value();
    }
    std::printf("%-10s %2d %12" PRIu64 " %12" PRIu64 " %10.3f %10.3f %8" PRIu64 " %9.1f\n", name.c_str(), g, res.output,
                res.fetched, res.read_gbps, res.map_gbps, res.faults, res.us_per_fault);
    results.push_back(res);
  }
  std::string arr = "[";
  for (size_t i = 0; i < results.size(); ++i) {
    const RegionResult& r = results[i];
    arr += (i ? ", " : "") + json_obj({{"region", json_str(r.name)}, {"guard", json_num(uint64_t(r.guard))},
                                       {"output_bytes", json_num(r.output)}, {"device_bytes", json_num(r.fetched)},
                                       {"read_gbps", json_num(r.read_gbps)}, {"map_gbps", json_num(r.map_gbps)},
                                       {"faults", json_num(r.faults)}, {"us_per_fault", json_num(r.us_per_fault)}});
  }
  std::printf("%s\n", json_obj({{"backend", json_str(d.backend_name())}, {"image", json_str(a.pos[0])},
                                {"threads", json_num(uint64_t(*threads))}, {"fault_bytes", json_num(uint64_t(*unit))},
                                {"regions", arr + "]"}, {"status", json_str("ok")}})
                          .c_str());
  return 0;
}

}  // namespace

NDP_COMMAND("dev bench",
            "dev bench IMAGE [--backend B] [--threads N] [--regions full,e8m3:1,...] [--seconds S] "
            "[--fault-bytes 4096|2097152] [--no-map] [--tensor NAME]",
            cmd_dev_bench, {"--no-map"});

}  // namespace ndp::cli
