// Checked accessors over nlohmann::json for config/override/plan files (internal).
// Every accessor returns an error naming origin and field instead of throwing.
#pragma once

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
    double d = it->get<double>();
    if (d < 0 || d > 1.8e19) return Status::Error(where + "." + key + ": size out of range");
    return std::optional<uint64_t>{static_cast<uint64_t>(d)};
  }
  if (it->is_string()) {
    auto v = parse_size(it->get<std::string>());
    if (!v.ok()) return Status::Error(where + "." + key + ": " + v.status().message());
    return std::optional<uint64_t>{v.value()};
  }
  return Status::Error(where + "." + key + ": expected a size (integer bytes or \"16G\")");
}

inline Result<std::optional<int64_t>> get_int(const Json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<int64_t>{};
  if (it->is_number_integer()) return std::optional<int64_t>{it->get<int64_t>()};
  if (it->is_number_float()) {
    double d = it->get<double>();
    if (d != static_cast<double>(static_cast<int64_t>(d)))
      return Status::Error(where + "." + key + ": expected an integer");
    return std::optional<int64_t>{static_cast<int64_t>(d)};
  }
  return Status::Error(where + "." + key + ": expected an integer");
}

inline Result<std::optional<std::string>> get_string(const Json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return Status::Error(where + "." + key + ": expected a string");
  return std::optional<std::string>{it->get<std::string>()};
}

}  // namespace ndp::rt::detail
