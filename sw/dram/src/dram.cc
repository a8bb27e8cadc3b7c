// DDR5 controller model (see ndp/dram.h and docs/dram.md).
#include "ndp/dram.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <sstream>

namespace ndp {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kOffsetBits = 6;      // 64-byte bursts
constexpr size_t kLatencyBuckets = 8192;  // cycles; the last bucket collects longer latencies

bool pow2(uint64_t v) { return v && !(v & (v - 1)); }
uint32_t log2u(uint64_t v) {
  uint32_t n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

enum Cls : uint8_t { kHit = 0, kMiss = 1, kConflict = 2 };

}  // namespace

// ---------------------------------------------------------------- config

uint64_t Ddr5Config::channel_bytes() const {
  return static_cast<uint64_t>(rows) * columns * device_width / 8 * devices_per_rank * banks();
}

double Ddr5Config::peak_bytes_per_ns() const {
  return static_cast<double>(channels) * burst_bytes() / (burst_cycles() * (tck_ps / 1000.0));
}

Status Ddr5Config::validate() const {
  struct NZ { const char* n; uint64_t v; };
  for (const NZ& f : {NZ{"tck_ps", tck_ps}, NZ{"CL", CL}, NZ{"CWL", CWL}, NZ{"tRCD", tRCD}, NZ{"tRP", tRP},
                      NZ{"tRAS", tRAS}, NZ{"tRC", tRC}, NZ{"tCCD_S", tCCD_S}, NZ{"tCCD_L", tCCD_L},
                      NZ{"tREFI", tREFI}, NZ{"tRFC", tRFC}, NZ{"queue_depth", queue_depth},
                      NZ{"starvation_cap", starvation_cap}, NZ{"device_width", device_width},
                      NZ{"devices_per_rank", devices_per_rank}}) {
    if (f.v == 0) return Status::Error("ddr5 config: " + std::string(f.n) + " must be > 0");
  }
  struct P2 { const char* n; uint64_t v; };
  for (const P2& f : {P2{"channels", channels}, P2{"bankgroups", bankgroups},
                      P2{"banks_per_group", banks_per_group}, P2{"rows", rows}, P2{"columns", columns},
                      P2{"burst_length", burst_length}}) {
    if (!pow2(f.v)) return Status::Error("ddr5 config: " + std::string(f.n) + " must be a power of two");
  }
  if (burst_length < 2 || columns < burst_length) return Status::Error("ddr5 config: columns < burst_length");
  if (burst_bytes() != 64)
    return Status::Error("ddr5 config: burst_length * device_width * devices_per_rank must be 512 bits (64 B)");
  if (bankgroups > 255 || banks() > 65535) return Status::Error("ddr5 config: too many banks");
  if (tREFI <= tRFC && refresh) return Status::Error("ddr5 config: tREFI must exceed tRFC");
  // address map: five distinct fields
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : address_map) {
    if (ch == ':') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ch);
    }
  }
  parts.push_back(cur);
  if (parts.size() != 5) return Status::Error("ddr5 config: address_map needs 5 fields (ro, ba, bg, co, ch)");
  for (const char* need : {"ro", "ba", "bg", "co", "ch"}) {
    if (std::count(parts.begin(), parts.end(), std::string(need)) != 1)
      return Status::Error("ddr5 config: address_map '" + address_map + "' must name '" + need + "' once");
  }
  if (kOffsetBits + log2u(channels) + log2u(bankgroups) + log2u(banks_per_group) + log2u(rows) +
          log2u(columns / burst_length) > 60)
    return Status::Error("ddr5 config: address space wider than 60 bits");
  return Status::Ok();
}

