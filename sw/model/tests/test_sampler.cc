// Sampler: run.c's generator sequence, greedy, multinomial frequencies and the top-p nucleus.
#include <gtest/gtest.h>

#include <cmath>

#include "ndp/sampler.h"

namespace {

TEST(Sampler, Xorshift64StarMatchesRunC) {
  // First outputs of run.c random_u32 from state 42 (computed independently with Python integers).
  ndp::Sampler s(4, 1.0f, 0.9f, 42);
  EXPECT_EQ(s.random_u32(), 1456360119u);
  EXPECT_EQ(s.random_u32(), 3359763283u);
  EXPECT_EQ(s.random_u32(), 3393612768u);
  EXPECT_EQ(s.random_u32(), 4054632243u);
  ndp::Sampler f(4, 1.0f, 0.9f, 42);
  EXPECT_FLOAT_EQ(f.random_f32(), static_cast<float>(1456360119u >> 8) / 16777216.0f);
}

TEST(Sampler, TemperatureZeroIsArgmaxAndConsumesNoRandomness) {
  ndp::Sampler s(5, 0.0f, 0.9f, 7);
  ASSERT_TRUE(s.check().ok());
  std::vector<float> l = {0.1f, 3.0f, -2.0f, 2.9f, 0.0f};
  EXPECT_EQ(s.sample(l), 1);
  ndp::Sampler fresh(5, 0.0f, 0.9f, 7);
  EXPECT_EQ(s.random_u32(), fresh.random_u32());
}

TEST(Sampler, MultinomialFrequenciesFollowSoftmax) {
  ndp::Sampler s(3, 1.0f, 1.0f, 12345);  // topp 1: plain multinomial
  const std::vector<float> logits = {0.0f, std::log(2.0f), std::log(7.0f)};  // p = 0.1, 0.2, 0.7
  int count[3] = {0, 0, 0};
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    auto l = logits;
    ++count[s.sample(l)];
  }
  EXPECT_NEAR(count[0] / double(n), 0.1, 0.01);
  EXPECT_NEAR(count[1] / double(n), 0.2, 0.01);
  EXPECT_NEAR(count[2] / double(n), 0.7, 0.01);
}

TEST(Sampler, TopPNeverLeavesTheNucleus) {
  // p = 0.5, 0.3, 0.15, 0.05: with topp 0.7 the nucleus is {0, 1} (0.5 + 0.3 > 0.7).
  ndp::Sampler s(4, 1.0f, 0.7f, 99);
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  int count[4] = {0, 0, 0, 0};
  for (int i = 0; i < 5000; ++i) {
    auto l = logits;
    ++count[s.sample(l)];
  }
  EXPECT_EQ(count[2] + count[3], 0);
  EXPECT_NEAR(count[0] / 5000.0, 0.5 / 0.8, 0.03);
}

TEST(Sampler, RejectsBadSettings) {
  EXPECT_FALSE(ndp::Sampler(4, 1.0f, 0.9f, 0).check().ok());
  EXPECT_FALSE(ndp::Sampler(4, -1.0f, 0.9f, 1).check().ok());
  EXPECT_FALSE(ndp::Sampler(4, 1.0f, 1.5f, 1).check().ok());
  EXPECT_FALSE(ndp::Sampler(0, 1.0f, 0.9f, 1).check().ok());
  EXPECT_TRUE(ndp::Sampler(4, 1.0f, 0.9f, 1).check().ok());
}

}  // namespace
