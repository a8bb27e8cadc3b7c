// check(): the invariants of a quiescent pool; recover(): take back what killed processes left.
// The block states and headers are the ground truth; the index is rebuilt from them.
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "pool_internal.h"

namespace ndp::kv {
namespace {

constexpr size_t kMaxProblems = 16;

void note(CheckReport& r, const std::string& msg) {
  if (r.problems.size() < kMaxProblems) r.problems.push_back(msg);
}

bool payload_ok(const KvStore& s, uint64_t b, const fmt::BlockHeader& h) {
  if (s.coherence() != Coherence::kHost) invalidate_lines(s.payload(uint32_t(b)), s.geometry().block_bytes());
  return XXH3_64bits(s.payload(uint32_t(b)), s.geometry().block_bytes()) == h.checksum;
}

// Is the entry at `pos` reachable by a lookup that starts at its home slot (no empty slot between)?
bool reachable(const KvStore& s, uint64_t home, uint64_t pos) {
  const uint64_t mask = s.index_slots() - 1;
  for (uint64_t i = home; i != pos; i = (i + 1) & mask)
    if (index_slot(s, i).load(std::memory_order_relaxed) == fmt::kEmpty) return false;
  return true;
}

void check_blocks(const KvStore& s, bool deep, CheckReport& r, std::vector<uint8_t>& valid) {
  for (uint64_t b = 0; b < s.blocks(); ++b) {
    const uint64_t w = load_state(s, b);
    const uint32_t kind = fmt::state_kind(w);
    if (kind == fmt::kFree) {
      ++r.free;
    } else if (kind == fmt::kWriting) {
      ++r.writing;
      const bool alive = process_alive(fmt::state_owner(w));
      r.writing_dead += !alive;
      note(r, block_where(s, b) + ": being written by pid " + std::to_string(fmt::state_owner(w)) +
                  (alive ? " (alive)" : " (dead)"));
    } else {
      ++r.sealed;
      const fmt::BlockHeader h = read_header(s, b);
      if (!header_ok(s, h, fmt::state_version(w))) {
        ++r.bad_headers;
        note(r, block_where(s, b) + ": sealed block with a corrupt header");
      } else if (deep && !payload_ok(s, b, h)) {
        ++r.bad_payloads;
        note(r, block_where(s, b) + ": payload checksum mismatch");
      } else {
        valid[b] = 1;
      }
    }
  }
}

void check_index(const KvStore& s, CheckReport& r, const std::vector<uint8_t>& valid, std::vector<uint32_t>& refs) {
  for (uint64_t i = 0; i < s.index_slots(); ++i) {
    const uint64_t w = index_slot(s, i).load(std::memory_order_relaxed);
    if (w == fmt::kEmpty || w == fmt::kTomb) continue;
    const uint64_t b = fmt::index_block(w);
    bool ok = b < s.blocks() && valid[b];
    if (ok) {
      const fmt::BlockHeader h = read_header(s, b);
      ok = fmt::index_tag(w) == (h.key_lo >> 24) && reachable(s, h.key_hi & (s.index_slots() - 1), i);
    }
    if (!ok) {
      ++r.dangling;
      note(r, "index slot " + std::to_string(i) + ": entry for block " + std::to_string(b) +
                  " that does not hold a sealed block with that key (or cannot be reached)");
      continue;
    }
    if (++refs[b] == 2) {
      ++r.duplicate;
      note(r, block_where(s, b) + ": indexed more than once");
    }
  }
}

}  // namespace

CheckReport KvStore::check(bool deep) const {
  CheckReport r;
  r.blocks = n_blocks_;
  std::vector<uint8_t> valid(n_blocks_, 0);
  std::vector<uint32_t> refs(n_blocks_, 0);
  check_blocks(*this, deep, r, valid);
  check_index(*this, r, valid, refs);
  for (uint64_t b = 0; b < n_blocks_; ++b) {
    if (!valid[b] || refs[b]) continue;
    ++r.unindexed;
    note(r, block_where(*this, b) + ": sealed but not in the index");
  }
  return r;
}

Result<RecoverReport> KvStore::recover(RecoverMode m, bool deep) {
  RecoverReport rep;
  auto& meta = static_cast<LocalMeta&>(*local_);
  for (uint64_t b = 0; b < n_blocks_; ++b) {
    const uint64_t w = load_state(*this, b);
    if (fmt::state_kind(w) != fmt::kWriting) continue;
    if (m == RecoverMode::kDeadOwners && process_alive(fmt::state_owner(w))) continue;
    if (meta.abort(static_cast<uint32_t>(b)).ok()) ++rep.freed_writing;
  }
  if (m == RecoverMode::kDeadOwners) return rep;

  // Exclusive: drop bad sealed blocks, then rebuild the index from the headers.
  std::vector<uint8_t> valid(n_blocks_, 0);
  std::vector<uint32_t> refs(n_blocks_, 0);
  CheckReport scan;
  check_blocks(*this, deep, scan, valid);
  check_index(*this, scan, valid, refs);
  for (uint64_t i = 0; i < index_slots_; ++i) {
    auto& slot = index_slot(*this, i);
    rep.dropped_entries += slot.load(std::memory_order_relaxed) == fmt::kTomb;
    slot.store(fmt::kEmpty, std::memory_order_relaxed);
  }
  rep.dropped_entries += scan.dangling + scan.duplicate;
  flush_lines(base_ + off_index_, 8 * index_slots_);
  for (uint64_t b = 0; b < n_blocks_; ++b) {
    const uint64_t w = load_state(*this, b);
    if (fmt::state_kind(w) != fmt::kSealed) continue;
    if (!valid[b]) {
      rep.freed_corrupt += meta.free_sealed(uint32_t(b), fmt::state_version(w));
      continue;
    }
    const fmt::BlockHeader h = read_header(*this, b);
    uint32_t dup = 0;
    auto ins = meta.index_insert(Key{h.key_lo, h.key_hi}, uint32_t(b), dup);
    if (!ins.ok()) return ins.status();
    if (!ins.value()) rep.freed_duplicate += meta.free_sealed(uint32_t(b), fmt::state_version(w));
    rep.reindexed += ins.value() && refs[b] == 0;
  }
  control(*this).recoveries.value.fetch_add(1);
  return rep;
}

}  // namespace ndp::kv
