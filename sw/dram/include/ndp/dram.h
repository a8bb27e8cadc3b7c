// DDR5-4800 timing and energy model: a cycle-stepped request/response memory controller (open page,
// FR-FCFS with a starvation cap, all-bank refresh) over N independent 32-bit DDR5 sub-channels, with
// DRAMSim3-style energy accounting. Used by the transaction-level device model (sw/device) and by the
// Verilator testbench's AXI4 memory slave. docs/dram.md describes the part, the timings, the address
// mapping, the scheduler and the energy formulas.
//
// Time: the model owns a DRAM clock (tCK). `advance_to(t_ps)` simulates every DRAM clock edge before
// t_ps (cycles c with c * tCK < t_ps are decided); `tick()` simulates one clock. Idle stretches are
// skipped in one step (the scheduler computes the next cycle at which anything can happen).
// A request submitted when the model is at time t arrives at cycle ceil(t / tCK) (the model's now_cycle()).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp {

// Device, timing and controller parameters. Timings are in DRAM clocks (nCK) of tck_ps.
//
// Defaults: one DDR5-4800 DIMM sub-channel per channel, 4 channels, one rank of four x8 devices per
// sub-channel (32 data bits, no ECC devices modelled). Part: Micron MT60B2G8HB-48B (16Gb, 2G x 8,
// 8 bank groups x 4 banks, 64K rows, 1K columns = 1 KiB page), speed bin DDR5-4800B (CL-tRCD-tRP =
// 40-39-39) of JEDEC JESD79-5. The nCK counts are the JESD79-5 ns values over the 2400 MHz clock
// (0.41667 ns; the speed bin lists tCK(avg) 0.416 ns), rounded up; tREFI and tRFC are converted with
// tck_ps = 416 (9375 x 416 ps = 3.9 us, 710 x 416 ps = 295.4 ns >= 295 ns). Currents: the DDR5-4800
// values of the Micron 16Gb DDR5 SDRAM die rev. A data sheet as quoted by gem5's DDR5 interface
// (src/python/gem5/components/memory/dram_interfaces/ddr5.py); not re-checked against the data sheet's
// x8 column. IDD5B is the normal all-bank refresh current.
struct Ddr5Config {
  // ---- organisation ----
  uint32_t tck_ps = 416;            // DDR5-4800: 2400 MHz clock, 4800 MT/s
  uint32_t channels = 4;            // independent 32-bit sub-channels (power of two)
  uint32_t bankgroups = 8;          // per rank
  uint32_t banks_per_group = 4;
  uint32_t rows = 65536;            // per bank (A0-A15)
  uint32_t columns = 1024;          // per row, in device-width units (C0-C9)
  uint32_t device_width = 8;        // x8
  uint32_t devices_per_rank = 4;    // 4 x8 = 32-bit sub-channel
  uint32_t burst_length = 16;       // BL16: 16 beats x 32 bits = 64 bytes per column access

  // ---- timings, nCK (ns in comments) ----
  uint32_t CL = 40;         // 16.67 ns (CAS latency, DDR5-4800B)
  uint32_t CWL = 38;        // CL - 2
  uint32_t tRCD = 39;       // 16 ns
  uint32_t tRP = 39;        // 16 ns
  uint32_t tRAS = 77;       // 32 ns
  uint32_t tRC = 116;       // tRAS + tRP = 48 ns
  uint32_t tRRD_S = 8;      // 8 nCK (different bank group)
  uint32_t tRRD_L = 12;     // max(8 nCK, 5 ns) (same bank group)
  uint32_t tCCD_S = 8;      // 8 nCK
  uint32_t tCCD_L = 12;     // max(8 nCK, 5 ns)
  uint32_t tCCD_L_WR = 24;  // max(16 nCK, 10 ns): tCCD_L_WR2, write-to-write same bank group without RMW
  uint32_t tWR = 72;        // 30 ns (write recovery, from the end of write data)
  uint32_t tWTR_S = 6;      // max(4 nCK, 2.5 ns), from the end of write data
  uint32_t tWTR_L = 24;     // max(16 nCK, 10 ns), from the end of write data
  uint32_t tRTP = 18;       // max(12 nCK, 7.5 ns)
  uint32_t tFAW = 32;       // max(32 nCK, 13.333 ns), 1 KiB page (x8)
  uint32_t tREFI = 9375;    // 3.9 us (all-bank refresh interval, TCASE <= 85 C)
  uint32_t tRFC = 710;      // 295 ns (tRFC1, 16Gb)
  bool refresh = true;      // false: no refresh (for isolated timing studies)

  // ---- controller ----
  uint32_t queue_depth = 64;     // bursts per channel the scheduler holds (the FR-FCFS window)
  uint32_t starvation_cap = 16;  // a burst bypassed by this many younger column commands goes first
  // Address fields above the 6 byte-offset bits, most significant first, separated by ':'.
  // ro = row, ba = bank, bg = bank group, co = column block (one 64-byte burst), ch = channel.
  // Default: consecutive 64-byte blocks go to channel 0..3, then bank group 0..7, then the next
  // column of the same rows, so a stream keeps 4 channels x 8 bank groups busy with row hits.
  std::string address_map = "ro:ba:co:bg:ch";

