// The rtl backend (docs/driver.md, "rtl"): the same driver steps (PortBackend) over the AXI host
// port of the Verilator-built ndp_device, through tb/device's DeviceEnv (a HostPort with an AXI
// master and an AXI DRAM slave). Built only with NDP_BUILD_RTL=ON, as the object library
// ndp_driver_rtl (sw/driver/CMakeLists.txt), which registers the scheme "rtl" when linked.
//   rtl         the 4-lane model of the build
//   rtl:N       the N-lane model (a build holds the lane counts of NDP_DEVICE_LANES)
// The bench model has 64 MiB of DRAM and 64 descriptors: small images only.
#include <cstdlib>

#include "device_env.h"
#include "ndp/driver_backend.h"
#include "ndp/port_backend.h"

namespace ndp::drv {
namespace {

Result<std::unique_ptr<Backend>> make_rtl_backend(const std::string& arg, const OpenOptions&) {
  char* end = nullptr;
  const long lanes = arg.empty() ? 4 : std::strtol(arg.c_str(), &end, 10);
  if (!arg.empty() && (*end != '\0' || lanes <= 0)) return Status::Error("rtl:" + arg + ": expected rtl or rtl:LANES");
  if (!tb::DeviceEnv::has_lanes(static_cast<unsigned>(lanes)))
    return Status::Error("rtl: no ndp_device model with " + std::to_string(lanes) +
                         " lanes in this build (configure NDP_DEVICE_LANES)");
  auto env = std::make_unique<tb::DeviceEnv>(/*seed=*/1, tb::DevKnobs{}, static_cast<unsigned>(lanes));
  auto b = PortBackend::attach(std::move(env), arg.empty() ? "rtl" : "rtl:" + arg);
  if (!b.ok()) return b.status();
  return std::unique_ptr<Backend>(std::move(b.value()));
}

const BackendRegistrar kRegisterRtl("rtl", make_rtl_backend,
                                    "rtl[:LANES]           Verilator co-simulation of ndp_device (NDP_BUILD_RTL builds)");

}  // namespace
}  // namespace ndp::drv
