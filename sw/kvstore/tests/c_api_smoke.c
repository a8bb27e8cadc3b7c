/* The C API compiled as C: create, put (gather), get (scatter), prefix keys, remove, check,
 * errors through ndp_kv_last_error. Returns 0 on success, the failing step otherwise. */
#include <stdio.h>
#include <string.h>

#include "ndp/kvstore/ndp_kvstore.h"

int ndp_kv_c_smoke(const char* path) {
  ndp_kv_geometry g = {16, 2, 1, 8, 2}; /* 1 KiB blocks */
  ndp_kv_store* s = ndp_kv_create(path, &g, 8, 0, NDP_KV_NONTEMPORAL, 1);
  if (!s) return 1;
  if (ndp_kv_block_bytes(s) != 1024 || ndp_kv_blocks(s) != 8) return 2;
  unsigned char k0[256], v0[256], k1[256], v1[256], out[4][256];
  for (int i = 0; i < 256; ++i) k0[i] = (unsigned char)i, v0[i] = (unsigned char)(i ^ 0x55), k1[i] = 7, v1[i] = 9;
  ndp_kv_cslice gather[4] = {{k0, 256}, {v0, 256}, {k1, 256}, {v1, 256}};
  int32_t tokens[20];
  for (int i = 0; i < 20; ++i) tokens[i] = 1000 + i;
  ndp_kv_key keys[2];
  if (ndp_kv_prefix_keys(tokens, 20, 16, 42, keys, 2) != 1) return 3;
  if (ndp_kv_put(s, keys[0], gather, 4, 0) != 0) return 4;
  if (ndp_kv_put(s, keys[0], gather, 4, 0) != 1) return 5;
  ndp_kv_slice scatter[4] = {{out[0], 256}, {out[1], 256}, {out[2], 256}, {out[3], 256}};
  if (ndp_kv_get(s, keys[0], scatter, 4) != 1) return 6;
  if (memcmp(out[0], k0, 256) || memcmp(out[1], v0, 256) || memcmp(out[2], k1, 256) || memcmp(out[3], v1, 256)) return 7;
  if (ndp_kv_get(s, keys[0], scatter, 3) != -1 || !strstr(ndp_kv_last_error(), "slices hold")) return 8;
  uint64_t leaked = 99;
  if (ndp_kv_check(s, 1, &leaked) != 1 || leaked != 0) return 9;
  if (ndp_kv_remove(s, keys[0]) != 1 || ndp_kv_remove(s, keys[0]) != 0) return 10;
  if (ndp_kv_recover(s, 1) != 0) return 11;
  ndp_kv_close(s);
  s = ndp_kv_open(path);
  if (!s || ndp_kv_get(s, keys[0], scatter, 4) != 0) return 12;
  ndp_kv_close(s);
  if (ndp_kv_open("/nonexistent/pool") != NULL || !strstr(ndp_kv_last_error(), "/nonexistent/pool")) return 13;
  return 0;
}
