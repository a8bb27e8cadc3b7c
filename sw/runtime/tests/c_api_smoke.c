/* Exercises the C API from C (this file is compiled as C, proving the header is C-clean). */
#include <stdio.h>
#include <string.h>

#include "ndp/runtime/ndp_runtime.h"

#define CHECK(cond, what)                                                             \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      snprintf(err, n, "%s failed: %s", what, ndp_rt_last_error());                   \
      goto out;                                                                       \
    }                                                                                 \
  } while (0)

int ndp_c_api_smoke(const char* override_path, char* err, size_t n) {
  ndp_rt* rt = NULL;
  ndp_rt_alloc* a = NULL;
  ndp_rt_objalloc* o = NULL;
  ndp_rt_node node;
  uint64_t pages = 0;
  void* obj = NULL;
  int rc = 1;
  err[0] = '\0';
  CHECK(ndp_rt_open(override_path, &rt) == 0, "ndp_rt_open");
  CHECK(ndp_rt_node_count(rt) >= 1, "ndp_rt_node_count");
  CHECK(ndp_rt_node_info(rt, 0, &node) == 0, "ndp_rt_node_info");
  CHECK(ndp_rt_node_info(rt, 99, &node) != 0 && strstr(ndp_rt_last_error(), "out of range"), "node_info range check");
  CHECK(ndp_rt_node_info(rt, 0, &node) == 0, "ndp_rt_node_info");
  CHECK(ndp_rt_alloc_onnode(rt, 1 << 20, node.id, &a) == 0, "ndp_rt_alloc_onnode");
  memset(ndp_rt_data(a), 7, ndp_rt_size(a));
  CHECK(ndp_rt_pages_on_node(rt, a, node.id, &pages) == 0 && pages * 4096 >= (1u << 20), "ndp_rt_pages_on_node");
  CHECK(ndp_rt_bytes_on_node(rt, node.id) == ndp_rt_size(a), "ndp_rt_bytes_on_node");
  CHECK(ndp_rt_migrate(rt, a, node.id) == 0, "ndp_rt_migrate");
  CHECK(ndp_rt_migrate(rt, a, 4242) != 0 && strstr(ndp_rt_last_error(), "4242"), "migrate to a missing node fails");
  if (ndp_rt_register_gpu(a) != 0) CHECK(strstr(ndp_rt_last_error(), "not available") != NULL, "register_gpu message");
  ndp_rt_free(a);
  a = NULL;
  CHECK(ndp_rt_bytes_on_node(rt, node.id) == 0, "accounting after free");
  CHECK(ndp_rt_alloc_onnode(rt, 1 << 20, 4242, &a) != 0 && a == NULL, "alloc on a missing node fails");
  CHECK(ndp_rt_objalloc_create(rt, node.id, &o) == 0, "ndp_rt_objalloc_create");
  obj = ndp_rt_obj_alloc(o, 16384);
  CHECK(obj != NULL, "ndp_rt_obj_alloc");
  CHECK(ndp_rt_obj_free(o, obj) == 0, "ndp_rt_obj_free");
  CHECK(ndp_rt_obj_free(o, obj) != 0 && strstr(ndp_rt_last_error(), "twice"), "double free detected");
  CHECK(ndp_rt_obj_alloc(o, 0) == NULL, "zero-size object refused");
  CHECK(ndp_rt_weighted_interleave_supported() == 0 || ndp_rt_weighted_interleave_supported() == 1, "wi probe");
  rc = 0;
out:
  ndp_rt_objalloc_destroy(o);
  ndp_rt_free(a);
  ndp_rt_close(rt);
  return rc;
}
