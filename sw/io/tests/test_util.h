// Shared helpers for the reader tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "ndp/model_reader.h"

namespace ndp::testing {

// The shared data folder: NDP_DATA_DIR, or <repo>/../shared/data when the build defined it empty
// (the top-level CMakeLists sets the cache variable after ndp.cmake reads it on a first configure).
inline std::string data_dir() {
  std::string d = NDP_DATA_DIR;
  if (d.empty()) d = (std::filesystem::path(__FILE__).parent_path() / "../../../../shared/data").lexically_normal().string();
  return d;
}

// Path of a file under the shared data folder, "" when it is absent.
inline std::string data_path(const std::string& rel) {
  std::string p = data_dir() + "/" + rel;
  return std::filesystem::exists(p) ? p : "";
}

#define NDP_REQUIRE_DATA(var, rel)                                                                  \
  const std::string var = ::ndp::testing::data_path(rel);                                           \
  if (var.empty()) GTEST_SKIP() << "shared data " << rel << " not found under " << ::ndp::testing::data_dir()

inline float f32_at(const Tensor& t, uint64_t i) {
  float f;
  std::memcpy(&f, t.data.data() + 4 * i, 4);
  return f;
}

// Expect an error whose message has the "WHAT: offset N: " form and contains `needle`.
inline void expect_error(const Result<Model>& r, const std::string& what, const std::string& needle) {
  ASSERT_FALSE(r.ok()) << "expected an error containing \"" << needle << "\"";
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind(what + ": offset ", 0), 0u) << m;
  EXPECT_NE(m.find(needle), std::string::npos) << "message: " << m << "\nexpected to contain: " << needle;
}

}  // namespace ndp::testing
