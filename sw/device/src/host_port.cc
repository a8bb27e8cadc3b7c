// Driver steps over a HostPort (docs/spec.md 7.3, 7.4): register access, descriptor writes, store-window
// writes with byte strobes and the image load sequence.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "ndp/device_map.h"

namespace ndp::dev {
namespace {

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

Status check_csr_offset(uint64_t offset) {
  if (offset % 8 || offset >= kCsrSpace)
    return Status::Error("register offset " + hex(offset) + " is not an 8-byte aligned offset below 0x1000");
  return Status::Ok();
}

}  // namespace

Result<uint64_t> csr_read(HostPort& port, uint64_t offset) {
  NDP_RETURN_IF_ERROR(check_csr_offset(offset));
  uint8_t line[kBeatBytes];
  Status s = port.read(window_address(kWindowControl, offset & ~(kBeatBytes - 1)), kBeatBytes, line, nullptr);
  if (!s.ok()) return s.prepend("register " + hex(offset) + ": ");
  uint64_t v;
  std::memcpy(&v, line + offset % kBeatBytes, 8);
  return v;
}

Status csr_write(HostPort& port, uint64_t offset, uint64_t value) {
  NDP_RETURN_IF_ERROR(check_csr_offset(offset));
  uint8_t line[kBeatBytes] = {0};
  std::memcpy(line + offset % kBeatBytes, &value, 8);
  const uint64_t strobe = uint64_t{0xFF} << (offset % kBeatBytes);
  Status s = port.write(window_address(kWindowControl, offset & ~(kBeatBytes - 1)), line, kBeatBytes, &strobe);
  if (!s.ok()) s.prepend("register " + hex(offset) + ": ");
  return s;
}

namespace {
// One 64-byte table entry (tensor descriptor or KV page descriptor) at control offset `at`.
template <typename D>
Status write_entry(HostPort& port, uint64_t at, const D& d, const std::string& what) {
  uint8_t line[kDescBytes];
  d.encode(line);
  Status s = port.write(window_address(kWindowControl, at), line, kDescBytes);
  if (!s.ok()) s.prepend(what + ": ");
  return s;
}
}  // namespace

Status write_descriptor(HostPort& port, uint32_t t, const Descriptor& d) {
  return write_entry(port, kDescTableBase + kDescBytes * t, d, "descriptor " + std::to_string(t));
}

Status kv_page_write(HostPort& port, uint32_t p, const KvPageDesc& d) {
  return write_entry(port, kKvPageTableBase + kDescBytes * p, d, "KV page " + std::to_string(p));
}

Result<KvPageDesc> kv_page_read(HostPort& port, uint32_t p) {
  uint8_t line[kDescBytes];
  Status s = port.read(window_address(kWindowControl, kKvPageTableBase + kDescBytes * p), kDescBytes, line, nullptr);
  if (!s.ok()) return s.prepend("KV page " + std::to_string(p) + ": ");
  return KvPageDesc::decode(line);
}

Status store_write(HostPort& port, uint64_t dram_addr, const uint8_t* data, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  const uint64_t first = dram_addr & ~(kBeatBytes - 1);
  const uint64_t last = (dram_addr + bytes + kBeatBytes - 1) & ~(kBeatBytes - 1);
  // One buffer of whole lines with per-beat strobes; written in pieces to bound the copy.
  constexpr uint64_t kPiece = uint64_t{1} << 20;
  std::vector<uint8_t> buf;
  std::vector<uint64_t> strobes;
  for (uint64_t at = first; at < last; at += kPiece) {
    const uint64_t end = std::min(last, at + kPiece);
    buf.assign(end - at, 0);
    strobes.assign((end - at) / kBeatBytes, 0);
    for (uint64_t a = std::max(at, dram_addr); a < std::min(end, dram_addr + bytes); ++a) {
      buf[a - at] = data[a - dram_addr];
      strobes[(a - at) / kBeatBytes] |= uint64_t{1} << (a % kBeatBytes);
    }
    Status s = port.write(window_address(kWindowStore, at), buf.data(), buf.size(), strobes.data());
    if (!s.ok()) return s.prepend("store window at DRAM " + hex(at) + ": ");
  }
  return Status::Ok();
}

Status load_image(HostPort& port, const std::vector<uint8_t>& image, uint64_t image_base, MapPlan* plan_out) {
  auto img = ImageReader::open_view(image.data(), image.size());
  if (!img.ok()) return img.status();
  auto plan = plan_map(*img.value(), image_base);
  if (!plan.ok()) return plan.status();
  auto caps = csr_read(port, kCsrCaps);
  if (!caps.ok()) return caps.status();
  if (plan->desc.size() > ((caps.value() >> 8) & 0xFFFF))
    return Status::Error("load_image: " + std::to_string(plan->desc.size()) + " tensors to map, the device holds " +
                         std::to_string((caps.value() >> 8) & 0xFFFF));
  NDP_RETURN_IF_ERROR(store_write(port, image_base, image.data(), image.size()));
  for (size_t t = 0; t < plan->desc.size(); ++t)
    NDP_RETURN_IF_ERROR(write_descriptor(port, static_cast<uint32_t>(t), plan->desc[t]));
  NDP_RETURN_IF_ERROR(csr_write(port, kCsrTensorCount, plan->desc.size()));
  auto status = csr_read(port, kCsrStatus);
  if (!status.ok()) return status.status();
  if (status.value() >> 32)
    return Status::Error("load_image: the device rejected " + std::to_string(status.value() >> 32) + " of " +
                         std::to_string(plan->desc.size()) + " descriptors");
  NDP_RETURN_IF_ERROR(csr_write(port, kCsrCtrl, kCtrlEnable));
  if (plan_out) *plan_out = std::move(plan.value());
  return Status::Ok();
}

}  // namespace ndp::dev