  // ---- energy (per device; mA and V) ----
  double vdd = 1.1;
  double vpp = 1.8;
  double idd0 = 122;    // one bank ACT-PRE, tRC
  double idd2n = 92;    // precharge standby
  double idd3n = 142;   // active standby (all banks open on DDR5)
  double idd4r = 530;   // burst read
  double idd4w = 479;   // burst write
  double idd5b = 277;   // all-bank refresh (tRFC1)
  // VPP currents: 0 by default (the IPP rows were not transcribed); fill them to add the VPP terms.
  double ipp0 = 0, ipp2n = 0, ipp3n = 0, ipp4r = 0, ipp4w = 0, ipp5b = 0;

  // Error if a field is zero where it must not be, not a power of two where the address mapping needs
  // one, or the address map is malformed.
  Status validate() const;

  uint32_t burst_bytes() const { return burst_length * device_width * devices_per_rank / 8; }  // 64
  uint32_t burst_cycles() const { return burst_length / 2; }                                    // 8
  uint32_t banks() const { return bankgroups * banks_per_group; }
  uint64_t channel_bytes() const;   // bytes behind one channel
  uint64_t capacity_bytes() const { return channel_bytes() * channels; }
  // Peak data bandwidth of all channels, bytes per ns.
  double peak_bytes_per_ns() const;
};

// Per-command energy increments (nJ per rank of devices_per_rank devices), DRAMSim3's formulas:
//   act = VDD * (IDD0*tRC - (IDD3N_1*tRAS + IDD2N*tRP))          IDD3N_1 = IDD2N + (IDD3N-IDD2N)/banks
//   rd  = VDD * (IDD4R - IDD3N) * burst_cycles,  wr likewise with IDD4W
//   ref = VDD * (IDD5B - IDD3N) * tRFC
//   background per clock: VDD*IDD3N while any bank is open or a refresh runs, VDD*IDD2N otherwise
// each times tCK and devices_per_rank, plus the same terms with VPP and the IPP currents.
struct Ddr5EnergyModel {
  double act_nj = 0, rd_nj = 0, wr_nj = 0, ref_nj = 0;
  double act_stby_nj_per_cycle = 0, pre_stby_nj_per_cycle = 0;
  static Ddr5EnergyModel from(const Ddr5Config& c);
};

struct Ddr5Request {
  uint64_t addr = 0;   // 64-byte aligned, below capacity_bytes()
  uint32_t bytes = 0;  // multiple of 64, > 0; split into 64-byte bursts internally
  bool write = false;
  uint64_t tag = 0;    // returned in the completion
};

struct Ddr5Completion {
  uint64_t tag = 0;
  uint64_t addr = 0;
  uint32_t bytes = 0;
  bool write = false;
  uint64_t submit_ps = 0;  // arrival time (cycle * tCK)
  uint64_t done_ps = 0;    // end of the last burst's data transfer (cycle * tCK)
};

struct Ddr5Energy {
  double act_nj = 0, rd_nj = 0, wr_nj = 0, ref_nj = 0, background_nj = 0;
  double total_nj() const { return act_nj + rd_nj + wr_nj + ref_nj + background_nj; }
};

struct Ddr5ChannelStats {
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t read_bursts = 0, write_bursts = 0;
  uint64_t activates = 0, precharges = 0, refreshes = 0;
  // Each burst is classed when its column command issues: conflict if the scheduler precharged its bank
  // for it, miss if it activated the row for it, hit otherwise (including rows opened for another burst).
  uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;
  uint64_t active_cycles = 0, precharged_cycles = 0;  // background residency up to the stats time
  Ddr5Energy energy;
  double row_hit_rate() const;
  void add(const Ddr5ChannelStats& o);
};

struct Ddr5Stats {
  uint64_t elapsed_ps = 0;  // model time
  uint64_t tck_ps = 0;
  Ddr5ChannelStats total;                 // sum of the channels
  std::vector<Ddr5ChannelStats> channel;  // one per channel
  // Request latency (completion - arrival), over requests whose last burst has issued (their done time
  // is then known; it may lie a few cycles after elapsed_ps).
  uint64_t requests_done = 0;
  uint64_t latency_sum_ps = 0, latency_max_ps = 0;
  std::vector<uint64_t> latency_hist;  // bucket i: latency of i DRAM cycles; last bucket: that or more

  double row_hit_rate() const { return total.row_hit_rate(); }
  double avg_latency_ns() const;
  // Latency (ps) below which a fraction p (0..1) of the requests completed; bucket resolution one tCK.
  uint64_t latency_percentile_ps(double p) const;
  double bandwidth_gbps() const;  // (bytes read + written) / elapsed, GB/s
  std::string to_json() const;
};

// The memory controller model. Not thread-safe; one instance per simulated memory.
class Ddr5Model {
 public:
  // The config must validate (create() checks it; the constructor asserts nothing and clamps nothing).
  static Result<Ddr5Model> create(const Ddr5Config& cfg);

