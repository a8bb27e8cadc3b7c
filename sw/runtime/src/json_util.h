// Checked accessors over nlohmann::json for config/override/plan files (internal).
// Every accessor returns an error naming origin and field instead of throwing.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ndp/runtime/size.h"
#include "ndp/status.h"

namespace ndp::rt::detail {

using Json = nlohmann::json;

inline Result<Json> parse_json(const std::string& text, const std::string& origin) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error(origin + ": not valid JSON");
  if (!j.is_object()) return Status::Error(origin + ": top level must be a JSON object");
  return j;
}

// Size field: an unsigned integer (bytes) or a string such as "128G". nullopt when absent.
inline Result<std::optional<uint64_t>> get_size(const Json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<uint64_t>{};
  if (it->is_number_unsigned()) return std::optional<uint64_t>{it->get<uint64_t>()};
  if (it->is_number_integer()) {
    if (it->get<int64_t>() < 0) return Status::Error(where + "." + key + ": negative size");
    return std::optional<uint64_t>{static_cast<uint64_t>(it->get<int64_t>())};
  }
  if (it->is_number_float()) {
    const double d = it->get<double>();
    // [0, 2^64) converts to uint64 (2^64 itself does not); fractions are truncated.
    if (!(d >= 0 && d < 18446744073709551616.0)) return Status::Error(where + "." + key + ": size out of range");
    return std::optional<uint64_t>{static_cast<uint64_t>(d)};
  }
  if (it->is_string()) {
    auto v = parse_size(it->get<std::string>());
    if (!v.ok()) return Status::Error(where + "." + key + ": " + v.status().message());
    return std::optional<uint64_t>{v.value()};
  }
  return Status::Error(where + "." + key + ": expected a size (integer bytes or \"16G\")");
}

// Integer field in [lo, hi]; nullopt when absent. A JSON number written with a fraction or exponent
// is accepted when it is integral; every range is checked before any conversion (a double outside
// int64 must not be cast: that is undefined behaviour), so callers may narrow to a type that holds
// [lo, hi].
inline Result<std::optional<int64_t>> get_int(const Json& o, const char* key, const std::string& where,
                                              int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<int64_t>{};
  const std::string range = where + "." + key + ": out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")";
  int64_t v = 0;
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return Status::Error(range);
    v = static_cast<int64_t>(u);
  } else if (it->is_number_integer()) {
    v = it->get<int64_t>();
  } else if (it->is_number_float()) {
    const double d = it->get<double>();
    // [-2^63, 2^63) is exactly the doubles that convert to int64 (both bounds are powers of two).
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return Status::Error(range);
    if (d != std::trunc(d)) return Status::Error(where + "." + key + ": expected an integer");
    v = static_cast<int64_t>(d);
  } else {
    return Status::Error(where + "." + key + ": expected an integer");
  }
  if (v < lo || v > hi) return Status::Error(range);
  return std::optional<int64_t>{v};
}

inline Result<std::optional<std::string>> get_string(const Json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return Status::Error(where + "." + key + ": expected a string");
  return std::optional<std::string>{it->get<std::string>()};
}

}  // namespace ndp::rt::detail
