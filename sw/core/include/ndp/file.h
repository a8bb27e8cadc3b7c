// Whole-file input for the readers. Files are read into memory, never memory-mapped: a mapping of a
// file that another process truncates raises SIGBUS on the next access to the lost pages, which no
// error path can catch (docs/readers.md, "Bounds").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp {

// Read the regular file `path` into *out (its size at open). Errors name the path: "cannot open",
// "not a regular file", "larger than max_bytes", "cannot allocate", a read error with its offset, or a
// file that ended early (it shrank while being read).
Status read_whole_file(const std::string& path, std::vector<uint8_t>* out, uint64_t max_bytes = UINT64_MAX);

// Largest JSON configuration file the tools read (HF config.json, topology overrides, plan
// requests; real ones are a few KiB): the parsed tree costs up to ~8x the text.
constexpr uint64_t kMaxJsonFileBytes = uint64_t{16} << 20;

// A text file as a string, with the errors of read_whole_file.
Result<std::string> read_text_file(const std::string& path, uint64_t max_bytes = kMaxJsonFileBytes);

}  // namespace ndp
