// DUT wrapper shared by every Verilator testbench: owns the VerilatedContext and the model, drives
// clk_i/rst_ni, counts cycles, steps the registered stream components around each clock edge,
// optionally writes an FST waveform, and turns an RTL assertion failure into a test failure.
//
// Cycle protocol of tick(): the model settles with clk low, every component samples its handshake
// (valid && ready as seen before the edge), the rising edge is evaluated, then every component
// drives its next inputs. Components therefore never see a combinational loop through the C++ side.
//
// Multi-clock tops (fpga/): add_clock() registers further clock inputs. A clock with a half period
// toggles on its own time line (clk_i's half period is kHalf units), evaluated between clk_i's
// edges while the components' inputs stay put; a clock with half period 0 follows clk_i. The
// components (and cycle()) stay on clk_i.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include "tb_report.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ndp::tb {

// A stream driver, sink or monitor attached to a Dut.
class Component {
 public:
  virtual ~Component() = default;
  virtual void sample() = 0;  // before the rising edge: record this cycle's handshake
  virtual void drive() = 0;   // after the rising edge: apply next cycle's inputs
  virtual void on_reset() {}  // rst_ni was asserted: forget handshake history
};

template <class Model>
class Dut {
 public:
  // fst_path: write a waveform there (empty: no tracing). seed feeds Verilator's random
  // initialisation of registers without reset (--x-initial unique).
  explicit Dut(uint64_t seed, const std::string& fst_path = "") : ctx_(new VerilatedContext) {
    ctx_->fatalOnError(false);
    ctx_->randReset(2);
    ctx_->randSeed(static_cast<int>(seed & 0x7fffffff));
    if (!fst_path.empty()) ctx_->traceEverOn(true);
    m_ = std::make_unique<Model>(ctx_.get(), "dut");
    if (!fst_path.empty()) {
      fst_ = std::make_unique<VerilatedFstC>();
      m_->trace(fst_.get(), 99);
      fst_->open(fst_path.c_str());
    }
    m_->clk_i = 0;
    m_->rst_ni = 1;
    m_->eval();
  }
  ~Dut() {
    // Verilator reports assertion errors to, and erases the model's scopes from, the calling
    // thread's context, which is the last one constructed: with two Duts alive (an encoder and the
    // decoder checking its output) it may be another, already deleted, context.
    Verilated::threadContextp(ctx_.get());
    if (fst_) fst_->close();
    m_->final();
    m_.reset();
  }
  Dut(const Dut&) = delete;
  Dut& operator=(const Dut&) = delete;

  // Time units of clk_i's half period (add_clock).
  static constexpr uint64_t kHalf = 8;
  // A further clock input of the model: toggles every `half` units (0: the same edges as clk_i).
  void add_clock(CData* sig, uint64_t half) {
    *sig = 0;
    clocks_.push_back({sig, half, now_ + half});
  }

  Model* operator->() { return m_.get(); }
  Model& model() { return *m_; }
  uint64_t cycle() const { return cycle_; }
  void attach(Component* c) { comps_.push_back(c); }

  // Asynchronous reset for `cycles` clock cycles; components keep driving (their state is theirs).
  void reset(int cycles = 4) {
    Verilated::threadContextp(ctx_.get());
    for (Component* c : comps_) c->on_reset();
    m_->rst_ni = 0;
    m_->eval();
    if (!clocks_.empty() && !powered_) {
      // Multi-clock tops reset each domain through a synchroniser whose flops start at random
      // values: one that starts low gives its domain no reset edge, and the domain's flops keep
      // their random state until a clock edge. Clock every domain twice under reset before the
      // components look at any output (a simulation artifact: in silicon the reset is a level).
      for (int i = 0; i < 2; ++i) {
        set_clk(0);
        m_->eval();
        other_edges();
        set_clk(1);
        m_->eval();
        other_edges();
      }
      powered_ = true;
    }
    for (int i = 0; i < cycles; ++i) tick();
    m_->rst_ni = 1;
    m_->eval();
  }

  // One clock cycle. Returns false (after recording a test failure) once an RTL assertion fired.
  bool tick() {
    Verilated::threadContextp(ctx_.get());  // this model's assertion errors go to its own context
    set_clk(0);
    m_->eval();
    other_edges();
    for (Component* c : comps_) c->sample();
    dump();
    set_clk(1);
    m_->eval();
    ++cycle_;
    dump();
    for (Component* c : comps_) c->drive();
    m_->eval();
    other_edges();
    if (ctx_->gotError() && !reported_) {
      reported_ = true;
      fail("RTL assertion failed at cycle " + std::to_string(cycle_));
    }
    return !reported_;
  }

  // Tick until done() or max_cycles; returns false on timeout (with a failure) or an assertion.
  template <class Pred>
  bool run_until(Pred done, uint64_t max_cycles) {
    for (uint64_t i = 0; i < max_cycles; ++i) {
      if (done()) return true;
      if (!tick()) return false;
    }
    if (done()) return true;
    fail("timeout after " + std::to_string(max_cycles) + " cycles (cycle " + std::to_string(cycle_) + ")");
    return false;
  }

 private:
  struct Clock {
    CData* sig;
    uint64_t half, next;  // half period (0: follows clk_i), time of the next edge
  };
  void set_clk(CData v) {
    m_->clk_i = v;
    for (Clock& c : clocks_)
      if (c.half == 0) *c.sig = v;
  }
  // The edges of the timed clocks within the next half period of clk_i (an edge due exactly at
  // clk_i's next edge comes after it, in the next call).
  void other_edges() {
    const uint64_t end = now_ + kHalf;
    for (;;) {
      uint64_t t = end;
      for (const Clock& c : clocks_)
        if (c.half && c.next < t) t = c.next;
      if (t == end) break;
      for (Clock& c : clocks_)
        if (c.half && c.next == t) {
          *c.sig ^= 1;
          c.next += c.half;
        }
      m_->eval();
      dump();
    }
    now_ = end;
  }
  void dump() {
    if (fst_) fst_->dump(static_cast<uint64_t>(ctx_->time()));
    ctx_->timeInc(1);
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> m_;
  std::unique_ptr<VerilatedFstC> fst_;
  std::vector<Component*> comps_;
  std::vector<Clock> clocks_;
  bool powered_ = false;  // the power-on clocking of reset() was done
  uint64_t now_ = 0;  // bench time in units of kHalf per half period of clk_i
  uint64_t cycle_ = 0;
  bool reported_ = false;
};

// Runs body(fst_path) once without a waveform; if the test has failed by then, runs it again with
// an FST (failures of the rerun are swallowed) and prints where the file is. NDP_FST=1 forces the
// waveform on the first run. Files go to $NDP_FST_DIR or the working directory, named after the test.
void run_with_waves(const std::function<void(const std::string& fst_path)>& body);

}  // namespace ndp::tb
