// Verification environments of kv_window and kv_unwindow (rtl/kv), for every parameter point
// verilated in tb/kv/models.cmake: stream drivers with valid gaps, sinks with backpressure,
// protocol monitors on every stream, and scoreboards fed by the golden model
// (ndp::kv_window_forward / kv_window_inverse, docs/spec.md section 6). Shared by the GoogleTest
// fixtures (tb/kv/test_kv_window.cc) and the ndp-rtl engines kv-window / kv-unwindow.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ndp/kv.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"
#include "tb_wide.h"

namespace ndp::tb {

// Geometry of one verilated parameter point (BF16 elements).
struct KvGeo {
  const char* name;
  uint32_t C, H, W, P;
  uint32_t N() const { return C * H; }
  uint32_t NB() const { return N() / P; }
};

// The points built in tb/kv/models.cmake.
constexpr KvGeo kKvRef{"ref", 128, 1, 32, 16};  // LLaMA-style reference: 32 bytes per cycle
constexpr KvGeo kKvS260{"s260", 8, 4, 128, 16};  // stories260K's default geometry: 4 KV heads of 8, W = 128
constexpr KvGeo kKvOdd{"odd", 8, 1, 12, 8};     // W not a multiple of P, P = 8, NB = 1

// One window as the golden model produces it.
struct KvGoldenWindow {
  uint32_t w = 0;                 // tokens
  bool seq_last = false;          // final window of its sequence
  std::vector<uint16_t> elems;    // N x w channel-major, exponent deltas
  std::vector<uint8_t> base;      // N base exponents
};

// Cut a token-major sequence (tokens x N words) into windows of g.W tokens with
// ndp::kv_window_forward (H heads of C channels), base exponents per `base`.
std::vector<KvGoldenWindow> kv_golden_windows(const KvGeo& g, const std::vector<uint16_t>& tm,
                                              KvBase base = KvBase::kMax);
// Token-major words of a window list (ndp::kv_window_inverse), windows concatenated.
std::vector<uint16_t> kv_golden_inverse(const KvGeo& g, const std::vector<KvGoldenWindow>& win);
// Serialized window stream (the ndp-rtl kv-window output / kv-unwindow input): per window a
// u32 token count, N base bytes, then N x w little-endian BF16 words.
void kv_append_window(const KvGoldenWindow& w, std::vector<uint8_t>& out);
// Parse a window stream; false with *err on a malformed file.
bool kv_parse_windows(const KvGeo& g, const std::vector<uint8_t>& bytes, std::vector<KvGoldenWindow>* out,
                      std::string* err);

// Handshake timing of one run (cycles counted by the Dut).
struct KvRates {
  uint64_t in_bytes = 0, out_bytes = 0, in_first = 0, in_last = 0, out_first = 0, out_last = 0;
  uint64_t in_stalls = 0;
  bool seen_in = false, seen_out = false;
  uint64_t cycles() const { return seen_in ? std::max(in_last, out_last) - in_first + 1 : 0; }
  double in_rate() const { return in_last > in_first ? double(in_bytes) / double(in_last - in_first + 1) : 0; }
  double out_rate() const { return out_last > out_first ? double(out_bytes) / double(out_last - out_first + 1) : 0; }
};

struct KvBeat {  // element beat: P x 16 bits (P <= 32)
  std::array<uint8_t, 64> data{};
  bool last = false, seq_last = false;
  uint32_t tokens = 0;
  bool operator==(const KvBeat& o) const {
    return data == o.data && last == o.last && seq_last == o.seq_last && tokens == o.tokens;
  }
};
struct KvBaseBeat {  // base beat: P bytes
  std::array<uint8_t, 32> data{};
  bool last = false;
  uint32_t tokens = 0;
  bool operator==(const KvBaseBeat& o) const { return data == o.data && last == o.last && tokens == o.tokens; }
};

// Records first/last handshake cycles of an input and an output stream.
class KvProbe : public Component {
 public:
  KvProbe(std::function<uint64_t()> cycle, std::function<bool()> in_fire, std::function<bool()> out_fire,
          KvRates& r, uint32_t in_beat_bytes, uint32_t out_beat_bytes)
      : cycle_(std::move(cycle)), in_(std::move(in_fire)), out_(std::move(out_fire)), r_(r),
        ib_(in_beat_bytes), ob_(out_beat_bytes) {}
  void sample() override {
    const uint64_t c = cycle_();
    if (in_()) {
      if (!r_.seen_in) r_.in_first = c;
      r_.seen_in = true;
      r_.in_last = c;
      r_.in_bytes += ib_;
    }
    if (out_()) {
      if (!r_.seen_out) r_.out_first = c;
      r_.seen_out = true;
      r_.out_last = c;
      r_.out_bytes += ob_;
    }
  }
  void drive() override {}

