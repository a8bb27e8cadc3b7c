// On-pool layout of a KV block store (docs/kvstore.md, "Pool format"). Every structure here lives
// in the shared mapping; integers are little-endian, offsets are from the start of the pool.
//
//   [0, 4096)        superblock (immutable after create, XXH64-checked) at 0; control lines at 512
//   off_state        one 64-bit state word per block: version (30) | state (2) | owner (32)
//   off_index        open-addressing hash index: one 64-bit word per slot (0 empty, ~0 tombstone,
//                    otherwise tag (40) | block + 1 (24))
//   off_rpc          RPC channels: a control line, then depth x (request line, response line)
//   off_data         blocks: a 64-byte block header, then the payload, each slot a multiple of 64
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ndp::kv::fmt {

inline constexpr char kMagic[8] = {'N', 'D', 'P', 'K', 'V', 'S', '0', '1'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint64_t kSuperBytes = 4096;
inline constexpr uint64_t kControlOffset = 512;
inline constexpr uint32_t kBlockMagic = 0x3142564Bu;  // "KVB1"
inline constexpr uint64_t kMaxBlocks = (1ull << 24) - 2;
inline constexpr uint64_t kEmpty = 0, kTomb = ~0ull;

struct Superblock {
  char magic[8];
  uint32_t version, super_bytes;
  uint64_t pool_bytes;
  uint32_t tokens, layers, kv_heads, head_dim, elem_bytes, coherence;
  uint64_t block_bytes, slot_bytes, n_blocks, index_slots;
  uint32_t rpc_channels, rpc_depth;
  uint64_t off_state, off_index, off_rpc, off_data;
  uint64_t created_ns, uuid;
  uint64_t checksum;  // XXH64 (seed 0) of every byte before this field
};
static_assert(sizeof(Superblock) <= kControlOffset);

// Mutable pool-wide words, each on its own cache line.
struct alignas(64) ControlLine {
  std::atomic<uint64_t> value;
  char pad[56];
};
struct Control {
  ControlLine alloc_hint;    // where the next allocation scan starts
  ControlLine recoveries;    // full recoveries run on this pool
  ControlLine service_pid;   // pid of the index service (0: none)
  ControlLine service_beat;  // heartbeat the service bumps while it polls
  struct alignas(64) {
    std::atomic<uint32_t> word;  // 1 while the service sleeps on this futex (same host only)
    char pad[60];
  } service_sleeping;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(kControlOffset + sizeof(Control) <= kSuperBytes);

enum BlockState : uint32_t { kFree = 0, kWriting = 1, kSealed = 2 };

inline uint64_t make_state(uint32_t version, uint32_t st, uint32_t owner) {
  return (uint64_t(version & 0x3fffffffu) << 34) | (uint64_t(st & 3u) << 32) | owner;
}
inline uint32_t state_version(uint64_t w) { return uint32_t(w >> 34); }
inline uint32_t state_kind(uint64_t w) { return uint32_t(w >> 32) & 3u; }
inline uint32_t state_owner(uint64_t w) { return uint32_t(w); }
inline uint32_t next_version(uint32_t v) { return (v + 1) & 0x3fffffffu; }

struct BlockHeader {
  uint32_t magic;    // kBlockMagic
  uint32_t version;  // state version the block was sealed with
  uint64_t key_lo, key_hi;
  uint64_t payload_bytes;
  uint64_t checksum;   // XXH3-64 of the payload
  uint64_t sealed_ns;  // CLOCK_REALTIME at seal
  uint64_t hdr_check;  // XXH64 of the 40 bytes above
  uint64_t reserved;
};
static_assert(sizeof(BlockHeader) == 64);

inline uint64_t index_word(uint64_t key_lo, uint64_t block) { return ((key_lo >> 24) << 24) | (block + 1); }
inline uint64_t index_tag(uint64_t word) { return word >> 24; }
inline uint64_t index_block(uint64_t word) { return (word & 0xffffffu) - 1; }

// RPC channel: one client at a time; requests and responses in separate cache lines so each line
// has one writer (the client writes requests, the service writes responses).
struct alignas(64) ChannelCtl {
  std::atomic<uint32_t> owner;  // client pid, 0 = free
  std::atomic<uint32_t> epoch;  // bumped on every claim and reap
  std::atomic<uint64_t> served; // requests answered since the claim
  std::atomic<uint32_t> client_waiting;  // 1 while the client sleeps on this futex (same host)
  char pad[44];
};
struct alignas(64) RpcLine {
  std::atomic<uint64_t> seq;  // 1-based request number; written last
  uint32_t op;                // request: RpcOp; response: status code
  uint32_t arg;
  uint64_t a, b, c, d, e;
  uint64_t pad;
};
static_assert(sizeof(RpcLine) == 64 && sizeof(ChannelCtl) == 64);

inline uint64_t channel_bytes(uint32_t depth) { return sizeof(ChannelCtl) + uint64_t{depth} * 2 * sizeof(RpcLine); }

}  // namespace ndp::kv::fmt
