// Stream components for valid/ready interfaces: a driver with a random valid-gap knob, a sink
// with a random backpressure knob, and a passive monitor that checks the stream rule (once valid
// is high it stays high with a stable payload until ready) and counts beats.
//
// PacketSpans records, per packet, the cycles of its first and last input handshake.
//
// Components reach the model through small accessor lambdas (see StreamPort), so one template
// serves every port shape; Beat is any copyable struct with operator==.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tb_report.h"
#include "tb_rng.h"
#include "tb_sim.h"

namespace ndp::tb {

template <class Beat>
struct StreamPort {
  std::function<bool()> valid;                // read valid
  std::function<bool()> ready;                // read ready
  std::function<Beat()> read;                 // read payload
  std::function<void(bool)> set_valid;        // driver side
  std::function<void(const Beat&)> write;     // driver side
  std::function<void(bool)> set_ready;        // sink side
};

// Feeds queued beats. gap: probability that an idle driver waits one more cycle before presenting
// the next beat (valid never drops before its handshake).
template <class Beat>
class StreamDriver : public Component {
 public:
  StreamDriver(StreamPort<Beat> port, Rng& rng, double gap = 0.0)
      : p_(std::move(port)), rng_(rng), gap_(gap) {
    p_.set_valid(false);
  }
  void push(Beat b) { q_.push_back(std::move(b)); }
  void set_gap(double g) { gap_ = g; }
  bool idle() const { return q_.empty() && !valid_; }
  uint64_t sent() const { return sent_; }
  // Drop everything queued and deassert valid (used around a reset).
  void clear() {
    q_.clear();
    valid_ = false;
    p_.set_valid(false);
  }
  // Cycles a presented beat waited for ready (input-side stalls caused by the DUT).
  uint64_t stalls() const { return stalls_; }
  void sample() override {
    fired_ = valid_ && p_.ready();
    if (valid_ && !fired_) ++stalls_;
  }
  void drive() override {
    if (fired_) {
      valid_ = false;
      ++sent_;
    }
    if (!valid_ && !q_.empty() && !rng_.chance(gap_)) {
      cur_ = std::move(q_.front());
      q_.pop_front();
      valid_ = true;
      p_.write(cur_);
    }
    p_.set_valid(valid_);
  }

 private:
  StreamPort<Beat> p_;
  Rng& rng_;
  double gap_;
  std::deque<Beat> q_;
  Beat cur_{};
  bool valid_ = false, fired_ = false;
  uint64_t sent_ = 0, stalls_ = 0;
};

// Takes beats; backpressure: probability that ready is low in a cycle. on_beat sees every beat.
template <class Beat>
class StreamSink : public Component {
 public:
  StreamSink(StreamPort<Beat> port, Rng& rng, double backpressure,
             std::function<void(const Beat&)> on_beat)
      : p_(std::move(port)), rng_(rng), bp_(backpressure), on_beat_(std::move(on_beat)) {
    p_.set_ready(false);
  }
  void set_backpressure(double bp) { bp_ = bp; }
  // Flow control from the consumer (e.g. a buffer with room for one more beat): ready stays low
  // while gate() is false; evaluated in drive(), so it sees the state after this cycle's beats.
  void set_gate(std::function<bool()> gate) { gate_ = std::move(gate); }
  uint64_t received() const { return n_; }
  void sample() override {
    if (ready_ && p_.valid()) {
      ++n_;
      on_beat_(p_.read());
    }
  }
  void drive() override {
    ready_ = !rng_.chance(bp_) && (!gate_ || gate_());
    p_.set_ready(ready_);
  }

 private:
  StreamPort<Beat> p_;
  Rng& rng_;
  double bp_;
  std::function<void(const Beat&)> on_beat_;
  std::function<bool()> gate_;
  bool ready_ = false;
  uint64_t n_ = 0;
};

// Passive protocol checker: valid may not drop and the payload may not change while a beat waits.
template <class Beat>
class StreamMonitor : public Component {
 public:
  StreamMonitor(std::string name, StreamPort<Beat> port) : name_(std::move(name)), p_(std::move(port)) {}
  uint64_t beats() const { return beats_; }
  uint64_t violations() const { return bad_; }
  void sample() override {
    bool v = p_.valid(), r = p_.ready();
    if (waiting_) {
      if (!v) violation("valid dropped before the handshake");
      else if (!(p_.read() == held_)) violation("payload changed while valid && !ready");
    }
    if (v && r) ++beats_;
    waiting_ = v && !r;
    if (waiting_) held_ = p_.read();
  }
  void drive() override {}
  void on_reset() override { waiting_ = false; }

 private:
  void violation(const char* what) {
    if (bad_++ == 0) fail(name_ + ": " + what + " (beat " + std::to_string(beats_) + ")");
  }
  std::string name_;
  StreamPort<Beat> p_;
  bool waiting_ = false;
  Beat held_{};
  uint64_t beats_ = 0, bad_ = 0;
};

// Per-packet input timing: the env queues each beat's `last` flag as it hands the beat to the
// driver (beat()); every handshake (fire) pops one flag, and the first / last handshake cycles of
// each packet are recorded in order.
class PacketSpans : public Component {
 public:
  PacketSpans(std::function<bool()> fire, std::function<uint64_t()> cycle)
      : fire_(std::move(fire)), cycle_(std::move(cycle)) {}
  void beat(bool last) { beats_.push_back(last); }
  // first / last input handshake of packet i; {0, 0} until its first beat was taken
  std::pair<uint64_t, uint64_t> span(size_t i) const {
    return i < spans_.size() ? spans_[i] : std::pair<uint64_t, uint64_t>{0, 0};
  }
  void sample() override {
    if (!fire_() || beats_.empty()) return;
    const bool last = beats_.front();
    beats_.pop_front();
    if (!open_) spans_.push_back({cycle_(), 0});
    open_ = !last;
    if (last) spans_.back().second = cycle_();
  }
  void drive() override {}

 private:
  std::function<bool()> fire_;
  std::function<uint64_t()> cycle_;
  std::deque<bool> beats_;  // queued beats not yet taken: is it its packet's last
  std::vector<std::pair<uint64_t, uint64_t>> spans_;
  bool open_ = false;
};

}  // namespace ndp::tb
