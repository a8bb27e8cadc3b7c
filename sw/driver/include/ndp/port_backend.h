// The driver core of a device reached through its host port (docs/spec.md section 7): the emulated
// node's device model (DeviceModel) and the Verilator-built ndp_device (tb/device DeviceEnv) both
// implement ndp::dev::HostPort, and PortBackend drives either exactly as a host driver drives the
// hardware: it reads ID and CAPS, keeps device DRAM and the window-offset space allocated for
// several images, writes each image through the store window, keeps the descriptor table sorted by
// base for all of them, commits with TENSOR_COUNT, reads regions through the region windows
// (64-byte beats, per-beat responses) and explains a failed beat from ERR_CODE / ERR_CHUNK /
// ERR_ADDR. KV streams go through the device's KV pages (spec 7.7, DevKvStore) when KV_CAPS offers
// them and the geometry fits, else on the golden model in the node (KvStore); the KV tensors of an
// image (not mapped by the device) are read on the golden model (ImageReader). Thread-safe (one lock).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ndp/device_map.h"
#include "ndp/driver_backend.h"

namespace ndp::drv {

class PortBackend : public Backend {
 public:
  // Attach to a device: reads ID (error unless "NDPD" and spec version 1) and CAPS. energy (may be
  // empty) returns the DRAM energy so far, for BackendInfo.
  static Result<std::unique_ptr<PortBackend>> attach(std::unique_ptr<dev::HostPort> port, std::string name,
                                                     std::function<double()> energy = {});
  ~PortBackend() override;

  std::string name() const override;
  Result<uint32_t> load(const uint8_t* image, size_t bytes) override;
  Status unload(uint32_t image) override;
  Status read(uint32_t image, uint32_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
              CallStats* st) override;
  Result<uint32_t> kv_create(DType t, const KvGeometry& g) override;
  Status kv_append(uint32_t stream, const uint16_t* token_major, uint64_t tokens, CallStats* st) override;
  Status kv_read(uint32_t stream, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) override;
  Result<uint64_t> kv_tokens(uint32_t stream) override;
  Status kv_free(uint32_t stream) override;
  BackendInfo info() override;

  // True when the stream's windows go through the device's KV pages (spec 7.7), false when the node
  // encodes them on the golden model (a device without KV pages, or a geometry they do not take).
  Result<bool> kv_on_device(uint32_t stream) override;
  // The device's tensor base of (image, tensor) in every region window; error if it is not mapped.
  Result<uint64_t> tensor_base(uint32_t image, uint32_t tensor);

 private:
  PortBackend();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The emulated node's device: a DeviceModel with o.dram_bytes of DRAM and o.chunk_buffers chunk
// buffers, behind a PortBackend named `name`.
Result<std::unique_ptr<PortBackend>> make_model_backend(const OpenOptions& o, const std::string& name);

}  // namespace ndp::drv
