// Device error log text.
#include "device_errors.h"

#include <cstdio>

#include "ndp/device_map.h"

namespace ndp::drv {

using namespace ndp::dev;

namespace {
const char* lane_name(uint8_t s) {
  static const char* const kNames[] = {"ok", "header truncated", "unknown codec", "reserved flags",
                                       "undefined plane id", "size rule", "plane id mismatch",
                                       "block id mismatch", "raw size mismatch", "payload truncated",
                                       "codec not supported by the lane", "checksum mismatch", "padding bits set"};
  if (s < sizeof kNames / sizeof kNames[0]) return kNames[s];
  if (s >= static_cast<uint8_t>(LaneStatus::kZstdBase)) return "bad ZSTD payload";
  if (s >= static_cast<uint8_t>(LaneStatus::kLz4Base)) return "bad LZ4 payload";
  return "lane status";
}
}  // namespace

std::string device_error_name(uint8_t code) {
  switch (code) {
    case kErrNone: return "no error";
    case kErrProtocol: return "protocol error";
    case kErrIndex: return "inconsistent plane index";
    case kErrDescRejected: return "descriptor rejected";
    case kErrBlockSpan: return "block size differs from its index span";
    case kErrExpRange: return "exponent byte out of range";
    default: break;
  }
  if (code >= kErrLaneBase) return std::string("block failed its checks: ") + lane_name(code - kErrLaneBase);
  return "error code " + std::to_string(code);
}

std::string describe_device_error(uint64_t err_code, uint64_t err_chunk, uint64_t err_addr, uint64_t image_dram) {
  const uint8_t code = err_code & 0xFF, plane = (err_code >> 8) & 0xFF;
  char b[256];
  std::snprintf(b, sizeof b, "chunk %llu plane 0x%02x: %s (device error code %u), %s at DRAM 0x%llx (image offset %llu)",
                static_cast<unsigned long long>(err_chunk), plane, device_error_name(code).c_str(), code,
                code == kErrIndex ? "index entry" : "block", static_cast<unsigned long long>(err_addr),
                static_cast<unsigned long long>(err_addr - image_dram));
  return b;
}

}  // namespace ndp::drv
