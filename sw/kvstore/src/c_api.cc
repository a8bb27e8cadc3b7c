// C API (ndp_kvstore.h) over KvStore.
#include "ndp/kvstore/ndp_kvstore.h"

#include <string>
#include <vector>

#include "ndp/kvstore/kvstore.h"
#include "ndp/kvstore/prefix.h"

struct ndp_kv_store {
  std::unique_ptr<ndp::kv::KvStore> s;
};

namespace {

thread_local std::string g_err;

int set_error(const ndp::Status& st) {
  g_err = st.message();
  return -1;
}
ndp::kv::Key key_of(ndp_kv_key k) { return ndp::kv::Key{k.lo, k.hi}; }

}  // namespace

extern "C" {

ndp_kv_store* ndp_kv_create(const char* path, const ndp_kv_geometry* g, uint64_t blocks, uint64_t pool_bytes,
                            int coherence, int overwrite) {
  if (!path || !g || coherence < 0 || coherence > 2) return set_error(ndp::Status::Error("ndp_kv_create: bad argument")), nullptr;
  ndp::kv::CreateOptions o;
  o.geometry = ndp::kv::Geometry{g->tokens, g->layers, g->kv_heads, g->head_dim, g->elem_bytes};
  o.blocks = blocks, o.pool_bytes = pool_bytes, o.coherence = static_cast<ndp::kv::Coherence>(coherence);
  o.overwrite = overwrite != 0;
  auto s = ndp::kv::KvStore::create(path, o);
  if (!s.ok()) return set_error(s.status()), nullptr;
  return new ndp_kv_store{std::move(s.value())};
}

ndp_kv_store* ndp_kv_open(const char* path) {
  if (!path) return set_error(ndp::Status::Error("ndp_kv_open: null path")), nullptr;
  auto s = ndp::kv::KvStore::open(path);
  if (!s.ok()) return set_error(s.status()), nullptr;
  return new ndp_kv_store{std::move(s.value())};
}

void ndp_kv_close(ndp_kv_store* s) { delete s; }
uint64_t ndp_kv_block_bytes(const ndp_kv_store* s) { return s ? s->s->geometry().block_bytes() : 0; }
uint64_t ndp_kv_blocks(const ndp_kv_store* s) { return s ? s->s->blocks() : 0; }

int ndp_kv_put(ndp_kv_store* s, ndp_kv_key k, const ndp_kv_cslice* gather, size_t n, int evict_if_full) {
  if (!s || (!gather && n)) return set_error(ndp::Status::Error("ndp_kv_put: bad argument"));
  std::vector<ndp::kv::ConstSlice> g(n);
  for (size_t i = 0; i < n; ++i) g[i] = {gather[i].data, gather[i].bytes};
  auto r = s->s->put(key_of(k), g, ndp::kv::PutOptions{evict_if_full != 0});
  if (!r.ok()) return set_error(r.status());
  return r.value() == ndp::kv::PutResult::kStored ? 0 : 1;
}

int ndp_kv_get(ndp_kv_store* s, ndp_kv_key k, const ndp_kv_slice* scatter, size_t n) {
  if (!s || (!scatter && n)) return set_error(ndp::Status::Error("ndp_kv_get: bad argument"));
  std::vector<ndp::kv::Slice> sc(n);
  for (size_t i = 0; i < n; ++i) sc[i] = {scatter[i].data, scatter[i].bytes};
  auto r = s->s->get(key_of(k), sc);
  if (!r.ok()) return set_error(r.status());
  return r.value() ? 1 : 0;
}

int ndp_kv_remove(ndp_kv_store* s, ndp_kv_key k) {
  if (!s) return set_error(ndp::Status::Error("ndp_kv_remove: null store"));
  auto r = s->s->remove(key_of(k));
  if (!r.ok()) return set_error(r.status());
  return r.value() ? 1 : 0;
}

size_t ndp_kv_prefix_keys(const int32_t* tokens, size_t n, uint32_t block_tokens, uint64_t salt, ndp_kv_key* out,
                          size_t cap) {
  if (!tokens) return 0;
  const auto keys = ndp::kv::prefix_keys(std::span<const int32_t>(tokens, n), block_tokens, salt);
  for (size_t i = 0; i < keys.size() && i < cap && out; ++i) out[i] = ndp_kv_key{keys[i].lo, keys[i].hi};
  return keys.size();
}

int64_t ndp_kv_recover(ndp_kv_store* s, int exclusive) {
  if (!s) return set_error(ndp::Status::Error("ndp_kv_recover: null store"));
  auto r = s->s->recover(exclusive ? ndp::kv::RecoverMode::kExclusive : ndp::kv::RecoverMode::kDeadOwners, exclusive != 0);
  if (!r.ok()) return set_error(r.status());
  return int64_t(r->freed_writing + r->freed_corrupt + r->freed_duplicate + r->reindexed);
}

int ndp_kv_check(ndp_kv_store* s, int deep, uint64_t* leaked) {
  if (!s) return set_error(ndp::Status::Error("ndp_kv_check: null store"));
  const ndp::kv::CheckReport c = s->s->check(deep != 0);
  if (leaked) *leaked = c.leaked();
  return c.consistent() ? 1 : 0;
}

const char* ndp_kv_last_error(void) { return g_err.c_str(); }

}  // extern "C"
