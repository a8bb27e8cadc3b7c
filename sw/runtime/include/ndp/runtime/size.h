// Byte sizes for configs and the CLI: "16K", "1MiB", "128G", "4096" (binary multiples).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ndp/status.h"

namespace ndp::rt {

// Parse a non-negative size; suffixes K/M/G/T with optional "iB"/"B" are powers of 1024.
Result<uint64_t> parse_size(std::string_view text);
// "16 KiB", "1.5 GiB" (exact bytes below 1 KiB).
std::string format_size(uint64_t bytes);
// Round up/down to a multiple of `align` (a power of two).
inline uint64_t align_up(uint64_t v, uint64_t align) { return (v + align - 1) & ~(align - 1); }
inline uint64_t align_down(uint64_t v, uint64_t align) { return v & ~(align - 1); }

}  // namespace ndp::rt
