// Chained XXH3-128 prefix keys (prefix.h).
#include "ndp/kvstore/prefix.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <cstring>
#include <string>

namespace ndp::kv {

std::vector<Key> prefix_keys(std::span<const int32_t> tokens, uint32_t block_tokens, uint64_t salt) {
  std::vector<Key> out;
  if (block_tokens == 0) return out;
  const size_t n = tokens.size() / block_tokens;
  out.reserve(n);
  XXH128_hash_t prev{salt, ~salt};
  for (size_t i = 0; i < n; ++i) {
    XXH3_state_t st;
    XXH3_128bits_reset_withSeed(&st, salt);
    XXH3_128bits_update(&st, &prev, sizeof prev);
    XXH3_128bits_update(&st, tokens.data() + i * block_tokens, sizeof(int32_t) * block_tokens);
    prev = XXH3_128bits_digest(&st);
    Key k{prev.low64, prev.high64};
    if (!k.valid()) k.lo = 1;
    out.push_back(k);
  }
  return out;
}

uint64_t model_salt(const std::string& identity) { return XXH3_64bits(identity.data(), identity.size()); }

}  // namespace ndp::kv
