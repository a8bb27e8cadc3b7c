// CUDA host registration through a dlopen'ed libcudart.
#include "ndp/runtime/gpu.h"

#include <dlfcn.h>

#include <mutex>

namespace ndp::rt {

namespace {

using GetCount = int (*)(int*);
using HostRegister = int (*)(void*, size_t, unsigned);
using HostUnregister = int (*)(void*);
using ErrString = const char* (*)(int);

struct Cuda {
  CudaInfo info;
  GetCount count = nullptr;
  HostRegister reg = nullptr;
  HostUnregister unreg = nullptr;
  ErrString err = nullptr;
};

Cuda load() {
  Cuda c;
  const char* names[] = {"libcudart.so", "libcudart.so.12", "libcudart.so.11.0"};
  void* h = nullptr;
  for (const char* n : names) {
    h = dlopen(n, RTLD_NOW | RTLD_LOCAL);
    if (h) {
      c.info.library = n;
      break;
    }
  }
  if (!h) {
    c.info.detail = "no CUDA runtime (dlopen libcudart.so, .so.12, .so.11.0 failed)";
    return c;
  }
  c.count = reinterpret_cast<GetCount>(dlsym(h, "cudaGetDeviceCount"));
  c.reg = reinterpret_cast<HostRegister>(dlsym(h, "cudaHostRegister"));
  c.unreg = reinterpret_cast<HostUnregister>(dlsym(h, "cudaHostUnregister"));
  c.err = reinterpret_cast<ErrString>(dlsym(h, "cudaGetErrorString"));
  if (!c.count || !c.reg || !c.unreg || !c.err) {
    c.info.detail = c.info.library + " lacks cudaHostRegister/cudaGetDeviceCount";
    return c;
  }
  c.info.runtime = true;
  int n = 0;
  int rc = c.count(&n);
  if (rc != 0) {
    c.info.detail = std::string("cudaGetDeviceCount: ") + c.err(rc);
    return c;
  }
  c.info.devices = n;
  if (n == 0) c.info.detail = "CUDA runtime present but no GPU";
  return c;
}

const Cuda& cuda() {
  static const Cuda c = load();
  return c;
}

}  // namespace

const CudaInfo& probe_cuda() { return cuda().info; }

Status register_for_gpu(Allocation& a) {
  const Cuda& c = cuda();
  if (!a.data()) return Status::Error("register_for_gpu: allocation is empty");
  if (!c.info.usable())
    return Status::Error("GPU registration not available: " + c.info.detail +
                         "; the allocation stays usable from the CPU");
  constexpr unsigned kPortable = 1;  // cudaHostRegisterPortable
  int rc = c.reg(a.data(), a.size(), kPortable);
  if (rc != 0) return Status::Error(std::string("cudaHostRegister(") + std::to_string(a.size()) + " bytes): " + c.err(rc));
  HostUnregister unreg = c.unreg;
  a.add_release_hook([unreg](void* p, uint64_t) { unreg(p); });
  return Status::Ok();
}

}  // namespace ndp::rt
