// Runtime: checked placement of anonymous mappings with mbind, verification with move_pages,
// migration and exact accounting.
#include "ndp/runtime/runtime.h"

#include <numaif.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "ledger.h"
#include "ndp/runtime/mempolicy.h"
#include "ndp/runtime/size.h"
#include "ndp/runtime/stripes.h"

namespace ndp::rt {

namespace {

std::string join_nodes(const std::vector<int>& v) {
  std::string s;
  for (int n : v) s += (s.empty() ? "" : ",") + std::to_string(n);
  return s;
}

// Exact page quota per node for a placement of `pages` pages (placement already checked).
std::vector<uint64_t> quota_pages(const Placement& p, uint64_t pages, uint64_t ps) {
  if (p.nodes.size() == 1) return {pages};
  if (!p.quota_bytes.empty()) {
    std::vector<uint64_t> q;
    for (uint64_t b : p.quota_bytes) q.push_back(b / ps);
    return q;
  }
  std::vector<uint64_t> w(p.nodes.size(), 1);
  for (size_t i = 0; i < p.weights.size(); ++i) w[i] = p.weights[i];
  return split_by_weights(pages, w);
}

std::map<int, uint64_t> to_bytes(const std::vector<int>& nodes, const std::vector<uint64_t>& q, uint64_t ps) {
  std::map<int, uint64_t> m;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (q[i]) m[nodes[i]] += q[i] * ps;
  return m;
}

bool weights_equal(const Placement& p) {
  for (uint32_t w : p.weights)
    if (w != p.weights.front()) return false;
  return true;
}

// Whether the kernel's weighted interleave can serve `p`, writing sysfs weights if allowed.
Status kernel_weights_ready(const Placement& p, const AllocOptions& o) {
  const auto& caps = kernel_caps();
  if (!caps.weighted_interleave)
    return Status::Error("kernel " + caps.release + " lacks MPOL_WEIGHTED_INTERLEAVE (Linux 6.9+)");
  std::vector<uint64_t> want(p.weights.begin(), p.weights.end());
  auto have = read_kernel_weights(p.nodes);
  if (!have.ok()) return have.status();
  std::vector<uint64_t> h(have.value().begin(), have.value().end());
  if (reduce_weights(h) == reduce_weights(want)) return Status::Ok();
  if (!o.set_kernel_weights)
    return Status::Error("sysfs weighted_interleave weights differ from the requested ratio and "
                         "AllocOptions::set_kernel_weights is off");
  if (!caps.weights_writable) return Status::Error("sysfs weighted_interleave weights are not writable (not root)");
  return write_kernel_weights(p.nodes, p.weights);
}

}  // namespace

Placement Placement::on_node(int node) { return Placement{{node}, {}, {}, true}; }
Placement Placement::preferred(int node) { return Placement{{node}, {}, {}, false}; }
Placement Placement::interleave(std::vector<int> nodes, std::vector<uint32_t> weights) {
  return Placement{std::move(nodes), std::move(weights), {}, true};
}
Placement Placement::quotas(std::vector<int> nodes, std::vector<uint64_t> bytes) {
  return Placement{std::move(nodes), {}, std::move(bytes), true};
}

std::string Placement::describe() const {
  if (nodes.size() == 1) return std::string(strict ? "bind:" : "preferred:") + std::to_string(nodes[0]);
  std::string s = quota_bytes.empty() ? "interleave:" : "quota:";
  for (size_t i = 0; i < nodes.size(); ++i) {
    s += (i ? "," : "") + std::to_string(nodes[i]);
    if (!quota_bytes.empty() && i < quota_bytes.size())
      s += "=" + format_size(quota_bytes[i]);
    else if (i < weights.size())
      s += "*" + std::to_string(weights[i]);
  }
  return s;
}

const char* mechanism_name(Mechanism m) {
  switch (m) {
    case Mechanism::kBind: return "mbind-bind";
    case Mechanism::kPreferred: return "mbind-preferred";
    case Mechanism::kKernelInterleave: return "kernel-interleave";
    case Mechanism::kKernelWeighted: return "kernel-weighted-interleave";
    case Mechanism::kStripes: return "mbind-stripes";
  }
  return "?";
}

std::string PageCounts::describe() const {
  std::string s;
  for (const auto& [n, c] : per_node) s += (s.empty() ? "" : " ") + ("node" + std::to_string(n)) + "=" + std::to_string(c);
  if (not_present) s += " absent=" + std::to_string(not_present);
  if (errors) s += " errors=" + std::to_string(errors);
  return s.empty() ? "none" : s;
}

// ---- Allocation ----

Allocation::Allocation(Allocation&& o) noexcept { *this = std::move(o); }

Allocation& Allocation::operator=(Allocation&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = o.ptr_;
    size_ = o.size_;
    requested_ = o.requested_;
    placement_ = std::move(o.placement_);
    mech_ = o.mech_;
    huge_ = o.huge_;
    charged_ = std::move(o.charged_);
    ledger_ = std::move(o.ledger_);
    hooks_ = std::move(o.hooks_);
    o.ptr_ = nullptr;
    o.size_ = o.requested_ = 0;
    o.charged_.clear();
    o.hooks_.clear();
  }
  return *this;
}

