// Engine `device`: a stored image (`ndp pack` output) through the whole controller (rtl/device,
// ndp_device) with its DRAM port served by the DDR5-4800 model (sw/dram). The image is loaded the way
// the driver does (store window, descriptors, TENSOR_COUNT, ENABLE), then one region is read through
// its region window: every tensor (or --tensor NAME) sequentially in 4 KiB bursts, or with
// --pattern random, --reads N random 4 KiB-aligned bursts (IDs 0..7 in turn; --track P sets TRACK,
// the chunk-buffer entries parked bursts may hold: 0 answers in request order, the default is the
// reset value C - 2, spec 7.6 "Read tracker"). OUT receives the region bytes; status "ok"
// when they equal `ndp read` (ImageReader::read_region) for the same arguments and every beat is OKAY.
//
// JSON fields: cycles (first AR to last R of the read phase), host_bytes (region bytes returned),
// dram_bytes (CNT_DRAM_RD_BYTES of the read phase), bytes_per_cycle (host bytes per cycle),
// row_hit_rate and dram_energy_nj (DDR5 model, read phase), chunks (decodes), golden_dram_bytes
// (what the golden reader fetches: plane blocks only), burst latency percentiles, lanes, clock, and
// a byte-level baseline on the same DDR5 model (the BF16 words of the same elements, fetched whole:
// baseline_dram_bytes, baseline_energy_nj, baseline_access_energy_nj, baseline_time_ns).
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
  auto reg = [&env](uint64_t off) {
    auto v = dev::csr_read(env, off);
    return v.ok() ? v.value() : ~uint64_t{0};
  };
  return {reg(dev::kCsrCntDramRdBytes), reg(dev::kCsrCntChunks), env.dram_stats()};
}

// The bursts of one read: [off, off + len) of tensor t, at most 4 KiB each, none crossing 4 KiB.
void submit_range(tb::DeviceEnv& env, uint64_t window_base, uint64_t off, uint64_t len, std::vector<size_t>* t) {
  for (uint64_t a = off; a < off + len;) {
    uint64_t n = std::min<uint64_t>(off + len - a, 4096 - a % 4096);
    t->push_back(env.submit_read(window_base + a, static_cast<unsigned>((n + 63) / 64), static_cast<uint32_t>(t->size() % 8)));
    a += (n + 63) / 64 * 64;
  }
}

