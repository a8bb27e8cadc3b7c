// rtl/common clock-crossing cells through tb_fifo_async: a word stream crosses clk_i -> other clock
// -> clk_i through two fifo_async (4 and 8 deep) with a random stall in the other domain, random
// valid gaps and backpressure at the ends, the other clock faster, slower and much slower than clk_i
// (its own time line, Dut::add_clock). Checks order, no loss and no duplication (scoreboard), the
// stream rule at both ends, and that the stream keeps moving (a bound on cycles per word).
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "Vtb_fifo_async.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"

namespace ndp::tb {
namespace {

struct Word {
  uint16_t v = 0;
  bool operator==(const Word& o) const { return v == o.v; }
};

void run(uint64_t seed, const std::string& fst, unsigned other_half, double gap, double bp, int words) {
  Rng rng(seed);
  Dut<Vtb_fifo_async> dut(seed, fst);
  Vtb_fifo_async* m = &dut.model();
  m->in_valid_i = 0;
  m->in_data_i = 0;
  m->out_ready_i = 0;
  dut.add_clock(&m->other_clk_i, other_half);
  StreamPort<Word> in, out;
  in.valid = [m] { return m->in_valid_i != 0; };
  in.ready = [m] { return m->in_ready_o != 0; };
  in.read = [m] { return Word{m->in_data_i}; };
  in.set_valid = [m](bool v) { m->in_valid_i = v; };
  in.write = [m](const Word& w) { m->in_data_i = w.v; };
  out.valid = [m] { return m->out_valid_o != 0; };
  out.ready = [m] { return m->out_ready_i != 0; };
  out.read = [m] { return Word{m->out_data_o}; };
  out.set_ready = [m](bool r) { m->out_ready_i = r; };
  ByteScoreboard sb("fifo_async x2");
  StreamDriver<Word> drv(in, rng, gap);
  StreamSink<Word> sink(out, rng, bp, [&](const Word& w) {
    const uint8_t b[2] = {static_cast<uint8_t>(w.v), static_cast<uint8_t>(w.v >> 8)};
    sb.actual(b, 2);
  });
  StreamMonitor<Word> mi("in", in), mo("out", out);
  for (Component* c : std::initializer_list<Component*>{&mi, &mo, &drv, &sink}) dut.attach(c);
  dut.reset();
  for (int i = 0; i < words; ++i) {
    const uint16_t v = static_cast<uint16_t>(rng.u32());
    drv.push(Word{v});
    sb.expect("word " + std::to_string(i), {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8)});
  }
  // each word needs at most a few other-clock cycles (slower side) plus the synchroniser latency
  const uint64_t per_word = 4 + 4 * (other_half + Dut<Vtb_fifo_async>::kHalf - 1) / Dut<Vtb_fifo_async>::kHalf;
  const uint64_t start = dut.cycle();
  EXPECT_TRUE(dut.run_until([&] { return sink.received() == uint64_t(words); }, per_word * words + 200));
  EXPECT_TRUE(sb.finish());
  std::printf("other half period %u/8: %d words in %llu cycles\n", other_half, words,
              (unsigned long long)(dut.cycle() - start));
}

class FifoAsync : public testing::TestWithParam<unsigned> {};

TEST_P(FifoAsync, OrderAndNoLossAcrossTwoCrossings) {
  run_with_waves([&](const std::string& fst) { run(test_seed() + GetParam(), fst, GetParam(), 0.3, 0.3, 3000); });
}

TEST_P(FifoAsync, FullRateEnds) {
  run_with_waves([&](const std::string& fst) { run(test_seed() + GetParam(), fst, GetParam(), 0.0, 0.0, 3000); });
}

// other clock 2.7x faster, 1.4x slower, 3.6x slower than clk_i
INSTANTIATE_TEST_SUITE_P(OtherClock, FifoAsync, testing::Values(3u, 11u, 29u));

}  // namespace
}  // namespace ndp::tb
