// Registering host allocations for GPU DMA (cudaHostRegister), found at run time with dlopen so
// that the runtime builds and runs without CUDA. Without a CUDA runtime or a GPU every call
// returns a clear "not available" status and the CPU path is unaffected.
#pragma once

#include <string>

#include "ndp/runtime/runtime.h"

namespace ndp::rt {

struct CudaInfo {
  bool runtime = false;  // libcudart found and its entry points resolved
  int devices = 0;       // cudaGetDeviceCount
  std::string library;   // which libcudart was loaded
  std::string detail;    // why not available, when not
  bool usable() const { return runtime && devices > 0; }
};

// Probed once per process.
const CudaInfo& probe_cuda();

// cudaHostRegister(data, size, portable) on the allocation; the matching cudaHostUnregister runs
// when the allocation is freed. Errors: CUDA not available (names why), registration failure.
Status register_for_gpu(Allocation& a);

}  // namespace ndp::rt
