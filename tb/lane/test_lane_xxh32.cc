// lane_xxh32 alone against libxxhash's XXH32 (seed 0), at 32 and 16 bytes per cycle: every message
// length 0..200 and random ones up to 20 KiB in beats of random byte counts (0..InBytes), with
// input gaps and hash backpressure, real BF16 weights (stories260K) as one 64 KiB-class stream, and
// the rates the lane relies on: a long message at full beats is taken at InBytes per cycle with no
// stall, and the finaliser's cycles per message (so short blocks' cost is stated, not guessed).
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdio>
#include <deque>
#include <vector>

#include "Vlane_xxh32_16.h"
#include "Vlane_xxh32_32.h"
#include "tb_data.h"
#include "tb_rng.h"
#include "tb_sim.h"
#include "tb_wide.h"

namespace ndp::tb {
namespace {

struct Knobs {
  double gap = 0.0;        // chance of an idle input cycle
  double stall = 0.0;      // chance that hash_ready is low
  bool full_beats = true;  // every beat but a message's last carries InBytes bytes
};

// Drives messages beat by beat and collects the hashes (one per message, in order).
template <class M, unsigned InBytes>
class XxhBench : public Component {
 public:
  XxhBench(Dut<M>* dut, Rng* rng, const Knobs& k) : dut_(dut), rng_(rng), k_(k) {
    (*dut)->in_valid_i = 0;
    (*dut)->hash_ready_i = 0;
  }
  void push(const std::vector<uint8_t>& msg) { q_.push_back(msg); }
  void sample() override {
    M& m = dut_->model();
    if (!m.rst_ni) return;
    if (m.in_valid_i && m.in_ready_o) {
      ++beats_;
      pos_ += cnt_;
      if (m.in_last_i) {
        q_.pop_front();
        pos_ = 0;
      }
    } else if (m.in_valid_i) {
      ++stalls_;
    }
    if (m.hash_valid_o && m.hash_ready_i) hashes_.push_back(m.hash_o);
  }
  void drive() override {
    M& m = dut_->model();
    m.hash_ready_i = !rng_->chance(k_.stall);
    if (q_.empty() || rng_->chance(k_.gap)) {
      m.in_valid_i = 0;
      return;
    }
    const std::vector<uint8_t>& msg = q_.front();
    const size_t left = msg.size() - pos_;
    cnt_ = k_.full_beats ? std::min<size_t>(left, InBytes) : std::min<size_t>(left, rng_->range(0, InBytes));
    uint8_t beat[InBytes] = {};
    for (size_t i = 0; i < cnt_; ++i) beat[i] = msg[pos_ + i];
    put_bytes(m.in_data_i, beat, InBytes);
    m.in_cnt_i = static_cast<uint8_t>(cnt_);
    m.in_last_i = pos_ + cnt_ == msg.size();
    m.in_valid_i = 1;
  }
  bool idle() const { return q_.empty(); }
  const std::vector<uint32_t>& hashes() const { return hashes_; }
  uint64_t beats() const { return beats_; }
  uint64_t stalls() const { return stalls_; }

