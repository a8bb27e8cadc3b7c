/* libndp from C (docs/driver.md, "C API"): the same devices, images, region reads, mapped regions,
 * KV streams and statistics as the C++ API (ndp/driver.h), through opaque handles. Functions that
 * can fail return 0 on success and -1 on error; ndp_dev_last_error() then gives the message (per
 * thread, valid until the next failing call of that thread). Regions are named as on the command
 * line ("full", "e8m3", "fp8-e4m3", "mxfp4", ...) with a guard count 0..2. */
#ifndef NDP_DRIVER_H_
#define NDP_DRIVER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndp_dev ndp_dev;
typedef struct ndp_dev_mapping ndp_dev_mapping;

typedef struct ndp_dev_call_stats {
  uint64_t host_bytes, link_bytes, device_bytes, blocks, errors;
  double seconds;
} ndp_dev_call_stats;

typedef struct ndp_dev_stats {
  ndp_dev_call_stats total;
  uint64_t calls, failed_calls, page_faults, images, device_memory, device_free;
  double dram_energy_nj;
} ndp_dev_stats;

typedef struct ndp_dev_tensor {
  const char* name; /* valid while the image is loaded */
  int dtype;        /* docs/spec.md section 1 code: 1 bf16, 2 fp16, 3 fp32, 4 fp8-e4m3, 5 fp8-e5m2, 6 int8, 7 int4 */
  int layout;       /* 0 bitplane, 1 expbyte */
  int kv;           /* 1 for a KV stream */
  uint64_t elems, stored_bytes;
} ndp_dev_tensor;

/* "emu", "emu:inproc", "emu:SOCKET", "dax:PATH", "dax:numa:N", "rtl" (ndp::drv::Device::open). */
ndp_dev* ndp_dev_open(const char* uri);
void ndp_dev_close(ndp_dev* d);
const char* ndp_dev_backend(ndp_dev* d);

int ndp_dev_load(ndp_dev* d, const void* image, size_t bytes, uint32_t* image_out);
int ndp_dev_load_file(ndp_dev* d, const char* path, uint32_t* image_out);
int ndp_dev_unload(ndp_dev* d, uint32_t image);
int ndp_dev_tensor_count(ndp_dev* d, uint32_t image, size_t* count);
int ndp_dev_tensor_info(ndp_dev* d, uint32_t image, size_t tensor, ndp_dev_tensor* out);
int ndp_dev_find(ndp_dev* d, uint32_t image, const char* name, size_t* tensor);

int ndp_dev_region_bytes(ndp_dev* d, uint32_t image, size_t tensor, const char* region, int guard, uint64_t* bytes);
/* Region bytes [offset, offset + bytes) of a tensor; st may be NULL. */
int ndp_dev_read(ndp_dev* d, uint32_t image, size_t tensor, const char* region, int guard, uint64_t offset,
                 uint64_t bytes, void* out, ndp_dev_call_stats* st);
/* Mapped region (fault_bytes 4096 or 2097152); *addr receives the mapping. */
int ndp_dev_map(ndp_dev* d, uint32_t image, size_t tensor, const char* region, int guard, uint64_t offset,
                uint64_t length, uint64_t fault_bytes, ndp_dev_mapping** map, const void** addr);
/* 0 while every fault of the mapping read its bytes, -1 (with the message) after one failed. */
int ndp_dev_map_status(ndp_dev_mapping* m);
void ndp_dev_unmap(ndp_dev_mapping* m);

/* KV streams: dtype 1 (bf16) or 2 (fp16), token-major words. */
int ndp_dev_kv_create(ndp_dev* d, int dtype, uint32_t window, uint32_t channels, uint32_t heads, uint32_t* stream);
int ndp_dev_kv_append(ndp_dev* d, uint32_t stream, const uint16_t* token_major, uint64_t tokens);
int ndp_dev_kv_read(ndp_dev* d, uint32_t stream, uint64_t first_token, uint64_t tokens, uint16_t* out);
int ndp_dev_kv_free(ndp_dev* d, uint32_t stream);

int ndp_dev_get_stats(ndp_dev* d, ndp_dev_stats* out);
const char* ndp_dev_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* NDP_DRIVER_H_ */
