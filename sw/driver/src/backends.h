// The built-in backends of libndp (registered by registry.cc).
#pragma once

#include <memory>
#include <string>

#include "ndp/driver_backend.h"

namespace ndp::drv {

// "dax:PATH" (devdax device or file), "dax:numa:N" (memory of NUMA node N via sw/runtime).
Result<std::unique_ptr<Backend>> make_dax_backend(const std::string& arg, const OpenOptions& o);
// "emu" (default node socket, started on demand), "emu:inproc", "emu:SOCKET" (path or @abstract).
Result<std::unique_ptr<Backend>> make_emu_backend(const std::string& arg, const OpenOptions& o);

}  // namespace ndp::drv
