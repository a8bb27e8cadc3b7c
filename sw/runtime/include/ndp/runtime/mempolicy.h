// What the running kernel offers for memory placement, probed at run time (never assumed from
// headers): libnuma/mempolicy syscalls, MPOL_WEIGHTED_INTERLEAVE (Linux 6.9+) and its sysfs
// weights, MADV_POPULATE_WRITE (5.14+), and the raw page-level calls the runtime builds on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp::rt {

struct KernelCaps {
  std::string release;              // uname -r
  bool numa = false;                // libnuma numa_available() succeeded
  bool weighted_interleave = false; // mbind(MPOL_WEIGHTED_INTERLEAVE) accepted on a scratch page
  bool weighted_sysfs = false;      // /sys/kernel/mm/mempolicy/weighted_interleave exists
  bool weights_writable = false;    // we may write those (system-wide) weights
  bool populate_write = false;      // madvise(MADV_POPULATE_WRITE) accepted
  uint64_t page_size = 4096;
};

// Probed once per process (thread-safe); cheap afterwards.
const KernelCaps& kernel_caps();

// Kernel's current weighted-interleave weights (sysfs, 1..255) for `nodes`; error if unavailable.
Result<std::vector<uint32_t>> read_kernel_weights(const std::vector<int>& nodes);
// Write them. They are system-wide: callers must opt in (AllocOptions::set_kernel_weights).
Status write_kernel_weights(const std::vector<int>& nodes, const std::vector<uint32_t>& weights);

// Online nodes with memory that this process may allocate on (libnuma mems_allowed).
std::vector<int> allowed_memory_nodes();
// Free bytes on a node right now (libnuma numa_node_size64); error for a node without memory.
Result<uint64_t> node_free_bytes(int node);

namespace detail {

inline constexpr int kMpolWeightedInterleave = 6;  // MPOL_WEIGHTED_INTERLEAVE in Linux 6.9+ uapi

// mbind(2) over [p, p+len) with `mode` and the node set; flags as for mbind. Error text names the
// range, mode and errno.
Status mbind_nodes(void* p, uint64_t len, int mode, const std::vector<int>& nodes, unsigned flags);
// Node of every page in [p, p+len) via move_pages(2) with nodes==NULL; negative values are
// -errno per page (-ENOENT: not faulted in yet).
Status query_page_nodes(void* p, uint64_t len, std::vector<int>& out);
// Move pages to nodes (one node per page, -1 = leave); returns pages that failed to move.
Result<uint64_t> move_page_nodes(void* p, uint64_t len, const std::vector<int>& target);
// Fault every page in now (MADV_POPULATE_WRITE, or touching pages on older kernels).
Status populate_write(void* p, uint64_t len);

}  // namespace detail
}  // namespace ndp::rt