Ddr5EnergyModel Ddr5EnergyModel::from(const Ddr5Config& c) {
  // mA * V * ns = pJ; /1000 -> nJ.
  const double k = c.tck_ps / 1000.0 * c.devices_per_rank / 1000.0;
  const double banks = c.banks();
  const double idd3n_1 = c.idd2n + (c.idd3n - c.idd2n) / banks;
  const double ipp3n_1 = c.ipp2n + (c.ipp3n - c.ipp2n) / banks;
  Ddr5EnergyModel m;
  m.act_nj = (c.vdd * (c.idd0 * c.tRC - (idd3n_1 * c.tRAS + c.idd2n * c.tRP)) +
              c.vpp * (c.ipp0 * c.tRC - (ipp3n_1 * c.tRAS + c.ipp2n * c.tRP))) * k;
  m.rd_nj = (c.vdd * (c.idd4r - c.idd3n) + c.vpp * (c.ipp4r - c.ipp3n)) * c.burst_cycles() * k;
  m.wr_nj = (c.vdd * (c.idd4w - c.idd3n) + c.vpp * (c.ipp4w - c.ipp3n)) * c.burst_cycles() * k;
  m.ref_nj = (c.vdd * (c.idd5b - c.idd3n) + c.vpp * (c.ipp5b - c.ipp3n)) * c.tRFC * k;
  m.act_stby_nj_per_cycle = (c.vdd * c.idd3n + c.vpp * c.ipp3n) * k;
  m.pre_stby_nj_per_cycle = (c.vdd * c.idd2n + c.vpp * c.ipp2n) * k;
  return m;
}

// ---------------------------------------------------------------- stats

double Ddr5ChannelStats::row_hit_rate() const {
  uint64_t n = row_hits + row_misses + row_conflicts;
  return n ? static_cast<double>(row_hits) / n : 0.0;
}

void Ddr5ChannelStats::add(const Ddr5ChannelStats& o) {
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  read_bursts += o.read_bursts;
  write_bursts += o.write_bursts;
  activates += o.activates;
  precharges += o.precharges;
  refreshes += o.refreshes;
  row_hits += o.row_hits;
  row_misses += o.row_misses;
  row_conflicts += o.row_conflicts;
  active_cycles += o.active_cycles;
  precharged_cycles += o.precharged_cycles;
  energy.act_nj += o.energy.act_nj;
  energy.rd_nj += o.energy.rd_nj;
  energy.wr_nj += o.energy.wr_nj;
  energy.ref_nj += o.energy.ref_nj;
  energy.background_nj += o.energy.background_nj;
}

double Ddr5Stats::avg_latency_ns() const {
  return requests_done ? latency_sum_ps / 1000.0 / requests_done : 0.0;
}

uint64_t Ddr5Stats::latency_percentile_ps(double p) const {
  if (!requests_done) return 0;
  p = std::clamp(p, 0.0, 1.0);
  uint64_t need = static_cast<uint64_t>(p * requests_done + 0.999999);
  if (need == 0) need = 1;
  uint64_t acc = 0;
  for (size_t i = 0; i < latency_hist.size(); ++i) {
    acc += latency_hist[i];
    if (acc >= need) return i + 1 == latency_hist.size() ? latency_max_ps : i * tck_ps;
  }
  return latency_max_ps;
}

double Ddr5Stats::bandwidth_gbps() const {
  return elapsed_ps ? static_cast<double>(total.bytes_read + total.bytes_written) * 1000.0 / elapsed_ps : 0.0;
}

namespace {
void json_channel(std::ostringstream& o, const Ddr5ChannelStats& s) {
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "{\"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64 ", \"read_bursts\": %" PRIu64
                ", \"write_bursts\": %" PRIu64 ", \"activates\": %" PRIu64 ", \"precharges\": %" PRIu64
                ", \"refreshes\": %" PRIu64 ", \"row_hits\": %" PRIu64 ", \"row_misses\": %" PRIu64
                ", \"row_conflicts\": %" PRIu64 ", \"row_hit_rate\": %.6f, \"active_cycles\": %" PRIu64
                ", \"precharged_cycles\": %" PRIu64
                ", \"energy_nj\": {\"act\": %.3f, \"rd\": %.3f, \"wr\": %.3f, \"ref\": %.3f, "
                "\"background\": %.3f, \"total\": %.3f}}",
                s.bytes_read, s.bytes_written, s.read_bursts, s.write_bursts, s.activates, s.precharges,
                s.refreshes, s.row_hits, s.row_misses, s.row_conflicts, s.row_hit_rate(), s.active_cycles,
                s.precharged_cycles, s.energy.act_nj, s.energy.rd_nj, s.energy.wr_nj, s.energy.ref_nj,
                s.energy.background_nj, s.energy.total_nj());
  o << buf;
}
}  // namespace

