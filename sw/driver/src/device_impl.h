// Device internals shared by device.cc and mapping.cc.
#pragma once

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "ndp/driver.h"
#include "ndp/driver_backend.h"

namespace ndp::drv {

struct Device::Impl {
  std::unique_ptr<Backend> be;
  OpenOptions opts;
  mutable std::mutex mu;  // images, mapped, totals
  std::map<uint32_t, std::vector<TensorInfo>> images;
  std::multiset<uint32_t> mapped;  // images with live mappings
  DeviceStats totals;

  // Error unless the image and tensor exist, the dtype exposes r and [offset, +bytes) lies in the
  // region bytes; `what` starts the message.
  Status validate_range(uint32_t image, size_t tensor, const Region& r, uint64_t offset, uint64_t bytes,
                        const char* what);
  Status checked_read(uint32_t image, size_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
                      CallStats* st, bool fault);
  void account(const CallStats& cs, bool ok, bool fault);
  void count_fault();
};

}  // namespace ndp::drv
