// Per-node object allocator (after ../shared/papers/tocp-cxl-pool.txt, its object-based hybrid
// strategy): requests up to 16 MiB come from slabs of three classes (16 KiB, 1 MiB, 16 MiB)
// carved out of large blocks placed on the node; larger requests take the large-block path (their
// own placed mapping). Each class has its own lock and free lists; fully free blocks beyond a
// watermark go back to the system. Blocks start at a multiple of min(block size, 2 MiB), so slots
// are aligned to their class size up to 2 MiB. Thread-safe; utilisation and fragmentation counters.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ndp/runtime/runtime.h"

namespace ndp::rt {

inline constexpr std::array<uint64_t, 3> kSlabClassBytes = {16ull << 10, 1ull << 20, 16ull << 20};

struct SlabOptions {
  Placement placement = Placement::on_node(0);
  AllocOptions alloc;  // populate on by default: blocks are faulted in and verified once
  std::array<uint64_t, 3> block_bytes = {4ull << 20, 32ull << 20, 64ull << 20};  // slab block per class
  uint32_t keep_empty_blocks = 1;  // fully free blocks kept per class before unmapping more
};

struct SlabStats {
  struct Class {
    uint64_t blocks = 0, slots = 0, used = 0, requested_bytes = 0;
  };
  std::array<Class, 3> cls{};
  uint64_t large_count = 0, large_bytes = 0;
  uint64_t reserved_bytes = 0;        // slab blocks + large blocks mapped
  uint64_t slot_bytes_in_use = 0;     // class bytes of used slots + large blocks
  uint64_t requested_bytes = 0;       // what callers asked for
  uint64_t allocs = 0, frees = 0, failures = 0, blocks_created = 0, blocks_returned = 0;
  double utilisation() const { return reserved_bytes ? double(requested_bytes) / double(reserved_bytes) : 0; }
  // Bytes handed out but not asked for (slot rounding).
  double internal_fragmentation() const {
    return slot_bytes_in_use ? 1.0 - double(requested_bytes) / double(slot_bytes_in_use) : 0;
  }
  // Mapped bytes in free slots.
  double external_fragmentation() const {
    return reserved_bytes ? 1.0 - double(slot_bytes_in_use) / double(reserved_bytes) : 0;
  }
};

class ObjectAllocator {
 public:
  ObjectAllocator(Runtime& rt, SlabOptions o = {});
  ~ObjectAllocator();
  ObjectAllocator(const ObjectAllocator&) = delete;
  ObjectAllocator& operator=(const ObjectAllocator&) = delete;

  // Class index for a size: 0/1/2, or 3 for the large-block path.
  static int class_of(uint64_t bytes);
  // Errors: size 0, the node cannot hold another block (names node and sizes).
  Result<void*> allocate(uint64_t bytes);
  // Errors: pointer not from this allocator, not a slot start, or already free. nullptr is a no-op.
  Status free(void* p);
  // Map `blocks` blocks of a class now so later allocations never touch the kernel.
  Status reserve(int cls, uint64_t blocks);
  SlabStats stats() const;

 private:
  struct Block;
  struct ClassState;
  Result<Block*> new_block(int cls);
  Runtime& rt_;
  SlabOptions opt_;
  std::array<std::unique_ptr<ClassState>, 3> cls_;
  mutable std::mutex large_mu_;
  std::map<uintptr_t, std::pair<Allocation, uint64_t>> large_;  // base -> (mapping, requested)
  uint64_t large_allocs_ = 0, large_frees_ = 0, large_failures_ = 0;  // under large_mu_
};

}  // namespace ndp::rt
