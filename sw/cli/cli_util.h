// Shared helpers for subcommands: model loading with --format/--as, file output.
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "ndp/model_reader.h"
#include "ndp/status.h"

namespace ndp::cli {

// Load PATH (positional 0) honouring --format, --as bf16 and --match REGEX (keep only tensors whose
// name matches the POSIX extended regular expression). Errors name the file.
Result<Model> load_model_arg(const Args& a);
// Write bytes to path; error message names the path.
Status write_file(const std::string& path, const std::vector<uint8_t>& bytes);
Result<std::vector<uint8_t>> read_file(const std::string& path);

}  // namespace ndp::cli
