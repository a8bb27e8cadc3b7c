// Size parsing and the exact splits behind stripes and the planner.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "ndp/runtime/size.h"
#include "ndp/runtime/stripes.h"
#include "ndp/test_seed.h"

using namespace ndp::rt;

TEST(RtSize, ParsesSuffixes) {
  EXPECT_EQ(parse_size("4096").value(), 4096u);
  EXPECT_EQ(parse_size("16K").value(), 16384u);
  EXPECT_EQ(parse_size("1MiB").value(), 1u << 20);
  EXPECT_EQ(parse_size(" 128G ").value(), 128ull << 30);
  EXPECT_EQ(parse_size("2 TB").value(), 2ull << 40);
  EXPECT_EQ(parse_size("7b").value(), 7u);
}

TEST(RtSize, RejectsGarbage) {
  for (const char* s : {"", "G", "-1", "12Q", "1.5G", "99999999999999999999", "17179869184T", "5 GiBs"}) {
    auto r = parse_size(s);
    EXPECT_FALSE(r.ok()) << s;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("size"), std::string::npos) << s;
    }
  }
}

TEST(RtSize, Formats) {
  EXPECT_EQ(format_size(512), "512 B");
  EXPECT_EQ(format_size(16384), "16 KiB");
  EXPECT_EQ(format_size(3ull << 29), "1.50 GiB");
}

TEST(RtSplit, LargestRemainderIsExact) {
  EXPECT_EQ(split_by_weights(10, {1, 1, 1}), (std::vector<uint64_t>{4, 3, 3}));
  EXPECT_EQ(split_by_weights(8192, {1, 3}), (std::vector<uint64_t>{2048, 6144}));
  EXPECT_EQ(split_by_weights(8192, {2, 1}), (std::vector<uint64_t>{5461, 2731}));
  std::mt19937_64 rng(ndp::testing::test_seed(7));
  for (int i = 0; i < 2000; ++i) {
    uint64_t total = rng() % 1000000;
    std::vector<uint64_t> w(1 + rng() % 5);
    for (auto& x : w) x = 1 + rng() % 255;
    auto s = split_by_weights(total, w);
    ASSERT_EQ(std::accumulate(s.begin(), s.end(), uint64_t{0}), total);
    uint64_t W = std::accumulate(w.begin(), w.end(), uint64_t{0});
    for (size_t k = 0; k < w.size(); ++k) {
      uint64_t lo = total * w[k] / W;
      ASSERT_TRUE(s[k] == lo || s[k] == lo + 1) << "share " << k << " of " << total;
    }
  }
}

TEST(RtSplit, ReduceWeights) {
  EXPECT_EQ(reduce_weights({4, 8, 12}), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(reduce_weights({3, 5}), (std::vector<uint64_t>{3, 5}));
}

TEST(RtStripes, RunsHonourQuotasExactly) {
  std::mt19937_64 rng(ndp::testing::test_seed(11));
  for (int i = 0; i < 300; ++i) {
    size_t n = 1 + rng() % 4;
    std::vector<int> nodes(n);
    std::vector<uint64_t> q(n);
    for (size_t k = 0; k < n; ++k) {
      nodes[k] = static_cast<int>(k * 3);
      q[k] = rng() % 3000;
    }
    uint64_t unit = 1 + rng() % 64;
    auto runs = plan_runs(nodes, q, unit);
    auto pages = runs_to_pages(runs);
    ASSERT_EQ(pages.size(), std::accumulate(q.begin(), q.end(), uint64_t{0}));
    uint64_t next = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      ASSERT_EQ(runs[r].first_page, next);
      ASSERT_GT(runs[r].pages, 0u);
      if (r) {
        ASSERT_NE(runs[r].node, runs[r - 1].node) << "adjacent runs must be merged";
      }
      next += runs[r].pages;
    }
    for (size_t k = 0; k < n; ++k)
      ASSERT_EQ(static_cast<uint64_t>(std::count(pages.begin(), pages.end(), nodes[k])), q[k]);
  }
}

TEST(RtStripes, InterleavesInProportion) {
  // 1:3 with one-page stripes: every window of 4 pages holds one page of node 0.
  auto pages = runs_to_pages(plan_runs({0, 1}, {256, 768}, 1));
  for (size_t i = 0; i + 4 <= pages.size(); i += 4)
    EXPECT_EQ(std::count(pages.begin() + static_cast<long>(i), pages.begin() + static_cast<long>(i) + 4, 0), 1) << i;
  // 16-page stripes alternate whole stripes.
  auto runs = plan_runs({0, 1}, {64, 64}, 16);
  ASSERT_EQ(runs.size(), 8u);
  for (const auto& r : runs) EXPECT_EQ(r.pages, 16u);
}
