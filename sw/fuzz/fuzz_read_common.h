// Shared oracle for the model-reader fuzz targets: a parse either succeeds with a self-consistent
// model, or fails with an error in the "WHAT: offset N: message" form. Anything else aborts, so
// libFuzzer reports it; ASan/UBSan catch out-of-bounds reads and undefined behaviour on the way.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ndp/model_reader.h"

namespace ndp::fuzz {

inline void check_model_result(Result<Model>& r, const char* what) {
  if (!r.ok()) {
    const std::string& m = r.status().message();
    if (m.rfind(std::string(what) + ": offset ", 0) != 0) {
      std::fprintf(stderr, "malformed error message: %s\n", m.c_str());
      std::abort();
    }
    return;
  }
  Model& m = r.value();
  for (const Tensor& t : m.tensors) {
    uint64_t e = 1;
    for (uint64_t d : t.shape) e *= d;
    if (e != t.elements || t.data.size() != dtype_bytes(t.dtype, t.elements)) {
      std::fprintf(stderr, "inconsistent tensor '%s'\n", t.name.c_str());
      std::abort();
    }
  }
  const uint64_t n = model_elements(m);
  convert_model_to_bf16(m);  // exercise the conversion on whatever was accepted
  if (model_elements(m) != n) std::abort();
  for (const Tensor& t : m.tensors)
    if (t.dtype != DType::kBF16 || t.data.size() != 2 * t.elements) std::abort();
}

}  // namespace ndp::fuzz
