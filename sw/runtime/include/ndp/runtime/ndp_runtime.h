/* C API of the placement runtime (ndp_runtime). Usable from C99 and C++.
 *
 * Functions returning int give 0 on success and -1 on error; ndp_rt_last_error() then returns a
 * one-line message (thread-local, valid until the next failing call on the same thread).
 * Lifetimes: free every ndp_rt_alloc and destroy every ndp_rt_objalloc before ndp_rt_close().
 */
#ifndef NDP_RUNTIME_C_H
#define NDP_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ndp_rt ndp_rt;
typedef struct ndp_rt_alloc ndp_rt_alloc;
typedef struct ndp_rt_objalloc ndp_rt_objalloc;

typedef struct {
  int id;
  int cpuless; /* 1 for a memory-only (CXL) node */
  uint64_t total_bytes, free_bytes;
  uint64_t read_bw_mbps, read_lat_ns; /* 0 when not published */
} ndp_rt_node;

const char* ndp_rt_last_error(void);

/* Topology from an override file, or discovered (sysfs + hwloc; $NDP_TOPOLOGY honoured) if NULL. */
int ndp_rt_open(const char* topology_override, ndp_rt** out);
void ndp_rt_close(ndp_rt* rt);
int ndp_rt_node_count(const ndp_rt* rt);
int ndp_rt_node_info(const ndp_rt* rt, int index, ndp_rt_node* out);
/* 1 when the running kernel accepts MPOL_WEIGHTED_INTERLEAVE, else 0. */
int ndp_rt_weighted_interleave_supported(void);

/* Placed allocations (pages faulted in and verified). weights may be NULL (plain interleave). */
int ndp_rt_alloc_onnode(ndp_rt* rt, size_t bytes, int node, ndp_rt_alloc** out);
int ndp_rt_alloc_interleave(ndp_rt* rt, size_t bytes, const int* nodes, const uint32_t* weights, int n,
                            ndp_rt_alloc** out);
void* ndp_rt_data(const ndp_rt_alloc* a);
size_t ndp_rt_size(const ndp_rt_alloc* a);
/* Pages of `a` that are on `node` right now (move_pages). */
int ndp_rt_pages_on_node(ndp_rt* rt, const ndp_rt_alloc* a, int node, uint64_t* pages);
int ndp_rt_migrate(ndp_rt* rt, ndp_rt_alloc* a, int node);
/* cudaHostRegister; fails with a clear message when no CUDA runtime/GPU is present. */
int ndp_rt_register_gpu(ndp_rt_alloc* a);
void ndp_rt_free(ndp_rt_alloc* a);
/* Live bytes the runtime has charged to `node`. */
uint64_t ndp_rt_bytes_on_node(const ndp_rt* rt, int node);

/* Per-node slab/large-block object allocator (16 KiB / 1 MiB / 16 MiB classes). */
int ndp_rt_objalloc_create(ndp_rt* rt, int node, ndp_rt_objalloc** out);
void* ndp_rt_obj_alloc(ndp_rt_objalloc* o, size_t bytes); /* NULL on error */
int ndp_rt_obj_free(ndp_rt_objalloc* o, void* p);
void ndp_rt_objalloc_destroy(ndp_rt_objalloc* o);

#ifdef __cplusplus
}
#endif

#endif /* NDP_RUNTIME_C_H */
