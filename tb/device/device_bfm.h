// The bench state and bus functional model behind DeviceEnv (device_env.h): DeviceEnv::Impl holds
// what every top shares (queues, DRAM model); BfmT<Model> drives one Verilator model whose ports
// are ndp_device's (the device itself, or a wrapper with the same port names such as
// fpga/rtl/ndp_fpga_top, whose further clocks it registers with the Dut).
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

#include "device_env.h"
#include "tb_wide.h"

namespace ndp::tb {

namespace dev_bfm {
constexpr unsigned kBeat = 64;
}  // namespace dev_bfm

// Bench state shared by every lane-count model; the model-specific driving is BfmT<Model> below.
struct DeviceEnv::Impl : Component {
  Impl(DeviceEnv& e, uint64_t seed, const DevKnobs& k) : env(e), rng(seed), knobs(k) {
    if (k.ddr5) {
      auto m = Ddr5Model::create(Ddr5Config{});
      if (!m.ok()) fail("DDR5 model: " + m.status().message());
      else ddr.emplace(std::move(m.value()));
    }
  }
  virtual void reset_dut() = 0;
  virtual uint64_t cycle() const = 0;
  virtual bool run_until(const std::function<bool()>& done, uint64_t max_cycles) = 0;

  struct Ar {
    size_t ticket;
    uint64_t addr;
    unsigned beats, size, burst;
    uint32_t id;
  };
  struct DramAr {
    uint32_t id;
    uint64_t addr;
    unsigned beats, sent = 0;
    uint64_t ready_at;
    uint64_t tag = 0;
    bool submitted = true;
  };
  struct DramAw {
    uint64_t addr;
    unsigned beats, got = 0;
  };

  DeviceEnv& env;
  Rng rng;
  DevKnobs knobs;
  std::optional<Ddr5Model> ddr;
  uint64_t next_tag = 1;
  std::vector<Ddr5Request> ddr_wait;   // writes not yet accepted by the DDR5 queue
  std::map<uint64_t, bool> ddr_write_tags;

  std::deque<Ar> ar_q;                       // not yet issued
  std::map<uint32_t, std::deque<size_t>> r_wait;  // per ID: read tickets in request order
  std::deque<size_t> aw_q, w_q;              // write tickets: AW not issued / W beats pending
  unsigned w_beat = 0;
  std::map<uint32_t, std::deque<size_t>> b_wait;
  std::vector<DramAr> dram_ar;
  int dram_cur = -1;
  std::deque<DramAw> dram_aw;
  unsigned dram_b_pending = 0;
  // handshakes sampled before the edge
  bool ar_fire = false, aw_fire = false, w_fire = false, r_fire = false, b_fire = false;
  bool m_ar_fire = false, m_aw_fire = false, m_w_fire = false, m_r_fire = false, m_b_fire = false;
  // stability checks of the device's outputs
  bool r_held = false, b_held = false;
  uint64_t r_prev_id = 0;
  std::vector<uint8_t> r_prev_data;

  void on_reset() override {
    ar_q.clear();
    r_wait.clear();
    aw_q.clear();
    w_q.clear();
    b_wait.clear();
    dram_ar.clear();
    dram_aw.clear();
    dram_cur = -1;
    dram_b_pending = 0;
    w_beat = 0;
    ddr_wait.clear();
    ddr_write_tags.clear();
  }
};

template <class Model>
struct BfmT final : DeviceEnv::Impl {
  BfmT(DeviceEnv& e, uint64_t seed, const DevKnobs& k) : Impl(e, seed, k), dut(seed) {
    dut.attach(this);
    auto& m = dut.model();
    if constexpr (requires { m.core_clk_i; m.mem_clk_i; }) {  // fpga/ top: core and DRAM clocks
      dut.add_clock(&m.core_clk_i, k.core_half ? k.core_half : Dut<Model>::kHalf);
      dut.add_clock(&m.mem_clk_i, 0);  // the DRAM slave runs on the bench clock
    }
    m.s_ar_valid_i = m.s_aw_valid_i = m.s_w_valid_i = 0;
    m.s_r_ready_i = m.s_b_ready_i = 1;
    m.m_r_valid_i = m.m_b_valid_i = 0;
  }
  void reset_dut() override { dut.reset(); }
  uint64_t cycle() const override { return dut.cycle(); }
  bool run_until(const std::function<bool()>& done, uint64_t max_cycles) override {
    return dut.run_until(done, max_cycles);
  }
  Dut<Model> dut;

