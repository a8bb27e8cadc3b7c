// The emulated CXL node (docs/driver.md, "emu"): a daemon process that owns a device model
// (DeviceModel with its DDR5 DRAM model, driven through PortBackend) and serves several libndp
// client processes at once over a Unix socket, with their data in shared memory. `ndp dev daemon`
// runs one; Device::open("emu") starts one when none listens on the default socket.
#pragma once

#include <functional>
#include <string>

#include "ndp/driver.h"

namespace ndp::drv {

struct EmuNodeOptions {
  std::string socket;         // "@name" (abstract) or a path; empty: the default socket
  OpenOptions device;         // DRAM bytes and chunk buffers of the device model
  bool exit_when_idle = false;  // exit once no client has been connected for idle_seconds
  double idle_seconds = 2.0;
  bool log = false;           // one line per connection on stderr
};

// Serve until SIGINT/SIGTERM, a shutdown request or the idle exit. ready (if given) runs once the
// socket listens. Errors: the socket is taken by a running node ("already listening"), bind fails,
// the device model cannot be created. A client that disconnects loses its images and KV streams;
// a malformed request closes that client's connection only.
Status run_emu_node(const EmuNodeOptions& o, const std::function<void()>& ready = {});

// Ask the node on `socket` (empty: default) to exit. Error if none listens.
Status stop_emu_node(const std::string& socket);

}  // namespace ndp::drv
