// The C API (c_api_smoke.c, compiled as C) on the in-process node and a dax file: the bytes it
// reads equal the golden region.
#include <cstdio>

#include "driver_test_util.h"

extern "C" int ndp_driver_c_smoke(const char* uri, const char* path, const char* name, const char* region,
                                  unsigned char* out, size_t cap, size_t* n, char* err, size_t errlen);

namespace ndp::drv::test {
namespace {

TEST(DriverCApi, SmokeEqualsGolden) {
  const std::vector<uint8_t> img = bf16_image();
  char path[] = "/tmp/ndp-c-api-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, img.data(), img.size()), static_cast<ssize_t>(img.size()));
  close(fd);
  auto gold = ImageReader::open_bytes(img);
  ASSERT_TRUE(gold.ok());
  std::vector<uint8_t> want;
  ASSERT_TRUE(gold.value()->read_region(1, parse_region("fp8-e4m3", DType::kBF16, 1).value(), want).ok());
  DaxFile dax;
  for (const std::string& uri : {std::string("emu:inproc"), dax.uri()}) {
    std::vector<uint8_t> out(1 << 20);
    size_t n = 0;
    char err[512] = "";
    EXPECT_EQ(ndp_driver_c_smoke(uri.c_str(), path, "bf16_1", "fp8-e4m3", out.data(), out.size(), &n, err, sizeof err), 0)
        << uri << ": " << err;
    out.resize(n);
    EXPECT_EQ(out, want) << uri;
  }
  unlink(path);
}

}  // namespace
}  // namespace ndp::drv::test
