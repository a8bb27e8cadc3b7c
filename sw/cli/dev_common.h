// Shared pieces of the `ndp dev` subcommands (cmd_dev*.cc): opening the --backend device, loading
// an image, the regions of a tensor selection, and the one-line JSON summary.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "command.h"
#include "ndp/driver.h"

namespace ndp::cli {

// Device::open(--backend, default "emu") with --dram BYTES for an emu node or dax:numa memory.
Result<std::unique_ptr<drv::Device>> open_backend(const Args& a);
// Tensor indexes: --tensor NAME or every tensor of the image.
Result<std::vector<size_t>> select_tensors(const Args& a, drv::Device& dev, uint32_t image);
// A JSON string literal.
std::string json_str(const std::string& s);
// {"k": v, ...} from preformatted values (strings already quoted with json_str).
std::string json_obj(const std::vector<std::pair<std::string, std::string>>& kv);
std::string json_num(double v);
std::string json_num(uint64_t v);

}  // namespace ndp::cli
