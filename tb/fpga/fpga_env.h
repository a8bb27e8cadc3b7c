// Verilator environment of fpga/rtl/ndp_fpga_top: tb/device's DeviceEnv (AXI host master, AXI DRAM
// slave with the DDR5 model) driving the wrapper, whose ports are ndp_device's. The host port and
// the DRAM slave run on the bench clock (clk_i, mem_clk_i); the device core runs on core_clk_i at
// another period (DevKnobs::core_half) on its own time line, so every request and answer crosses
// two asynchronous FIFOs each way.
#pragma once

#include <cstdint>
#include <memory>

#include "device_env.h"

namespace ndp::tb {

// Lanes of the bench model (tb/fpga/models.cmake builds it with -GLanes=1).
inline constexpr unsigned kFpgaLanes = 1;

// The wrapper behind a DeviceEnv (k.core_half sets the core clock; 0 = the bench clock's period).
std::unique_ptr<DeviceEnv> make_fpga_env(uint64_t seed, const DevKnobs& k);

}  // namespace ndp::tb
