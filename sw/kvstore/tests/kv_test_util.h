// Shared helpers for the kvstore tests: a scratch pool path (tmpfs when available), the seed
// (fixed by default, NDP_SEED overrides, always printed) and block payload helpers.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ndp/kvstore/kvstore.h"

namespace ndp::kv::test {

inline uint64_t seed() {
  static const uint64_t s = [] {
    const char* e = std::getenv("NDP_SEED");
    const uint64_t v = e && *e ? std::strtoull(e, nullptr, 0) : 20250117ull;
    std::printf("kvstore tests: seed %llu (set NDP_SEED to vary)\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

// A unique pool path under /dev/shm (or $TMPDIR); removed by the destructor.
class ScratchPath {
 public:
  explicit ScratchPath(const std::string& tag) {
    const char* t = std::getenv("TMPDIR");
    const std::string dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : (t ? t : "/tmp");
    path_ = dir + "/ndpkv-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++);
  }
  ~ScratchPath() { std::filesystem::remove(path_); }
  const std::string& str() const { return path_; }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::string path_;
};

inline Geometry small_geometry() { return Geometry{16, 4, 2, 32, 2}; }  // 16 KiB blocks

inline std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Slices over a contiguous buffer, one per layer and kind (the payload order).
inline std::vector<ConstSlice> gather_of(const Geometry& g, const std::vector<uint8_t>& buf) {
  std::vector<ConstSlice> s;
  for (uint32_t i = 0; i < 2 * g.layers; ++i) s.push_back({buf.data() + i * g.slice_bytes(), g.slice_bytes()});
  return s;
}
inline std::vector<Slice> scatter_of(const Geometry& g, std::vector<uint8_t>& buf) {
  std::vector<Slice> s;
  for (uint32_t i = 0; i < 2 * g.layers; ++i) s.push_back({buf.data() + i * g.slice_bytes(), g.slice_bytes()});
  return s;
}

inline Key key_n(uint64_t n) { return Key{0x1234567800000000ull + n * 0x9e3779b97f4a7c15ull, n + 1}; }

}  // namespace ndp::kv::test
