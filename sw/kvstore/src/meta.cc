// LocalMeta: the pool's block allocator and prefix-hash index, run with atomics in the shared
// mapping. Every change is one compare-and-swap on one 64-bit word, so a process killed between
// two of them leaves a state recover() understands (docs/kvstore.md, "Crash consistency").
#include <cstring>
#include <ctime>
#include <signal.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "pool_internal.h"

namespace ndp::kv {

uint64_t header_check(const fmt::BlockHeader& h) { return XXH64(&h, offsetof(fmt::BlockHeader, hdr_check), 0); }

uint64_t load_state(const KvStore& s, uint64_t b) {
  auto& w = state_word(s, b);
  refresh(&w, s.coherence());
  return w.load(std::memory_order_acquire);
}

fmt::BlockHeader read_header(const KvStore& s, uint64_t b) {
  fmt::BlockHeader h;
  load_bytes(&h, block_header(s, b), sizeof h, s.coherence());
  return h;
}

bool header_ok(const KvStore& s, const fmt::BlockHeader& h, uint32_t version) {
  return h.magic == fmt::kBlockMagic && h.version == version && h.payload_bytes == s.geometry().block_bytes() &&
         h.hdr_check == header_check(h);
}

std::string block_where(const KvStore& s, uint64_t b) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "block %llu (pool offset 0x%llx)", static_cast<unsigned long long>(b),
                static_cast<unsigned long long>(s.block_offset(static_cast<uint32_t>(b))));
  return buf;
}

uint64_t now_realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

bool process_alive(uint32_t pid) { return pid != 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

bool LocalMeta::try_take(uint64_t b, uint32_t owner) {
  auto& w = state_word(s_, b);
  uint64_t cur = w.load(std::memory_order_acquire);
  if (fmt::state_kind(cur) != fmt::kFree) return false;
  const uint64_t nw = fmt::make_state(fmt::next_version(fmt::state_version(cur)), fmt::kWriting, owner);
  if (!w.compare_exchange_strong(cur, nw, std::memory_order_acq_rel)) return false;
  publish(&w, s_.coherence());
  return true;
}

Result<uint32_t> LocalMeta::alloc(uint32_t owner, bool evict_if_full) {
  const uint64_t n = s_.blocks();
  const uint64_t start = control(s_).alloc_hint.value.fetch_add(1, std::memory_order_relaxed) % n;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t b = (start + i) % n;
    if (try_take(b, owner)) {
      control(s_).alloc_hint.value.store(b + 1, std::memory_order_relaxed);
      return static_cast<uint32_t>(b);
    }
  }
  if (evict_if_full) return evict_one(owner);
  return Status::Error(s_.path() + ": pool full: all " + std::to_string(n) + " blocks of " +
                       std::to_string(s_.geometry().block_bytes()) + " B are in use");
}

// Clock-style eviction: the first sealed block after the hint is unindexed and taken over.
Result<uint32_t> LocalMeta::evict_one(uint32_t owner) {
  const uint64_t n = s_.blocks();
  const uint64_t start = control(s_).alloc_hint.value.load(std::memory_order_relaxed) % n;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t b = (start + i) % n;
    auto& w = state_word(s_, b);
    uint64_t cur = w.load(std::memory_order_acquire);
    if (fmt::state_kind(cur) != fmt::kSealed) continue;
    const fmt::BlockHeader h = read_header(s_, b);
    index_erase(Key{h.key_lo, h.key_hi}, static_cast<uint32_t>(b));
    const uint64_t nw = fmt::make_state(fmt::next_version(fmt::state_version(cur)), fmt::kWriting, owner);
    if (!w.compare_exchange_strong(cur, nw, std::memory_order_acq_rel)) continue;
    publish(&w, s_.coherence());
    control(s_).alloc_hint.value.store(b + 1, std::memory_order_relaxed);
    return static_cast<uint32_t>(b);
  }
  return Status::Error(s_.path() + ": pool full: all " + std::to_string(n) +
                       " blocks are being written, none can be evicted");
}

