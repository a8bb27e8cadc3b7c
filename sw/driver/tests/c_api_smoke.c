/* The C API compiled as C: open, load, list, read a region, map it, KV, statistics, errors. */
#include <stdio.h>
#include <string.h>

#include "ndp/ndp_driver.h"

#define CHECK(cond, what)                                                           \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      snprintf(err, errlen, "%s: %s", what, ndp_dev_last_error());                  \
      if (d) ndp_dev_close(d);                                                      \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

/* Reads region `region` (g 1) of tensor `name` of the image at `path` on device `uri` into out
 * (capacity cap; *n receives the bytes), checks the mapped copy and a KV round trip. */
int ndp_driver_c_smoke(const char* uri, const char* path, const char* name, const char* region, unsigned char* out,
                       size_t cap, size_t* n, char* err, size_t errlen) {
  ndp_dev* d = NULL;
  uint32_t img = 0, stream = 0;
  size_t t = 0, count = 0;
  uint64_t bytes = 0;
  ndp_dev_tensor info;
  ndp_dev_call_stats st;
  ndp_dev_stats ds;
  ndp_dev_mapping* m = NULL;
  const void* addr = NULL;
  uint16_t kv_in[4 * 8 * 3], kv_out[4 * 8 * 3];
  unsigned i;

  CHECK(ndp_dev_open("nope:") == NULL && strstr(ndp_dev_last_error(), "unknown device"), "bad name");
  d = ndp_dev_open(uri);
  CHECK(d != NULL, "open");
  CHECK(ndp_dev_load_file(d, "/nonexistent.ndpi", &img) == -1, "missing file");
  CHECK(ndp_dev_load_file(d, path, &img) == 0, "load");
  CHECK(ndp_dev_tensor_count(d, img, &count) == 0 && count > 0, "count");
  CHECK(ndp_dev_find(d, img, name, &t) == 0, "find");
  CHECK(ndp_dev_tensor_info(d, img, t, &info) == 0 && strcmp(info.name, name) == 0, "info");
  CHECK(ndp_dev_region_bytes(d, img, t, region, 1, &bytes) == 0 && bytes <= cap, "region bytes");
  CHECK(ndp_dev_read(d, img, t, region, 1, 0, bytes, out, &st) == 0, "read");
  CHECK(st.host_bytes == bytes && st.device_bytes > 0, "call stats");
  CHECK(ndp_dev_read(d, img, t, region, 1, bytes, 1, out, NULL) == -1 && strstr(ndp_dev_last_error(), "beyond"),
        "read beyond");
  CHECK(ndp_dev_map(d, img, t, region, 1, 0, bytes, 4096, &m, &addr) == 0, "map");
  CHECK(memcmp(addr, out, bytes) == 0 && ndp_dev_map_status(m) == 0, "mapped bytes");
  ndp_dev_unmap(m);
  for (i = 0; i < sizeof kv_in / 2; ++i) kv_in[i] = (uint16_t)(0x3C00 + i * 7);
  CHECK(ndp_dev_kv_create(d, 1, 2, 8, 4, &stream) == 0, "kv create");
  CHECK(ndp_dev_kv_append(d, stream, kv_in, 3) == 0, "kv append");
  CHECK(ndp_dev_kv_read(d, stream, 0, 3, kv_out) == 0 && memcmp(kv_in, kv_out, sizeof kv_in) == 0, "kv read");
  CHECK(ndp_dev_kv_free(d, stream) == 0, "kv free");
  CHECK(ndp_dev_get_stats(d, &ds) == 0 && ds.images == 1 && ds.page_faults > 0, "stats");
  CHECK(ndp_dev_unload(d, img) == 0, "unload");
  ndp_dev_close(d);
  *n = (size_t)bytes;
  return 0;
}
