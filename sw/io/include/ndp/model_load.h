// Model loading with the options of `ndp pack PATH [--format F] [--as T] [--group G] [--match REGEX]`,
// shared by the `ndp` CLI and the RTL runner (`ndp-rtl pack`), so both pack the same tensors.
#pragma once

#include <string>

#include "ndp/model_reader.h"
#include "ndp/status.h"

namespace ndp {

struct ModelLoadOptions {
  std::string format = "auto";  // parse_model_format names
  std::string as;               // empty: keep the stored types; else parse_quantize_target names
  std::string group;            // INT group size (1..65536) as given on the command line; empty: default
  std::string match;            // empty: every tensor; else keep names matching this POSIX extended regex
};

// Read `path`, quantize to o.as when set, keep the tensors o.match selects. Errors (bad option
// values, no tensor left) name the option or the file.
Result<Model> load_model(const std::string& path, const ModelLoadOptions& o);

}  // namespace ndp
