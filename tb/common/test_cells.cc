// rtl/common stream cells through tb_cells: ordering and no loss/duplication under random valid
// gaps and backpressure (fifo_sync, spill_reg, fork -> independently stalled FIFOs -> join),
// round-robin fairness and per-source order (rr_arbiter + stream_mux), routing (stream_demux),
// stream-rule monitors on every output, and a full-rate check (one beat per cycle).
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <vector>

#include "Vtb_cells.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"

namespace ndp::tb {
namespace {

struct Word {
  uint32_t v = 0;
  bool operator==(const Word& o) const { return v == o.v; }
};

StreamPort<Word> port16(CData* valid, CData* ready, SData* data) {
  StreamPort<Word> p;
  p.valid = [valid] { return *valid != 0; };
  p.ready = [ready] { return *ready != 0; };
  p.read = [data] { return Word{*data}; };
  p.set_valid = [valid](bool v) { *valid = v; };
  p.write = [data](const Word& w) { *data = static_cast<SData>(w.v); };
  p.set_ready = [ready](bool r) { *ready = r; };
  return p;
}

// Every input of tb_cells at a defined value: Verilator randomises undriven inputs at start
// (--x-initial unique), and each test drives only its own channel.
void zero_inputs(Vtb_cells* m) {
  m->a_in_valid_i = 0;
  m->a_in_data_i = 0;
  m->a_out_ready_i = 0;
  m->f_in_valid_i = 0;
  m->f_in_data_i = 0;
  m->f_out_ready_i = 0;
  m->b_in_valid_i = 0;
  m->b_in_data_i = 0;
  m->b_out_ready_i = 0;
  m->c_in_valid_i = 0;
  m->c_in_data_i = 0;
  m->c_stall_i = 0;
  m->c_out_ready_i = 0;
  m->d_in_valid_i = 0;
  m->d_in_data_i = 0;
  m->d_out_ready_i = 0;
  m->e_in_valid_i = 0;
  m->e_in_sel_i = 0;
  m->e_out_ready_i = 0;
  m->eval();
}

void bytes_of(uint32_t v, int n, std::vector<uint8_t>& out) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// a (fifo_sync), b (spill_reg), c (fork/join) and f (fifo_ram) in one run; d and e below.
void run_channels(uint64_t seed, const std::string& fst, double gap, double bp, int beats, bool expect_full_rate) {
  Rng rng(seed);
  Dut<Vtb_cells> dut(seed, fst);
  Vtb_cells* m = &dut.model();
  zero_inputs(m);
  ByteScoreboard sa("fifo_sync"), sb("spill_reg"), sc("fork/join"), sf("fifo_ram");
  StreamPort<Word> a_in = port16(&m->a_in_valid_i, &m->a_in_ready_o, &m->a_in_data_i);
  StreamPort<Word> a_out = port16(&m->a_out_valid_o, &m->a_out_ready_i, &m->a_out_data_o);
  StreamPort<Word> b_in = port16(&m->b_in_valid_i, &m->b_in_ready_o, &m->b_in_data_i);
  StreamPort<Word> b_out = port16(&m->b_out_valid_o, &m->b_out_ready_i, &m->b_out_data_o);
  StreamPort<Word> c_in = port16(&m->c_in_valid_i, &m->c_in_ready_o, &m->c_in_data_i);
  StreamPort<Word> f_in = port16(&m->f_in_valid_i, &m->f_in_ready_o, &m->f_in_data_i);
  StreamPort<Word> f_out = port16(&m->f_out_valid_o, &m->f_out_ready_i, &m->f_out_data_o);
  StreamPort<Word> c_out;
  c_out.valid = [m] { return m->c_out_valid_o != 0; };
  c_out.ready = [m] { return m->c_out_ready_i != 0; };
  c_out.read = [m] { return Word{m->c_out_data_o}; };
  c_out.set_ready = [m](bool r) { m->c_out_ready_i = r; };

  StreamDriver<Word> da(a_in, rng, gap), db(b_in, rng, gap), dc(c_in, rng, gap), df(f_in, rng, gap);
  std::vector<uint8_t> tmp;
  auto feed = [&tmp](ByteScoreboard& s, uint32_t v, int n) {
    tmp.clear();
    bytes_of(v, n, tmp);
    s.actual(tmp.data(), tmp.size());
  };
  StreamSink<Word> ka(a_out, rng, bp, [&](const Word& w) { feed(sa, w.v, 2); });
  StreamSink<Word> kb(b_out, rng, bp, [&](const Word& w) { feed(sb, w.v, 2); });
  StreamSink<Word> kc(c_out, rng, bp, [&](const Word& w) { feed(sc, w.v, 4); });
  StreamSink<Word> kf(f_out, rng, bp, [&](const Word& w) { feed(sf, w.v, 2); });
  StreamMonitor<Word> ma("fifo_sync out", a_out), mb("spill_reg out", b_out), mc("join out", c_out);
  StreamMonitor<Word> mai("fifo_sync in", a_in), mbi("spill_reg in", b_in);
  StreamMonitor<Word> mf("fifo_ram out", f_out), mfi("fifo_ram in", f_in);

  // c_stall_i: random per-branch stalls so the fork's branches handshake in different cycles.
  struct Staller : Component {
    Vtb_cells* m;
    Rng* rng;
    double p;
    void sample() override {}
    void drive() override { m->c_stall_i = static_cast<CData>((rng->chance(p) ? 1 : 0) | (rng->chance(p) ? 2 : 0)); }
  } stall;
  stall.m = m;
  stall.rng = &rng;
  stall.p = expect_full_rate ? 0.0 : 0.3;

  for (Component* c : std::initializer_list<Component*>{&ma, &mb, &mc, &mai, &mbi, &mf, &mfi, &da, &db, &dc, &df, &ka, &kb, &kc, &kf, &stall})
    dut.attach(c);
  dut.reset();
  for (int i = 0; i < beats; ++i) {
    uint32_t v = rng.u32() & 0xFFFF;
    da.push(Word{v});
    db.push(Word{v ^ 0x5a5a});
    dc.push(Word{v ^ 0x0ff0});
    df.push(Word{v ^ 0x3c3c});
    tmp.clear();
    bytes_of(v ^ 0x3c3c, 2, tmp);
    sf.expect("beat " + std::to_string(i), tmp);
    tmp.clear();
    bytes_of(v, 2, tmp);
    sa.expect("beat " + std::to_string(i), tmp);
    tmp.clear();
    bytes_of(v ^ 0x5a5a, 2, tmp);
    sb.expect("beat " + std::to_string(i), tmp);
    tmp.clear();
    bytes_of((v ^ 0x0ff0) * 0x10001u, 4, tmp);
    sc.expect("beat " + std::to_string(i), tmp);
  }
  uint64_t start = dut.cycle();
  EXPECT_TRUE(dut.run_until([&] { return ka.received() == uint64_t(beats) && kb.received() == uint64_t(beats) &&
                                         kc.received() == uint64_t(beats) && kf.received() == uint64_t(beats); },
                            50ull * beats + 1000));
  uint64_t cycles = dut.cycle() - start;
  EXPECT_TRUE(sa.finish());
  EXPECT_TRUE(sb.finish());
  EXPECT_TRUE(sc.finish());
  EXPECT_TRUE(sf.finish());
  if (expect_full_rate) {
    // one beat per cycle through every channel: only pipeline latency on top
    EXPECT_LE(cycles, uint64_t(beats) + 8) << "cells do not sustain one beat per cycle";
    EXPECT_EQ(da.stalls() + db.stalls() + dc.stalls() + df.stalls(), 0u);
  }
}

TEST(Cells, FifoSpillForkJoinRandom) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) { run_channels(seed, fst, 0.3, 0.4, 3000, false); });
}