Result<PutResult> LocalMeta::commit(uint32_t block, const Key& k, uint64_t checksum) {
  if (block >= s_.blocks()) return Status::Error("commit: block " + std::to_string(block) + " out of range");
  auto& w = state_word(s_, block);
  uint64_t cur = w.load(std::memory_order_acquire);
  if (fmt::state_kind(cur) != fmt::kWriting)
    return Status::Error("commit: " + block_where(s_, block) + " is not being written");
  fmt::BlockHeader h{};
  h.magic = fmt::kBlockMagic;
  h.version = fmt::state_version(cur);
  h.key_lo = k.lo, h.key_hi = k.hi;
  h.payload_bytes = s_.geometry().block_bytes();
  h.checksum = checksum;
  h.sealed_ns = now_realtime_ns();
  h.hdr_check = header_check(h);
  store_bytes(block_header(s_, block), &h, sizeof h, s_.coherence());
  const uint64_t sealed = fmt::make_state(h.version, fmt::kSealed, fmt::state_owner(cur));
  if (!w.compare_exchange_strong(cur, sealed, std::memory_order_acq_rel))
    return Status::Error("commit: " + block_where(s_, block) + " changed state while it was written");
  publish(&w, s_.coherence());
  s_.fault(FaultPoint::kSealed);
  uint32_t dup = 0;
  auto ins = index_insert(k, block, dup);
  if (!ins.ok()) {
    free_sealed(block, h.version);
    return ins.status();
  }
  if (!ins.value()) {
    free_sealed(block, h.version);
    return PutResult::kAlreadyPresent;
  }
  s_.fault(FaultPoint::kIndexed);
  return PutResult::kStored;
}

Status LocalMeta::abort(uint32_t block) {
  if (block >= s_.blocks()) return Status::Error("abort: block " + std::to_string(block) + " out of range");
  auto& w = state_word(s_, block);
  uint64_t cur = w.load(std::memory_order_acquire);
  if (fmt::state_kind(cur) != fmt::kWriting)
    return Status::Error("abort: " + block_where(s_, block) + " is not being written");
  const uint64_t nw = fmt::make_state(fmt::next_version(fmt::state_version(cur)), fmt::kFree, 0);
  if (!w.compare_exchange_strong(cur, nw, std::memory_order_acq_rel))
    return Status::Error("abort: " + block_where(s_, block) + " changed state");
  publish(&w, s_.coherence());
  return Status::Ok();
}

bool LocalMeta::free_sealed(uint32_t block, uint32_t version) {
  auto& w = state_word(s_, block);
  uint64_t cur = w.load(std::memory_order_acquire);
  if (fmt::state_kind(cur) != fmt::kSealed || fmt::state_version(cur) != version) return false;
  const uint64_t nw = fmt::make_state(fmt::next_version(version), fmt::kFree, 0);
  if (!w.compare_exchange_strong(cur, nw, std::memory_order_acq_rel)) return false;
  publish(&w, s_.coherence());
  return true;
}

Result<bool> LocalMeta::entry_matches(uint64_t w, const Key& k, BlockRef* out) {
  if (w == fmt::kEmpty || w == fmt::kTomb || fmt::index_tag(w) != (k.lo >> 24)) return false;
  const uint64_t b = fmt::index_block(w);
  if (b >= s_.blocks()) return false;
  const uint64_t st = load_state(s_, b);
  if (fmt::state_kind(st) != fmt::kSealed) return false;
  const fmt::BlockHeader h = read_header(s_, b);
  if (!header_ok(s_, h, fmt::state_version(st))) {
    if (load_state(s_, b) != st) return false;  // reused while we read it
    return Status::Error(s_.path() + ": " + block_where(s_, b) + ": corrupt block header");
  }
  if (h.key_lo != k.lo || h.key_hi != k.hi) return false;
  if (out) *out = BlockRef{static_cast<uint32_t>(b), h.version, h.checksum};
  return true;
}

