// Slab classes and the large-block path of the per-node object allocator.
#include "ndp/runtime/slab.h"

#include <algorithm>

#include "ndp/runtime/size.h"

namespace ndp::rt {

struct ObjectAllocator::Block {
  Allocation mem;
  char* base = nullptr;
  uint32_t slots = 0, used = 0;
  std::vector<uint32_t> free;       // stack of free slot indices
  std::vector<uint32_t> requested;  // per slot; 0 = free
  Block* prev = nullptr;            // in the class's list of blocks with free slots
  Block* next = nullptr;
  bool listed = false;
};

struct ObjectAllocator::ClassState {
  std::mutex mu;
  uint64_t slot_bytes = 0, block_bytes = 0;
  std::map<uintptr_t, std::unique_ptr<Block>> blocks;  // base -> block
  Block* avail = nullptr;                              // blocks with a free slot
  uint64_t empty = 0;                                  // blocks with no used slot
  uint64_t used = 0, requested = 0;
  uint64_t allocs = 0, frees = 0, failures = 0, created = 0, returned = 0;

  void link(Block* b) {
    b->prev = nullptr;
    b->next = avail;
    if (avail) avail->prev = b;
    avail = b;
    b->listed = true;
  }
  void unlink(Block* b) {
    if (b->prev) b->prev->next = b->next;
    else avail = b->next;
    if (b->next) b->next->prev = b->prev;
    b->prev = b->next = nullptr;
    b->listed = false;
  }
};

ObjectAllocator::ObjectAllocator(Runtime& rt, SlabOptions o) : rt_(rt), opt_(std::move(o)) {
  for (int k = 0; k < 3; ++k) {
    cls_[k] = std::make_unique<ClassState>();
    cls_[k]->slot_bytes = kSlabClassBytes[k];
    // A block holds at least one slot and a whole number of them.
    uint64_t b = std::max(opt_.block_bytes[k], kSlabClassBytes[k]);
    cls_[k]->block_bytes = b - b % kSlabClassBytes[k];
  }
}

ObjectAllocator::~ObjectAllocator() = default;

int ObjectAllocator::class_of(uint64_t bytes) {
  for (int k = 0; k < 3; ++k)
    if (bytes <= kSlabClassBytes[k]) return k;
  return 3;
}

Result<ObjectAllocator::Block*> ObjectAllocator::new_block(int k) {
  ClassState& c = *cls_[k];
  AllocOptions ao = opt_.alloc;
  ao.align = std::max<uint64_t>(ao.align, std::min<uint64_t>(c.block_bytes, 2ull << 20));  // slots aligned to their size (up to 2 MiB)
  auto mem = rt_.allocate(c.block_bytes, opt_.placement, ao);
  if (!mem.ok()) return Status(mem.status()).prepend("slab " + format_size(c.slot_bytes) + " block: ");
  auto b = std::make_unique<Block>();
  b->mem = std::move(mem.value());
  b->base = static_cast<char*>(b->mem.data());
  b->slots = static_cast<uint32_t>(c.block_bytes / c.slot_bytes);
  b->requested.assign(b->slots, 0);
  for (uint32_t i = b->slots; i-- > 0;) b->free.push_back(i);
  Block* raw = b.get();
  c.blocks.emplace(reinterpret_cast<uintptr_t>(raw->base), std::move(b));
  c.link(raw);
  ++c.empty;
  ++c.created;
  return raw;
}

Status ObjectAllocator::reserve(int k, uint64_t blocks) {
  if (k < 0 || k > 2) return Status::Error("slab reserve: class " + std::to_string(k) + " (0..2)");
  std::lock_guard<std::mutex> g(cls_[k]->mu);
  for (uint64_t i = 0; i < blocks; ++i) {
    auto b = new_block(k);
    if (!b.ok()) return b.status();
  }
  return Status::Ok();
}

Result<void*> ObjectAllocator::allocate(uint64_t bytes) {
  if (bytes == 0) return Status::Error("slab allocate: size 0");
  const int k = class_of(bytes);
  if (k == 3) {
    auto a = rt_.allocate(bytes, opt_.placement, opt_.alloc);
    std::lock_guard<std::mutex> g(large_mu_);
    if (!a.ok()) {
      ++large_failures_;
      return Status(a.status()).prepend("slab large block: ");
    }
    void* p = a.value().data();
    ++large_allocs_;
    large_.emplace(reinterpret_cast<uintptr_t>(p), std::make_pair(std::move(a.value()), bytes));
    return p;
  }
  ClassState& c = *cls_[k];
  std::lock_guard<std::mutex> g(c.mu);
  Block* b = c.avail;
  if (!b) {
    auto nb = new_block(k);
    if (!nb.ok()) {
      ++c.failures;
      return nb.status();
    }
    b = nb.value();
  }
  uint32_t i = b->free.back();
  b->free.pop_back();
  if (b->used++ == 0) --c.empty;
  b->requested[i] = static_cast<uint32_t>(bytes);
  if (b->free.empty()) c.unlink(b);
  ++c.used;
  c.requested += bytes;
  ++c.allocs;
  return static_cast<void*>(b->base + static_cast<uint64_t>(i) * c.slot_bytes);
}

Status ObjectAllocator::free(void* p) {
  if (!p) return Status::Ok();
  const auto at = reinterpret_cast<uintptr_t>(p);
  for (int k = 0; k < 3; ++k) {
    ClassState& c = *cls_[k];
    std::unique_lock<std::mutex> g(c.mu);
    auto it = c.blocks.upper_bound(at);
    if (it == c.blocks.begin()) continue;
    --it;
    Block* b = it->second.get();
    if (at >= it->first + c.block_bytes) continue;
    uint64_t off = at - it->first;
    if (off % c.slot_bytes) return Status::Error("slab free: pointer is inside a " + format_size(c.slot_bytes) + " slot, not at its start");
    uint32_t i = static_cast<uint32_t>(off / c.slot_bytes);
    if (b->requested[i] == 0) return Status::Error("slab free: " + format_size(c.slot_bytes) + " slot freed twice");
    c.requested -= b->requested[i];
    b->requested[i] = 0;
    b->free.push_back(i);
    --c.used;
    ++c.frees;
    if (!b->listed) c.link(b);
    if (--b->used == 0 && ++c.empty > opt_.keep_empty_blocks) {
      // Above the watermark: give this block back (its mapping is unmapped with it).
      c.unlink(b);
      --c.empty;
      ++c.returned;
      c.blocks.erase(it);
    }
    return Status::Ok();
  }
  std::lock_guard<std::mutex> g(large_mu_);
  auto it = large_.find(at);
  if (it == large_.end()) return Status::Error("slab free: pointer was not allocated by this allocator");
  large_.erase(it);
  ++large_frees_;
  return Status::Ok();
}

SlabStats ObjectAllocator::stats() const {
  SlabStats s;
  for (int k = 0; k < 3; ++k) {
    ClassState& c = *cls_[k];
    std::lock_guard<std::mutex> g(c.mu);
    auto& o = s.cls[k];
    o.blocks = c.blocks.size();
    o.slots = o.blocks * (c.block_bytes / c.slot_bytes);
    o.used = c.used;
    o.requested_bytes = c.requested;
    s.reserved_bytes += o.blocks * c.block_bytes;
    s.slot_bytes_in_use += c.used * c.slot_bytes;
    s.requested_bytes += c.requested;
    s.allocs += c.allocs;
    s.frees += c.frees;
    s.failures += c.failures;
    s.blocks_created += c.created;
    s.blocks_returned += c.returned;
  }
  std::lock_guard<std::mutex> g(large_mu_);
  for (const auto& [base, e] : large_) {
    ++s.large_count;
    s.large_bytes += e.first.size();
    s.reserved_bytes += e.first.size();
    s.slot_bytes_in_use += e.first.size();
    s.requested_bytes += e.second;
  }
  s.failures += large_failures_;
  s.allocs += large_allocs_;
  s.frees += large_frees_;
  return s;
}

}  // namespace ndp::rt
