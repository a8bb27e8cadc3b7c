// Minimal safetensors writer for `ndp unpack` output (F32/F16/BF16 tensors; others as raw U8/I8).
#pragma once

#include <string>
#include <vector>

#include "ndp/dtype.h"
#include "ndp/status.h"

namespace ndp::cli {

struct OutTensor {
  std::string name;
  DType dtype;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;
};

// Serialize tensors as a safetensors file (8-byte header length, JSON header, data). Data types
// without a safetensors equivalent (fp8, int4) are an error naming the tensor.
Result<std::vector<uint8_t>> to_safetensors(const std::vector<OutTensor>& ts);

}  // namespace ndp::cli