TEST(Cells, FifoSpillForkJoinFullRate) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) { run_channels(seed, fst, 0.0, 0.0, 2000, true); });
}

TEST(Cells, ArbiterRoundRobinAndOrder) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed);
    Dut<Vtb_cells> dut(seed, fst);
    Vtb_cells* m = &dut.model();
    zero_inputs(m);
    std::vector<std::unique_ptr<StreamDriver<Word>>> drv;
    for (unsigned s = 0; s < 3; ++s) {
      StreamPort<Word> p;
      p.valid = [m, s] { return ((m->d_in_valid_i >> s) & 1) != 0; };
      p.ready = [m, s] { return ((m->d_in_ready_o >> s) & 1) != 0; };
      p.read = [m, s] { return Word{static_cast<uint32_t>((m->d_in_data_i >> (16 * s)) & 0xFFFF)}; };
      p.set_valid = [m, s](bool v) { m->d_in_valid_i = static_cast<CData>((m->d_in_valid_i & ~(1u << s)) | (v ? 1u << s : 0u)); };
      p.write = [m, s](const Word& w) {
        m->d_in_data_i = (m->d_in_data_i & ~(0xFFFFull << (16 * s))) | (static_cast<uint64_t>(w.v) << (16 * s));
      };
      drv.push_back(std::make_unique<StreamDriver<Word>>(p, rng, 0.0));
    }
    StreamPort<Word> out;
    out.valid = [m] { return m->d_out_valid_o != 0; };
    out.ready = [m] { return m->d_out_ready_i != 0; };
    out.read = [m] { return Word{m->d_out_data_o}; };
    out.set_ready = [m](bool r) { m->d_out_ready_i = r; };
    uint32_t next[3] = {0, 0, 0};
    std::vector<unsigned> order;
    uint64_t bad = 0, n = 0;
    double bp = 0.0;
    StreamSink<Word> sink(out, rng, bp, [&](const Word& w) {
      unsigned src = w.v >> 16, seq = w.v & 0xFFF, tag = (w.v >> 12) & 0xF;
      ++n;
      if (src > 2 || tag != src || seq != next[src]) {
        if (bad++ == 0) ADD_FAILURE() << "arbiter beat " << n << ": src " << src << " tag " << tag << " seq " << seq;
      } else {
        next[src] = (next[src] + 1) & 0xFFF;
      }
      order.push_back(src);
    });
    StreamMonitor<Word> mon("arbiter out", out);
    dut.attach(&mon);
    for (auto& d : drv) dut.attach(d.get());
    dut.attach(&sink);
    dut.reset();
    // Phase 1: every source always requesting, no backpressure: strict rotation 0,1,2,0,...
    for (unsigned s = 0; s < 3; ++s)
      for (uint32_t i = 0; i < 300; ++i) drv[s]->push(Word{(s << 12) | i});
    EXPECT_TRUE(dut.run_until([&] { return n == 900; }, 5000));
    for (size_t i = 1; i < order.size(); ++i) {
      if (order[i] != (order[i - 1] + 1) % 3) {
        ADD_FAILURE() << "not round-robin at grant " << i;
        break;
      }
    }
    // Phase 2: random gaps and backpressure: order per source and no loss.
    sink.set_backpressure(0.4);
    for (auto& d : drv) d->set_gap(0.5);
    for (unsigned s = 0; s < 3; ++s)
      for (uint32_t i = 300; i < 1300; ++i) drv[s]->push(Word{(s << 12) | (i & 0xFFF)});
    EXPECT_TRUE(dut.run_until([&] { return n == 3900; }, 100000));
    EXPECT_EQ(bad, 0u);
    std::printf("[scoreboard] rr_arbiter: %llu items compared\n", static_cast<unsigned long long>(n));
  });
}

