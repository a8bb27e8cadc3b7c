// libndp, the host driver of a CXL-NDP device (docs/driver.md): one API over every backend.
//
//   auto dev = ndp::drv::Device::open("emu").value();          // or "emu:inproc", "dax:/dev/dax0.0", "rtl"
//   uint32_t img = dev->load_file("model.ndpi").value();        // stored image -> device memory
//   size_t t = dev->find(img, "layers.0.attn.wq").value();
//   Region r = parse_region("fp8-e4m3", DType::kBF16, 1).value();
//   dev->read(img, t, r, offset, bytes, out, &st);              // == `ndp read` bytes [offset, +bytes)
//   auto m = dev->map(img, t, r, 0, len).value();               // loads fault pages in, region bytes
//
// Every backend returns the same bytes for the same arguments (the golden ImageReader::read_region);
// errors are values naming what failed (tensor, chunk, plane, address). A Device is thread-safe:
// reads, maps and KV calls may come from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ndp/image.h"
#include "ndp/kv.h"
#include "ndp/precision.h"
#include "ndp/status.h"

namespace ndp::drv {

// What one call moved. Counters are exact for the call even when other clients share the device.
struct CallStats {
  uint64_t host_bytes = 0;    // bytes returned to (or taken from) the caller
  uint64_t link_bytes = 0;    // bytes over the host link: 64-byte beats of a device; dax: stored bytes fetched
  uint64_t device_bytes = 0;  // device memory bytes read: device DRAM (emu, rtl); dax: the stored blocks fetched
  uint64_t blocks = 0;        // plane blocks decoded
  uint64_t errors = 0;        // failed 64-byte beats (device) or chunks (dax)
  double seconds = 0;         // wall time of the call
  void add(const CallStats& o);
};

// Totals of a Device since it was opened.
struct DeviceStats {
  CallStats total;
  uint64_t calls = 0;          // read / map-fault / KV calls
  uint64_t failed_calls = 0;
  uint64_t page_faults = 0;    // mapped-region faults served
  uint64_t images = 0;         // images loaded now
  uint64_t device_memory = 0;  // device (or dax) memory bytes
  uint64_t device_free = 0;    // of which free
  double dram_energy_nj = 0;   // DDR5 model energy of the device DRAM (emu); 0 where not modelled
};

// Options of Device::open.
struct OpenOptions {
  uint64_t dram_bytes = uint64_t{1} << 30;  // emu: device DRAM of an in-process or auto-started node
  uint32_t chunk_buffers = 8;               // emu: decoded-chunk buffers of the device model (prefetch depth <= C - 2)
  bool spawn = true;                        // emu (default socket): start a node when none listens
  int host_node = -1;  // NUMA node of host-side buffers (mapped regions), placed with sw/runtime; -1: the
                       // kernel's default (the fault handler's local node)
};

class Backend;
class Mapping;

// One opened device.
class Device {
 public:
  // Open a device by name:
  //   emu           the emulated CXL node: connect to the node daemon on the default socket
  //                 (abstract "ndp-emu-<uid>", or $NDP_EMU_SOCKET), starting one when none listens
  //   emu:SOCKET    connect to a running node (a path, or @name for an abstract socket)
  //   emu:inproc    the device model in this process (tests)
  //   dax:PATH      a devdax device or a file standing in for one: software NDP over CXL memory
  //   dax:numa:N    memory of NUMA node N (a CXL node onlined as system RAM), placed by sw/runtime
  //   rtl           Verilator co-simulation of ndp_device (builds with NDP_BUILD_RTL only)
  // Errors: unknown backend (the message lists the known ones), missing device, no node listening.
  static Result<std::unique_ptr<Device>> open(std::string_view uri, const OpenOptions& o = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& uri() const { return uri_; }
  // The backend's name with its argument ("emu:@ndp-emu-0", "dax:/dev/dax0.0", ...).
  std::string backend_name() const;

  // Load a stored image (section 4 of docs/spec.md) into device memory; returns its handle. The
  // image is validated first (a truncated or corrupt table is an error naming the offset); the
  // error "does not fit" names the image size and the device's free memory.
  Result<uint32_t> load(const uint8_t* image, size_t bytes);
  Result<uint32_t> load_file(const std::string& path);
  // Free an image's device memory; its mappings must be gone.
  Status unload(uint32_t image);

  // The tensor table of a loaded image (image order); nullptr for an unknown handle.
  const std::vector<TensorInfo>* tensors(uint32_t image) const;
  Result<size_t> find(uint32_t image, std::string_view name) const;
  // Region bytes of a tensor: region_output_bytes(r, dtype, N); error for a region it lacks.
  Result<uint64_t> region_bytes(uint32_t image, size_t tensor, const Region& r) const;

  // Read region bytes [offset, offset + bytes) of a tensor into out: the same bytes as the golden
  // ImageReader::read_region (`ndp read`) at that range. Errors: unknown image/tensor, a region the
  // tensor's dtype lacks, a range beyond the region bytes, a block that fails its checks (the
  // message names tensor, chunk and plane; other reads are unaffected). st (if given) gets the call's
  // figures, also on error.
  Status read(uint32_t image, size_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
              CallStats* st = nullptr);
  // The whole region of a tensor.
  Status read_region(uint32_t image, size_t tensor, const Region& r, std::vector<uint8_t>& out,
                     CallStats* st = nullptr);

  // Map region bytes [offset, offset + length) of a tensor into this process as ordinary read-only
  // memory (userfaultfd): each first touch of a fault unit (fault_bytes: 4 KiB or 2 MiB) installs
  // that unit's region bytes, read from the device, so only the planes of the region are fetched;
  // the mapping keeps the last two chunks it read, so a scan reads each chunk once; bytes past the
  // mapped length read zero. Errors: offset not a multiple of 4 KiB (unaligned map), a range
  // beyond the region bytes (map beyond a tensor), length 0, userfaultfd unavailable, a host_node
  // (OpenOptions) the runtime cannot place on.
  Result<std::unique_ptr<Mapping>> map(uint32_t image, size_t tensor, const Region& r, uint64_t offset,
                                       uint64_t length, uint64_t fault_bytes = 4096);

  // KV cache streams (docs/spec.md section 6): token-major bf16/fp16 words in, token-major out.
  // A device with KV pages (spec 7.7, emu and rtl when KV_CAPS offers them) transforms, encodes and
  // stores the windows itself; otherwise the node stores full windows of g.window tokens encoded
  // (channel-major, exponent deltas, plane blocks) in device memory and buffers the partial last
  // window. Reads return exactly what was written. Errors: a geometry kv_window_check rejects, an
  // unknown stream, a range beyond the tokens written, device memory full.
  Result<uint32_t> kv_create(DType t, const KvGeometry& g);
  Status kv_append(uint32_t stream, const uint16_t* token_major, uint64_t tokens, CallStats* st = nullptr);
  Status kv_read(uint32_t stream, uint64_t first_token, uint64_t tokens, uint16_t* out, CallStats* st = nullptr);
  Result<uint64_t> kv_tokens(uint32_t stream);
  // True when the stream's windows go through the device's KV pages, false when the node encodes
  // them (dax, a device without KV pages, a geometry the pages do not take). Error: unknown stream.
  Result<bool> kv_on_device(uint32_t stream);
  Status kv_free(uint32_t stream);

  DeviceStats stats() const;

 private:
  friend class Mapping;
  Device();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string uri_;
};

// A mapped region (Device::map). Unmaps on destruction; must not outlive its Device.
class Mapping {
 public:
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(addr_); }
  uint64_t size() const { return length_; }
  uint64_t fault_bytes() const { return unit_; }
  // Faults served so far, and the first fault whose read failed (its unit reads zero; ok() if none).
  uint64_t faults() const;
  Status status() const;

 private:
  friend class Device;
  Mapping() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  void* addr_ = nullptr;
  uint64_t length_ = 0, unit_ = 4096;
};

}  // namespace ndp::drv