  void sample() override {
    auto& m = dut.model();
    ar_fire = m.s_ar_valid_i && m.s_ar_ready_o;
    aw_fire = m.s_aw_valid_i && m.s_aw_ready_o;
    w_fire = m.s_w_valid_i && m.s_w_ready_o;
    r_fire = m.s_r_valid_o && m.s_r_ready_i;
    b_fire = m.s_b_valid_o && m.s_b_ready_i;
    m_ar_fire = m.m_ar_valid_o && m.m_ar_ready_i;
    m_aw_fire = m.m_aw_valid_o && m.m_aw_ready_i;
    m_w_fire = m.m_w_valid_o && m.m_w_ready_i;
    m_r_fire = m.m_r_valid_i && m.m_r_ready_o;
    m_b_fire = m.m_b_valid_i && m.m_b_ready_o;
    if (r_fire) take_r();
    if (b_fire) take_b();
    if (m_ar_fire) {
      DramAr a{static_cast<uint32_t>(m.m_ar_id_o), static_cast<uint64_t>(m.m_ar_addr_o), m.m_ar_len_o + 1u, 0,
               dut.cycle() + knobs.dram_latency + rng.range(0, knobs.dram_jitter)};
      if (a.addr % dev_bfm::kBeat) fail("DRAM AR address not 64-byte aligned");
      if (ddr) {
        a.ready_at = ~uint64_t{0};
        a.tag = next_tag++;
        a.submitted = false;
      }
      dram_ar.push_back(a);
    }
    if (m_aw_fire) dram_aw.push_back({static_cast<uint64_t>(m.m_aw_addr_o), m.m_aw_len_o + 1u, 0});
    if (m_w_fire) take_dram_w();
  }

  void take_r() {
    auto& m = dut.model();
    uint32_t id = m.s_r_id_o;
    auto it = r_wait.find(id);
    if (it == r_wait.end() || it->second.empty()) {
      fail("R beat for ID " + std::to_string(id) + " with no read outstanding");
      return;
    }
    ReadResult& rr = env.reads_[it->second.front()];
    size_t off = rr.resp.size() * dev_bfm::kBeat;
    if (rr.resp.empty()) rr.first_cycle = cycle();
    rr.last_cycle = cycle();
    rr.resp.push_back(static_cast<uint8_t>(m.s_r_resp_o));
    get_bytes(m.s_r_data_o, rr.data.data() + off, dev_bfm::kBeat);
    bool last = rr.resp.size() * dev_bfm::kBeat == rr.data.size();
    if (bool(m.s_r_last_o) != last) fail("RLAST wrong on beat " + std::to_string(rr.resp.size() - 1));
    if (last) {
      rr.done = true;
      it->second.pop_front();
    }
  }
  void take_b() {
    auto& m = dut.model();
    auto it = b_wait.find(m.s_b_id_o);
    if (it == b_wait.end() || it->second.empty()) {
      fail("B for an ID with no write outstanding");
      return;
    }
    env.writes_[it->second.front()].resp = m.s_b_resp_o;
    env.writes_[it->second.front()].done = true;
    it->second.pop_front();
  }
  void take_dram_w() {
    auto& m = dut.model();
    if (dram_aw.empty()) {
      fail("DRAM W beat before its AW");
      return;
    }
    DramAw& a = dram_aw.front();
    uint8_t buf[dev_bfm::kBeat];
    get_bytes(m.m_w_data_o, buf, dev_bfm::kBeat);
    uint64_t strb = m.m_w_strb_o, base = a.addr + uint64_t(a.got) * dev_bfm::kBeat;
    for (unsigned i = 0; i < dev_bfm::kBeat; ++i)
      if ((strb >> i) & 1) env.dram_[(base + i) % env.dram_.size()] = buf[i];
    ++a.got;
    if (bool(m.m_w_last_o) != (a.got == a.beats)) fail("DRAM WLAST wrong");
    if (a.got == a.beats) {
      if (ddr) {
        ddr_wait.push_back({a.addr, a.beats * dev_bfm::kBeat, true, next_tag});
        ddr_write_tags[next_tag++] = true;
      } else {
        ++dram_b_pending;
      }
      dram_aw.pop_front();
    }
  }

