// fpga/rtl/ndp_fpga_top in simulation: ndp_device behind its two AXI clock crossings, the DRAM
// port timed by the DDR5-4800 model, the core clock on its own time line at a period that is not a
// multiple of the host clock's (faster and slower than it). Real stories260K tensors are loaded
// through the store window with the driver's load_image and read back through region windows;
// every beat is compared with ImageReader::read_region (`ndp read`) and with DeviceModel, and so
// are the error log, STATUS and the counters. Error answers cross the clocks too: DECERR past the
// last tensor's region (a burst that straddles the end: OKAY then DECERR beats), in an undefined
// window and past DRAM (read and write), SLVERR for a WRAP burst.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "device_mirror.h"
#include "fpga_env.h"
#include "tb_rng.h"

namespace ndp::tb {
namespace {

// Host and DRAM port at 400 MHz (the DDR5 model's clock); core_half in units of clk_i's half
// period / 8: 5 = a core clock 1.6 x the host clock, 13 = 0.62 x.
DevKnobs knobs(unsigned core_half) {
  DevKnobs k;
  k.host_gaps = 0.1;
  k.host_bp = 0.2;
  k.ddr5 = true;
  k.clock_ps = 2500;
  k.core_half = core_half;
  return k;
}

class FpgaTop : public testing::TestWithParam<unsigned> {};

TEST_P(FpgaTop, Stories260KRegionsAcrossClockDomains) {
  Rng rng(test_seed() + GetParam());
  Mirror mr(make_fpga_env(rng.u64(), knobs(GetParam())), kFpgaLanes);
  mr.csr(dev::kCsrCaps);  // RTL against the model: the lane count of the bench model
  Loaded L;
  if (!load_stories(mr, 2048, 3, &L)) GTEST_SKIP() << "stories260K not found";
  uint64_t beats = 0;
  for (int g = 0; g <= 2; ++g) {
    const std::vector<Region> rs = all_regions(DType::kBF16, g);
    for (int i = 0; i < 3; ++i) {  // three regions per guard count, seeded
      const Region& r = rs[rng.range(0, rs.size() - 1)];
      beats += read_region(mr, L, rng.range(0, L.plan.desc.size() - 1), r, 4);
      if (testing::Test::HasFailure()) return;
    }
  }
  mr.check_registers();
  EXPECT_GT(beats, 0u);
  std::printf("core_half %u: %llu region beats compared with ndp read and the model, %llu host cycles\n",
              GetParam(), (unsigned long long)beats, (unsigned long long)mr.env.cycle());
}

TEST_P(FpgaTop, ErrorAnswersCrossTheClocks) {
  Rng rng(test_seed() + GetParam());
  Mirror mr(make_fpga_env(rng.u64(), knobs(GetParam())), kFpgaLanes);
  Loaded L;
  if (!load_stories(mr, 2048, 2, &L)) GTEST_SKIP() << "stories260K not found";
  const size_t t = L.plan.desc.size() - 1;  // the last tensor: nothing is mapped after it
  // a region whose end is not within two beats of a 4 KiB boundary, so that a 4-beat burst over
  // the end neither crosses 4 KiB nor misses the end
  Region reg_end{};
  uint64_t end = 0;
  for (const Region& r : all_regions(DType::kBF16, 0)) {
    end = (region_output_bytes(r, DType::kBF16, L.plan.desc[t].elems) + 63) / 64 * 64;
    reg_end = r;
    if (end % 4096 >= 128 && end % 4096 <= 4096 - 128) break;
  }
  ASSERT_TRUE(end % 4096 >= 128 && end % 4096 <= 4096 - 128) << "no region end away from 4 KiB";
  const uint64_t top = uint64_t{1} << DeviceEnv::kDramAw;
  mr.read(region_addr(reg_end, L.plan.desc[t].base, end - 128), 4, 1);         // 2 OKAY, 2 DECERR beats
  mr.read(region_addr(reg_end, L.plan.desc[t].base, end + (1u << 20)), 2, 2);  // outside every region
  mr.read(dev::window_address(0x05, 0), 1, 3);                              // undefined window
  mr.read(dev::window_address(1, top), 2, 4);                               // store window past DRAM
  mr.read(dev::window_address(1, 0x3000), 4, 5, 6, 2);                      // WRAP: SLVERR
  mr.write(dev::window_address(1, top), std::vector<uint8_t>(128, 7));      // BRESP DECERR
  EXPECT_GT(mr.check(), 0u);
  // the claim itself, not only agreement with the model: the answers are DECERR/SLVERR
  const auto& rs = mr.last_resps();
  ASSERT_EQ(rs.size(), 5u);
  EXPECT_EQ(rs[0], (std::vector<uint8_t>{0, 0, 3, 3}));
  EXPECT_EQ(rs[1], (std::vector<uint8_t>{3, 3}));
  EXPECT_EQ(rs[2], (std::vector<uint8_t>{3}));
  EXPECT_EQ(rs[3], (std::vector<uint8_t>{3, 3}));
  EXPECT_EQ(rs[4], (std::vector<uint8_t>{2, 2, 2, 2}));
  // and the device still serves: the region before the end is exact
  EXPECT_GT(read_region(mr, L, t, reg_end, 2), 0u);
  mr.check_registers();
  EXPECT_GE(mr.csr(dev::kCsrCntDecErr), 7u) << "DECERR read beats";
}

INSTANTIATE_TEST_SUITE_P(CoreClock, FpgaTop, testing::Values(5u, 13u),
                         [](const testing::TestParamInfo<unsigned>& i) {
                           return i.param < 8 ? std::string("CoreFaster") : std::string("CoreSlower");
                         });

}  // namespace
}  // namespace ndp::tb
