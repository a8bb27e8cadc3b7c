// KV cache streams on the golden model (docs/spec.md section 6), for backends whose device has no
// KV write path yet: full windows of W tokens are transformed channel-major with exponent deltas,
// packed into planes, encoded as plane blocks (KVBASE first) and stored in device memory; the
// partial last window stays in the node's buffer until it fills. Reads fetch and decode the windows
// they need and return token-major words exactly as written. Not thread-safe (callers lock).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ndp/block.h"
#include "ndp/driver.h"
#include "ndp/kv.h"

namespace ndp::drv {

// The device memory a KvStore keeps its windows in.
class KvMemory {
 public:
  virtual ~KvMemory() = default;
  virtual Result<uint64_t> kv_alloc(uint64_t bytes) = 0;  // error: memory full
  virtual void kv_release(uint64_t addr) = 0;
  virtual Status kv_store(uint64_t addr, const uint8_t* data, size_t n, CallStats* st) = 0;
  virtual Status kv_fetch(uint64_t addr, size_t n, uint8_t* out, CallStats* st) = 0;
};

class KvStore {
 public:
  explicit KvStore(KvMemory& mem) : mem_(mem) {}
  ~KvStore();
  // A new stream with the caller's id (the backend numbers its streams); error if it exists.
  Status create(uint32_t id, DType t, const KvGeometry& g);
  bool has(uint32_t id) const { return streams_.count(id) != 0; }
  Status append(uint32_t id, const uint16_t* token_major, uint64_t tokens, CallStats* st);
  Status read(uint32_t id, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st);
  Result<uint64_t> tokens(uint32_t id) const;
  Status release(uint32_t id);

 private:
  struct Window {
    uint64_t addr = 0;
    std::vector<uint32_t> rel;  // block offsets (KVBASE, then the planes), plus the end
  };
  struct Stream {
    DType dtype = DType::kBF16;
    KvGeometry g;
    std::vector<Window> windows;
    std::vector<uint16_t> pending;  // token-major words of the partial window
  };
  Result<Stream*> find(uint32_t id);
  Status store_window(uint32_t id, Stream& s, const uint16_t* token_major, CallStats* st);
  Status load_window(uint32_t id, const Stream& s, uint64_t k, std::vector<uint16_t>& out, CallStats* st);

  KvMemory& mem_;
  std::map<uint32_t, Stream> streams_;
  BlockEncoder enc_;
  BlockDecoder dec_;
};

}  // namespace ndp::drv