 private:
  std::function<uint64_t()> cycle_;
  std::function<bool()> in_, out_;
  KvRates& r_;
  uint32_t ib_, ob_;
};

// ---------------------------------------------------------------------------------------------
// kv_window: token-major sequences in; channel-major elements and base exponents out. `base` is
// the reference choice the DUT is configured for (cfg_base_max_i): kMax or kMin.
template <class M>
class KvWindowEnv {
 public:
  KvWindowEnv(const KvGeo& g, uint64_t seed, const std::string& fst, double gap, double backpressure,
              KvBase base_choice = KvBase::kMax)
      : g_(g), base_(base_choice), rng_(seed), dut_(seed, fst) {
    M* m = &dut_.model();
    m->cfg_base_max_i = base_choice == KvBase::kMax;
    StreamPort<KvBeat> in;
    in.valid = [m] { return m->in_valid_i != 0; };
    in.ready = [m] { return m->in_ready_o != 0; };
    in.read = [m] {
      KvBeat b;
      get_bytes(m->in_data_i, b.data.data(), b.data.size());
      b.last = m->in_last_i;
      return b;
    };
    in.set_valid = [m](bool v) { m->in_valid_i = v; };
    in.write = [m](const KvBeat& b) {
      put_bytes(m->in_data_i, b.data.data(), b.data.size());
      m->in_last_i = b.last;
    };
    StreamPort<KvBeat> out;
    out.valid = [m] { return m->out_valid_o != 0; };
    out.ready = [m] { return m->out_ready_i != 0; };
    out.read = [m] {
      KvBeat b;
      get_bytes(m->out_data_o, b.data.data(), b.data.size());
      b.last = m->out_last_o;
      b.seq_last = m->out_seq_last_o;
      b.tokens = m->out_tokens_o;
      return b;
    };
    out.set_ready = [m](bool r) { m->out_ready_i = r; };
    StreamPort<KvBaseBeat> base;
    base.valid = [m] { return m->base_valid_o != 0; };
    base.ready = [m] { return m->base_ready_i != 0; };
    base.read = [m] {
      KvBaseBeat b;
      get_bytes(m->base_data_o, b.data.data(), b.data.size());
      b.last = m->base_last_o;
      b.tokens = m->base_tokens_o;
      return b;
    };
    base.set_ready = [m](bool r) { m->base_ready_i = r; };

    mon_in_ = std::make_unique<StreamMonitor<KvBeat>>("kv_window input", in);
    mon_out_ = std::make_unique<StreamMonitor<KvBeat>>("kv_window output", out);
    mon_base_ = std::make_unique<StreamMonitor<KvBaseBeat>>("kv_window base", base);
    drv_ = std::make_unique<StreamDriver<KvBeat>>(in, rng_, gap);
    sink_ = std::make_unique<StreamSink<KvBeat>>(out, rng_, backpressure, [this](const KvBeat& b) { on_out(b); });
    bsink_ = std::make_unique<StreamSink<KvBaseBeat>>(base, rng_, backpressure,
                                                      [this](const KvBaseBeat& b) { on_base(b); });
    probe_ = std::make_unique<KvProbe>(
        [this] { return dut_.cycle(); }, [m] { return m->in_valid_i && m->in_ready_o; },
        [m] { return m->out_valid_o && m->out_ready_i; }, rates_, 2 * g.P, 2 * g.P);
    for (Component* c : std::initializer_list<Component*>{mon_in_.get(), mon_out_.get(), mon_base_.get(), drv_.get(),
                                                          sink_.get(), bsink_.get(), probe_.get()})
      dut_.attach(c);
    dut_.reset();
  }