std::string Ddr5Stats::to_json() const {
  std::ostringstream o;
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "{\"elapsed_ps\": %" PRIu64 ", \"tck_ps\": %" PRIu64 ", \"requests_done\": %" PRIu64
                ", \"latency_avg_ns\": %.3f, \"latency_p50_ns\": %.3f, \"latency_p99_ns\": %.3f"
                ", \"latency_max_ns\": %.3f, \"bandwidth_gbps\": %.3f, \"total\": ",
                elapsed_ps, tck_ps, requests_done, avg_latency_ns(), latency_percentile_ps(0.5) / 1000.0,
                latency_percentile_ps(0.99) / 1000.0, latency_max_ps / 1000.0, bandwidth_gbps());
  o << buf;
  json_channel(o, total);
  o << ", \"channels\": [";
  for (size_t i = 0; i < channel.size(); ++i) {
    if (i) o << ", ";
    json_channel(o, channel[i]);
  }
  o << "]}";
  return o.str();
}

// ---------------------------------------------------------------- model

Result<Ddr5Model> Ddr5Model::create(const Ddr5Config& cfg) {
  Status st = cfg.validate();
  if (!st.ok()) return st;
  return Ddr5Model(cfg);
}

Ddr5Model::Ddr5Model(const Ddr5Config& cfg) : cfg_(cfg), em_(Ddr5EnergyModel::from(cfg)) {
  // Fields from the map string, least significant last.
  std::vector<std::string> parts;
  std::string cur;
  for (char c : cfg_.address_map) {
    if (c == ':') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  uint32_t shift = kOffsetBits;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    Field* f = nullptr;
    uint32_t bits = 0;
    if (*it == "ch") f = &f_ch_, bits = log2u(cfg_.channels);
    if (*it == "bg") f = &f_bg_, bits = log2u(cfg_.bankgroups);
    if (*it == "ba") f = &f_ba_, bits = log2u(cfg_.banks_per_group);
    if (*it == "ro") f = &f_ro_, bits = log2u(cfg_.rows);
    if (*it == "co") f = &f_co_, bits = log2u(cfg_.columns / cfg_.burst_length);
    if (!f) continue;  // validate() rejects this
    f->shift = shift;
    f->bits = bits;
    shift += bits;
  }
  ch_.resize(cfg_.channels);
  for (Channel& c : ch_) {
    c.banks.resize(cfg_.banks());
    c.bg_act_ok.assign(cfg_.bankgroups, 0);
    c.bg_rd_ok.assign(cfg_.bankgroups, 0);
    c.bg_wr_ok.assign(cfg_.bankgroups, 0);
    c.has_hit.assign(cfg_.banks(), 0);
    c.window.reserve(cfg_.queue_depth);
    c.next_ref = cfg_.refresh ? cfg_.tREFI : kNever;
    c.wake = c.next_ref;
  }
  lat_hist_.assign(kLatencyBuckets, 0);
}

void Ddr5Model::decode(uint64_t addr, uint32_t& ch, Burst& b) const {
  auto get = [addr](const Field& f) -> uint32_t {
    return static_cast<uint32_t>((addr >> f.shift) & ((uint64_t{1} << f.bits) - 1));
  };
  ch = get(f_ch_);
  uint32_t bg = get(f_bg_);
  b.bg = static_cast<uint8_t>(bg);
  b.bank = static_cast<uint16_t>(bg * cfg_.banks_per_group + get(f_ba_));
  b.row = get(f_ro_);
}

