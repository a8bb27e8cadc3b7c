#include "ndp/dtype.h"

namespace ndp {
namespace {
constexpr DTypeInfo kInfos[] = {
    {DType::kBF16, "bf16", 16, 8, 7, 127, true},
    {DType::kFP16, "fp16", 16, 5, 10, 15, true},
    {DType::kFP32, "fp32", 32, 8, 23, 127, true},
    {DType::kFP8E4M3, "fp8-e4m3", 8, 4, 3, 7, true},
    {DType::kFP8E5M2, "fp8-e5m2", 8, 5, 2, 15, true},
    {DType::kINT8, "int8", 8, 0, 0, 0, false},
    {DType::kINT4, "int4", 4, 0, 0, 0, false},
};
}  // namespace

const DTypeInfo& dtype_info(DType t) { return kInfos[static_cast<int>(t) - 1]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& i : kInfos)
    if (name == i.name) return i.type;
  return std::nullopt;
}

std::optional<DType> dtype_from_code(uint8_t code) {
  if (code < 1 || code > 7) return std::nullopt;
  return static_cast<DType>(code);
}

}  // namespace ndp