  const Ddr5Config& config() const { return cfg_; }

  // Error if the request is malformed (zero bytes, bytes or addr not a multiple of 64, beyond capacity).
  Status check(const Ddr5Request& r) const;
  // Accept a request: error for a malformed one; false when a channel it touches already holds
  // queue_depth bursts (backpressure; retry after advancing time); true when queued. A request larger
  // than the queue is accepted while each channel it touches has a free slot (the surplus waits in order).
  Result<bool> submit(const Ddr5Request& r);
  bool can_accept(const Ddr5Request& r) const;

  // Next completed request in completion order (done time, then acceptance order), done_ps <= now_ps().
  bool pop_completion(Ddr5Completion& out);

  void tick();                     // one DRAM clock
  void advance_to(uint64_t t_ps);  // every clock edge before t_ps; no-op for a time in the past
  // Advance until every accepted request has completed; returns now_ps(). Completions stay poppable.
  uint64_t drain();

  uint64_t now_cycle() const { return now_; }
  uint64_t now_ps() const { return now_ * cfg_.tck_ps; }
  // Earliest time at which a queued burst may issue a command or a completion becomes visible;
  // UINT64_MAX when nothing is queued or in flight (refresh alone does not count).
  uint64_t next_event_ps() const;
  // Requests accepted and not yet completed.
  uint64_t outstanding() const { return unissued_ + future_done_.size(); }
  bool idle() const { return outstanding() == 0; }

  // Counters and energy up to now_ps() (background residency included up to now).
  Ddr5Stats stats() const;

 private:
  struct Field { uint32_t shift = 0, bits = 0; };
  struct Burst {
    uint32_t req = 0;
    uint32_t row = 0;
    uint16_t bank = 0;  // flat: bg * banks_per_group + ba
    uint8_t bg = 0;
    uint8_t cls = 0;    // 0 hit, 1 miss, 2 conflict
    bool write = false;
    uint32_t bypassed = 0;
  };
  struct Bank {
    int64_t open_row = -1;
    uint64_t act_ok = 0, pre_ok = 0, col_ok = 0;
  };
  struct Channel {
    std::vector<Burst> window;  // oldest first, at most queue_depth
    std::deque<Burst> overflow; // bursts of a request larger than the free window, in order
    std::vector<Bank> banks;
    std::vector<uint64_t> bg_act_ok, bg_rd_ok, bg_wr_ok;
    uint64_t act_ok = 0, rd_ok = 0, wr_ok = 0;
    uint64_t faw[4] = {0, 0, 0, 0};
    uint32_t faw_n = 0, faw_pos = 0;
    uint32_t open_banks = 0;
    uint64_t next_ref = 0;
    bool ref_pending = false;
    uint64_t ref_start = 0, ref_end = 0;
    uint64_t bg_last = 0;
    uint64_t wake = 0;
    std::vector<uint8_t> has_hit;  // scratch, per bank
    Ddr5ChannelStats st;
  };
  struct Req {
    Ddr5Request r;
    uint64_t arrive = 0;
    uint32_t remaining = 0;
    uint64_t done = 0;
    uint64_t seq = 0;
  };
  struct Done {
    uint64_t cycle, seq;
    uint32_t req;
    bool operator>(const Done& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };

  explicit Ddr5Model(const Ddr5Config& cfg);
  void decode(uint64_t addr, uint32_t& ch, Burst& b) const;
  void run_until(uint64_t cycle);
  void schedule(uint32_t ci, uint64_t t);
  void account_background(Channel& c, uint64_t t) const;
  void background_upto(const Channel& c, uint64_t t, uint64_t& act, uint64_t& pre) const;
  void issue_column(Channel& c, size_t idx, uint64_t t);
  void refill(Channel& c);

  Ddr5Config cfg_;
  Ddr5EnergyModel em_;
  Field f_ch_, f_bg_, f_ba_, f_ro_, f_co_;
  uint64_t now_ = 0;
  uint64_t seq_ = 0;
  uint64_t unissued_ = 0;  // requests with bursts not yet issued
  uint64_t last_done_ = 0;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> future_done_;  // > now_
  std::vector<Channel> ch_;
  std::vector<Req> reqs_;
  std::vector<uint32_t> free_reqs_;
  std::priority_queue<Done, std::vector<Done>, std::greater<Done>> done_;
  // latency counters
  uint64_t requests_done_ = 0, lat_sum_ = 0, lat_max_ = 0;
  std::vector<uint64_t> lat_hist_;
};

// "Byte baseline": issue reads of the given ranges as fast as the queue accepts them, in order, and run
// until all complete. Each range is widened to whole 64-byte bursts (addr rounded down, end rounded up)
// and split into requests of at most max_request_bytes. Returns the model statistics at the end
// (elapsed_ps = time of the last completion, energy = total_nj()).
struct Ddr5Access {
  uint64_t addr = 0;
  uint64_t bytes = 0;
};
Result<Ddr5Stats> ddr5_run_reads(const Ddr5Config& cfg, const std::vector<Ddr5Access>& reads,
                                 uint32_t max_request_bytes = 4096);

}  // namespace ndp
