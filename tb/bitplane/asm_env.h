// Verification environment of bp_assembler (reference point: BF16 source, 16 elements per beat):
// a command driver, one stream driver per plane (16 bit-planes + the EXPBYTE stream), each with
// its own random valid gaps, an output sink with backpressure, protocol monitors, and a
// scoreboard fed by the golden model: per chunk, ndp::unpack_chunk of the fetched planes only
// (unfetched planes read as zero, which is v') and ndp::assemble_region of the result.
// Shared by the GoogleTest fixtures and the ndp-rtl runner.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Vbp_assembler.h"
#include "agg_env.h"
#include "ndp/planes.h"
#include "ndp/precision.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"

namespace ndp::tb {

struct AsmCmd {
  uint8_t fmt = 0, k = 0, guard = 0;
  bool expbyte = false;
  uint32_t n = 0;
  bool operator==(const AsmCmd& o) const {
    return fmt == o.fmt && k == o.k && guard == o.guard && expbyte == o.expbyte && n == o.n;
  }
};
struct PlaneBeat {
  uint16_t bits = 0;  // 16 elements' bits of one bit-plane
  bool operator==(const PlaneBeat& o) const { return bits == o.bits; }
};
struct ExpBeat {
  std::array<uint8_t, 16> bytes{};  // 16 elements' exponent bytes
  bool operator==(const ExpBeat& o) const { return bytes == o.bytes; }
};
struct AsmOut {
  std::array<uint8_t, 32> data{};
  uint8_t nbytes = 0;
  bool last = false;
  bool operator==(const AsmOut& o) const { return data == o.data && nbytes == o.nbytes && last == o.last; }
};

class AsmEnv {
 public:
  static constexpr unsigned kLanes = 16;
  static constexpr unsigned kPlanes = 16;

  AsmEnv(uint64_t seed, const std::string& fst_path, double gap, double backpressure);

  // Queue one region read of a BF16 tensor (n elements, 2n bytes at elems) stored in chunks of
  // chunk_elems with `layout`: its fetched planes go to the plane drivers, the golden region
  // bytes to the scoreboard.
  void push_region(const uint8_t* elems, uint64_t n, uint32_t chunk_elems, Layout layout,
                   const Region& r, const std::string& label);
  // Same from stored planes: planes[c][i] is plane plane_order(bf16, layout)[i] of chunk c.
  void push_region_planes(const std::vector<std::vector<std::vector<uint8_t>>>& planes,
                          uint64_t n, uint32_t chunk_elems, Layout layout, const Region& r,
                          const std::string& label);
  bool run(uint64_t max_cycles);
  void run_for(uint64_t cycles);
  void reset_midstream();
  bool finish();

  void keep_output(bool on) { keep_ = on; }
  const std::vector<uint8_t>& output() const { return out_bytes_; }
  const StreamStats& stats() const { return st_; }
  Dut<Vbp_assembler>& dut() { return dut_; }

 private:
  class Probe;
  void on_out(const AsmOut& b);

  Rng rng_;
  Dut<Vbp_assembler> dut_;
  std::unique_ptr<StreamDriver<AsmCmd>> cmd_;
  std::vector<std::unique_ptr<StreamDriver<PlaneBeat>>> bp_;
  std::unique_ptr<StreamDriver<ExpBeat>> eb_;
  std::unique_ptr<StreamSink<AsmOut>> sink_;
  std::unique_ptr<StreamMonitor<AsmOut>> mon_out_;
  std::unique_ptr<Component> probe_;
  ByteScoreboard sb_{"bp_assembler"};
  std::vector<uint64_t> region_ends_;  // expected output byte count at each region's last beat
  uint64_t out_total_ = 0, structure_errors_ = 0, regions_open_ = 0;
  bool keep_ = false;
  std::vector<uint8_t> out_bytes_;
  StreamStats st_;
};

// Region encoding of the RTL command (bp_pkg::fmt_e equals ndp::RegionKind).
inline uint8_t fmt_code(const Region& r) { return static_cast<uint8_t>(r.kind); }

}  // namespace ndp::tb
