// Host tests that place memory need the mempolicy syscalls. Containers often filter them (Docker's
// default seccomp profile allows mbind/move_pages only with CAP_SYS_NICE); then the real thing
// cannot run here and the test is skipped with the reason (the QEMU guest test still runs it).
#pragma once

#include <gtest/gtest.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "ndp/runtime/mempolicy.h"

namespace ndp::rt::testing {

// Empty when placement works here, else the reason it cannot.
inline std::string placement_unavailable() {
  if (!kernel_caps().numa) return "libnuma: NUMA/get_mempolicy unavailable (container seccomp?)";
  auto nodes = allowed_memory_nodes();
  if (nodes.empty()) return "no allowed memory node";
  long ps = sysconf(_SC_PAGESIZE);
  void* p = mmap(nullptr, static_cast<size_t>(ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return "mmap failed";
  Status s = detail::mbind_nodes(p, static_cast<uint64_t>(ps), MPOL_BIND, {nodes.front()}, 0);
  static_cast<char*>(p)[0] = 1;
  int node = -1;
  void* pages[1] = {p};
  long r = move_pages(0, 1, pages, nullptr, &node, 0);
  int e = errno;
  munmap(p, static_cast<size_t>(ps));
  if (!s.ok()) return s.message() + " (container seccomp without CAP_SYS_NICE?)";
  if (r != 0) return std::string("move_pages: ") + std::strerror(e);
  return "";
}

}  // namespace ndp::rt::testing

#define NDP_SKIP_WITHOUT_PLACEMENT()                                                   \
  do {                                                                                 \
    static const std::string why_ = ::ndp::rt::testing::placement_unavailable();       \
    if (!why_.empty()) GTEST_SKIP() << "memory placement unavailable here: " << why_;  \
  } while (0)
