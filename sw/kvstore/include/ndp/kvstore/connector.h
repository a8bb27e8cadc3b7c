// A serving-engine connector over the block store, shaped like vLLM's KV connector (save per
// layer, start load, wait per layer, request finished) with chained prefix keys (prefix.h).
//
// Engine pages: for each layer, one page per block of block_tokens tokens, laid out
// [token][kv_head][channel] (vLLM's paged K and V caches). Saving writes each layer's K and V
// page straight into the block's slot in the pool as the layer finishes (Beluga's gather-write
// spread over the forward pass); wait_for_save() publishes the blocks. Loading copies each
// block's slices back into the engine's pages layer by layer on a background thread, so the
// engine can start layer l as soon as wait_for_layer_load(l) returns; every block is checked
// against concurrent reuse and its checksum before wait_for_load() reports success.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "ndp/kvstore/kvstore.h"

namespace ndp::kv {

using RequestId = uint64_t;

struct ConnectorOptions {
  uint64_t model_salt = 0;     // prefix.h model_salt(identity)
  bool evict_if_full = true;   // a cache: make room rather than fail a save
};

// Destination pages of a load: k[layer][block], v[layer][block].
struct LoadPages {
  std::vector<std::vector<void*>> k, v;
};

class KvConnector {
 public:
  KvConnector(KvStore& s, ConnectorOptions o) : s_(s), o_(o) {}
  ~KvConnector();

  // Leading tokens whose blocks are stored (a multiple of the block size).
  Result<uint64_t> matched_tokens(std::span<const int32_t> tokens);

  // Allocate a block for every full block of `tokens` that is not stored yet.
  Status begin_save(RequestId r, std::span<const int32_t> tokens);
  // This layer's K and V pages, one per full block of the request (stored blocks are skipped).
  Status save_layer(RequestId r, uint32_t layer, std::span<const void* const> k_pages,
                    std::span<const void* const> v_pages);
  // Publish every block whose layers were all saved; returns how many were stored (a block
  // another request published first counts as present, not stored).
  Result<uint64_t> wait_for_save(RequestId r);

  // Start copying the first `blocks` blocks of `tokens` into `pages`. Error (nothing started)
  // if a block is not stored or the pages do not match the geometry.
  Status start_load(RequestId r, std::span<const int32_t> tokens, uint64_t blocks, LoadPages pages);
  Status wait_for_layer_load(RequestId r, uint32_t layer);
  // All layers copied and every block verified.
  Status wait_for_load(RequestId r);

  // Drop the request: unsaved blocks are freed, a running load is finished first.
  void request_finished(RequestId r);

 private:
  struct Save {
    std::vector<Key> keys;
    std::vector<int64_t> block;             // pool block per request block, -1 = already stored
    std::vector<uint32_t> layers_saved;     // per request block
  };
  struct Load {
    std::vector<BlockRef> refs;
    LoadPages pages;
    std::mutex mu;
    std::condition_variable cv;
    uint32_t layers_done = 0;
    bool finished = false;
    Status status;
    std::thread th;
  };
  void load_body(Load& l);
  KvStore& s_;
  ConnectorOptions o_;
  std::mutex mu_;
  std::map<RequestId, Save> saves_;
  std::map<RequestId, std::unique_ptr<Load>> loads_;
};

}  // namespace ndp::kv