  // Queue one sequence (tokens x N words, token-major); the golden windows go to the scoreboards.
  void push_sequence(const std::vector<uint16_t>& tm, const std::string& label) {
    const uint32_t per_beat = g_.P;
    const uint64_t beats = tm.size() / per_beat;
    for (uint64_t i = 0; i < beats; ++i) {
      KvBeat b;
      std::memcpy(b.data.data(), &tm[i * per_beat], 2 * per_beat);
      b.last = (i + 1 == beats);
      drv_->push(b);
    }
    auto win = kv_golden_windows(g_, tm, base_);
    for (size_t k = 0; k < win.size(); ++k) {
      const std::string l = label + " window " + std::to_string(k);
      sb_.expect(l + " elements", bytes_of(win[k].elems));
      bsb_.expect(l + " base", win[k].base);
      shape_.push_back({win[k].w, win[k].seq_last, uint64_t(g_.N()) * win[k].w / g_.P, l});
      bshape_.push_back({win[k].w, false, g_.NB(), l});
    }
  }

  bool run(uint64_t max_cycles) {
    return dut_.run_until([this] { return shape_.empty() && bshape_.empty() && drv_->idle(); }, max_cycles);
  }
  void run_for(uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; ++i)
      if (!dut_.tick()) return;
  }
  // Pulse rst_ni; drop queued input, expectations and partial windows (the DUT forgets its state).
  void reset_midstream() {
    drv_->clear();
    dut_.reset();
    sb_.clear();
    bsb_.clear();
    shape_.clear();
    bshape_.clear();
    beat_in_win_ = bbeat_ = 0;
    cur_.clear();
    cur_base_.clear();
    win_out_.clear();
    base_out_.clear();
    emitted_ = 0;
  }
  bool finish() {
    bool ok = sb_.finish() && bsb_.finish();
    if (structure_errors_) ok = false;
    if (mon_in_->violations() || mon_out_->violations() || mon_base_->violations()) ok = false;
    return ok;
  }

  // Collect the DUT's windows (serialized with kv_append_window) for the runner.
  void keep_output(bool on) { keep_ = on; }
  const std::vector<uint8_t>& output() const { return out_; }
  const KvRates& rates() {
    rates_.in_stalls = drv_->stalls();
    return rates_;
  }
  Dut<M>& dut() { return dut_; }
  // Elements of each completed window, as the DUT produced them (for chaining into bp_aggregator).
  const std::vector<std::vector<uint16_t>>& windows_out() const { return win_out_; }

 private:
  struct Shape {
    uint32_t w;
    bool seq_last;
    uint64_t beats;
    std::string label;
  };
  static std::vector<uint8_t> bytes_of(const std::vector<uint16_t>& v) {
    std::vector<uint8_t> b(2 * v.size());
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  }
  void structure(const std::string& what) {
    if (structure_errors_++ == 0) fail("kv_window: " + what);
  }
  void on_out(const KvBeat& b) {
    sb_.actual(b.data.data(), 2 * g_.P);
    if (shape_.empty()) return structure("output beat after every expected window");
    Shape& s = shape_.front();
    const bool end = (++beat_in_win_ == s.beats);
    if (b.last != end || b.seq_last != (end && s.seq_last) || b.tokens != s.w)
      structure(s.label + " beat " + std::to_string(beat_in_win_ - 1) + ": last/seq_last/tokens = " +
                std::to_string(b.last) + "/" + std::to_string(b.seq_last) + "/" + std::to_string(b.tokens) +
                ", expected " + std::to_string(end) + "/" + std::to_string(end && s.seq_last) + "/" +
                std::to_string(s.w));
    cur_.insert(cur_.end(), reinterpret_cast<const uint16_t*>(b.data.data()),
                reinterpret_cast<const uint16_t*>(b.data.data()) + g_.P);
    if (end) {
      win_out_.push_back(cur_);
      emit_window();
      cur_.clear();
      beat_in_win_ = 0;
      shape_.pop_front();
    }
  }
  void on_base(const KvBaseBeat& b) {
    bsb_.actual(b.data.data(), g_.P);
    if (bshape_.empty()) return structure("base beat after every expected window");
    Shape& s = bshape_.front();
    const bool end = (++bbeat_ == s.beats);
    if (b.last != end || b.tokens != s.w)
      structure(s.label + " base beat " + std::to_string(bbeat_ - 1) + ": last/tokens wrong");
    cur_base_.insert(cur_base_.end(), b.data.begin(), b.data.begin() + g_.P);
    if (end) {
      base_out_.push_back(cur_base_);
      emit_window();
      cur_base_.clear();
      bbeat_ = 0;
      bshape_.pop_front();
    }
  }
  // Serialize window k once both its base bytes and its elements arrived.
  void emit_window() {
    if (!keep_) return;
    while (emitted_ < win_out_.size() && emitted_ < base_out_.size()) {
      KvGoldenWindow kw;
      kw.w = static_cast<uint32_t>(win_out_[emitted_].size() / g_.N());
      kw.elems = win_out_[emitted_];
      kw.base = base_out_[emitted_];
      kv_append_window(kw, out_);
      ++emitted_;
    }
  }

