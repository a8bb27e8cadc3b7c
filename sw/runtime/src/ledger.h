// Shared accounting of live allocations (internal). Allocations hold a shared_ptr so they may
// outlive their Runtime.
#pragma once

#include <map>
#include <mutex>

#include "ndp/runtime/runtime.h"

namespace ndp::rt::detail {

struct Ledger {
  std::mutex mu;
  Accounting acc;

  void charge(const std::map<int, uint64_t>& per_node, uint64_t bytes) {
    std::lock_guard<std::mutex> g(mu);
    for (const auto& [n, b] : per_node) acc.bytes_per_node[n] += b;
    acc.live_bytes += bytes;
    ++acc.live_allocations;
    ++acc.allocations_total;
  }
  void discharge(const std::map<int, uint64_t>& per_node, uint64_t bytes) {
    std::lock_guard<std::mutex> g(mu);
    for (const auto& [n, b] : per_node) {
      auto it = acc.bytes_per_node.find(n);
      it->second -= b;
      if (it->second == 0) acc.bytes_per_node.erase(it);
    }
    acc.live_bytes -= bytes;
    --acc.live_allocations;
    ++acc.frees_total;
  }
  void recharge(const std::map<int, uint64_t>& from, const std::map<int, uint64_t>& to) {
    std::lock_guard<std::mutex> g(mu);
    for (const auto& [n, b] : from) {
      auto it = acc.bytes_per_node.find(n);
      it->second -= b;
      if (it->second == 0) acc.bytes_per_node.erase(it);
    }
    for (const auto& [n, b] : to) acc.bytes_per_node[n] += b;
  }
};

}  // namespace ndp::rt::detail
