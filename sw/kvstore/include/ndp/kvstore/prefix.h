// Keys for token-prefix reuse: block i of a sequence is named by a chained content hash of every
// token up to the end of that block, so two requests share block i exactly when their first
// (i+1) x block_tokens tokens agree (vLLM's prefix-caching block hash, LMCache's chunk hash).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ndp/kvstore/kvstore.h"

namespace ndp::kv {

// key_0 = XXH3-128(seed = salt, tokens[0, T)); key_i = XXH3-128(key_{i-1} || tokens[iT, (i+1)T)).
// `salt` separates models (and anything else that changes the KV: dtype, rope scaling). One key
// per full block; a trailing partial block gets none. Never returns the reserved key {0,0}.
std::vector<Key> prefix_keys(std::span<const int32_t> tokens, uint32_t block_tokens, uint64_t salt);

// A salt from a model identity string (for example the model path and dtype).
uint64_t model_salt(const std::string& identity);

}  // namespace ndp::kv
