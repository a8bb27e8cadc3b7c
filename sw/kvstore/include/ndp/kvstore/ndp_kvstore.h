/* C API of the KV block store (docs/kvstore.md). Functions return 0/1 as documented or -1 on
 * error; ndp_kv_last_error() then names what failed (thread-local, valid until the next call). */
#ifndef NDP_KVSTORE_C_H
#define NDP_KVSTORE_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndp_kv_store ndp_kv_store;
typedef struct {
  uint32_t tokens, layers, kv_heads, head_dim, elem_bytes;
} ndp_kv_geometry;
typedef struct {
  uint64_t lo, hi;
} ndp_kv_key;
typedef struct {
  const void* data;
  uint64_t bytes;
} ndp_kv_cslice;
typedef struct {
  void* data;
  uint64_t bytes;
} ndp_kv_slice;

enum { NDP_KV_HOST = 0, NDP_KV_NONTEMPORAL = 1, NDP_KV_FLUSH = 2 };

/* Create (blocks > 0, or 0 with pool_bytes) or open a pool; NULL on error. */
ndp_kv_store* ndp_kv_create(const char* path, const ndp_kv_geometry* g, uint64_t blocks, uint64_t pool_bytes,
                            int coherence, int overwrite);
ndp_kv_store* ndp_kv_open(const char* path);
void ndp_kv_close(ndp_kv_store* s);
uint64_t ndp_kv_block_bytes(const ndp_kv_store* s);
uint64_t ndp_kv_blocks(const ndp_kv_store* s);

/* 0 stored, 1 already present, -1 error. */
int ndp_kv_put(ndp_kv_store* s, ndp_kv_key k, const ndp_kv_cslice* gather, size_t n, int evict_if_full);
/* 1 found (slices filled), 0 miss, -1 error. */
int ndp_kv_get(ndp_kv_store* s, ndp_kv_key k, const ndp_kv_slice* scatter, size_t n);
/* 1 removed, 0 absent, -1 error. */
int ndp_kv_remove(ndp_kv_store* s, ndp_kv_key k);
/* Chained prefix keys of the full blocks of tokens[0, n); returns how many (at most cap are written). */
size_t ndp_kv_prefix_keys(const int32_t* tokens, size_t n, uint32_t block_tokens, uint64_t salt, ndp_kv_key* out,
                          size_t cap);
/* exclusive = 0: free blocks of dead writers; 1: full recovery (no other user). Returns blocks
 * freed or re-indexed, -1 on error. */
int64_t ndp_kv_recover(ndp_kv_store* s, int exclusive);
/* 1 consistent, 0 not (leaked receives the leaked block count), -1 error. */
int ndp_kv_check(ndp_kv_store* s, int deep, uint64_t* leaked);
const char* ndp_kv_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* NDP_KVSTORE_C_H */
