// Small readers for sysfs/procfs text files (internal to ndp_runtime).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp::rt::detail {

// Whole file as text; error names the path and errno text.
Result<std::string> read_text(const std::string& path);
// First line parsed as an unsigned integer; nullopt if missing or malformed.
std::optional<uint64_t> read_u64(const std::string& path);
// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; error on malformed text.
// Largest CPU id a cpu list may name (Linux's NR_CPUS is at most 8192): bounds every list to
// kMaxCpuId + 1 entries, however its ranges are written ("0-65535,0-65535,..." repeats are errors).
inline constexpr int kMaxCpuId = 65535;
Result<std::vector<int>> parse_cpulist(const std::string& text);
// Value in kB of `key` in a node meminfo file ("Node 0 MemFree:  1234 kB"), in bytes.
std::optional<uint64_t> meminfo_bytes(const std::string& text, const std::string& key);
// Sorted numeric suffixes of entries "<prefix>N" in a directory (e.g. node0, node1).
std::vector<int> list_numbered(const std::string& dir, const std::string& prefix);
bool path_exists(const std::string& path);

}  // namespace ndp::rt::detail
