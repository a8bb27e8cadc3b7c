// The C API, driven from a C translation unit (c_api_smoke.c).
#include <gtest/gtest.h>

#include "numa_skip.h"

extern "C" int ndp_c_api_smoke(const char* override_path, char* err, size_t n);

TEST(RtCApi, SmokeFromC) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  char err[512];
  EXPECT_EQ(ndp_c_api_smoke(nullptr, err, sizeof err), 0) << err;
}

TEST(RtCApi, OpenReportsBadOverride) {
  NDP_SKIP_WITHOUT_PLACEMENT();
  char err[512];
  EXPECT_NE(ndp_c_api_smoke("/nonexistent/override.json", err, sizeof err), 0);
  EXPECT_NE(std::string(err).find("/nonexistent/override.json"), std::string::npos) << err;
}
