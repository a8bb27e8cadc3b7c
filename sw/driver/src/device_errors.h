// Text of the device's error log (docs/spec.md 7.4, 7.5): ERR_CODE / ERR_CHUNK / ERR_ADDR as one
// message naming the chunk, the plane, the failed rule and where the block lies.
#pragma once

#include <cstdint>
#include <string>

namespace ndp::drv {

// Name of an ERR_CODE code (bits 7..0): "Index", "BlockSpan", "lane: checksum", ...
std::string device_error_name(uint8_t code);
// "chunk K plane 0xPP: <name> (code C), block at DRAM 0xA (image offset O)"; image_dram is the
// image base the offset is taken from.
std::string describe_device_error(uint64_t err_code, uint64_t err_chunk, uint64_t err_addr, uint64_t image_dram);

}  // namespace ndp::drv