TEST(Cells, DemuxRouting) {
  uint64_t seed = test_seed();
  run_with_waves([&](const std::string& fst) {
    Rng rng(seed);
    Dut<Vtb_cells> dut(seed, fst);
    Vtb_cells* m = &dut.model();
    zero_inputs(m);
    StreamPort<Word> in;
    in.valid = [m] { return m->e_in_valid_i != 0; };
    in.ready = [m] { return m->e_in_ready_o != 0; };
    in.read = [m] { return Word{m->e_in_sel_i}; };
    in.set_valid = [m](bool v) { m->e_in_valid_i = v; };
    in.write = [m](const Word& w) { m->e_in_sel_i = static_cast<CData>(w.v); };
    StreamDriver<Word> drv(in, rng, 0.3);
    uint64_t got[3] = {0, 0, 0}, want[3] = {0, 0, 0};
    std::vector<std::unique_ptr<StreamSink<Word>>> sinks;
    for (unsigned s = 0; s < 3; ++s) {
      StreamPort<Word> o;
      o.valid = [m, s] { return ((m->e_out_valid_o >> s) & 1) != 0; };
      o.ready = [m, s] { return ((m->e_out_ready_i >> s) & 1) != 0; };
      o.read = [m] { return Word{m->e_in_sel_i}; };
      o.set_ready = [m, s](bool r) { m->e_out_ready_i = static_cast<CData>((m->e_out_ready_i & ~(1u << s)) | (r ? 1u << s : 0u)); };
      sinks.push_back(std::make_unique<StreamSink<Word>>(o, rng, 0.4, [&got, s](const Word& w) {
        EXPECT_EQ(w.v, s) << "beat for output " << w.v << " arrived at output " << s;
        ++got[s];
      }));
    }
    dut.attach(&drv);
    for (auto& k : sinks) dut.attach(k.get());
    dut.reset();
    for (int i = 0; i < 2000; ++i) {
      uint32_t s = static_cast<uint32_t>(rng.range(0, 2));
      ++want[s];
      drv.push(Word{s});
    }
    EXPECT_TRUE(dut.run_until([&] { return got[0] + got[1] + got[2] == 2000; }, 100000));
    for (int s = 0; s < 3; ++s) EXPECT_EQ(got[s], want[s]) << "output " << s;
    std::printf("[scoreboard] stream_demux: %llu items compared\n",
                static_cast<unsigned long long>(got[0] + got[1] + got[2]));
  });
}

}  // namespace
}  // namespace ndp::tb
