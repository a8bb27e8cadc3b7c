// A small strict JSON parser for the safetensors header: objects, arrays, strings (all escapes,
// surrogate pairs, UTF-8 validated), integers (no fractions or exponents), true/false/null.
// Rejects duplicate object keys, leading zeros, control characters in strings, nesting deeper
// than kJsonMaxDepth, more values than JsonLimits allows and trailing non-whitespace. Every value remembers its byte position so that
// callers can report "offset N" in terms of the enclosing file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ndp/status.h"

namespace ndp::io {

struct JsonValue {
  enum class Kind { kNull, kBool, kInt, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;
  std::string s;
  std::vector<JsonValue> arr;
  std::vector<std::string> keys;  // object keys in document order, unique
  std::vector<JsonValue> vals;    // object values, vals[i] belongs to keys[i]
  uint64_t pos = 0;                                     // byte position of the value in the text
};

const char* json_kind_name(JsonValue::Kind k);

constexpr int kJsonMaxDepth = 64;

// What one parse may build: values counts every scalar, array and object (a JsonValue costs about
// 128 bytes plus its strings, so a tree is bounded by ~128 x max_values bytes whatever the text).
struct JsonLimits {
  uint64_t max_values = UINT64_MAX;
};

// Parse `text[0, n)` as one JSON value followed only by whitespace. Errors are
// "WHAT: offset (base + pos): message".
Result<JsonValue> parse_json(const char* text, size_t n, const std::string& what, uint64_t base,
                             const JsonLimits& limits = {});

// Parse `text[0, n)` as one JSON object, member by member: each member's value is parsed as its own
// tree under `member_limits` (the budget restarts for every member) and handed to fn(key, value)
// before the next is read, so memory is bounded by the largest member plus what fn keeps, not by
// the document. Keys must be unique. fn's error stops the parse and is returned as is.
Status parse_json_object(const char* text, size_t n, const std::string& what, uint64_t base,
                         const JsonLimits& member_limits,
                         const std::function<Status(std::string& key, JsonValue& value)>& fn);

}  // namespace ndp::io
