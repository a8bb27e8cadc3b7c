#include "fpga_env.h"

#include "Vndp_fpga_top.h"
#include "device_bfm.h"

namespace ndp::tb {

std::unique_ptr<DeviceEnv> make_fpga_env(uint64_t seed, const DevKnobs& k) {
  return std::make_unique<DeviceEnv>(
      seed, k, [](DeviceEnv& e, uint64_t s, const DevKnobs& kn) -> std::unique_ptr<DeviceEnv::Impl> {
        return std::make_unique<BfmT<Vndp_fpga_top>>(e, s, kn);
      });
}

}  // namespace ndp::tb