Allocation::~Allocation() { release(); }

void Allocation::add_release_hook(std::function<void(void*, uint64_t)> undo) { hooks_.push_back(std::move(undo)); }

void Allocation::release() {
  if (!ptr_) return;
  for (auto it = hooks_.rbegin(); it != hooks_.rend(); ++it) (*it)(ptr_, size_);
  hooks_.clear();
  munmap(ptr_, size_);
  if (ledger_) ledger_->discharge(charged_, size_);
  ptr_ = nullptr;
  size_ = requested_ = 0;
  charged_.clear();
  ledger_.reset();
}

// ---- Runtime ----

Runtime::Runtime(Topology topo) : topo_(std::move(topo)), ledger_(std::make_shared<detail::Ledger>()) {}

uint64_t Runtime::page_size() const { return kernel_caps().page_size; }

Accounting Runtime::accounting() const {
  std::lock_guard<std::mutex> g(ledger_->mu);
  return ledger_->acc;
}

Status Runtime::check_placement(uint64_t size, const Placement& p) const {
  const std::string what = "placement " + p.describe() + ": ";
  if (p.nodes.empty()) return Status::Error(what + "no nodes given");
  if (p.nodes.size() > 64) return Status::Error(what + "more than 64 nodes");
  if (std::set<int>(p.nodes.begin(), p.nodes.end()).size() != p.nodes.size())
    return Status::Error(what + "node listed twice");
  if (!p.strict && p.nodes.size() != 1) return Status::Error(what + "preferred placement takes exactly one node");
  // The allowed set rarely changes (cpuset updates); re-read it only when a node is missing.
  static thread_local std::vector<int> allowed;
  if (allowed.empty()) allowed = allowed_memory_nodes();
  if (allowed.empty()) return Status::Error(what + "NUMA is not available (libnuma: numa_available() failed)");
  for (int n : p.nodes) {
    if (!topo_.find(n))
      return Status::Error(what + "node " + std::to_string(n) + " is not in the topology (" + topo_.source + ")");
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end()) allowed = allowed_memory_nodes();
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end())
      return Status::Error(what + "node " + std::to_string(n) +
                           " is not an online memory node this process may use (allowed: " + join_nodes(allowed) + ")");
  }
  if (!p.weights.empty()) {
    if (p.weights.size() != p.nodes.size()) return Status::Error(what + "one weight per node expected");
    for (uint32_t w : p.weights)
      if (w < 1 || w > 255) return Status::Error(what + "weights must be 1..255");
  }
  if (!p.quota_bytes.empty()) {
    if (p.quota_bytes.size() != p.nodes.size()) return Status::Error(what + "one quota per node expected");
    uint64_t sum = 0;
    for (uint64_t q : p.quota_bytes) {
      if (q % page_size()) return Status::Error(what + "quotas must be multiples of the page size");
      sum += q;
    }
    if (sum != size)
      return Status::Error(what + "quotas sum to " + std::to_string(sum) + " bytes, allocation is " +
                           std::to_string(size));
  }
  return Status::Ok();
}

