// Size-distribution pinned buffer pool (after ../shared/papers/10cache.txt, its Algorithms 1-2
// and Fig. 5): buffer counts per tensor size follow each size's share of the total bytes, one
// contiguous region is allocated once (placed on a node, page-locked), cut into fixed-size
// buffers, and free lists per size hand them out and take them back. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ndp/runtime/runtime.h"

namespace ndp::rt {

struct SizeCount {
  uint64_t size = 0;   // tensor bytes
  uint64_t count = 0;  // tensors of that size
};

struct PoolClass {
  uint64_t size = 0;     // buffer bytes
  uint64_t wanted = 0;   // tensors of this size (c_i)
  double share = 0;      // size*count / total (TSD)
  uint64_t buffers = 0;  // min(share*budget/size, count)
};

// Algorithms 1+2 (CPU side): share of each size in the total, buffers per size within `budget`.
// Sizes are merged when repeated; classes come out in ascending size. Errors: empty input, zero
// size or count, budget too small for a single buffer of any size.
Result<std::vector<PoolClass>> plan_buffer_pool(const std::vector<SizeCount>& tensors, uint64_t budget);

struct BufferPoolOptions {
  Placement placement = Placement::on_node(0);
  AllocOptions alloc;
  bool lock = true;  // mlock the region (page-locked = pinned for DMA); error if it fails
};

struct BufferPoolStats {
  uint64_t capacity = 0;         // bytes of buffers
  uint64_t buffers = 0, free_buffers = 0;
  uint64_t in_use_bytes = 0;     // bytes of buffers handed out
  uint64_t requested_bytes = 0;  // bytes asked for by their holders
  uint64_t hits = 0, misses = 0; // acquire served / refused (no free buffer large enough)
  double utilisation() const { return capacity ? double(in_use_bytes) / double(capacity) : 0; }
  double internal_waste() const { return in_use_bytes ? 1.0 - double(requested_bytes) / double(in_use_bytes) : 0; }
};

class BufferPool {
 public:
  static Result<std::unique_ptr<BufferPool>> create(Runtime& rt, const std::vector<PoolClass>& classes,
                                                    const BufferPoolOptions& o = {});
  // A free buffer of the smallest class >= bytes (next class up when that one is exhausted).
  // Error (counted as a miss) when none is free; never allocates.
  Result<void*> acquire(uint64_t bytes);
  // Give a buffer back. Error for a pointer that is not a buffer start or is not in use.
  Status release(void* p);
  BufferPoolStats stats() const;
  const Allocation& region() const { return region_; }
  bool locked() const { return locked_; }
  ~BufferPool();

 private:
  struct Cls {
    uint64_t size, stride, offset, count;
    std::vector<uint32_t> free;  // stack of free indices
  };
  BufferPool() = default;
  Allocation region_;
  bool locked_ = false;
  std::vector<Cls> cls_;
  std::vector<uint64_t> held_;  // requested bytes per buffer (0 = free), indexed globally
  std::vector<uint64_t> first_; // global index of each class's first buffer
  mutable std::mutex mu_;
  BufferPoolStats st_;
};

}  // namespace ndp::rt
