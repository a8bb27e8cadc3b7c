// A KV-cache block store in shared memory (after ../shared/papers/beluga-kvcache.txt, section 6):
// a pool in a DAX device, a tmpfs/regular file or a memfd, shared by processes that map it.
//
//   auto st = KvStore::create("/dev/shm/kv.pool", {.geometry = g, .blocks = 4096});
//   st->put(key, gather_slices);     // gather-write: 2 x layers slices -> one block, then publish
//   st->get(key, scatter_slices);    // scatter-read: one block -> 2 x layers slices, torn-checked
//
// Everything the store needs lives in the pool: the superblock, the block allocator (a state word
// per block), the prefix-hash index and the RPC rings. A block is published in three steps: the
// payload and its header are stored (and, without hardware coherence, flushed and fenced), the
// block's state word turns WRITING -> SEALED (the commit word), then the index entry is inserted.
// A reader checks the state word before and after copying and verifies the payload checksum, so
// it never returns a half-written or reused block. A process killed at any point leaves blocks in
// WRITING owned by its pid; recover() frees them and re-indexes sealed blocks the index missed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ndp/kvstore/coherence.h"
#include "ndp/status.h"

namespace ndp::kv {

// One block's shape: tokens x layers x {K, V} x kv_heads x head_dim elements of elem_bytes.
// Payload order: for each layer, K then V, each [token][kv_head][channel] (a vLLM page per layer).
struct Geometry {
  uint32_t tokens = 16;
  uint32_t layers = 1;
  uint32_t kv_heads = 1;
  uint32_t head_dim = 64;
  uint32_t elem_bytes = 2;
  uint64_t slice_bytes() const { return uint64_t{tokens} * kv_heads * head_dim * elem_bytes; }
  uint64_t block_bytes() const { return 2ull * layers * slice_bytes(); }
  // Offset of layer l's K (kind 0) or V (kind 1) slice in the payload.
  uint64_t slice_offset(uint32_t layer, uint32_t kind) const { return (2ull * layer + kind) * slice_bytes(); }
  Status validate() const;    // every field non-zero, elem_bytes 1/2/4, block <= 1 GiB
  std::string describe() const;  // "16 tok x 5 layers x 4 heads x 8 ch x 2 B = 10240 B"
};

// 128-bit content hash of a token prefix (prefix.h builds them); {0,0} is not a valid key.
struct Key {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Key&) const = default;
  bool valid() const { return lo != 0 || hi != 0; }
};

struct ConstSlice {
  const void* data;
  uint64_t bytes;
};
struct Slice {
  void* data;
  uint64_t bytes;
};

struct CreateOptions {
  Geometry geometry;
  uint64_t blocks = 0;      // number of blocks, or 0 to fit as many as pool_bytes allows
  uint64_t pool_bytes = 0;  // total size (required for a DAX device: 0 = the device's size)
  uint32_t rpc_channels = 16, rpc_depth = 8;
  Coherence coherence = Coherence::kHost;  // recorded as the pool's default
  int numa_node = -1;  // bind the pages to this node before they are touched (tmpfs/memfd/anon)
  bool overwrite = false;  // replace an existing file
  bool populate = false;   // fault every page in now (a DAX pool is memory already; tmpfs is not)
};

struct OpenOptions {
  bool use_pool_coherence = true;          // else `coherence` below
  Coherence coherence = Coherence::kHost;
};

struct PutOptions {
  bool evict_if_full = false;  // free the oldest-scanned sealed block when no block is free
};

// Where a block stands after a put, or what a lookup found.
struct BlockRef {
  uint32_t block = 0;
  uint32_t version = 0;
  uint64_t checksum = 0;  // XXH3-64 of the payload, from the block header
};

enum class PutResult : uint8_t { kStored, kAlreadyPresent };

// Counts from one scan of the state words and the index (not a snapshot under concurrency).
struct PoolStats {
  uint64_t blocks = 0, free = 0, writing = 0, sealed = 0;
  uint64_t index_slots = 0, index_used = 0, index_tombstones = 0;
  uint64_t block_bytes = 0, slot_bytes = 0, pool_bytes = 0;
};

