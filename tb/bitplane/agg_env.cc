#include "agg_env.h"

#include <algorithm>
#include <cstdio>

#include "tb_report.h"
#include "tb_wide.h"

namespace ndp::tb {

// Records the cycles of the first/last handshake on each side (for the rate figures).
class AggEnv::Probe : public Component {
 public:
  Probe(Dut<Vbp_aggregator>& d, StreamStats& st) : d_(d), st_(st) {}
  void sample() override {
    uint64_t c = d_.cycle();
    if (d_->in_valid_i && d_->in_ready_o) {
      if (!seen_in_) st_.in_first = c;
      seen_in_ = true;
      st_.in_last = c;
    }
    if (d_->out_valid_o && d_->out_ready_i) {
      if (!seen_out_) st_.out_first = c;
      seen_out_ = true;
      st_.out_last = c;
    }
    if (seen_in_) st_.cycles = std::max(st_.in_last, st_.out_last) - st_.in_first + 1;
  }
  void drive() override {}
  void restart() { seen_in_ = seen_out_ = false; }

 private:
  Dut<Vbp_aggregator>& d_;
  StreamStats& st_;
  bool seen_in_ = false, seen_out_ = false;
};

AggEnv::AggEnv(uint64_t seed, const std::string& fst_path, double gap, double backpressure)
    : rng_(seed), dut_(seed, fst_path) {
  Vbp_aggregator* m = &dut_.model();
  StreamPort<AggIn> in;
  in.valid = [m] { return m->in_valid_i != 0; };
  in.ready = [m] { return m->in_ready_o != 0; };
  in.read = [m] {
    AggIn b;
    get_bytes(m->in_data_i, b.data.data(), b.data.size());
    b.cnt = m->in_cnt_i;
    b.last = m->in_last_i;
    b.chunk_elems = m->cfg_chunk_elems_i;
    b.expbyte = m->cfg_expbyte_i;
    return b;
  };
  in.set_valid = [m](bool v) { m->in_valid_i = v; };
  in.write = [m](const AggIn& b) {
    put_bytes(m->in_data_i, b.data.data(), b.data.size());
    m->in_cnt_i = b.cnt;
    m->in_last_i = b.last;
    m->cfg_chunk_elems_i = static_cast<uint16_t>(b.chunk_elems);
    m->cfg_expbyte_i = b.expbyte;
  };
  StreamPort<AggOut> out;
  out.valid = [m] { return m->out_valid_o != 0; };
  out.ready = [m] { return m->out_ready_i != 0; };
  out.read = [m] {
    AggOut b;
    get_bytes(m->out_data_o, b.data.data(), b.data.size());
    b.nbytes = m->out_nbytes_o;
    b.plane = m->out_plane_o;
    b.plane_last = m->out_plane_last_o;
    b.chunk_last = m->out_chunk_last_o;
    b.last = m->out_last_o;
    return b;
  };
  out.set_ready = [m](bool r) { m->out_ready_i = r; };

  mon_in_ = std::make_unique<StreamMonitor<AggIn>>("bp_aggregator input", in);
  mon_out_ = std::make_unique<StreamMonitor<AggOut>>("bp_aggregator output", out);
  drv_ = std::make_unique<StreamDriver<AggIn>>(in, rng_, gap);
  sink_ = std::make_unique<StreamSink<AggOut>>(out, rng_, backpressure,
                                               [this](const AggOut& b) { on_out(b); });
  probe_ = std::make_unique<Probe>(dut_, st_);
  // Monitors and the probe sample before the driver/sink update their state.
  dut_.attach(mon_in_.get());
  dut_.attach(mon_out_.get());
  dut_.attach(probe_.get());
  dut_.attach(drv_.get());
  dut_.attach(sink_.get());
  dut_.reset();
}

void AggEnv::push_tensor(const uint8_t* elems, uint64_t n, uint32_t chunk_elems, Layout layout,
                         const std::string& label) {
  const std::vector<uint8_t> order = plane_order(DType::kBF16, layout);
  std::vector<std::vector<uint8_t>> planes;
  uint64_t chunks = (n + chunk_elems - 1) / chunk_elems;
  for (uint64_t c = 0; c < chunks; ++c) {
    uint64_t first = c * chunk_elems, nc = std::min<uint64_t>(chunk_elems, n - first);
    pack_chunk(DType::kBF16, layout, elems + 2 * first, nc, planes);
    for (size_t i = 0; i < order.size(); ++i) {
      char name[160];
      std::snprintf(name, sizeof name, "%s chunk %llu plane 0x%02x", label.c_str(),
                    static_cast<unsigned long long>(c), order[i]);
      bool clast = (i + 1 == order.size());
      blocks_.push_back(Block{order[i], planes[i].size(), clast, clast && c + 1 == chunks, name});
      sb_.expect(name, planes[i]);
    }
  }
  for (uint64_t e = 0; e < n; e += kLanes) {
    AggIn b;
    b.cnt = static_cast<uint8_t>(std::min<uint64_t>(kLanes, n - e));
    b.last = (e + kLanes >= n);
    b.chunk_elems = chunk_elems;
    b.expbyte = (layout == Layout::kExpByte);
    std::copy(elems + 2 * e, elems + 2 * (e + b.cnt), b.data.begin());
    drv_->push(b);
    st_.in_bytes += 2u * b.cnt;
  }
}

void AggEnv::on_out(const AggOut& b) {
  st_.out_bytes += b.nbytes;
  if (keep_) out_bytes_.insert(out_bytes_.end(), b.data.begin(), b.data.begin() + std::min<size_t>(b.nbytes, 32));
  auto bad = [this](const std::string& what) {
    if (structure_errors_++ == 0) fail("bp_aggregator: " + what);
  };
  if (blocks_.empty()) {
    bad("output beat after the expected stream ended");
    return;
  }
  Block& bl = blocks_.front();
  if (b.plane != bl.plane) bad(bl.label + ": beat carries plane " + std::to_string(b.plane));
  if (b.nbytes == 0 || b.nbytes > kBeatBytes || block_seen_ + b.nbytes > bl.bytes) {
    bad(bl.label + ": beat of " + std::to_string(b.nbytes) + " bytes at offset " + std::to_string(block_seen_));
    return;
  }
  sb_.actual(b.data.data(), b.nbytes);
  block_seen_ += b.nbytes;
  bool end = (block_seen_ == bl.bytes);
  if (!end && b.nbytes != kBeatBytes) bad(bl.label + ": short beat before the block end");
  if (b.plane_last != end) bad(bl.label + ": plane_last wrong at offset " + std::to_string(block_seen_));
  if (end) {
    if (b.chunk_last != bl.chunk_last) bad(bl.label + ": chunk_last wrong");
    if (b.last != bl.last) bad(bl.label + ": last (tensor end) wrong");
    blocks_.pop_front();
    block_seen_ = 0;
  } else if (b.chunk_last || b.last) {
    bad(bl.label + ": chunk_last/last inside a block");
  }
}

bool AggEnv::run(uint64_t max_cycles) {
  return dut_.run_until([this] { return blocks_.empty() && drv_->idle(); }, max_cycles);
}

void AggEnv::run_for(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) dut_.tick();
}

void AggEnv::reset_midstream() {
  drv_->clear();
  dut_.reset();
  sb_.clear();
  blocks_.clear();
  block_seen_ = 0;
  st_ = StreamStats{};
  static_cast<Probe*>(probe_.get())->restart();
}

bool AggEnv::finish() {
  st_.in_stalls = drv_->stalls();
  bool ok = sb_.finish();
  if (!blocks_.empty()) {
    fail("bp_aggregator: " + std::to_string(blocks_.size()) + " plane blocks never completed (from " +
         blocks_.front().label + ")");
    ok = false;
  }
  return ok && structure_errors_ == 0 && mon_in_->violations() == 0 && mon_out_->violations() == 0;
}

}  // namespace ndp::tb