// Probe from the key's home slot to the first empty slot: a sealed entry for the key there means
// a duplicate. Otherwise take the first tombstone on the way (or the empty slot). Two inserts of
// one key racing into different slots are settled by a second scan: the later in probe order
// yields when it sees the earlier one. (If neither sees the other both stay; lookups return the
// first, remove() removes both and recovery frees the extra.)
Result<bool> LocalMeta::index_insert(const Key& k, uint32_t block, uint32_t& dup) {
  const uint64_t mask = s_.index_slots() - 1, want = fmt::index_word(k.lo, block), home = k.hi & mask;
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint64_t pos = home, target = ~0ull, expect = 0;
    for (uint64_t probe = 0; probe < s_.index_slots(); ++probe, pos = (pos + 1) & mask) {
      const uint64_t w = index_slot(s_, pos).load(std::memory_order_acquire);
      if (w == fmt::kTomb) {
        if (target == ~0ull) target = pos, expect = w;
        continue;
      }
      if (w == fmt::kEmpty) {
        if (target == ~0ull) target = pos, expect = w;
        break;
      }
      BlockRef r;
      auto m = entry_matches(w, k, &r);
      if (!m.ok()) return m.status();
      if (m.value()) return dup = r.block, false;
    }
    if (target == ~0ull)
      return Status::Error(s_.path() + ": index full (" + std::to_string(s_.index_slots()) + " live entries)");
    auto& slot = index_slot(s_, target);
    if (!slot.compare_exchange_strong(expect, want, std::memory_order_seq_cst)) continue;
    publish(&slot, s_.coherence());
    if (earlier_copy(k, home, target, dup)) {
      uint64_t mine = want;
      if (slot.compare_exchange_strong(mine, fmt::kTomb)) publish(&slot, s_.coherence());
      return false;
    }
    return true;
  }
  return Status::Error(s_.path() + ": index insert kept losing races (64 attempts)");
}

bool LocalMeta::earlier_copy(const Key& k, uint64_t home, uint64_t mine, uint32_t& dup) {
  const uint64_t mask = s_.index_slots() - 1;
  for (uint64_t pos = home; pos != mine; pos = (pos + 1) & mask) {
    BlockRef r;
    auto m = entry_matches(index_slot(s_, pos).load(std::memory_order_seq_cst), k, &r);
    if (m.ok() && m.value()) return dup = r.block, true;
  }
  return false;
}

bool LocalMeta::index_erase(const Key& k, uint32_t block) {
  const uint64_t mask = s_.index_slots() - 1, want = fmt::index_word(k.lo, block);
  uint64_t pos = k.hi & mask;
  for (uint64_t probe = 0; probe < s_.index_slots(); ++probe, pos = (pos + 1) & mask) {
    auto& slot = index_slot(s_, pos);
    uint64_t w = slot.load(std::memory_order_acquire);
    if (w == fmt::kEmpty) return false;
    if (w != want) continue;
    if (slot.compare_exchange_strong(w, fmt::kTomb, std::memory_order_acq_rel)) {
      publish(&slot, s_.coherence());
      return true;
    }
  }
  return false;
}

Result<bool> LocalMeta::lookup(const Key& k, BlockRef& out) {
  const uint64_t mask = s_.index_slots() - 1;
  uint64_t pos = k.hi & mask;
  for (uint64_t probe = 0; probe < s_.index_slots(); ++probe, pos = (pos + 1) & mask) {
    auto& slot = index_slot(s_, pos);
    refresh(&slot, s_.coherence());
    const uint64_t w = slot.load(std::memory_order_acquire);
    if (w == fmt::kEmpty) return false;
    auto m = entry_matches(w, k, &out);
    if (!m.ok() || m.value()) return m;
  }
  return false;
}

// Every indexed copy of the key is unindexed and freed (see index_insert on racing inserts).
Result<bool> LocalMeta::remove(const Key& k) {
  bool removed = false;
  for (int attempt = 0; attempt < 64; ++attempt) {
    BlockRef r;
    auto f = lookup(k, r);
    if (!f.ok()) return f;
    if (!f.value()) return removed;
    if (!index_erase(k, r.block)) continue;  // someone else removed or evicted it
    s_.fault(FaultPoint::kRemoveUnindexed);
    free_sealed(r.block, r.version);
    removed = true;
  }
  return removed;
}

}  // namespace ndp::kv