// check(): the invariants a consistent pool satisfies when no writer is running.
struct CheckReport {
  uint64_t blocks = 0, free = 0, sealed = 0;
  uint64_t writing = 0;           // in WRITING (owned by a live or dead process)
  uint64_t writing_dead = 0;      // ... whose owner is not alive: reclaimable
  uint64_t unindexed = 0;         // sealed but no index entry points at them
  uint64_t dangling = 0;          // index entries to a block that is not sealed with that key
  uint64_t duplicate = 0;         // index entries beyond the first for one block
  uint64_t bad_headers = 0;       // sealed blocks whose header fails its check
  uint64_t bad_payloads = 0;      // sealed blocks whose payload fails its checksum (deep only)
  std::vector<std::string> problems;  // first few, each naming the block and its pool offset
  bool consistent() const {
    return writing == 0 && unindexed == 0 && dangling == 0 && duplicate == 0 && bad_headers == 0 &&
           bad_payloads == 0;
  }
  uint64_t leaked() const { return writing + unindexed; }
};

struct RecoverReport {
  uint64_t freed_writing = 0;   // blocks taken back from dead (or, exclusive, all) writers
  uint64_t freed_corrupt = 0;   // sealed blocks with a bad header or payload, freed
  uint64_t reindexed = 0;       // sealed blocks put back into the index
  uint64_t freed_duplicate = 0; // a second sealed copy of a key already indexed
  uint64_t dropped_entries = 0; // dangling index entries and tombstones cleared
};

enum class RecoverMode : uint8_t {
  kDeadOwners,  // online: free WRITING blocks whose owner process is gone (safe beside live users)
  kExclusive,   // no other process uses the pool: free every WRITING block, verify every sealed
                // block (deep: payload checksum too) and rebuild the index from the block headers
};

// Test hook: called at named points inside put/remove (the crash tests kill the process there).
enum class FaultPoint : uint8_t { kAllocated, kPayloadHalf, kPayloadDone, kSealed, kIndexed, kRemoveUnindexed };
const char* fault_point_name(FaultPoint p);
using FaultHook = void (*)(FaultPoint, void* ctx);

class MetaOps;  // allocator + index operations: local atomics, or the index service over RPC

class KvStore {
 public:
  // Create a pool at `path`: a regular or tmpfs file (created, or replaced with overwrite), or a
  // devdax character device (/dev/daxN.M, mapped in 2 MiB units). Errors name the path.
  static Result<std::unique_ptr<KvStore>> create(const std::string& path, const CreateOptions& o);
  // An anonymous pool (memfd) shared with children forked after this call.
  static Result<std::unique_ptr<KvStore>> create_memfd(const std::string& name, const CreateOptions& o);
  // Open an existing pool; the superblock is validated (magic, version, checksum, geometry, every
  // region inside the mapping). Errors name the path, the field and its offset.
  static Result<std::unique_ptr<KvStore>> open(const std::string& path, const OpenOptions& o = {});
  ~KvStore();
  KvStore(const KvStore&) = delete;
  KvStore& operator=(const KvStore&) = delete;

  const Geometry& geometry() const { return geo_; }
  uint64_t blocks() const { return n_blocks_; }
  uint64_t pool_bytes() const { return pool_bytes_; }
  const std::string& path() const { return path_; }
  Coherence coherence() const { return coh_; }
  void set_coherence(Coherence c) { coh_ = c; }

  // Gather-write: the slices, concatenated, are the block payload (their total must be
  // block_bytes). kAlreadyPresent when the key is stored already (nothing written). Errors: bad
  // key or sizes, pool full (names the pool and its block count), index full.
  Result<PutResult> put(const Key& k, std::span<const ConstSlice> gather, const PutOptions& o = {});
  // Scatter-read: copy the block into the slices (total block_bytes). false on a miss. Error when
  // a sealed block fails its checksum (names the block and its pool offset).
  Result<bool> get(const Key& k, std::span<const Slice> scatter);
  Result<bool> contains(const Key& k);
  // Unindex, then free. false when absent.
  Result<bool> remove(const Key& k);