Status Ddr5Model::check(const Ddr5Request& r) const {
  const uint32_t bb = cfg_.burst_bytes();
  if (r.bytes == 0) return Status::Error("ddr5: request of 0 bytes (tag " + std::to_string(r.tag) + ")");
  if (r.bytes % bb) return Status::Error("ddr5: request bytes " + std::to_string(r.bytes) + " not a multiple of 64");
  if (r.addr % bb) return Status::Error("ddr5: request address " + std::to_string(r.addr) + " not 64-byte aligned");
  if (r.addr >= cfg_.capacity_bytes() || r.bytes > cfg_.capacity_bytes() - r.addr)
    return Status::Error("ddr5: request [" + std::to_string(r.addr) + ", +" + std::to_string(r.bytes) +
                         ") beyond capacity " + std::to_string(cfg_.capacity_bytes()));
  return Status::Ok();
}

bool Ddr5Model::can_accept(const Ddr5Request& r) const {
  const uint32_t bb = cfg_.burst_bytes();
  uint32_t n = r.bytes / bb;
  // A request touches min(n, channels) channels in the default map; check each burst's channel until all
  // channels have been seen (bounded by n).
  std::vector<uint8_t> seen(cfg_.channels, 0);
  uint32_t distinct = 0;
  for (uint32_t i = 0; i < n && distinct < cfg_.channels; ++i) {
    uint32_t c;
    Burst b;
    decode(r.addr + static_cast<uint64_t>(i) * bb, c, b);
    if (seen[c]) continue;
    seen[c] = 1;
    ++distinct;
    if (ch_[c].window.size() + ch_[c].overflow.size() >= cfg_.queue_depth) return false;
  }
  return true;
}

Result<bool> Ddr5Model::submit(const Ddr5Request& r) {
  NDP_RETURN_IF_ERROR(check(r));
  if (!can_accept(r)) return false;
  const uint32_t bb = cfg_.burst_bytes();
  uint32_t id;
  if (!free_reqs_.empty()) {
    id = free_reqs_.back();
    free_reqs_.pop_back();
  } else {
    id = static_cast<uint32_t>(reqs_.size());
    reqs_.emplace_back();
  }
  Req& q = reqs_[id];
  q.r = r;
  q.arrive = now_;
  q.remaining = r.bytes / bb;
  q.done = now_;
  q.seq = seq_++;
  ++unissued_;
  for (uint32_t i = 0; i < q.remaining; ++i) {
    uint32_t c;
    Burst b;
    decode(r.addr + static_cast<uint64_t>(i) * bb, c, b);
    b.req = id;
    b.write = r.write;
    Channel& ch = ch_[c];
    if (ch.window.size() < cfg_.queue_depth && ch.overflow.empty()) {
      ch.window.push_back(b);
    } else {
      ch.overflow.push_back(b);
    }
    ch.wake = std::min(ch.wake, now_);
  }
  return true;
}

void Ddr5Model::refill(Channel& c) {
  while (c.window.size() < cfg_.queue_depth && !c.overflow.empty()) {
    c.window.push_back(c.overflow.front());
    c.overflow.pop_front();
  }
}

bool Ddr5Model::pop_completion(Ddr5Completion& out) {
  if (done_.empty() || done_.top().cycle > now_) return false;
  Done d = done_.top();
  done_.pop();
  Req& q = reqs_[d.req];
  out.tag = q.r.tag;
  out.addr = q.r.addr;
  out.bytes = q.r.bytes;
  out.write = q.r.write;
  out.submit_ps = q.arrive * cfg_.tck_ps;
  out.done_ps = q.done * cfg_.tck_ps;
  free_reqs_.push_back(d.req);
  return true;
}

void Ddr5Model::tick() { run_until(now_ + 1); }

void Ddr5Model::advance_to(uint64_t t_ps) {
  uint64_t target = t_ps / cfg_.tck_ps + (t_ps % cfg_.tck_ps ? 1 : 0);
  if (target > now_) run_until(target);
}

uint64_t Ddr5Model::drain() {
  while (unissued_ > 0) {
    uint64_t next = kNever;
    for (const Channel& c : ch_) {
      if (!c.window.empty() || !c.overflow.empty()) next = std::min(next, c.wake);
    }
    run_until(std::max(next, now_) + 1);
  }
  if (last_done_ > now_) run_until(last_done_);
  return now_ps();
}

