// Verification environment of bp_aggregator (reference point: BF16, 16 elements per beat,
// chunks up to 32768 elements): a stream driver for element beats, a sink with backpressure,
// protocol monitors on both streams, and a scoreboard fed by the golden model (ndp::pack_chunk,
// plane by plane in ndp::plane_order). Shared by the GoogleTest fixtures and the ndp-rtl runner.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Vbp_aggregator.h"
#include "ndp/planes.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"

namespace ndp::tb {

struct AggIn {
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0;
  bool last = false;
  uint32_t chunk_elems = 0;  // configuration presented with the beat (sampled at chunk starts)
  bool expbyte = false;
  bool operator==(const AggIn& o) const {
    return data == o.data && cnt == o.cnt && last == o.last && chunk_elems == o.chunk_elems &&
           expbyte == o.expbyte;
  }
};

struct AggOut {
  std::array<uint8_t, 32> data{};
  uint8_t nbytes = 0, plane = 0;
  bool plane_last = false, chunk_last = false, last = false;
  bool operator==(const AggOut& o) const {
    return data == o.data && nbytes == o.nbytes && plane == o.plane && plane_last == o.plane_last &&
           chunk_last == o.chunk_last && last == o.last;
  }
};

struct StreamStats {
  uint64_t cycles = 0;           // from the first input handshake to the last output handshake
  uint64_t in_bytes = 0, out_bytes = 0;
  uint64_t in_first = 0, in_last = 0, out_first = 0, out_last = 0;  // handshake cycles
  uint64_t in_stalls = 0;        // cycles an input beat waited for ready
  // Rates over each side's own active window (first to last handshake).
  double in_rate() const { return in_last > in_first ? double(in_bytes) / double(in_last - in_first + 1) : 0; }
  double out_rate() const { return out_last > out_first ? double(out_bytes) / double(out_last - out_first + 1) : 0; }
  double overall_rate(uint64_t bytes) const { return cycles ? double(bytes) / double(cycles) : 0; }
};

class AggEnv {
 public:
  static constexpr unsigned kLanes = 16;
  static constexpr unsigned kMaxChunk = 32768;
  static constexpr unsigned kBeatBytes = 32;

  // gap: input valid-gap probability; backpressure: probability the sink holds ready low.
  AggEnv(uint64_t seed, const std::string& fst_path, double gap, double backpressure);

  // Queue one BF16 tensor of n elements (2n bytes at elems) with its chunk size and layout; the
  // golden planes are queued on the scoreboard. keep_output: collect the DUT's bytes (runner).
  void push_tensor(const uint8_t* elems, uint64_t n, uint32_t chunk_elems, Layout layout,
                   const std::string& label);
  // Run until every queued output arrived (false on timeout or an RTL assertion).
  bool run(uint64_t max_cycles);
  // Run `cycles` cycles only (for reset-mid-stream tests).
  void run_for(uint64_t cycles);
  // Pulse rst_ni, drop all queued input and expectations (the DUT forgets its state).
  void reset_midstream();
  // Scoreboard and structure verdict; prints "N items compared".
  bool finish();

  void keep_output(bool on) { keep_ = on; }
  // The output sink takes a beat only while gate() holds (a consumer's buffer with room).
  void set_output_gate(std::function<bool()> gate) { sink_->set_gate(std::move(gate)); }
  const std::vector<uint8_t>& output() const { return out_bytes_; }
  const StreamStats& stats() const { return st_; }
  Dut<Vbp_aggregator>& dut() { return dut_; }

 private:
  struct Block {
    uint8_t plane;
    size_t bytes;
    bool chunk_last, last;
    std::string label;
  };
  class Probe;
  void on_out(const AggOut& b);

  Rng rng_;
  Dut<Vbp_aggregator> dut_;
  std::unique_ptr<StreamDriver<AggIn>> drv_;
  std::unique_ptr<StreamSink<AggOut>> sink_;
  std::unique_ptr<StreamMonitor<AggIn>> mon_in_;
  std::unique_ptr<StreamMonitor<AggOut>> mon_out_;
  std::unique_ptr<Component> probe_;
  ByteScoreboard sb_{"bp_aggregator"};
  std::deque<Block> blocks_;
  size_t block_seen_ = 0;  // bytes of blocks_.front() received so far
  uint64_t structure_errors_ = 0;
  bool keep_ = false;
  std::vector<uint8_t> out_bytes_;
  StreamStats st_;
};

}  // namespace ndp::tb
