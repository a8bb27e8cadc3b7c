// Element types of docs/spec.md section 1 and their field geometry.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ndp {

enum class DType : uint8_t {
  kBF16 = 1,
  kFP16 = 2,
  kFP32 = 3,
  kFP8E4M3 = 4,
  kFP8E5M2 = 5,
  kINT8 = 6,
  kINT4 = 7,
};

struct DTypeInfo {
  DType type;
  const char* name;  // spec name: "bf16", "fp16", ...
  int bits;          // element width in bits
  int exp_bits;      // 0 for integer types
  int man_bits;      // 0 for integer types
  int bias;          // exponent bias (0 for integers)
  bool is_float;
};

// Geometry of a dtype. Always valid for the enumerators above.
const DTypeInfo& dtype_info(DType t);
// Parse a spec name ("bf16", "fp8-e4m3", ...). nullopt if unknown.
std::optional<DType> dtype_from_name(std::string_view name);
// Parse a stored dtype code; nullopt if not a known code.
std::optional<DType> dtype_from_code(uint8_t code);

// Bytes needed to store n elements of t (int4 packs two per byte).
inline uint64_t dtype_bytes(DType t, uint64_t n) {
  return t == DType::kINT4 ? (n + 1) / 2 : n * (dtype_info(t).bits / 8);
}

}  // namespace ndp