uint64_t Ddr5Model::next_event_ps() const {
  uint64_t next = kNever;
  for (const Channel& c : ch_) {
    if (!c.window.empty() || !c.overflow.empty()) next = std::min(next, c.wake);
  }
  if (!done_.empty()) next = std::min(next, done_.top().cycle);
  if (next == kNever) return kNever;
  return std::max(next, now_) * cfg_.tck_ps;
}

void Ddr5Model::run_until(uint64_t target) {
  while (now_ < target) {
    const uint64_t t = now_;
    uint64_t next = kNever;
    for (uint32_t i = 0; i < ch_.size(); ++i) {
      if (ch_[i].wake <= t) schedule(i, t);
      next = std::min(next, ch_[i].wake);
    }
    uint64_t step = std::max(t + 1, next);
    now_ = std::min(target, step);
  }
  while (!future_done_.empty() && future_done_.top() <= now_) future_done_.pop();
}

void Ddr5Model::background_upto(const Channel& c, uint64_t t, uint64_t& act, uint64_t& pre) const {
  act = pre = 0;
  if (t <= c.bg_last) return;
  uint64_t d = t - c.bg_last;
  if (c.open_banks > 0) {
    act = d;
    return;
  }
  uint64_t lo = std::max(c.bg_last, c.ref_start), hi = std::min(t, c.ref_end);
  uint64_t ov = hi > lo ? hi - lo : 0;
  act = ov;
  pre = d - ov;
}

void Ddr5Model::account_background(Channel& c, uint64_t t) const {
  uint64_t a, p;
  background_upto(c, t, a, p);
  c.st.active_cycles += a;
  c.st.precharged_cycles += p;
  c.bg_last = std::max(c.bg_last, t);
}

void Ddr5Model::issue_column(Channel& c, size_t idx, uint64_t t) {
  const Burst b = c.window[idx];
  Bank& bk = c.banks[b.bank];
  const Ddr5Config& k = cfg_;
  const uint64_t bc = k.burst_cycles();
  uint64_t done;
  if (!b.write) {
    bk.pre_ok = std::max(bk.pre_ok, t + k.tRTP);
    c.bg_rd_ok[b.bg] = std::max(c.bg_rd_ok[b.bg], t + k.tCCD_L);
    c.rd_ok = std::max(c.rd_ok, t + k.tCCD_S);
    // read to write turnaround: CL - CWL + burst + 2 (read postamble / write preamble)
    uint64_t rtw = t + k.CL + bc + 2 - std::min<uint64_t>(k.CWL, k.CL + bc + 2);
    c.bg_wr_ok[b.bg] = std::max({c.bg_wr_ok[b.bg], rtw, t + k.tCCD_L});
    c.wr_ok = std::max(c.wr_ok, rtw);
    done = t + k.CL + bc;
    c.st.read_bursts++;
    c.st.bytes_read += k.burst_bytes();
  } else {
    const uint64_t data_end = t + k.CWL + bc;
    bk.pre_ok = std::max(bk.pre_ok, data_end + k.tWR);
    c.bg_wr_ok[b.bg] = std::max(c.bg_wr_ok[b.bg], t + k.tCCD_L_WR);
    c.wr_ok = std::max(c.wr_ok, t + k.tCCD_S);
    c.bg_rd_ok[b.bg] = std::max(c.bg_rd_ok[b.bg], data_end + k.tWTR_L);
    c.rd_ok = std::max(c.rd_ok, data_end + k.tWTR_S);
    done = data_end;
    c.st.write_bursts++;
    c.st.bytes_written += k.burst_bytes();
  }
  if (b.cls == kHit) c.st.row_hits++;
  else if (b.cls == kMiss) c.st.row_misses++;
  else c.st.row_conflicts++;
  for (size_t j = 0; j < idx; ++j) c.window[j].bypassed++;
  c.window.erase(c.window.begin() + static_cast<std::ptrdiff_t>(idx));
  refill(c);

  Req& q = reqs_[b.req];
  q.done = std::max(q.done, done);
  if (--q.remaining == 0) {
    done_.push(Done{q.done, q.seq, b.req});
    uint64_t lat = q.done - q.arrive;
    requests_done_++;
    lat_sum_ += lat * cfg_.tck_ps;
    lat_max_ = std::max(lat_max_, lat * cfg_.tck_ps);
    lat_hist_[std::min<uint64_t>(lat, kLatencyBuckets - 1)]++;
    // Fully issued: the request stays outstanding until its done cycle is reached.
    --unissued_;
    future_done_.push(q.done);
    last_done_ = std::max(last_done_, q.done);
  }
}

