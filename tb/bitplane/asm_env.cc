#include "asm_env.h"

#include <algorithm>
#include <cstdio>

#include "tb_report.h"
#include "tb_wide.h"

namespace ndp::tb {

// First command handshake and last output handshake, plane-side and output-side windows.
class AsmEnv::Probe : public Component {
 public:
  Probe(Dut<Vbp_assembler>& d, StreamStats& st) : d_(d), st_(st) {}
  void sample() override {
    uint64_t c = d_.cycle();
    if (d_->cmd_valid_i && d_->cmd_ready_o && !seen_cmd_) {
      seen_cmd_ = true;
      st_.in_first = c;
    }
    if ((d_->bp_valid_i & d_->bp_ready_o) || (d_->eb_valid_i && d_->eb_ready_o)) st_.in_last = c;
    if (d_->out_valid_o && d_->out_ready_i) {
      if (!seen_out_) st_.out_first = c;
      seen_out_ = true;
      st_.out_last = c;
    }
    if (seen_cmd_) st_.cycles = std::max(st_.in_last, st_.out_last) - st_.in_first + 1;
  }
  void drive() override {}
  void restart() { seen_cmd_ = seen_out_ = false; }

 private:
  Dut<Vbp_assembler>& d_;
  StreamStats& st_;
  bool seen_cmd_ = false, seen_out_ = false;
};

AsmEnv::AsmEnv(uint64_t seed, const std::string& fst_path, double gap, double backpressure)
    : rng_(seed), dut_(seed, fst_path) {
  Vbp_assembler* m = &dut_.model();
  StreamPort<AsmCmd> cmd;
  cmd.valid = [m] { return m->cmd_valid_i != 0; };
  cmd.ready = [m] { return m->cmd_ready_o != 0; };
  cmd.read = [m] {
    return AsmCmd{m->cmd_fmt_i, m->cmd_k_i, m->cmd_guard_i, m->cmd_expbyte_i != 0, m->cmd_n_i};
  };
  cmd.set_valid = [m](bool v) { m->cmd_valid_i = v; };
  cmd.write = [m](const AsmCmd& c) {
    m->cmd_fmt_i = c.fmt;
    m->cmd_k_i = c.k;
    m->cmd_guard_i = c.guard;
    m->cmd_expbyte_i = c.expbyte;
    m->cmd_n_i = c.n;
  };
  // Commands come when the previous region is done: no gaps needed there.
  cmd_ = std::make_unique<StreamDriver<AsmCmd>>(cmd, rng_, 0.0);

  for (unsigned b = 0; b < kPlanes; ++b) {
    StreamPort<PlaneBeat> p;
    p.valid = [m, b] { return ((m->bp_valid_i >> b) & 1u) != 0; };
    p.ready = [m, b] { return ((m->bp_ready_o >> b) & 1u) != 0; };
    p.read = [m, b] { return PlaneBeat{static_cast<uint16_t>(m->bp_data_i[b / 2] >> (16 * (b % 2)))}; };
    p.set_valid = [m, b](bool v) {
      m->bp_valid_i = static_cast<uint16_t>((m->bp_valid_i & ~(1u << b)) | (v ? 1u << b : 0u));
    };
    p.write = [m, b](const PlaneBeat& x) {
      uint32_t w = m->bp_data_i[b / 2], sh = 16 * (b % 2);
      m->bp_data_i[b / 2] = (w & ~(0xFFFFu << sh)) | (static_cast<uint32_t>(x.bits) << sh);
    };
    bp_.push_back(std::make_unique<StreamDriver<PlaneBeat>>(p, rng_, gap));
  }
  StreamPort<ExpBeat> e;
  e.valid = [m] { return m->eb_valid_i != 0; };
  e.ready = [m] { return m->eb_ready_o != 0; };
  e.read = [m] {
    ExpBeat x;
    get_bytes(m->eb_data_i, x.bytes.data(), x.bytes.size());
    return x;
  };
  e.set_valid = [m](bool v) { m->eb_valid_i = v; };
  e.write = [m](const ExpBeat& x) { put_bytes(m->eb_data_i, x.bytes.data(), x.bytes.size()); };
  eb_ = std::make_unique<StreamDriver<ExpBeat>>(e, rng_, gap);

  StreamPort<AsmOut> out;
  out.valid = [m] { return m->out_valid_o != 0; };
  out.ready = [m] { return m->out_ready_i != 0; };
  out.read = [m] {
    AsmOut b;
    get_bytes(m->out_data_o, b.data.data(), b.data.size());
    b.nbytes = m->out_nbytes_o;
    b.last = m->out_last_o;
    return b;
  };
  out.set_ready = [m](bool r) { m->out_ready_i = r; };
  mon_out_ = std::make_unique<StreamMonitor<AsmOut>>("bp_assembler output", out);
  sink_ = std::make_unique<StreamSink<AsmOut>>(out, rng_, backpressure, [this](const AsmOut& b) { on_out(b); });
  probe_ = std::make_unique<Probe>(dut_, st_);

  dut_.attach(mon_out_.get());
  dut_.attach(probe_.get());
  dut_.attach(cmd_.get());
  for (auto& d : bp_) dut_.attach(d.get());
  dut_.attach(eb_.get());
  dut_.attach(sink_.get());
  dut_.reset();
}

void AsmEnv::push_region(const uint8_t* elems, uint64_t n, uint32_t chunk_elems, Layout layout,
                         const Region& r, const std::string& label) {
  std::vector<std::vector<std::vector<uint8_t>>> planes((n + chunk_elems - 1) / chunk_elems);
  for (size_t c = 0; c < planes.size(); ++c) {
    uint64_t first = c * chunk_elems, nc = std::min<uint64_t>(chunk_elems, n - first);
    pack_chunk(DType::kBF16, layout, elems + 2 * first, nc, planes[c]);
  }
  push_region_planes(planes, n, chunk_elems, layout, r, label);
}

void AsmEnv::push_region_planes(const std::vector<std::vector<std::vector<uint8_t>>>& planes,
                                uint64_t n, uint32_t chunk_elems, Layout layout, const Region& r,
                                const std::string& label) {
  const std::vector<uint8_t> order = plane_order(DType::kBF16, layout);
  const std::vector<uint8_t> fetched = region_planes(r, DType::kBF16, layout);
  cmd_->push(AsmCmd{fmt_code(r), static_cast<uint8_t>(r.k), static_cast<uint8_t>(r.guard),
                    layout == Layout::kExpByte, static_cast<uint32_t>(n)});
  uint64_t region_bytes = 0;
  std::vector<uint8_t> v(2 * static_cast<size_t>(chunk_elems));
  for (size_t c = 0; c < planes.size(); ++c) {
    uint64_t nc = std::min<uint64_t>(chunk_elems, n - c * chunk_elems);
    uint64_t beats = (nc + kLanes - 1) / kLanes;
    std::vector<const uint8_t*> ptrs(order.size(), nullptr);
    for (size_t i = 0; i < order.size(); ++i) {
      if (std::find(fetched.begin(), fetched.end(), order[i]) == fetched.end()) continue;
      const std::vector<uint8_t>& pl = planes[c][i];
      ptrs[i] = pl.data();
      st_.in_bytes += pl.size();
      for (uint64_t j = 0; j < beats; ++j) {
        if (order[i] == kPlaneExpByte) {
          ExpBeat x;
          for (unsigned k = 0; k < 16 && 16 * j + k < pl.size(); ++k) x.bytes[k] = pl[16 * j + k];
          eb_->push(x);
        } else {
          uint16_t bits = pl[2 * j];
          if (2 * j + 1 < pl.size()) bits = static_cast<uint16_t>(bits | (pl[2 * j + 1] << 8));
          bp_[order[i]]->push(PlaneBeat{bits});
        }
      }
    }
    // Golden model: v' from the fetched planes only, then the region conversion.
    unpack_chunk(DType::kBF16, layout, ptrs, nc, v.data());
    std::vector<uint8_t> want(region_output_bytes(r, DType::kBF16, nc));
    Status s = assemble_region(r, DType::kBF16, v.data(), nc, want.data());
    if (!s.ok()) fail("golden assemble_region: " + s.message());
    char name[160];
    std::snprintf(name, sizeof name, "%s %s g=%d chunk %zu", label.c_str(),
                  region_name(r, DType::kBF16).c_str(), r.guard, c);
    region_bytes += want.size();
    sb_.expect(name, std::move(want));
  }
  uint64_t prev = region_ends_.empty() ? 0 : region_ends_.back();
  region_ends_.push_back(prev + region_bytes);
  ++regions_open_;
}

void AsmEnv::on_out(const AsmOut& b) {
  auto bad = [this](const std::string& what) {
    if (structure_errors_++ == 0) fail("bp_assembler: " + what);
  };
  st_.out_bytes += b.nbytes;
  if (b.nbytes > 32) {
    bad("beat with " + std::to_string(b.nbytes) + " bytes");
    return;
  }
  if (keep_) out_bytes_.insert(out_bytes_.end(), b.data.begin(), b.data.begin() + b.nbytes);
  sb_.actual(b.data.data(), b.nbytes);
  out_total_ += b.nbytes;
  size_t done = region_ends_.size() - regions_open_;
  if (regions_open_ == 0) {
    bad("output after every region ended");
  } else if (b.last) {
    if (out_total_ != region_ends_[done])
      bad("last beat at byte " + std::to_string(out_total_) + ", region ends at " + std::to_string(region_ends_[done]));
    --regions_open_;
  } else if (out_total_ >= region_ends_[done]) {
    bad("region passed its end (byte " + std::to_string(out_total_) + ") without last");
  }
}

bool AsmEnv::run(uint64_t max_cycles) {
  return dut_.run_until(
      [this] {
        if (regions_open_ != 0 || !cmd_->idle() || !eb_->idle()) return false;
        for (auto& d : bp_) {
          if (!d->idle()) return false;
        }
        return true;
      },
      max_cycles);
}

void AsmEnv::run_for(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) dut_.tick();
}

void AsmEnv::reset_midstream() {
  cmd_->clear();
  for (auto& d : bp_) d->clear();
  eb_->clear();
  dut_.reset();
  sb_.clear();
  region_ends_.clear();
  regions_open_ = 0;
  out_total_ = 0;
  st_ = StreamStats{};
  static_cast<Probe*>(probe_.get())->restart();
}

bool AsmEnv::finish() {
  bool ok = sb_.finish();
  if (regions_open_ != 0) {
    fail("bp_assembler: " + std::to_string(regions_open_) + " region reads never completed");
    ok = false;
  }
  return ok && structure_errors_ == 0 && mon_out_->violations() == 0;
}

}  // namespace ndp::tb
