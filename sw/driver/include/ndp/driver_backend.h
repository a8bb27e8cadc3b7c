// The backend interface of libndp (docs/driver.md, "Backends") and the registry that maps a device
// name's scheme ("emu", "dax", "rtl", ...) to a backend factory. Device (driver.h) validates every
// argument before it reaches a backend: image handles and tensor indexes exist, the region is one
// the tensor's dtype exposes, ranges lie inside the region bytes, KV streams exist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ndp/driver.h"

namespace ndp::drv {

// What a backend reports about itself.
struct BackendInfo {
  uint64_t memory_bytes = 0;  // device memory (DRAM of the device, size of the dax range)
  uint64_t free_bytes = 0;
  double dram_energy_nj = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "emu:inproc", "dax:/dev/dax0.0", ...
  virtual std::string name() const = 0;
  // Store a validated image in device memory and map its weight tensors; returns the handle.
  // Errors: the image does not fit (device memory, descriptors), the device rejects a tensor.
  virtual Result<uint32_t> load(const uint8_t* image, size_t bytes) = 0;
  virtual Status unload(uint32_t image) = 0;
  // Region bytes [offset, offset + bytes) of tensor t (index in the image's table) into out.
  virtual Status read(uint32_t image, uint32_t tensor, const Region& r, uint64_t offset, uint64_t bytes,
                      uint8_t* out, CallStats* st) = 0;
  // KV streams (Device::kv_*): the backend stores the windows in device memory.
  virtual Result<uint32_t> kv_create(DType t, const KvGeometry& g) = 0;
  virtual Status kv_append(uint32_t stream, const uint16_t* token_major, uint64_t tokens, CallStats* st) = 0;
  virtual Status kv_read(uint32_t stream, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) = 0;
  virtual Result<uint64_t> kv_tokens(uint32_t stream) = 0;
  // Device::kv_on_device: the stream's windows go through the device's KV pages (spec 7.7).
  virtual Result<bool> kv_on_device(uint32_t stream) = 0;
  virtual Status kv_free(uint32_t stream) = 0;
  virtual BackendInfo info() = 0;
};

// arg is the part of the device name after "scheme:" (empty when there is none).
using BackendFactory = std::function<Result<std::unique_ptr<Backend>>(const std::string& arg, const OpenOptions& o)>;

// Register a backend under a scheme (replaces an earlier one). usage: one line for error messages
// and `ndp dev --help`, e.g. "dax:PATH  devdax device or file (software NDP)".
void register_backend(const std::string& scheme, BackendFactory f, const std::string& usage);
bool backend_registered(const std::string& scheme);
// Schemes in name order with their usage lines.
std::vector<std::pair<std::string, std::string>> backend_list();
// Split "scheme:arg" and run the scheme's factory; errors name the unknown scheme and list the known.
Result<std::unique_ptr<Backend>> make_backend(const std::string& uri, const OpenOptions& o);

// Registrar for backends linked in as separate objects (the rtl backend): a static instance.
struct BackendRegistrar {
  BackendRegistrar(const char* scheme, BackendFactory f, const char* usage) { register_backend(scheme, std::move(f), usage); }
};

}  // namespace ndp::drv
