// Kernel capability probes and thin checked wrappers over mbind/move_pages/madvise.
#include "ndp/runtime/mempolicy.h"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>

#include "sysfs.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace ndp::rt {

namespace {

constexpr const char* kWeightsDir = "/sys/kernel/mm/mempolicy/weighted_interleave";
constexpr int kMaskBits = 1024;
constexpr size_t kBitsPerLong = sizeof(unsigned long) * 8;

std::string errno_text(int e) { return std::string(std::strerror(e)); }

const char* mode_name(int mode) {
  switch (mode) {
    case MPOL_DEFAULT: return "MPOL_DEFAULT";
    case MPOL_PREFERRED: return "MPOL_PREFERRED";
    case MPOL_BIND: return "MPOL_BIND";
    case MPOL_INTERLEAVE: return "MPOL_INTERLEAVE";
    case detail::kMpolWeightedInterleave: return "MPOL_WEIGHTED_INTERLEAVE";
    default: return "MPOL_?";
  }
}

KernelCaps probe() {
  KernelCaps c;
  struct utsname u;
  if (uname(&u) == 0) c.release = u.release;
  long ps = sysconf(_SC_PAGESIZE);
  c.page_size = ps > 0 ? static_cast<uint64_t>(ps) : 4096;
  c.numa = numa_available() >= 0;
  c.weighted_sysfs = detail::path_exists(kWeightsDir);
  c.weights_writable = c.weighted_sysfs && geteuid() == 0 &&
                       access((std::string(kWeightsDir) + "/node0").c_str(), W_OK) == 0;
  void* p = mmap(nullptr, c.page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return c;
  if (c.numa) {
    // Weighted interleave over the first allowed node: EINVAL on kernels before 6.9.
    auto nodes = allowed_memory_nodes();
    if (!nodes.empty())
      c.weighted_interleave =
          detail::mbind_nodes(p, c.page_size, detail::kMpolWeightedInterleave, {nodes.front()}, 0).ok();
  }
  c.populate_write = madvise(p, c.page_size, MADV_POPULATE_WRITE) == 0;
  munmap(p, c.page_size);
  return c;
}

}  // namespace

const KernelCaps& kernel_caps() {
  static const KernelCaps caps = probe();
  return caps;
}

std::vector<int> allowed_memory_nodes() {
  std::vector<int> out;
  if (numa_available() < 0) return out;
  struct bitmask* m = numa_get_mems_allowed();
  if (!m) return out;
  for (int n = 0; n <= numa_max_node(); ++n)
    if (numa_bitmask_isbitset(m, static_cast<unsigned>(n))) out.push_back(n);
  numa_bitmask_free(m);
  return out;
}

Result<uint64_t> node_free_bytes(int node) {
  if (numa_available() < 0) return Status::Error("libnuma: NUMA is not available on this kernel");
  if (node < 0 || node > numa_max_node())
    return Status::Error("node " + std::to_string(node) + " does not exist (max node " +
                         std::to_string(numa_max_node()) + ")");
  long long fr = 0;
  long long total = numa_node_size64(node, &fr);
  if (total <= 0) return Status::Error("node " + std::to_string(node) + " has no memory");
  return static_cast<uint64_t>(fr < 0 ? 0 : fr);
}

Result<std::vector<uint32_t>> read_kernel_weights(const std::vector<int>& nodes) {
  if (!detail::path_exists(kWeightsDir))
    return Status::Error(std::string(kWeightsDir) + ": absent (kernel " + kernel_caps().release +
                         " has no weighted interleave; Linux 6.9+ needed)");
  std::vector<uint32_t> w;
  for (int n : nodes) {
    auto v = detail::read_u64(std::string(kWeightsDir) + "/node" + std::to_string(n));
    if (!v) return Status::Error(std::string(kWeightsDir) + "/node" + std::to_string(n) + ": unreadable");
    w.push_back(static_cast<uint32_t>(*v));
  }
  return w;
}

Status write_kernel_weights(const std::vector<int>& nodes, const std::vector<uint32_t>& weights) {
  if (nodes.size() != weights.size()) return Status::Error("write_kernel_weights: nodes/weights length differ");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (weights[i] < 1 || weights[i] > 255) return Status::Error("kernel weights must be 1..255");
    std::string path = std::string(kWeightsDir) + "/node" + std::to_string(nodes[i]);
    std::ofstream f(path);
    if (!f) return Status::Error(path + ": cannot open for writing (" + errno_text(errno) + ")");
    f << weights[i] << "\n";
    f.flush();
    if (!f) return Status::Error(path + ": write failed");
  }
  return Status::Ok();
}