  // Zero-copy write path (the connector saves layer by layer into the block): allocate, write at
  // offsets, then commit (seal + index) or abort.
  Result<uint32_t> allocate(const PutOptions& o = {});
  uint8_t* payload(uint32_t block) const;
  void write(uint32_t block, uint64_t offset, const void* src, uint64_t n);
  // Seal with the checksum of the payload as written, then index. kAlreadyPresent: another
  // writer published the key first; this block is freed.
  Result<PutResult> commit(uint32_t block, const Key& k);
  Status abort(uint32_t block);

  // Read path in pieces (the connector loads layer by layer): find a sealed block, copy ranges,
  // then check that it was not freed or reused meanwhile and, given the copies in payload order,
  // that they match its checksum.
  Result<bool> find(const Key& k, BlockRef& out);
  void read(uint32_t block, uint64_t offset, void* dst, uint64_t n) const;
  bool still_valid(const BlockRef& r) const;
  Status verify_copy(const BlockRef& r, std::span<const ConstSlice> copy) const;

  PoolStats stats() const;
  CheckReport check(bool deep) const;
  Result<RecoverReport> recover(RecoverMode m, bool deep = false);

  // Route allocation and index operations through another implementation (the RPC client);
  // nullptr restores the local lock-free operations. The store does not own it.
  void set_meta(MetaOps* m);
  MetaOps& local_meta();
  void set_fault_hook(FaultHook h, void* ctx) { hook_ = h, hook_ctx_ = ctx; }

  // Raw pool access for the RPC layer and tests.
  uint8_t* base() const { return base_; }
  uint64_t block_offset(uint32_t block) const;  // pool offset of the block header
  uint32_t owner_id() const;                    // this process's owner id (pid)

 private:
  friend class LocalMeta;
  friend class PoolMapper;
  KvStore() = default;
  Status init_from_super(const std::string& origin);
  void fault(FaultPoint p) {
    if (hook_) hook_(p, hook_ctx_);
  }

  std::string path_;
  uint8_t* base_ = nullptr;
  uint64_t map_bytes_ = 0, pool_bytes_ = 0;
  int fd_ = -1;
  Geometry geo_;
  Coherence coh_ = Coherence::kHost;
  uint64_t n_blocks_ = 0, slot_bytes_ = 0, index_slots_ = 0;
  uint64_t off_state_ = 0, off_index_ = 0, off_rpc_ = 0, off_data_ = 0;
  uint32_t rpc_channels_ = 0, rpc_depth_ = 0;
  std::unique_ptr<MetaOps> local_;
  MetaOps* meta_ = nullptr;
  FaultHook hook_ = nullptr;
  void* hook_ctx_ = nullptr;

 public:
  // Layout accessors (format.h) for the RPC layer, the checker and the tests.
  uint64_t index_slots() const { return index_slots_; }
  uint32_t rpc_channels() const { return rpc_channels_; }
  uint32_t rpc_depth() const { return rpc_depth_; }
  uint64_t rpc_offset() const { return off_rpc_; }
  uint64_t state_offset() const { return off_state_; }
  uint64_t index_offset() const { return off_index_; }
  uint64_t data_offset() const { return off_data_; }
  uint64_t slot_bytes() const { return slot_bytes_; }
  int fd() const { return fd_; }
};

// Allocator and index operations. LocalMeta runs them with atomics in the pool (one host, or CXL
// hardware coherence); the RPC client forwards them to the index service (rpc.h).
class MetaOps {
 public:
  virtual ~MetaOps() = default;
  virtual Result<uint32_t> alloc(uint32_t owner, bool evict_if_full) = 0;
  // Seal (WRITING -> SEALED after the header is written) and index the block.
  virtual Result<PutResult> commit(uint32_t block, const Key& k, uint64_t checksum) = 0;
  virtual Status abort(uint32_t block) = 0;
  virtual Result<bool> lookup(const Key& k, BlockRef& out) = 0;
  virtual Result<bool> remove(const Key& k) = 0;
};

// Is process `pid` alive on this host (kill(pid, 0))?
bool process_alive(uint32_t pid);

}  // namespace ndp::kv