 private:
  Dut<M>* dut_;
  Rng* rng_;
  Knobs k_;
  std::deque<std::vector<uint8_t>> q_;
  size_t pos_ = 0, cnt_ = 0;
  std::vector<uint32_t> hashes_;
  uint64_t beats_ = 0, stalls_ = 0;
};

// Hashes msgs through the unit; checks each against XXH32. Returns the cycles taken.
template <class M, unsigned InBytes>
uint64_t run(const std::vector<std::vector<uint8_t>>& msgs, Rng* rng, const Knobs& k, uint64_t* stalls = nullptr) {
  Dut<M> dut(rng->seed());
  XxhBench<M, InBytes> b(&dut, rng, k);
  dut.attach(&b);
  dut.reset();
  for (const auto& m : msgs) b.push(m);
  uint64_t bytes = 0;
  for (const auto& m : msgs) bytes += m.size();
  const uint64_t start = dut.cycle();
  // generous: gaps, stalls and partial beats slow it, a hang never ends
  EXPECT_TRUE(dut.run_until([&] { return b.hashes().size() == msgs.size(); }, 1000 + 64 * msgs.size() + 4 * bytes));
  const size_t n = std::min(b.hashes().size(), msgs.size());
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(b.hashes()[i], XXH32(msgs[i].data(), msgs[i].size(), 0)) << "message " << i << " of " << msgs[i].size() << " bytes";
  if (stalls) *stalls = b.stalls();
  return dut.cycle() - start;
}

std::vector<uint8_t> random_bytes(Rng* rng, size_t n) {
  std::vector<uint8_t> v(n);
  // runs and repeats as well as noise: the carry chains see all-ones and all-zeros words
  const unsigned kind = rng->range(0, 3);
  for (size_t i = 0; i < n; ++i) v[i] = kind == 0 ? 0xFF : kind == 1 ? static_cast<uint8_t>(i) : static_cast<uint8_t>(rng->u32());
  return v;
}

template <class M, unsigned InBytes>
void every_length(uint64_t seed_mix) {
  Rng rng(test_seed() ^ seed_mix);
  std::vector<std::vector<uint8_t>> msgs;
  for (size_t n = 0; n <= 200; ++n) msgs.push_back(random_bytes(&rng, n));
  for (int i = 0; i < 40; ++i) msgs.push_back(random_bytes(&rng, rng.range(0, 20000)));
  run<M, InBytes>(msgs, &rng, Knobs{});
  run<M, InBytes>(msgs, &rng, Knobs{0.3, 0.3, false});
}

TEST(LaneXxh32, EveryLength32) { every_length<Vlane_xxh32_32, 32>(32); }
TEST(LaneXxh32, EveryLength16) { every_length<Vlane_xxh32_16, 16>(16); }

// Real BF16 weights, each tensor one message, concatenated as the lane sees planes.
template <class M, unsigned InBytes>
void real_weights() {
  std::vector<Bf16Tensor> ts;
  std::string why;
  if (!load_stories260k_bf16(&ts, &why)) GTEST_SKIP() << why;
  Rng rng(test_seed());
  std::vector<std::vector<uint8_t>> msgs;
  for (const auto& t : ts) msgs.push_back(t.bytes);
  run<M, InBytes>(msgs, &rng, Knobs{0.05, 0.05, false});
}
TEST(LaneXxh32, RealWeights32) { real_weights<Vlane_xxh32_32, 32>(); }
TEST(LaneXxh32, RealWeights16) { real_weights<Vlane_xxh32_16, 16>(); }

// Rates: a 64 KiB message at full beats is taken at InBytes per cycle without one stall, and the
// cycles per message of back-to-back short messages (the finaliser's cost) are printed.
template <class M, unsigned InBytes>
void rates() {
  Rng rng(test_seed());
  uint64_t stalls = 0;
  run<M, InBytes>({random_bytes(&rng, 65536)}, &rng, Knobs{}, &stalls);
  EXPECT_EQ(stalls, 0u) << "a long message at full beats must stream at " << InBytes << " B/cycle";
  for (size_t n : {1u, 16u, 64u, 256u, 4096u}) {
    std::vector<std::vector<uint8_t>> msgs(64, random_bytes(&rng, n));
    const uint64_t c = run<M, InBytes>(msgs, &rng, Knobs{});
    std::printf("[lane_xxh32 InBytes=%u] %zu-byte messages: %.2f cycles each (%.2f B/cycle)\n", InBytes, n,
                double(c) / 64, double(n) * 64 / double(c));
  }
}
TEST(LaneXxh32, Rates32) { rates<Vlane_xxh32_32, 32>(); }
TEST(LaneXxh32, Rates16) { rates<Vlane_xxh32_16, 16>(); }

}  // namespace
}  // namespace ndp::tb