namespace detail {

Status mbind_nodes(void* p, uint64_t len, int mode, const std::vector<int>& nodes, unsigned flags) {
  unsigned long mask[kMaskBits / kBitsPerLong] = {};
  for (int n : nodes) {
    if (n < 0 || n >= kMaskBits) return Status::Error("mbind: node " + std::to_string(n) + " out of range");
    mask[static_cast<size_t>(n) / kBitsPerLong] |= 1UL << (static_cast<size_t>(n) % kBitsPerLong);
  }
  const unsigned long* m = nodes.empty() ? nullptr : mask;
  if (mbind(p, len, mode, m, nodes.empty() ? 0 : kMaskBits + 1, flags) != 0) {
    int e = errno;
    std::string ns;
    for (int n : nodes) ns += (ns.empty() ? "" : ",") + std::to_string(n);
    return Status::Error("mbind(" + std::string(mode_name(mode)) + ", nodes " + ns + ", " + std::to_string(len) +
                         " bytes): " + errno_text(e));
  }
  return Status::Ok();
}

Status query_page_nodes(void* p, uint64_t len, std::vector<int>& out) {
  const uint64_t ps = kernel_caps().page_size;
  const uint64_t n = (len + ps - 1) / ps;
  out.assign(n, 0);
  constexpr uint64_t kBatch = 16384;
  std::vector<void*> pages(std::min(n, kBatch));
  for (uint64_t i = 0; i < n; i += kBatch) {
    uint64_t c = std::min(kBatch, n - i);
    for (uint64_t k = 0; k < c; ++k) pages[k] = static_cast<char*>(p) + (i + k) * ps;
    if (move_pages(0, c, pages.data(), nullptr, out.data() + i, 0) != 0)
      return Status::Error("move_pages(query, " + std::to_string(c) + " pages): " + errno_text(errno));
  }
  return Status::Ok();
}

Result<uint64_t> move_page_nodes(void* p, uint64_t len, const std::vector<int>& target) {
  const uint64_t ps = kernel_caps().page_size;
  const uint64_t n = (len + ps - 1) / ps;
  if (target.size() != n) return Status::Error("move_pages: target list has wrong length");
  std::vector<void*> pages;
  std::vector<int> nodes, status;
  uint64_t failed = 0;
  auto flush = [&]() -> Status {
    if (pages.empty()) return Status::Ok();
    status.assign(pages.size(), 0);
    long r = move_pages(0, pages.size(), pages.data(), nodes.data(), status.data(), MPOL_MF_MOVE);
    if (r < 0) return Status::Error("move_pages(move, " + std::to_string(pages.size()) + " pages): " + errno_text(errno));
    for (size_t k = 0; k < status.size(); ++k)
      if (status[k] != nodes[k]) ++failed;
    pages.clear();
    nodes.clear();
    return Status::Ok();
  };
  for (uint64_t i = 0; i < n; ++i) {
    if (target[i] < 0) continue;
    pages.push_back(static_cast<char*>(p) + i * ps);
    nodes.push_back(target[i]);
    if (pages.size() == 16384) NDP_RETURN_IF_ERROR(flush());
  }
  NDP_RETURN_IF_ERROR(flush());
  return failed;
}

Status populate_write(void* p, uint64_t len) {
  if (kernel_caps().populate_write) {
    if (madvise(p, len, MADV_POPULATE_WRITE) == 0) return Status::Ok();
    int e = errno;
    return Status::Error("madvise(MADV_POPULATE_WRITE, " + std::to_string(len) + " bytes): " + errno_text(e) +
                         (e == ENOMEM ? " (node out of memory)" : ""));
  }
  const uint64_t ps = kernel_caps().page_size;
  for (uint64_t off = 0; off < len; off += ps) static_cast<volatile char*>(p)[off] = 0;
  return Status::Ok();
}

}  // namespace detail
}  // namespace ndp::rt
