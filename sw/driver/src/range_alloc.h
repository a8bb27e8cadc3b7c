// First-fit allocator of aligned ranges inside [0, size): device DRAM for images and KV windows, the
// window-offset space for tensor bases, the range of a dax device. Not thread-safe (callers lock).
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace ndp::drv {

class RangeAlloc {
 public:
  explicit RangeAlloc(uint64_t size = 0) : size_(size) {}
  uint64_t size() const { return size_; }
  // Lowest start, a multiple of align (power of two), of a free range of `bytes` (> 0); nullopt if none.
  std::optional<uint64_t> alloc(uint64_t bytes, uint64_t align) {
    if (bytes == 0 || bytes > size_) return std::nullopt;
    uint64_t at = 0;
    for (const auto& [start, len] : used_) {
      if (at + bytes <= start) break;
      at = align_up(start + len, align);
    }
    if (at > size_ || bytes > size_ - at) return std::nullopt;
    used_[at] = bytes;
    return at;
  }
  // Shorten the range that starts at `start` to `bytes` (0 < bytes <= its length); false otherwise.
  bool shrink(uint64_t start, uint64_t bytes) {
    auto it = used_.find(start);
    if (it == used_.end() || bytes == 0 || bytes > it->second) return false;
    it->second = bytes;
    return true;
  }
  // Free the range that starts at `start`; false if none does.
  bool free(uint64_t start) { return used_.erase(start) == 1; }
  uint64_t used_bytes() const {
    uint64_t u = 0;
    for (const auto& [start, len] : used_) u += len;
    return u;
  }
  uint64_t free_bytes() const { return size_ - used_bytes(); }

  static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

 private:
  uint64_t size_;
  std::map<uint64_t, uint64_t> used_;  // start -> length
};

}  // namespace ndp::drv