void Ddr5Model::schedule(uint32_t ci, uint64_t t) {
  Channel& c = ch_[ci];
  const Ddr5Config& k = cfg_;
  c.wake = kNever;

  // ---- refresh: due -> close every bank -> REF, blocking the rank for tRFC ----
  if (k.refresh && t >= c.next_ref) c.ref_pending = true;
  if (c.ref_pending) {
    if (c.open_banks > 0) {
      uint64_t earliest = kNever;
      for (Bank& bk : c.banks) {
        if (bk.open_row < 0) continue;
        if (bk.pre_ok <= t) {
          account_background(c, t);
          bk.open_row = -1;
          bk.act_ok = std::max(bk.act_ok, t + k.tRP);
          c.open_banks--;
          c.st.precharges++;
          c.wake = t + 1;
          return;
        }
        earliest = std::min(earliest, bk.pre_ok);
      }
      c.wake = earliest;
      return;
    }
    uint64_t ready = t;
    for (const Bank& bk : c.banks) ready = std::max(ready, bk.act_ok);
    if (ready > t) {
      c.wake = ready;
      return;
    }
    account_background(c, t);
    c.ref_start = t;
    c.ref_end = t + k.tRFC;
    for (Bank& bk : c.banks) bk.act_ok = std::max(bk.act_ok, c.ref_end);
    c.next_ref += k.tREFI;
    c.ref_pending = false;
    c.st.refreshes++;
    c.wake = std::min(c.window.empty() ? kNever : c.ref_end, c.next_ref);
    if (c.next_ref <= t) c.wake = t + 1;  // far behind (cannot happen with tREFI > tRFC)
    return;
  }

  if (c.window.empty()) {
    c.wake = c.next_ref;
    return;
  }

  auto act_ready = [&](const Burst& b) {
    uint64_t r = std::max({c.banks[b.bank].act_ok, c.bg_act_ok[b.bg], c.act_ok});
    if (c.faw_n == 4) r = std::max(r, c.faw[c.faw_pos] + k.tFAW);  // oldest of the last four ACTs
    return r;
  };
  auto col_ready = [&](const Burst& b) {
    const Bank& bk = c.banks[b.bank];
    return b.write ? std::max({bk.col_ok, c.bg_wr_ok[b.bg], c.wr_ok})
                   : std::max({bk.col_ok, c.bg_rd_ok[b.bg], c.rd_ok});
  };

  uint64_t earliest = c.next_ref;
  const bool urgent = c.window.front().bypassed >= k.starvation_cap;
  const size_t n = urgent ? 1 : c.window.size();

  // Pass 1: row hits, oldest first.
  std::fill(c.has_hit.begin(), c.has_hit.end(), 0);
  for (size_t i = 0; i < n; ++i) {
    const Burst& b = c.window[i];
    const Bank& bk = c.banks[b.bank];
    if (bk.open_row != static_cast<int64_t>(b.row)) continue;
    c.has_hit[b.bank] = 1;
    uint64_t r = col_ready(b);
    if (r <= t) {
      issue_column(c, i, t);
      c.wake = t + 1;
      return;
    }
    earliest = std::min(earliest, r);
  }
  // Pass 2: the oldest miss (ACT) or conflict (PRE, only if no queued hit wants the open row).
  for (size_t i = 0; i < n; ++i) {
    Burst& b = c.window[i];
    Bank& bk = c.banks[b.bank];
    if (bk.open_row == static_cast<int64_t>(b.row)) continue;
    if (bk.open_row < 0) {
      uint64_t r = act_ready(b);
      if (r <= t) {
        account_background(c, t);
        bk.open_row = b.row;
        bk.col_ok = t + k.tRCD;
        bk.pre_ok = t + k.tRAS;
        bk.act_ok = t + k.tRC;
        c.bg_act_ok[b.bg] = t + k.tRRD_L;
        c.act_ok = t + k.tRRD_S;
        if (c.faw_n < 4) {
          c.faw[c.faw_n++] = t;
        } else {
          c.faw[c.faw_pos] = t;
          c.faw_pos = (c.faw_pos + 1) % 4;
        }
        c.open_banks++;
        c.st.activates++;
        if (b.cls == kHit) b.cls = kMiss;
        c.wake = t + 1;
        return;
      }
      earliest = std::min(earliest, r);
    } else {
      if (c.has_hit[b.bank] && !urgent) continue;
      uint64_t r = bk.pre_ok;
      if (r <= t) {
        account_background(c, t);
        bk.open_row = -1;
        bk.act_ok = std::max(bk.act_ok, t + k.tRP);
        c.open_banks--;
        c.st.precharges++;
        b.cls = kConflict;
        c.wake = t + 1;
        return;
      }
      earliest = std::min(earliest, r);
    }
  }
  c.wake = std::max(earliest, t + 1);
}

