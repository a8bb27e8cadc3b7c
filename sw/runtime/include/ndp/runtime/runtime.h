// Per-tensor placement over DRAM and CPU-less (CXL) nodes.
//
//   Runtime rt(topology);
//   auto a = rt.allocate(64 << 20, Placement::interleave({0, 1}, {1, 3}));
//   auto where = rt.where(*a);            // pages per node, via move_pages(2)
//   rt.migrate(*a, Placement::on_node(1));
//
// Allocations are anonymous mappings whose ranges are bound with mbind(2) before any page is
// touched; with AllocOptions::populate the pages are faulted in and their nodes verified, so a
// placement is never silently wrong. Weighted interleave uses the kernel's
// MPOL_WEIGHTED_INTERLEAVE where the running kernel has it and its (system-wide) weights match;
// otherwise the range is cut into stripes, each bound to one node, with exact per-node page counts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ndp/runtime/topology.h"
#include "ndp/status.h"

namespace ndp::rt {

struct Placement {
  std::vector<int> nodes;             // one node: bind (or preferred); several: interleave
  std::vector<uint32_t> weights;      // per node, 1..255; empty = all 1
  std::vector<uint64_t> quota_bytes;  // optional exact bytes per node (page multiples, sum = size)
  bool strict = true;                 // single node: MPOL_BIND if true, MPOL_PREFERRED if false

  static Placement on_node(int node);
  static Placement preferred(int node);
  static Placement interleave(std::vector<int> nodes, std::vector<uint32_t> weights = {});
  static Placement quotas(std::vector<int> nodes, std::vector<uint64_t> bytes);
  std::string describe() const;  // "bind:1", "interleave:0*1,1*3", "quota:0=2MiB,1=6MiB"
};

enum class Mechanism : uint8_t { kBind, kPreferred, kKernelInterleave, kKernelWeighted, kStripes };
const char* mechanism_name(Mechanism m);

enum class InterleaveMode : uint8_t {
  kAuto,     // kernel interleave / weighted interleave when usable, stripes otherwise
  kKernel,   // require the kernel mechanism (error if the kernel lacks it)
  kStripes,  // always mbind stripes
};

struct AllocOptions {
  bool populate = true;              // fault pages in now and verify where they landed
  InterleaveMode interleave = InterleaveMode::kAuto;
  uint64_t stripe_bytes = 64 << 10;  // stripe unit of the mbind fallback (rounded to pages)
  bool set_kernel_weights = false;   // allow writing the system-wide sysfs weights (root)
  uint64_t reserve_bytes = 0;        // free memory to leave untouched on every node
  // Allow transparent huge pages (single-node placements only). Off by default: with 4 KiB pages
  // placement, page counts and migration are exact; a THP moves as a whole 2 MiB unit.
  bool huge_pages = false;
  uint64_t align = 0;  // start address alignment (power of two); 0 = page size
};

// Pages of an allocation per node as the kernel reports them.
struct PageCounts {
  std::map<int, uint64_t> per_node;  // node -> pages
  uint64_t not_present = 0;          // not faulted in yet
  uint64_t errors = 0;               // other per-page errors
  uint64_t total_pages = 0;
  std::string describe() const;      // "node0=12 node1=36"
};

namespace detail {
struct Ledger;
}

// One placed range. Move-only; frees (munmap) on destruction and updates the accounting.
class Allocation {
 public:
  Allocation() = default;
  Allocation(Allocation&& o) noexcept;
  Allocation& operator=(Allocation&& o) noexcept;
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation();

  void* data() const { return ptr_; }
  uint64_t size() const { return size_; }            // rounded up to pages
  uint64_t requested() const { return requested_; }  // as asked for
  const Placement& placement() const { return placement_; }
  Mechanism mechanism() const { return mech_; }
  // Bytes charged to each node (measured when populated, else the exact plan).
  const std::map<int, uint64_t>& charged() const { return charged_; }
  // Run `undo` (e.g. cudaHostUnregister) before the memory is unmapped.
  void add_release_hook(std::function<void(void*, uint64_t)> undo);
  bool has_release_hooks() const { return !hooks_.empty(); }
  // Free now; idempotent.
  void release();

 private:
  friend class Runtime;
  void* ptr_ = nullptr;
  uint64_t size_ = 0, requested_ = 0;
  Placement placement_;
  Mechanism mech_ = Mechanism::kBind;
  bool huge_ = false;
  std::map<int, uint64_t> charged_;
  std::shared_ptr<detail::Ledger> ledger_;
  std::vector<std::function<void(void*, uint64_t)>> hooks_;
};

struct Accounting {
  std::map<int, uint64_t> bytes_per_node;  // live bytes charged per node
  uint64_t live_allocations = 0;
  uint64_t live_bytes = 0;
  uint64_t allocations_total = 0;
  uint64_t frees_total = 0;
};

class Runtime {
 public:
  explicit Runtime(Topology topo);
  const Topology& topology() const { return topo_; }
  uint64_t page_size() const;

  // Place `bytes` (rounded up to pages). Errors: zero size, unknown/offline/duplicate node, bad
  // weights/quotas, a node without enough free memory (checked before any page is touched),
  // kernel lacking a required mechanism, mmap/mbind failure, pages found on the wrong node.
  Result<Allocation> allocate(uint64_t bytes, const Placement& p, const AllocOptions& o = {});
  // Where the pages are now (move_pages). Never fails for a live allocation except on syscalls.
  Result<PageCounts> where(const Allocation& a) const;
  // Move the pages to `target` (move_pages) and rebind the range so later faults follow; the
  // accounting moves with them. Error if pages could not be moved (names how many), or if the
  // allocation may hold transparent huge pages and the target spans several nodes.
  Status migrate(Allocation& a, const Placement& target, const AllocOptions& o = {});
  Accounting accounting() const;

 private:
  Status check_placement(uint64_t size, const Placement& p) const;
  Topology topo_;
  std::shared_ptr<detail::Ledger> ledger_;
};

}  // namespace ndp::rt
