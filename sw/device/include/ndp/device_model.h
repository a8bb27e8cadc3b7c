// Transaction-level golden model of the ndp_device controller (docs/spec.md section 7,
// docs/device-model.md): the address map, control registers, descriptor commit, region reads that
// fetch a chunk's index entry and only the plane blocks the region needs from device DRAM, decode
// them with the golden block decoder and assemble the region format, a C-entry LRU chunk buffer
// with sequential prefetch (spec 7.6), the error log and response rules, the counters, and every DRAM access driven through the DDR5
// timing/energy model (sw/dram). The RTL bench of rtl/device compares ndp_device against it beat by
// beat; a host driver can run on it through HostPort. No timing beyond DRAM is modelled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ndp/device_map.h"
#include "ndp/dram.h"
#include "ndp/status.h"

namespace ndp::dev {

struct DeviceConfig {
  uint64_t dram_bytes = uint64_t{1} << 30;  // power of two, 4 KiB .. 1 TiB and <= the DDR5 capacity
  uint32_t lanes = 4;                       // decode lanes N (1..255), reported in CAPS only
  uint32_t max_tensors = 1024;              // descriptor table entries, 1..65535
  uint32_t max_chunk_elems = 32768;         // power of two in [128, 524288]
  uint32_t chunk_align_log2 = 6;            // chunk_elems must be a multiple of 2^this (6..log2 max; RTL: 11)
  uint8_t dtype_mask = 0xFE;                // supported dtypes, bit = code (default: codes 1..7)
  uint32_t chunk_buffers = 8;               // C: decoded region chunks kept (1..255, LRU; CAPS2)
  uint32_t staging_sets = 6;                // S: chunks the RTL decodes at once (1..255), reported in CAPS2 only
  uint32_t max_prefetch = 6;                // MaxPrefetch <= C - 2 (0 when C < 2); PREFETCH resets to it
  uint32_t track_entries = 64;              // read tracker entries (1..255, CAPS2 only; TRACK <= C - 2)
  bool has_zstd = true;                     // false: lanes without the ZSTD engine (lane status 10)
  // KV write path (spec 7.7): page table entries (0..65535; 0: no KV path, KV_CAPS reads 0), window
  // buffers B (1..255, pages open at once), elements per window buffer (power of two, 32..2^20; the
  // page span is twice its bytes), dtypes KV pages take (bit = code, bf16 and fp16 only).
  uint32_t kv_pages = 4096;
  uint32_t kv_buffers = 64;
  uint32_t kv_buffer_elems = 8192;
  uint8_t kv_dtype_mask = (1u << 1) | (1u << 2);
  Ddr5Config dram;                          // timing and energy of the device DRAM

  // Error naming the first field out of range.
  Status validate() const;
};

class DeviceModel : public HostPort {
 public:
  // A model with empty (all-zero) DRAM, ENABLE 0, no tensors mapped, counters and error log clear.
  static Result<std::unique_ptr<DeviceModel>> create(const DeviceConfig& cfg = {});
  ~DeviceModel() override;
  DeviceModel(const DeviceModel&) = delete;
  DeviceModel& operator=(const DeviceModel&) = delete;

  const DeviceConfig& config() const;

  // One AXI read burst of `beats` (1..256) beats of 2^size_log2 bytes: out receives 64 x beats bytes,
  // resp one RRESP per beat. Beat k of an INCR burst reads the line align_down(addr, 64) + 64 k and is
  // decoded on its own (7.5). FIXED/WRAP bursts, size_log2 != 6 and INCR bursts crossing a 4 KiB
  // boundary answer SLVERR with zero data on every beat and log one Protocol error.
  void read_burst(uint64_t addr, unsigned beats, uint8_t* out, Resp* resp, BurstType type = BurstType::kIncr,
                  unsigned size_log2 = 6);
  // One AXI write burst: data holds 64 x beats bytes, strobes one byte mask per beat (nullptr: all
  // set). Returns BRESP: SLVERR for a protocol error (nothing written, one Protocol error logged),
  // else DECERR if any beat decodes to nothing (the others are still applied, in order), else OKAY.
  Resp write_burst(uint64_t addr, unsigned beats, const uint8_t* data, const uint64_t* strobes,
                   BurstType type = BurstType::kIncr, unsigned size_log2 = 6);

  // HostPort: INCR bursts of full beats, split at 4 KiB boundaries (at most 64 beats each).
  Status write(uint64_t addr, const uint8_t* data, size_t bytes, const uint64_t* strobes = nullptr) override;
  Status read(uint64_t addr, size_t bytes, uint8_t* out, std::vector<Resp>* beat_resp) override;

  // Register value a bus read of `offset` (8-byte aligned, < 0x1000) would return now; moves no
  // counter. For tests and benches.
  uint64_t peek_csr(uint64_t offset) const;
  // Device DRAM bytes [addr, addr + n) (unwritten bytes read zero; beyond the DRAM size zero);
  // no bus traffic, no counters, no DRAM model access.
  void peek_dram(uint64_t addr, size_t n, uint8_t* out) const;
  // DDR5 counters and energy of every DRAM access so far (completes the outstanding ones first).
  Ddr5Stats dram_stats();
  // Controller reset (spec 7.7 "Reset"): registers, descriptor and page tables, chunk buffers, window
  // buffers, counters and the error log return to their power-on state; DRAM keeps its contents.
  void reset();

 private:
  DeviceModel();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ndp::dev
