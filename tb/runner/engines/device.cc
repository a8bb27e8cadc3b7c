// Engine `device`: a stored image (`ndp pack` output) through the whole controller (rtl/device,
// ndp_device) with its DRAM port served by the DDR5-4800 model (sw/dram). The image is loaded the way
// the driver does (store window, descriptors, TENSOR_COUNT, ENABLE), then one region is read through
// its region window: every tensor (or --tensor NAME) sequentially in 4 KiB bursts, or with
// --pattern random, --reads N random 4 KiB-aligned bursts. OUT receives the region bytes; status "ok"
// when they equal `ndp read` (ImageReader::read_region) for the same arguments and every beat is OKAY.
//
// JSON fields: cycles (first AR to last R of the read phase), host_bytes (region bytes returned),
// dram_bytes (CNT_DRAM_RD_BYTES of the read phase), bytes_per_cycle (host bytes per cycle),
// row_hit_rate and dram_energy_nj (DDR5 model, read phase), chunks (decodes), golden_dram_bytes
// (what the golden reader fetches: plane blocks only), burst latency percentiles, lanes, clock.
#include <algorithm>
#include <cstring>

#include "../../device/device_env.h"
#include "engine.h"
#include "ndp/device_map.h"
#include "ndp/image.h"
#include "ndp/precision.h"