// --pattern chunk: the first 64-byte line of chunk 0, 1, ... (up to --reads chunks), one at a time
// on an idle device with cold chunk buffers and no prefetch (PREFETCH 0 unless --prefetch says
// otherwise): the latency of a chunk read split into DRAM (host AR to the last DRAM beat of the
// chunk's index and blocks), decode (to the lanes' end: the rest minus the assembly) and reassembly
// (the assembler's ceil(n/AsmLanes) beats + its 10-cycle pipeline + the first line out). Lanes decode
// while their blocks stream in, so "DRAM" holds the decode overlap.
template <class WindowBase>
int chunk_latency(tb::DeviceEnv& env, const std::vector<std::pair<size_t, Region>>& which,
                  const std::vector<std::vector<uint8_t>>& gold, const dev::MapPlan& plan, WindowBase window_base,
                  int64_t reads, uint64_t clock_ps, rtl::EngineResult& r) {
  const dev::Descriptor& d = plan.desc[which[0].first];
  const uint64_t chunks = (d.elems + d.chunk_elems - 1) / d.chunk_elems,
                 rc = region_output_bytes(which[0].second, static_cast<DType>(d.dtype), d.chunk_elems);
  double sum_total = 0, sum_dram = 0, sum_asm = 0;
  uint64_t n = 0, k_max = std::min<uint64_t>(chunks - 1, static_cast<uint64_t>(reads) - 1);
  bool exact = true;
  std::vector<uint8_t> out;
  for (uint64_t k = 0; k <= k_max; ++k, ++n) {
    if (!dev::csr_write(env, dev::kCsrCtrl, dev::kCtrlEnable | dev::kCtrlFlush).ok()) return 1;
    const uint64_t off = k * rc;
    size_t t = env.submit_read(window_base(0) + off, 1, 0);
    if (!env.drain(env.watchdog)) return 1;
    const tb::ReadResult& rr = env.read_result(t);
    exact = exact && rr.resp[0] == 0 && std::equal(rr.data.begin(), rr.data.end(), gold[0].begin() + static_cast<std::ptrdiff_t>(off));
    out.insert(out.end(), rr.data.begin(), rr.data.end());
    const double total = double(rr.first_cycle - rr.ar_cycle), dram = double(env.dram_last_r_cycle() - rr.ar_cycle);
    const uint64_t al = tb::DeviceEnv::kAsmLanes;
    const double asm_cycles = double((std::min<uint64_t>(d.chunk_elems, d.elems - k * d.chunk_elems) + al - 1) / al + 10 + 2);
    sum_total += total;
    sum_dram += dram;
    sum_asm += asm_cycles;
  }
  const double ns = double(clock_ps) / 1000.0;
  r.cycles = static_cast<uint64_t>(sum_total / double(n));
  r.out_bytes = out.size();
  r.status = exact ? "ok" : "mismatch";
  r.add("chunks_measured", n);
  r.add("chunk_latency_cycles", sum_total / double(n));
  r.add("dram_cycles", sum_dram / double(n));
  r.add("decode_cycles", (sum_total - sum_dram - sum_asm) / double(n));
  r.add("assemble_cycles", sum_asm / double(n));
  r.add("chunk_latency_ns", sum_total / double(n) * ns);
  r.add("chunk_elems", uint64_t{d.chunk_elems});
  return exact ? 0 : 1;
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
  int64_t prefetch = a.get_int("--prefetch", -1, &ok);
  const int64_t track = a.get_int("--track", -1, &ok);
  const double mhz = a.get_double("--clock-mhz", 1000.0, &ok);
  const std::string pattern = a.get("--pattern", "seq");
  if (!ok) return 2;
  if (!a.has("--region") || guard < 0 || guard > 2 || mhz <= 0 || reads < 1 || prefetch < -1 || prefetch > 255 ||
      track < -1 || track > 255 ||
      (pattern != "seq" && pattern != "random" && pattern != "chunk")) {
    r.message = "needs --region FORMAT; --guard 0..2, --clock-mhz > 0, --pattern seq|random|chunk, --reads >= 1, "
                "--prefetch 0..255, --track 0..255";
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
  if (pattern == "chunk" && prefetch < 0) prefetch = 0;  // one cold chunk, nothing else in flight
  if (s.ok() && prefetch >= 0) s = dev::csr_write(env, dev::kCsrPrefetch, static_cast<uint64_t>(prefetch));
  if (s.ok() && track >= 0) s = dev::csr_write(env, dev::kCsrTrack, static_cast<uint64_t>(track));
  auto pf = dev::csr_read(env, dev::kCsrPrefetch);
  auto tk = dev::csr_read(env, dev::kCsrTrack);
  if (!s.ok() || !pf.ok() || !tk.ok()) {
    r.message = "load: " + (!s.ok() ? s : !pf.ok() ? pf.status() : tk.status()).message();
    return 2;
  }
  r.add("prefetch", pf.value());
  r.add("track", tk.value());
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
  if (pattern == "chunk") return chunk_latency(env, which, gold, plan, window_base, reads, k.clock_ps, r);
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
  // access energy: activates, reads, writes (refresh and background grow with elapsed time)
  auto active = [](const Ddr5Energy& e) { return e.act_nj + e.rd_nj + e.wr_nj; };
  r.add("dram_energy_nj", d1.energy.total_nj() - d0.energy.total_nj());
  r.add("dram_access_energy_nj", active(d1.energy) - active(d0.energy));
  r.add("device_time_ns", double(r.cycles) * double(k.clock_ps) / 1000.0);
  // Byte-level baseline on the same DRAM model: the full BF16 words of the same elements, read
  // sequentially in 4 KiB requests (the host converts).
  std::vector<Ddr5Access> base_reads;
  uint64_t at = 0;
  auto add_base = [&](uint64_t raw) {
    raw = (raw + 63) / 64 * 64;
    base_reads.push_back({at, raw});
    at += (raw + 4095) / 4096 * 4096;
  };
  if (pattern == "seq") {
    for (size_t i = 0; i < which.size(); ++i) add_base(2 * plan.desc[which[i].first].elems);
  } else {
    for (auto [i, off] : rand_reads) {
      const uint64_t n = plan.desc[which[i].first].elems, len = std::min<uint64_t>(4096, gold[i].size() - off);
      add_base(2 * (len * n + gold[i].size() - 1) / gold[i].size());  // the elements behind len region bytes
    }
  }
  auto bl = ddr5_run_reads(Ddr5Config{}, base_reads);
  if (bl.ok()) {
    uint64_t bytes = 0;
    for (const auto& b : base_reads) bytes += b.bytes;
    r.add("baseline_dram_bytes", bytes);
    r.add("baseline_energy_nj", bl->total.energy.total_nj());
    r.add("baseline_access_energy_nj", active(bl->total.energy));
    r.add("baseline_time_ns", double(bl->elapsed_ps) / 1000.0);
  }
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
               "IMAGE -o OUT --region FORMAT [--guard G] [--tensor NAME] [--lanes N] [--pattern seq|random|chunk] "
               "[--reads N] [--prefetch D] [--track P] [--clock-mhz F]",
               run_device);
