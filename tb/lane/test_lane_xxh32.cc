// lane_xxh32 alone against libxxhash's XXH32 (seed 0), at 32 and 16 bytes per cycle: every message
// length 0..200 and random ones up to 20 KiB in beats of random byte counts (0..InBytes), with
// input gaps and hash backpressure (tb_stream's driver and sink; a monitor checks the input
// handshake), real BF16 weights (stories260K, one message per tensor), and the rates the lane
// relies on: a long message at full beats is taken at InBytes per cycle with no stall, and the
// finaliser's cycles per message (so short blocks' cost is stated, not guessed).
#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "Vlane_xxh32_16.h"
#include "Vlane_xxh32_32.h"
#include "tb_data.h"
#include "tb_rng.h"
#include "tb_sim.h"
#include "tb_stream.h"
#include "tb_wide.h"

namespace ndp::tb {
namespace {

struct Knobs {
  double gap = 0.0;        // chance that the driver waits a cycle before its next beat
  double stall = 0.0;      // chance that hash_ready is low
  bool full_beats = true;  // every beat but a message's last carries InBytes bytes
};

template <unsigned InBytes>
struct XBeat {
  std::array<uint8_t, InBytes> data{};
  unsigned cnt = 0;
  bool last = false;
  bool operator==(const XBeat& o) const { return data == o.data && cnt == o.cnt && last == o.last; }
};

// Hashes msgs through the unit (tb_stream's driver, sink and monitor on its ports); checks each
// hash against XXH32. Returns the cycles taken; *stalls: cycles a beat waited for in_ready.
template <class M, unsigned InBytes>
uint64_t run(const std::vector<std::vector<uint8_t>>& msgs, Rng* rng, const Knobs& k, uint64_t* stalls = nullptr) {
  using Beat = XBeat<InBytes>;
  Dut<M> dut(rng->seed());
  M* m = &dut.model();
  StreamPort<Beat> in{[m] { return m->in_valid_i != 0; }, [m] { return m->in_ready_o != 0; },
                      [m] {
                        Beat b;
                        get_bytes(m->in_data_i, b.data.data(), InBytes);
                        b.cnt = m->in_cnt_i;
                        b.last = m->in_last_i;
                        return b;
                      },
                      [m](bool v) { m->in_valid_i = v; },
                      [m](const Beat& b) {
                        put_bytes(m->in_data_i, b.data.data(), InBytes);
                        m->in_cnt_i = static_cast<uint8_t>(b.cnt);
                        m->in_last_i = b.last;
                      },
                      nullptr};
  StreamPort<uint32_t> out{[m] { return m->hash_valid_o != 0; }, [m] { return m->hash_ready_i != 0; },
                           [m] { return m->hash_o; }, nullptr, nullptr, [m](bool r) { m->hash_ready_i = r; }};
  std::vector<uint32_t> hashes;
  StreamDriver<Beat> drv(in, *rng, k.gap);
  StreamSink<uint32_t> sink(out, *rng, k.stall, [&](const uint32_t& h) { hashes.push_back(h); });
  StreamMonitor<Beat> mon("lane_xxh32 in", in);
  dut.attach(&drv);
  dut.attach(&sink);
  dut.attach(&mon);
  dut.reset();
  uint64_t bytes = 0;
  for (const auto& msg : msgs) {
    size_t pos = 0;
    do {  // an empty message is one beat of 0 bytes
      Beat b;
      b.cnt = static_cast<unsigned>(std::min<size_t>(msg.size() - pos, k.full_beats ? InBytes : rng->range(0, InBytes)));
      std::copy_n(msg.begin() + static_cast<std::ptrdiff_t>(pos), b.cnt, b.data.begin());
      pos += b.cnt;
      b.last = pos == msg.size();
      drv.push(b);
    } while (pos < msg.size());
    bytes += msg.size();
  }
  const uint64_t start = dut.cycle();
  // generous: gaps, stalls and partial beats slow it, a hang never ends
  EXPECT_TRUE(dut.run_until([&] { return hashes.size() == msgs.size(); }, 1000 + 64 * msgs.size() + 4 * bytes));
  const size_t n = std::min(hashes.size(), msgs.size());
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(hashes[i], XXH32(msgs[i].data(), msgs[i].size(), 0)) << "message " << i << " of " << msgs[i].size() << " bytes";
  if (stalls) *stalls = drv.stalls();
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

// Real BF16 weights, each tensor one message, back to back as the lane sees plane blocks.
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