  void drive() override {
    auto& m = dut.model();
    drive_host_ar(m);
    drive_host_w(m);
    m.s_r_ready_i = !rng.chance(knobs.host_bp);
    m.s_b_ready_i = !rng.chance(knobs.host_bp);
    drive_dram(m);
  }
  void drive_host_ar(Model& m) {
    if (ar_fire) {
      env.reads_[ar_q.front().ticket].ar_cycle = cycle();
      ar_q.pop_front();
    }
    if (ar_fire || !m.s_ar_valid_i) {
      bool go = !ar_q.empty() && !rng.chance(knobs.host_gaps);
      m.s_ar_valid_i = go;
      if (go) {
        const Ar& a = ar_q.front();
        m.s_ar_addr_i = a.addr;
        m.s_ar_len_i = a.beats - 1;
        m.s_ar_id_i = a.id;
        m.s_ar_size_i = a.size;
        m.s_ar_burst_i = a.burst;
        r_wait[a.id].push_back(a.ticket);
      }
    }
  }
  void drive_host_w(Model& m) {
    if (aw_fire) {
      w_q.push_back(aw_q.front());
      aw_q.pop_front();
    }
    if (w_fire) {
      if (++w_beat == env.writes_[w_q.front()].beats) {
        w_q.pop_front();
        w_beat = 0;
      }
    }
    if (aw_fire || !m.s_aw_valid_i) {
      bool go = !aw_q.empty() && !rng.chance(knobs.host_gaps);
      m.s_aw_valid_i = go;
      if (go) {
        const DeviceEnv::WriteJob& w = env.writes_[aw_q.front()];
        m.s_aw_addr_i = w.addr;
        m.s_aw_len_i = w.beats - 1;
        m.s_aw_id_i = w.id;
        m.s_aw_size_i = 6;
        m.s_aw_burst_i = w.burst;
        b_wait[w.id].push_back(aw_q.front());
      }
    }
    if (w_fire || !m.s_w_valid_i) {
      bool go = !w_q.empty() && !rng.chance(knobs.host_gaps);
      m.s_w_valid_i = go;
      if (go) {
        const DeviceEnv::WriteJob& w = env.writes_[w_q.front()];
        put_bytes(m.s_w_data_i, w.data.data() + size_t(w_beat) * dev_bfm::kBeat, dev_bfm::kBeat);
        m.s_w_strb_i = w.strobes.empty() ? ~uint64_t{0} : w.strobes[w_beat];
        m.s_w_last_i = w_beat + 1 == w.beats;
      }
    }
  }
  // DDR5 timing: submit what the queues take, advance to this cycle, release what completed.
  void step_ddr5() {
    for (auto& a : dram_ar)
      if (!a.submitted) {
        auto r = ddr->submit({a.addr % env.dram_.size(), a.beats * dev_bfm::kBeat, false, a.tag});
        a.submitted = r.ok() && r.value();
      }
    while (!ddr_wait.empty()) {
      auto r = ddr->submit(ddr_wait.front());
      if (!r.ok() || !r.value()) break;
      ddr_wait.erase(ddr_wait.begin());
    }
    ddr->advance_to(dut.cycle() * knobs.clock_ps);
    Ddr5Completion c;
    while (ddr->pop_completion(c)) {
      if (ddr_write_tags.erase(c.tag)) {
        ++dram_b_pending;
        continue;
      }
      for (auto& a : dram_ar)
        if (a.tag == c.tag) a.ready_at = dut.cycle();
    }
  }
  void drive_dram(Model& m) {
    if (ddr && (!dram_ar.empty() || !ddr_wait.empty() || !ddr->idle())) step_ddr5();  // idle: the model jumps later
    m.m_ar_ready_i = 1;
    m.m_aw_ready_i = 1;
    m.m_w_ready_i = 1;
    if (m_b_fire) --dram_b_pending;
    m.m_b_valid_i = dram_b_pending > 0;
    m.m_b_resp_i = 0;
    if (m_r_fire) {
      ++env.dram_rd_beats_;
      env.dram_last_r_cycle_ = cycle();
      DramAr& a = dram_ar[dram_cur];
      if (++a.sent == a.beats) {
        dram_ar.erase(dram_ar.begin() + dram_cur);
        dram_cur = -1;
      }
    }
    if (m.m_r_valid_i && !m_r_fire) return;  // hold the beat
    if (dram_cur < 0) {
      std::vector<int> ready;
      // any ready burst that is the oldest of its ID (AXI keeps one ID's bursts in order)
      for (size_t i = 0; i < dram_ar.size(); ++i) {
        bool oldest = true;
        for (size_t j = 0; j < i; ++j) oldest = oldest && dram_ar[j].id != dram_ar[i].id;
        if (oldest && dram_ar[i].ready_at <= dut.cycle()) ready.push_back(static_cast<int>(i));
      }
      if (!ready.empty()) dram_cur = ready[rng.range(0, ready.size() - 1)];
    }
    bool go = dram_cur >= 0 && !rng.chance(knobs.dram_gaps);
    m.m_r_valid_i = go;
    if (go) {
      const DramAr& a = dram_ar[dram_cur];
      uint64_t addr = (a.addr + uint64_t(a.sent) * dev_bfm::kBeat) % env.dram_.size();
      put_bytes(m.m_r_data_i, env.dram_.data() + addr, dev_bfm::kBeat);
      m.m_r_id_i = a.id;
      m.m_r_resp_i = 0;
      m.m_r_last_i = a.sent + 1 == a.beats;
    }
  }
};

}  // namespace ndp::tb
