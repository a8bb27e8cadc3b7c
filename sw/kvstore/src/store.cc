// KvStore data path: gather-write and scatter-read of blocks, the zero-copy write/read pieces the
// connector uses, and the owner id. Allocation and index go through MetaOps (local or RPC).
#include <pthread.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <atomic>

#include "pool_internal.h"

namespace ndp::kv {
namespace {

std::atomic<uint32_t> g_pid{0};

void refresh_pid() { g_pid.store(static_cast<uint32_t>(::getpid()), std::memory_order_relaxed); }

Status check_key(const Key& k) { return k.valid() ? Status::Ok() : Status::Error("key {0,0} is reserved"); }

template <typename S>
Status check_slices(std::span<S> sl, uint64_t want, const char* what) {
  uint64_t total = 0;
  for (const auto& s : sl) total += s.bytes;
  if (total != want)
    return Status::Error(std::string(what) + ": slices hold " + std::to_string(total) + " B, a block is " +
                         std::to_string(want) + " B");
  return Status::Ok();
}

}  // namespace

uint32_t KvStore::owner_id() const {
  static const bool registered = [] {
    refresh_pid();
    pthread_atfork(nullptr, nullptr, refresh_pid);
    return true;
  }();
  (void)registered;
  return g_pid.load(std::memory_order_relaxed);
}

uint64_t KvStore::block_offset(uint32_t block) const { return off_data_ + uint64_t{block} * slot_bytes_; }
uint8_t* KvStore::payload(uint32_t block) const { return base_ + block_offset(block) + sizeof(fmt::BlockHeader); }
void KvStore::set_meta(MetaOps* m) { meta_ = m ? m : local_.get(); }
MetaOps& KvStore::local_meta() { return *local_; }

Result<PutResult> KvStore::put(const Key& k, std::span<const ConstSlice> gather, const PutOptions& o) {
  NDP_RETURN_IF_ERROR(check_key(k));
  NDP_RETURN_IF_ERROR(check_slices(gather, geo_.block_bytes(), "put"));
  BlockRef existing;
  auto f = meta_->lookup(k, existing);
  if (!f.ok()) return f.status();
  if (f.value()) return PutResult::kAlreadyPresent;
  auto b = meta_->alloc(owner_id(), o.evict_if_full);
  if (!b.ok()) return b.status();
  fault(FaultPoint::kAllocated);
  XXH3_state_t h;
  XXH3_64bits_reset(&h);
  uint8_t* dst = payload(b.value());
  uint64_t off = 0;
  bool half = false;
  for (const auto& s : gather) {
    store_bytes(dst + off, s.data, s.bytes, coh_);
    XXH3_64bits_update(&h, s.data, s.bytes);
    off += s.bytes;
    if (!half && 2 * off >= geo_.block_bytes()) fault(FaultPoint::kPayloadHalf), half = true;
  }
  fault(FaultPoint::kPayloadDone);
  auto r = meta_->commit(b.value(), k, XXH3_64bits_digest(&h));
  if (!r.ok()) meta_->abort(b.value()).ok();  // may already be free (commit frees on index errors)
  return r;
}

Result<bool> KvStore::find(const Key& k, BlockRef& out) {
  NDP_RETURN_IF_ERROR(check_key(k));
  return meta_->lookup(k, out);
}

void KvStore::read(uint32_t block, uint64_t offset, void* dst, uint64_t n) const {
  load_bytes(dst, payload(block) + offset, n, coh_);
}

bool KvStore::still_valid(const BlockRef& r) const {
  std::atomic_thread_fence(std::memory_order_acquire);
  const uint64_t w = load_state(*this, r.block);
  return fmt::state_kind(w) == fmt::kSealed && fmt::state_version(w) == r.version;
}

Status KvStore::verify_copy(const BlockRef& r, std::span<const ConstSlice> copy) const {
  XXH3_state_t h;
  XXH3_64bits_reset(&h);
  for (const auto& s : copy) XXH3_64bits_update(&h, s.data, s.bytes);
  if (XXH3_64bits_digest(&h) == r.checksum) return Status::Ok();
  return Status::Error(path_ + ": " + block_where(*this, r.block) + ": payload checksum mismatch");
}

// A sealed block is copied, then its state word is read again: unchanged means the copy is of the
// block as sealed, and a checksum mismatch then means the pool itself is damaged.
Result<bool> KvStore::get(const Key& k, std::span<const Slice> scatter) {
  NDP_RETURN_IF_ERROR(check_key(k));
  NDP_RETURN_IF_ERROR(check_slices(scatter, geo_.block_bytes(), "get"));
  std::vector<ConstSlice> copied;
  copied.reserve(scatter.size());
  for (const auto& s : scatter) copied.push_back({s.data, s.bytes});
  for (int attempt = 0; attempt < 4; ++attempt) {
    BlockRef r;
    auto f = meta_->lookup(k, r);
    if (!f.ok() || !f.value()) return f;
    uint64_t off = 0;
    for (const auto& s : scatter) {
      read(r.block, off, s.data, s.bytes);
      off += s.bytes;
    }
    if (!still_valid(r)) continue;  // freed or reused while copied: look it up again
    NDP_RETURN_IF_ERROR(verify_copy(r, copied));
    return true;
  }
  return false;
}

Result<bool> KvStore::contains(const Key& k) {
  BlockRef r;
  return find(k, r);
}

Result<bool> KvStore::remove(const Key& k) {
  NDP_RETURN_IF_ERROR(check_key(k));
  return meta_->remove(k);
}

Result<uint32_t> KvStore::allocate(const PutOptions& o) { return meta_->alloc(owner_id(), o.evict_if_full); }

void KvStore::write(uint32_t block, uint64_t offset, const void* src, uint64_t n) {
  store_bytes(payload(block) + offset, src, n, coh_);
}

Result<PutResult> KvStore::commit(uint32_t block, const Key& k) {
  NDP_RETURN_IF_ERROR(check_key(k));
  if (block >= n_blocks_) return Status::Error("commit: block " + std::to_string(block) + " out of range");
  if (coh_ != Coherence::kHost) invalidate_lines(payload(block), geo_.block_bytes());
  const uint64_t sum = XXH3_64bits(payload(block), geo_.block_bytes());
  auto r = meta_->commit(block, k, sum);
  if (!r.ok()) meta_->abort(block).ok();
  return r;
}

Status KvStore::abort(uint32_t block) { return meta_->abort(block); }

PoolStats KvStore::stats() const {
  PoolStats p;
  p.blocks = n_blocks_, p.block_bytes = geo_.block_bytes(), p.slot_bytes = slot_bytes_, p.pool_bytes = pool_bytes_;
  for (uint64_t b = 0; b < n_blocks_; ++b) {
    const uint32_t k = fmt::state_kind(load_state(*this, b));
    p.free += k == fmt::kFree, p.writing += k == fmt::kWriting, p.sealed += k == fmt::kSealed;
  }
  p.index_slots = index_slots_;
  for (uint64_t i = 0; i < index_slots_; ++i) {
    const uint64_t w = index_slot(*this, i).load(std::memory_order_relaxed);
    p.index_used += w != fmt::kEmpty && w != fmt::kTomb;
    p.index_tombstones += w == fmt::kTomb;
  }
  return p;
}

}  // namespace ndp::kv