  KvGeo g_;
  KvBase base_;
  Rng rng_;
  Dut<M> dut_;
  std::unique_ptr<StreamDriver<KvBeat>> drv_;
  std::unique_ptr<StreamSink<KvBeat>> sink_;
  std::unique_ptr<StreamSink<KvBaseBeat>> bsink_;
  std::unique_ptr<StreamMonitor<KvBeat>> mon_in_, mon_out_;
  std::unique_ptr<StreamMonitor<KvBaseBeat>> mon_base_;
  std::unique_ptr<KvProbe> probe_;
  ByteScoreboard sb_{"kv_window elements"}, bsb_{"kv_window base"};
  std::deque<Shape> shape_, bshape_;
  uint64_t beat_in_win_ = 0, bbeat_ = 0, structure_errors_ = 0;
  std::vector<uint16_t> cur_;
  std::vector<uint8_t> cur_base_;
  std::vector<std::vector<uint16_t>> win_out_;
  std::vector<std::vector<uint8_t>> base_out_;
  size_t emitted_ = 0;
  bool keep_ = false;
  std::vector<uint8_t> out_;
  KvRates rates_;
};

// ---------------------------------------------------------------------------------------------
// kv_unwindow: windows (elements + base) in; token-major elements out.
template <class M>
class KvUnwindowEnv {
 public:
  KvUnwindowEnv(const KvGeo& g, uint64_t seed, const std::string& fst, double gap, double backpressure)
      : g_(g), rng_(seed), dut_(seed, fst) {
    M* m = &dut_.model();
    StreamPort<KvBeat> in;
    in.valid = [m] { return m->in_valid_i != 0; };
    in.ready = [m] { return m->in_ready_o != 0; };
    in.read = [m] {
      KvBeat b;
      get_bytes(m->in_data_i, b.data.data(), b.data.size());
      b.tokens = m->in_tokens_i;
      return b;
    };
    in.set_valid = [m](bool v) { m->in_valid_i = v; };
    in.write = [m](const KvBeat& b) {
      put_bytes(m->in_data_i, b.data.data(), b.data.size());
      m->in_tokens_i = static_cast<uint8_t>(b.tokens);
    };
    StreamPort<KvBaseBeat> base;
    base.valid = [m] { return m->base_valid_i != 0; };
    base.ready = [m] { return m->base_ready_o != 0; };
    base.read = [m] {
      KvBaseBeat b;
      get_bytes(m->base_data_i, b.data.data(), b.data.size());
      return b;
    };
    base.set_valid = [m](bool v) { m->base_valid_i = v; };
    base.write = [m](const KvBaseBeat& b) { put_bytes(m->base_data_i, b.data.data(), b.data.size()); };
    StreamPort<KvBeat> out;
    out.valid = [m] { return m->out_valid_o != 0; };
    out.ready = [m] { return m->out_ready_i != 0; };
    out.read = [m] {
      KvBeat b;
      get_bytes(m->out_data_o, b.data.data(), b.data.size());
      b.last = m->out_last_o;
      b.tokens = m->out_tokens_o;
      return b;
    };
    out.set_ready = [m](bool r) { m->out_ready_i = r; };

    mon_in_ = std::make_unique<StreamMonitor<KvBeat>>("kv_unwindow input", in);
    mon_base_ = std::make_unique<StreamMonitor<KvBaseBeat>>("kv_unwindow base", base);
    mon_out_ = std::make_unique<StreamMonitor<KvBeat>>("kv_unwindow output", out);
    drv_ = std::make_unique<StreamDriver<KvBeat>>(in, rng_, gap);
    bdrv_ = std::make_unique<StreamDriver<KvBaseBeat>>(base, rng_, gap);
    sink_ = std::make_unique<StreamSink<KvBeat>>(out, rng_, backpressure, [this](const KvBeat& b) { on_out(b); });
    probe_ = std::make_unique<KvProbe>(
        [this] { return dut_.cycle(); }, [m] { return m->in_valid_i && m->in_ready_o; },
        [m] { return m->out_valid_o && m->out_ready_i; }, rates_, 2 * g.P, 2 * g.P);
    for (Component* c : std::initializer_list<Component*>{mon_in_.get(), mon_base_.get(), mon_out_.get(), drv_.get(),
                                                          bdrv_.get(), sink_.get(), probe_.get()})
      dut_.attach(c);
    dut_.reset();
  }

