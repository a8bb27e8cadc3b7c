// read_whole_file (ndp/file.h) and the overflow-checked size arithmetic (ndp/checked.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "ndp/checked.h"
#include "ndp/file.h"

namespace ndp {
namespace {

TEST(ReadWholeFile, ReadsAndNamesThePathOnEveryError) {
  const std::string path = testing::TempDir() + "/ndp_read_whole_file.bin";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("hello", f);
  std::fclose(f);
  std::vector<uint8_t> b;
  ASSERT_TRUE(read_whole_file(path, &b).ok());
  EXPECT_EQ(std::string(b.begin(), b.end()), "hello");
  Status s = read_whole_file(path, &b, 4);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), path + ": 5 bytes, larger than the 4-byte limit");
  std::remove(path.c_str());
  s = read_whole_file(path, &b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind(path + ": cannot open: ", 0), 0u) << s.message();
  s = read_whole_file(testing::TempDir(), &b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
}

TEST(Checked, ProductsAndSums) {
  uint64_t r = 0;
  EXPECT_TRUE(product_ok({65536, 2, 65536, 1u << 24, 64}, &r));
  EXPECT_EQ(r, uint64_t{1} << 63);
  EXPECT_FALSE(product_ok({65536, 2, 65536, 1u << 24, 128}, &r));  // 2^64: the KV trace of issue 15
  EXPECT_TRUE(product_ok({}, &r));
  EXPECT_EQ(r, 1u);
  EXPECT_FALSE(add_ok(UINT64_MAX, 1, &r));
  EXPECT_TRUE(mul_ok(0, UINT64_MAX, &r));
  EXPECT_EQ(r, 0u);
}

}  // namespace
}  // namespace ndp
