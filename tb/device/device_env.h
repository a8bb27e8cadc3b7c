// Verilator environment of ndp_device (rtl/device): an AXI4 host master that queues read and write
// bursts (many IDs in flight, random valid gaps and R/B backpressure), and an AXI4 DRAM slave over a
// byte array (fixed latency plus random jitter, random R gaps). Checks the AXI rules on every
// channel it drives or watches (valid held until taken, payload stable, RLAST on the last beat,
// responses of one ID in request order).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ndp/device_map.h"
#include "ndp/dram.h"
#include "tb_rng.h"
#include "tb_sim.h"

namespace ndp::tb {

struct DevKnobs {
  double host_gaps = 0.0;       // probability a host AR/AW/W beat waits a cycle
  double host_bp = 0.0;         // probability R/B is not taken in a cycle
  double dram_gaps = 0.0;       // probability the DRAM slave skips an R beat in a cycle
  unsigned dram_latency = 40;   // cycles from AR to the first R beat (plus jitter)
  unsigned dram_jitter = 8;
  bool ddr5 = false;            // time the DRAM port with the DDR5-4800 model instead of latency+jitter
  uint64_t clock_ps = 1000;     // device clock period for the DDR5 model
  // Multi-clock tops (fpga/rtl/ndp_fpga_top): the core clock's half period in units of
  // Dut::kHalf (8 = clk_i's half period; 0 = the same period, on its own time line).
  unsigned core_half = 0;
};

// One read burst's answer.
struct ReadResult {
  std::vector<uint8_t> data;   // 64 bytes per beat
  std::vector<uint8_t> resp;   // RRESP per beat
  bool done = false;
  uint64_t ar_cycle = 0;       // cycle of the AR handshake
  uint64_t first_cycle = 0;    // cycle of the first R beat
  uint64_t last_cycle = 0;     // cycle of the last R beat
};

template <class Model>
struct BfmT;  // the bus functional model of one Verilator model (device_env.cc)

// The device behind the sw/device HostPort interface, so the driver steps (load_image, csr_read)
// run on the RTL exactly as on the model. Bursts are at most 4 KiB and never cross 4 KiB.
class DeviceEnv : public ndp::dev::HostPort {
 public:
  static constexpr unsigned kDramAw = 26;  // the bench model's DRAM: 64 MiB
  // Chunk-engine parameters of the lanes-lane model (tb/device/models.cmake): staging sets, chunk
  // buffers, MaxPrefetch.
  struct Params {
    unsigned sets, bufs, max_prefetch;
  };
  static Params params(unsigned lanes) {
    const unsigned s = lanes >= 8 ? 6 : 4;
    return {s, s + 2, s};
  }
  static constexpr unsigned kAsmLanes = 32;  // ndp_device's AsmLanes default, which models.cmake keeps
  // lanes selects the model (a build holds the lane counts of NDP_DEVICE_LANES; tests use 4).
  DeviceEnv(uint64_t seed, const DevKnobs& k, unsigned lanes = 4);
  // The bench state and model driver (device_bfm.h).
  struct Impl;
  // Another top with ndp_device's ports (tb/fpga): make builds its BfmT<Model>.
  using MakeImpl = std::function<std::unique_ptr<Impl>(DeviceEnv&, uint64_t seed, const DevKnobs&)>;
  DeviceEnv(uint64_t seed, const DevKnobs& k, const MakeImpl& make);
  static bool has_lanes(unsigned lanes);
  ~DeviceEnv() override;

  Status write(uint64_t addr, const uint8_t* data, size_t bytes, const uint64_t* strobes = nullptr) override;
  Status read(uint64_t addr, size_t bytes, uint8_t* out, std::vector<ndp::dev::Resp>* beat_resp) override;

  void reset();
  // Queue a read burst (INCR, 64-byte beats unless size/burst say otherwise); returns its ticket.
  size_t submit_read(uint64_t addr, unsigned beats, uint32_t id, unsigned size = 6, unsigned burst = 1);
  // Queue a write burst; strobes per beat (all ones when empty).
  size_t submit_write(uint64_t addr, const std::vector<uint8_t>& data, uint32_t id,
                      const std::vector<uint64_t>& strobes = {}, unsigned burst = 1);
  // Run until every queued burst is answered (false on timeout / assertion: the test has failed).
  bool drain(uint64_t max_cycles);
  // Run `cycles` clock cycles with no new request (background work such as prefetches goes on).
  void idle(uint64_t cycles);
  const ReadResult& read_result(size_t ticket) const { return reads_[ticket]; }
  uint8_t write_resp(size_t ticket) const { return writes_[ticket].resp; }

  // Blocking helpers.

  struct WriteJob {  // one queued write burst
    uint64_t addr = 0;
    unsigned beats = 0, burst = 1;
    uint32_t id = 0;
    std::vector<uint8_t> data;
    std::vector<uint64_t> strobes;
    uint8_t resp = 0xFF;
    bool done = false;
  };

  std::vector<uint8_t>& dram() { return dram_; }
  uint64_t cycle() const;
  uint64_t dram_read_beats() const { return dram_rd_beats_; }
  uint64_t dram_last_r_cycle() const { return dram_last_r_cycle_; }  // cycle of the latest DRAM R beat
  // DDR5 statistics (knobs.ddr5 only).
  Ddr5Stats dram_stats() const;
  // Max cycles drain() waits for one call of the HostPort functions.
  uint64_t watchdog = 2000000;

 private:
  std::unique_ptr<Impl> impl_;
  std::vector<ReadResult> reads_;
  std::vector<WriteJob> writes_;
  std::vector<uint8_t> dram_;
  uint64_t dram_rd_beats_ = 0, dram_last_r_cycle_ = 0;
  friend struct Impl;
  template <class Model>
  friend struct BfmT;
};

}  // namespace ndp::tb