  // Queue windows; the scoreboard expects their golden inverse (token-major words).
  void push_windows(const std::vector<KvGoldenWindow>& win, const std::string& label) {
    for (size_t k = 0; k < win.size(); ++k) {
      const KvGoldenWindow& w = win[k];
      for (size_t i = 0; i < w.elems.size(); i += g_.P) {
        KvBeat b;
        std::memcpy(b.data.data(), &w.elems[i], 2 * g_.P);
        b.tokens = w.w;
        drv_->push(b);
      }
      for (uint32_t nb = 0; nb < g_.NB(); ++nb) {
        KvBaseBeat b;
        std::memcpy(b.data.data(), &w.base[nb * g_.P], g_.P);
        bdrv_->push(b);
      }
      const auto tm = kv_golden_inverse(g_, {w});
      std::vector<uint8_t> bytes(2 * tm.size());
      std::memcpy(bytes.data(), tm.data(), bytes.size());
      sb_.expect(label + " window " + std::to_string(k), bytes);
      shape_.push_back({w.w, uint64_t(g_.N()) * w.w / g_.P, label + " window " + std::to_string(k)});
    }
  }

  bool run(uint64_t max_cycles) {
    return dut_.run_until([this] { return shape_.empty() && drv_->idle() && bdrv_->idle(); }, max_cycles);
  }
  bool finish() {
    bool ok = sb_.finish();
    if (structure_errors_) ok = false;
    if (mon_in_->violations() || mon_out_->violations() || mon_base_->violations()) ok = false;
    return ok;
  }
  void keep_output(bool on) { keep_ = on; }
  const std::vector<uint8_t>& output() const { return out_; }
  const KvRates& rates() {
    rates_.in_stalls = drv_->stalls();
    return rates_;
  }
  Dut<M>& dut() { return dut_; }

 private:
  struct Shape {
    uint32_t w;
    uint64_t beats;
    std::string label;
  };
  void on_out(const KvBeat& b) {
    sb_.actual(b.data.data(), 2 * g_.P);
    if (keep_) out_.insert(out_.end(), b.data.begin(), b.data.begin() + 2 * g_.P);
    if (shape_.empty()) {
      if (structure_errors_++ == 0) fail("kv_unwindow: output beat after every expected window");
      return;
    }
    Shape& s = shape_.front();
    const bool end = (++beat_ == s.beats);
    if ((b.last != end || b.tokens != s.w) && structure_errors_++ == 0)
      fail("kv_unwindow: " + s.label + " beat " + std::to_string(beat_ - 1) + ": last/tokens wrong");
    if (end) {
      beat_ = 0;
      shape_.pop_front();
    }
  }

  KvGeo g_;
  Rng rng_;
  Dut<M> dut_;
  std::unique_ptr<StreamDriver<KvBeat>> drv_;
  std::unique_ptr<StreamDriver<KvBaseBeat>> bdrv_;
  std::unique_ptr<StreamSink<KvBeat>> sink_;
  std::unique_ptr<StreamMonitor<KvBeat>> mon_in_, mon_out_;
  std::unique_ptr<StreamMonitor<KvBaseBeat>> mon_base_;
  std::unique_ptr<KvProbe> probe_;
  ByteScoreboard sb_{"kv_unwindow"};
  std::deque<Shape> shape_;
  uint64_t beat_ = 0, structure_errors_ = 0;
  bool keep_ = false;
  std::vector<uint8_t> out_;
  KvRates rates_;
};

}  // namespace ndp::tb