Ddr5Stats Ddr5Model::stats() const {
  Ddr5Stats s;
  s.elapsed_ps = now_ps();
  s.tck_ps = cfg_.tck_ps;
  s.channel.resize(ch_.size());
  for (size_t i = 0; i < ch_.size(); ++i) {
    Ddr5ChannelStats cs = ch_[i].st;
    uint64_t a, p;
    background_upto(ch_[i], now_, a, p);
    cs.active_cycles += a;
    cs.precharged_cycles += p;
    cs.energy.act_nj = cs.activates * em_.act_nj;
    cs.energy.rd_nj = cs.read_bursts * em_.rd_nj;
    cs.energy.wr_nj = cs.write_bursts * em_.wr_nj;
    cs.energy.ref_nj = cs.refreshes * em_.ref_nj;
    cs.energy.background_nj =
        cs.active_cycles * em_.act_stby_nj_per_cycle + cs.precharged_cycles * em_.pre_stby_nj_per_cycle;
    s.channel[i] = cs;
    s.total.add(cs);
  }
  s.requests_done = requests_done_;
  s.latency_sum_ps = lat_sum_;
  s.latency_max_ps = lat_max_;
  s.latency_hist = lat_hist_;
  return s;
}

// ---------------------------------------------------------------- byte baseline

Result<Ddr5Stats> ddr5_run_reads(const Ddr5Config& cfg, const std::vector<Ddr5Access>& reads,
                                 uint32_t max_request_bytes) {
  auto mr = Ddr5Model::create(cfg);
  if (!mr.ok()) return mr.status();
  Ddr5Model& m = mr.value();
  const uint64_t bb = cfg.burst_bytes();
  if (max_request_bytes < bb) max_request_bytes = static_cast<uint32_t>(bb);
  max_request_bytes -= max_request_bytes % bb;
  uint64_t tag = 0;
  Ddr5Completion done;
  for (const Ddr5Access& a : reads) {
    if (a.bytes == 0) continue;
    uint64_t lo = a.addr - a.addr % bb;
    uint64_t hi = a.addr + a.bytes;
    if (hi < a.addr) return Status::Error("ddr5_run_reads: range overflows");
    hi = (hi + bb - 1) / bb * bb;
    while (lo < hi) {
      uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(hi - lo, max_request_bytes));
      Ddr5Request r{lo, n, false, tag++};
      for (;;) {
        auto ok = m.submit(r);
        if (!ok.ok()) return ok.status();
        if (*ok) break;
        uint64_t next = m.next_event_ps();
        m.advance_to(next == UINT64_MAX ? m.now_ps() + cfg.tck_ps : std::max(next, m.now_ps()) + cfg.tck_ps);
        while (m.pop_completion(done)) {
        }
      }
      lo += n;
    }
  }
  m.drain();  // stops at the last completion's done time
  while (m.pop_completion(done)) {
  }
  return m.stats();
}

}  // namespace ndp