namespace {

// Free-memory check before any page is touched (a bound fault on a full node means the OOM killer).
Status check_capacity(const std::map<int, uint64_t>& need, const std::map<int, uint64_t>& already, uint64_t reserve) {
  for (const auto& [node, bytes] : need) {
    auto it = already.find(node);
    uint64_t have_here = it == already.end() ? 0 : it->second;
    if (bytes <= have_here) continue;
    uint64_t extra = bytes - have_here;
    auto fr = node_free_bytes(node);
    if (!fr.ok()) return fr.status();
    if (extra + reserve > fr.value())
      return Status::Error("node " + std::to_string(node) + " has " + format_size(fr.value()) + " free (reserve " +
                           format_size(reserve) + ") but the placement needs " + format_size(extra) + " there");
  }
  return Status::Ok();
}

// `strict` adds MPOL_MF_STRICT (fresh ranges only: on a range with resident pages elsewhere it
// makes mbind fail with EIO, which migration must avoid).
Status apply_policy(void* base, uint64_t size, const Placement& p, Mechanism m, const std::vector<Run>& runs,
                    uint64_t ps, bool strict) {
  const unsigned sf = strict ? MPOL_MF_STRICT : 0;
  switch (m) {
    case Mechanism::kBind: return detail::mbind_nodes(base, size, MPOL_BIND, p.nodes, sf);
    case Mechanism::kPreferred: return detail::mbind_nodes(base, size, MPOL_PREFERRED, p.nodes, 0);
    case Mechanism::kKernelInterleave: return detail::mbind_nodes(base, size, MPOL_INTERLEAVE, p.nodes, 0);
    case Mechanism::kKernelWeighted:
      return detail::mbind_nodes(base, size, detail::kMpolWeightedInterleave, p.nodes, 0);
    case Mechanism::kStripes:
      for (const auto& r : runs) {
        char* at = static_cast<char*>(base) + r.first_page * ps;
        Status s = detail::mbind_nodes(at, r.pages * ps, MPOL_BIND, {r.node}, sf);
        if (!s.ok()) return s.prepend("stripe at page " + std::to_string(r.first_page) + ": ");
      }
      return Status::Ok();
  }
  return Status::Error("unknown mechanism");
}

PageCounts count_pages(const std::vector<int>& nodes) {
  PageCounts c;
  c.total_pages = nodes.size();
  for (int n : nodes) {
    if (n >= 0)
      ++c.per_node[n];
    else if (n == -ENOENT)
      ++c.not_present;
    else
      ++c.errors;
  }
  return c;
}

// Anonymous mapping of `size` bytes starting at a multiple of `align` (>= page size).
Result<void*> map_aligned(uint64_t size, uint64_t align, uint64_t ps) {
  if (align && (align & (align - 1))) return Status::Error("allocate: align " + std::to_string(align) + " is not a power of two");
  align = std::max(align, ps);
  const uint64_t span = size + align - ps;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return Status::Error("allocate: mmap " + format_size(span) + ": " + std::strerror(errno));
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + align - 1) & ~static_cast<uintptr_t>(align - 1);
  if (aligned > start) munmap(raw, aligned - start);
  uint64_t tail = (start + span) - (aligned + size);
  if (tail) munmap(reinterpret_cast<void*>(aligned + size), tail);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

Result<Allocation> Runtime::allocate(uint64_t bytes, const Placement& p, const AllocOptions& o) {
  if (bytes == 0) return Status::Error("allocate: size 0");
  const uint64_t ps = page_size();
  if (bytes > (UINT64_MAX >> 2)) return Status::Error("allocate: size " + std::to_string(bytes) + " too large");
  const uint64_t size = align_up(bytes, ps);
  NDP_RETURN_IF_ERROR(check_placement(size, p));
  const uint64_t pages = size / ps;
  const std::vector<uint64_t> quota = quota_pages(p, pages, ps);
  const std::map<int, uint64_t> plan = to_bytes(p.nodes, quota, ps);
  if (p.strict) NDP_RETURN_IF_ERROR(check_capacity(plan, {}, o.reserve_bytes).prepend("allocate " + format_size(size) + ": "));

  Mechanism mech = Mechanism::kBind;
  if (p.nodes.size() == 1) {
    mech = p.strict ? Mechanism::kBind : Mechanism::kPreferred;
  } else if (!p.quota_bytes.empty() || o.interleave == InterleaveMode::kStripes) {
    if (!p.quota_bytes.empty() && o.interleave == InterleaveMode::kKernel)
      return Status::Error("allocate: exact quotas need stripes; InterleaveMode::kKernel cannot honour them");
    mech = Mechanism::kStripes;
  } else if (weights_equal(p)) {
    mech = Mechanism::kKernelInterleave;
  } else {
    Status ready = kernel_weights_ready(p, o);
    if (ready.ok())
      mech = Mechanism::kKernelWeighted;
    else if (o.interleave == InterleaveMode::kKernel)
      return Status(ready).prepend("allocate " + p.describe() + ": ");
    else
      mech = Mechanism::kStripes;  // documented fallback: exact stripes bound per range
  }
  std::vector<Run> runs;
  if (mech == Mechanism::kStripes) runs = plan_runs(p.nodes, quota, std::max<uint64_t>(1, o.stripe_bytes / ps));

  auto mapped = map_aligned(size, o.align, ps);
  if (!mapped.ok()) return mapped.status();
  void* base = mapped.value();
  Allocation a;
  a.ptr_ = base;
  a.size_ = size;
  a.requested_ = bytes;
  a.placement_ = p;
  a.mech_ = mech;
  // Base pages unless huge pages were asked for on a single node: ratios, counts and migration
  // then hold page by page.
  a.huge_ = o.huge_pages && p.nodes.size() == 1;
  if (!a.huge_) madvise(base, size, MADV_NOHUGEPAGE);
  Status s = apply_policy(base, size, p, mech, runs, ps, true);
  if (s.ok() && o.populate) s = detail::populate_write(base, size);
  std::map<int, uint64_t> charged = plan;
  if (s.ok() && o.populate) {
    std::vector<int> where;
    s = detail::query_page_nodes(base, size, where);
    if (s.ok()) {
      PageCounts c = count_pages(where);
      if (mech == Mechanism::kBind || mech == Mechanism::kStripes) {
        std::vector<int> want = mech == Mechanism::kBind ? std::vector<int>(pages, p.nodes[0]) : runs_to_pages(runs);
        uint64_t bad = 0;
        for (uint64_t i = 0; i < pages; ++i) bad += where[i] != want[i];
        if (bad) s = Status::Error("allocate: " + std::to_string(bad) + " of " + std::to_string(pages) +
                                   " pages are not on their planned node (" + c.describe() + ")");
      } else if (mech != Mechanism::kPreferred) {
        uint64_t period = 0;
        for (size_t i = 0; i < p.nodes.size(); ++i) period += p.weights.empty() ? 1 : p.weights[i];
        for (size_t i = 0; i < p.nodes.size() && s.ok(); ++i) {
          uint64_t got = c.per_node.count(p.nodes[i]) ? c.per_node[p.nodes[i]] : 0;
          uint64_t diff = got > quota[i] ? got - quota[i] : quota[i] - got;
          if (diff > period || c.not_present || c.errors)
            s = Status::Error("allocate: kernel interleave put " + c.describe() + " for " + p.describe());
        }
      }
      if (s.ok()) {
        charged.clear();
        for (const auto& [n, cnt] : c.per_node) charged[n] = cnt * ps;
      }
    }
  }
  if (!s.ok()) {
    munmap(base, size);
    a.ptr_ = nullptr;
    return s;
  }
  a.charged_ = charged;
  a.ledger_ = ledger_;
  ledger_->charge(charged, size);
  return a;
}

Result<PageCounts> Runtime::where(const Allocation& a) const {
  if (!a.data()) return Status::Error("where: allocation is empty (freed or moved from)");
  std::vector<int> nodes;
  NDP_RETURN_IF_ERROR(detail::query_page_nodes(a.data(), a.size(), nodes));
  return count_pages(nodes);
}

Status Runtime::migrate(Allocation& a, const Placement& target, const AllocOptions& o) {
  if (!a.data()) return Status::Error("migrate: allocation is empty (freed or moved from)");
  const uint64_t ps = page_size();
  const uint64_t pages = a.size() / ps;
  NDP_RETURN_IF_ERROR(check_placement(a.size(), target).prepend("migrate: "));
  if (a.huge_ && target.nodes.size() > 1)
    return Status::Error("migrate: allocation may hold transparent huge pages, which move as whole 2 MiB units; "
                         "a multi-node target needs an allocation made with huge_pages=false");
  const std::vector<uint64_t> quota = quota_pages(target, pages, ps);
  const std::map<int, uint64_t> plan = to_bytes(target.nodes, quota, ps);
  if (target.strict) NDP_RETURN_IF_ERROR(check_capacity(plan, a.charged(), o.reserve_bytes).prepend("migrate: "));
  std::vector<Run> runs = target.nodes.size() == 1 ? std::vector<Run>{{0, pages, target.nodes[0]}}
                                                   : plan_runs(target.nodes, quota, std::max<uint64_t>(1, o.stripe_bytes / ps));
  const Mechanism mech = target.nodes.size() > 1 ? Mechanism::kStripes
                         : target.strict         ? Mechanism::kBind
                                                 : Mechanism::kPreferred;
  // Rebind first (no MPOL_MF_MOVE) so later faults follow, then move resident pages explicitly.
  NDP_RETURN_IF_ERROR(apply_policy(a.data(), a.size(), target, mech, runs, ps, false).prepend("migrate: "));
  std::vector<int> now;
  NDP_RETURN_IF_ERROR(detail::query_page_nodes(a.data(), a.size(), now));
  std::vector<int> want = runs_to_pages(runs);
  std::vector<int> moves(pages, -1);
  for (uint64_t i = 0; i < pages; ++i)
    if (now[i] >= 0 && now[i] != want[i]) moves[i] = want[i];
  auto failed = detail::move_page_nodes(a.data(), a.size(), moves);
  if (!failed.ok()) return Status(failed.status()).prepend("migrate: ");
  NDP_RETURN_IF_ERROR(detail::query_page_nodes(a.data(), a.size(), now));
  uint64_t wrong = 0;
  std::map<int, uint64_t> charged;
  for (uint64_t i = 0; i < pages; ++i) {
    if (now[i] >= 0 && now[i] != want[i] && mech != Mechanism::kPreferred) ++wrong;
    charged[now[i] >= 0 ? now[i] : want[i]] += ps;
  }
  a.ledger_->recharge(a.charged_, charged);
  a.charged_ = charged;
  a.placement_ = target;
  a.mech_ = mech;
  if (wrong)
    return Status::Error("migrate to " + target.describe() + ": " + std::to_string(wrong) + " of " +
                         std::to_string(pages) + " pages could not be moved");
  return Status::Ok();
}

}  // namespace ndp::rt
