// Internal helpers shared by the store, the local metadata operations, the checker and the RPC
// layer: typed views of the pool's words and the local (atomic) allocator and index.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "format.h"
#include "ndp/kvstore/kvstore.h"

namespace ndp::kv {

inline std::atomic<uint64_t>& state_word(const KvStore& s, uint64_t b) {
  return *reinterpret_cast<std::atomic<uint64_t>*>(s.base() + s.state_offset() + 8 * b);
}
inline std::atomic<uint64_t>& index_slot(const KvStore& s, uint64_t i) {
  return *reinterpret_cast<std::atomic<uint64_t>*>(s.base() + s.index_offset() + 8 * i);
}
inline fmt::Control& control(const KvStore& s) {
  return *reinterpret_cast<fmt::Control*>(s.base() + fmt::kControlOffset);
}
inline fmt::BlockHeader* block_header(const KvStore& s, uint64_t b) {
  return reinterpret_cast<fmt::BlockHeader*>(s.base() + s.block_offset(static_cast<uint32_t>(b)));
}

uint64_t header_check(const fmt::BlockHeader& h);
// Read the state word with the pool's coherence (refresh first when not coherent).
uint64_t load_state(const KvStore& s, uint64_t b);
// A private copy of the block header, read as the coherence mode requires.
fmt::BlockHeader read_header(const KvStore& s, uint64_t b);
// Header well formed for a block sealed at `version`?
bool header_ok(const KvStore& s, const fmt::BlockHeader& h, uint32_t version);
std::string block_where(const KvStore& s, uint64_t b);  // "block 17 (pool offset 0x4c40)"
uint64_t now_realtime_ns();

// Lock-free allocator and index over the pool's atomics (coherent sharing).
class LocalMeta final : public MetaOps {
 public:
  explicit LocalMeta(KvStore& s) : s_(s) {}
  Result<uint32_t> alloc(uint32_t owner, bool evict_if_full) override;
  Result<PutResult> commit(uint32_t block, const Key& k, uint64_t checksum) override;
  Status abort(uint32_t block) override;
  Result<bool> lookup(const Key& k, BlockRef& out) override;
  Result<bool> remove(const Key& k) override;

  // Index insert of a sealed block: false (and `dup` set) when the key is indexed already.
  Result<bool> index_insert(const Key& k, uint32_t block, uint32_t& dup);
  // Flip an index entry that points at `block` for key k to a tombstone; false if none.
  bool index_erase(const Key& k, uint32_t block);
  // SEALED(version) -> FREE; false when the state moved on.
  bool free_sealed(uint32_t block, uint32_t version);

 private:
  Result<uint32_t> evict_one(uint32_t owner);
  // A sealed entry for k between `home` and slot `mine` (exclusive)?
  bool earlier_copy(const Key& k, uint64_t home, uint64_t mine, uint32_t& dup);
  bool try_take(uint64_t b, uint32_t owner);
  // Does index word w name a sealed block holding key k? Error for a corrupt header.
  Result<bool> entry_matches(uint64_t w, const Key& k, BlockRef* out);
  KvStore& s_;
};

}  // namespace ndp::kv