namespace {

using namespace ndp;

struct Phase {  // counters at the start of the read phase
  uint64_t dram_rd = 0, chunks = 0;
  Ddr5Stats ddr;
};

Phase snapshot(tb::DeviceEnv& env) {
  return {env.csr(dev::kCsrCntDramRdBytes), env.csr(dev::kCsrCntChunks), env.dram_stats()};
}

// The bursts of one read: [off, off + len) of tensor t, at most 4 KiB each, none crossing 4 KiB.
void submit_range(tb::DeviceEnv& env, uint64_t window_base, uint64_t off, uint64_t len, std::vector<size_t>* t) {
  for (uint64_t a = off; a < off + len;) {
    uint64_t n = std::min<uint64_t>(off + len - a, 4096 - a % 4096);
    t->push_back(env.submit_read(window_base + a, static_cast<unsigned>((n + 63) / 64), static_cast<uint32_t>(t->size() % 8)));
    a += (n + 63) / 64 * 64;
  }
}

int run_device(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  std::vector<uint8_t> image;
  if (!rtl::read_file(a.in_path, &image, &r.message)) return 2;
  auto reader = ImageReader::open_bytes(image);
  if (!reader.ok()) {
    r.message = reader.status().message();
    return 2;
  }
  bool ok = true;
  const int64_t guard = a.get_int("--guard", 0, &ok), lanes = a.get_int("--lanes", 4, &ok),
                reads = a.get_int("--reads", 64, &ok);
  const double mhz = a.get_double("--clock-mhz", 1000.0, &ok);
  const std::string pattern = a.get("--pattern", "seq");
  if (!ok) return 2;
  if (!a.has("--region") || guard < 0 || guard > 2 || mhz <= 0 || reads < 1 || (pattern != "seq" && pattern != "random")) {
    r.message = "needs --region FORMAT; --guard 0..2, --clock-mhz > 0, --pattern seq|random, --reads >= 1";
    return 2;
  }
  if (!tb::DeviceEnv::has_lanes(static_cast<unsigned>(lanes))) {
    r.message = "no " + std::to_string(lanes) + "-lane model in this build (configure -DNDP_DEVICE_LANES=\"1;2;4;8\")";
    return 2;
  }
  const uint64_t base = 0x10000;
  if (image.size() + base > (uint64_t{1} << tb::DeviceEnv::kDramAw)) {
    r.message = "image of " + std::to_string(image.size()) + " bytes does not fit the bench DRAM (64 MiB)";
    return 2;
  }
  tb::DevKnobs k;
  k.host_gaps = a.gaps;
  k.host_bp = a.backpressure;
  k.ddr5 = true;
  k.clock_ps = static_cast<uint64_t>(1e6 / mhz + 0.5);
  tb::DeviceEnv env(a.seed, k, static_cast<unsigned>(lanes));
  env.watchdog = 400000000;
  dev::MapPlan plan;
  Status s = dev::load_image(env, image, base, &plan);
  if (!s.ok()) {
    r.message = "load: " + s.message();
    return 2;
  }
  // the tensors read, with their region
  std::vector<std::pair<size_t, Region>> which;
  for (size_t d = 0; d < plan.desc.size(); ++d) {
    const TensorInfo& ti = (*reader)->tensors()[plan.image_tensor[d]];
    if (a.has("--tensor") && ti.name != a.get("--tensor")) continue;
    auto reg = parse_region(a.get("--region"), ti.dtype, static_cast<int>(guard));
    if (!reg.ok()) {
      r.message = "tensor '" + ti.name + "': " + reg.status().message();
      return 2;
    }
    which.push_back({d, reg.value()});
  }
  if (which.empty()) {
    r.message = a.has("--tensor") ? "no mapped tensor '" + a.get("--tensor") + "'" : "no mapped tensor";
    return 2;
  }
  // golden bytes and what the golden reader fetches
  std::vector<std::vector<uint8_t>> gold(which.size());
  uint64_t golden_fetch = 0;
  for (size_t i = 0; i < which.size(); ++i) {
    ReadStats st;
    if (!(*reader)->read_region(plan.image_tensor[which[i].first], which[i].second, gold[i], &st).ok()) return 2;
    golden_fetch += st.fetched_bytes;
  }
  auto window_base = [&](size_t i) {
    const Region& g = which[i].second;
    uint8_t f = dev::format_number(g, (*reader)->tensors()[plan.image_tensor[which[i].first]].dtype).value();
    return dev::window_address(dev::region_window(f, g.guard), plan.desc[which[i].first].base);
  };
  const Phase p0 = snapshot(env);
  std::vector<size_t> tickets;
  std::vector<std::pair<size_t, uint64_t>> rand_reads;  // (which index, offset)
  if (pattern == "seq") {
    for (size_t i = 0; i < which.size(); ++i) submit_range(env, window_base(i), 0, gold[i].size(), &tickets);
  } else {
    tb::Rng rng(a.seed);
    for (int64_t n = 0; n < reads; ++n) {
      size_t i = rng.range(0, which.size() - 1);
      uint64_t off = rng.range(0, (gold[i].size() - 1) / 4096) * 4096;
      rand_reads.push_back({i, off});
      submit_range(env, window_base(i), off, std::min<uint64_t>(4096, gold[i].size() - off), &tickets);
    }
  }
  if (!env.drain(env.watchdog)) {
    r.message = "no answer within the watchdog";
    return 1;
  }
  const Phase p1 = snapshot(env);
  // output and verdict
  std::vector<uint8_t> out;
  bool exact = true;
  uint64_t t0 = ~uint64_t{0}, t1 = 0;
  std::vector<uint64_t> lat;
  for (size_t t : tickets) {
    const tb::ReadResult& rr = env.read_result(t);
    t0 = std::min(t0, rr.ar_cycle);
    t1 = std::max(t1, rr.last_cycle);
    lat.push_back(rr.last_cycle - rr.ar_cycle);
    for (uint8_t x : rr.resp) exact = exact && x == 0;
  }
  size_t k_t = 0;
  auto take = [&](uint64_t len) {  // the next len region bytes from the bursts in order
    std::vector<uint8_t> v;
    while (v.size() < len) {
      const tb::ReadResult& rr = env.read_result(tickets[k_t++]);
      v.insert(v.end(), rr.data.begin(), rr.data.end());
    }
    v.resize(len);
    return v;
  };
  if (pattern == "seq") {
    for (size_t i = 0; i < which.size(); ++i) {
      std::vector<uint8_t> v = take(gold[i].size());
      exact = exact && v == gold[i];
      out.insert(out.end(), v.begin(), v.end());
    }
  } else {
    for (auto [i, off] : rand_reads) {
      uint64_t len = std::min<uint64_t>(4096, gold[i].size() - off);
      std::vector<uint8_t> v = take(len);
      exact = exact && std::equal(v.begin(), v.end(), gold[i].begin() + static_cast<std::ptrdiff_t>(off));
      out.insert(out.end(), v.begin(), v.end());
    }
  }
  if (!rtl::write_file(a.out_path, out, &r.message)) return 1;
  std::sort(lat.begin(), lat.end());
  const Ddr5ChannelStats& d0 = p0.ddr.total;
  const Ddr5ChannelStats& d1 = p1.ddr.total;
  const uint64_t hits = d1.row_hits - d0.row_hits,
                 bursts = (d1.row_hits + d1.row_misses + d1.row_conflicts) - (d0.row_hits + d0.row_misses + d0.row_conflicts);
  r.cycles = t1 - t0;
  r.in_bytes = image.size();
  r.out_bytes = out.size();
  r.bytes_per_cycle = r.cycles ? double(out.size()) / double(r.cycles) : 0.0;
  r.status = exact ? "ok" : "mismatch";
  if (!exact) r.message = "device output differs from ndp read (or a beat was not OKAY)";
  r.add("host_bytes", uint64_t{out.size()});
  r.add("dram_bytes", p1.dram_rd - p0.dram_rd);
  r.add("golden_dram_bytes", golden_fetch);
  r.add("row_hit_rate", bursts ? double(hits) / double(bursts) : 0.0);
  r.add("dram_energy_nj", d1.energy.total_nj() - d0.energy.total_nj());
  r.add("chunks", p1.chunks - p0.chunks);
  r.add("bursts", uint64_t{tickets.size()});
  r.add("burst_latency_p50", lat[lat.size() / 2]);
  r.add("burst_latency_max", lat.back());
  r.add("lanes", static_cast<uint64_t>(lanes));
  r.add("clock_mhz", mhz);
  r.add("region", a.get("--region"));
  r.add("guard", static_cast<uint64_t>(guard));
  r.add("pattern", pattern);
  return 0;
}

}  // namespace

NDP_RTL_ENGINE("device",
               "IMAGE -o OUT --region FORMAT [--guard G] [--tensor NAME] [--lanes N] [--pattern seq|random] "
               "[--reads N] [--clock-mhz F]",
               run_device);
