// Package-merge code lengths and the literals-only Huffman frame, checked against libzstd.
#include <gtest/gtest.h>
#include <zstd.h>

#include <cmath>
#include <functional>
#include <queue>
#include <random>

#include "ndp/huffman_frame.h"
#include "ndp/test_seed.h"

namespace ndp {
namespace {

constexpr uint32_t kSeed = 7781;

uint64_t cost(const uint32_t* h, const uint8_t* len) {
  uint64_t c = 0;
  for (int s = 0; s < 256; ++s) c += uint64_t{h[s]} * len[s];
  return c;
}

// Unlimited Huffman cost (sum of internal node weights) and depth.
uint64_t huffman_cost(const uint32_t* h) {
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> q;
  for (int s = 0; s < 256; ++s)
    if (h[s]) q.push(h[s]);
  uint64_t c = 0;
  while (q.size() > 1) {
    uint64_t a = q.top();
    q.pop();
    uint64_t b = q.top();
    q.pop();
    c += a + b;
    q.push(a + b);
  }
  return c;
}

void expect_complete(const uint8_t* len, int max_bits) {
  uint64_t kraft = 0;
  for (int s = 0; s < 256; ++s) {
    ASSERT_LE(len[s], max_bits);
    if (len[s]) kraft += uint64_t{1} << (max_bits - len[s]);
  }
  EXPECT_EQ(kraft, uint64_t{1} << max_bits);
}

TEST(PackageMerge, OptimalWhenTheLimitDoesNotBind) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed));
  for (int trial = 0; trial < 300; ++trial) {
    uint32_t h[256] = {0};
    const int nsym = 2 + static_cast<int>(rng() % 60);
    for (int i = 0; i < nsym; ++i) h[rng() % 256] += 1 + rng() % 1000;
    uint8_t len[256];
    const int mb = huffman_code_lengths(h, 30, len);
    ASSERT_GT(mb, 0);
    expect_complete(len, mb);
    EXPECT_EQ(cost(h, len), huffman_cost(h)) << trial;
  }
}

TEST(PackageMerge, OptimalUnderTheLimitByExhaustiveSearch) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 1));
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 6), L = 3 + static_cast<int>(rng() % 2);
    if ((1 << L) < n) continue;
    uint32_t h[256] = {0};
    std::vector<uint32_t> f(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) h[i] = f[static_cast<size_t>(i)] = 1 + (rng() % 3 == 0 ? rng() % 5000 : rng() % 7);
    uint8_t len[256];
    ASSERT_GT(huffman_code_lengths(h, L, len), 0);
    // Exhaustive: every length vector in [1, L]^n with Kraft sum <= 1.
    uint64_t best = UINT64_MAX;
    std::vector<int> l(static_cast<size_t>(n), 1);
    for (;;) {
      uint64_t k = 0, c = 0;
      for (int i = 0; i < n; ++i) {
        k += uint64_t{1} << (L - l[static_cast<size_t>(i)]);
        c += uint64_t{f[static_cast<size_t>(i)]} * static_cast<uint64_t>(l[static_cast<size_t>(i)]);
      }
      if (k <= (uint64_t{1} << L)) best = std::min(best, c);
      int i = 0;
      while (i < n && ++l[static_cast<size_t>(i)] > L) l[static_cast<size_t>(i++)] = 1;
      if (i == n) break;
    }
    EXPECT_EQ(cost(h, len), best) << "trial " << trial;
  }
}

TEST(PackageMerge, LimitsFibonacciHistogram) {
  uint32_t h[256] = {0};
  uint32_t a = 1, b = 1;
  for (int s = 0; s < 30; ++s) {
    h[s * 8] = a;
    const uint32_t c = a + b;
    a = b;
    b = c;
  }
  uint8_t len[256];
  EXPECT_EQ(huffman_code_lengths(h, 11, len), 11);
  expect_complete(len, 11);
  EXPECT_GT(cost(h, len), huffman_cost(h));  // the unlimited code is deeper than 11
}

TEST(PackageMerge, DegenerateInputs) {
  uint32_t h[256] = {0};
  uint8_t len[256];
  EXPECT_EQ(huffman_code_lengths(h, 11, len), 0);
  h[9] = 5;
  EXPECT_EQ(huffman_code_lengths(h, 11, len), 0);
  h[255] = 1;
  EXPECT_EQ(huffman_code_lengths(h, 11, len), 1);
  EXPECT_EQ(len[9], 1);
  EXPECT_EQ(len[255], 1);
  for (int s = 0; s < 256; ++s) h[s] = 1;
  EXPECT_EQ(huffman_code_lengths(h, 7, len), 0);  // 256 symbols need 8 bits
  EXPECT_EQ(huffman_code_lengths(h, 8, len), 8);
}

// One random distribution: nsym symbols drawn from [lo, hi], skew in (0, 1] (smaller = flatter).
std::vector<uint8_t> sample(std::mt19937& rng, size_t n, int nsym, int lo, int hi, double skew) {
  std::vector<int> syms;
  while (static_cast<int>(syms.size()) < nsym) {
    const int s = lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
    if (std::find(syms.begin(), syms.end(), s) == syms.end()) syms.push_back(s);
  }
  std::vector<double> w(syms.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::pow(1.0 - skew * 0.9, static_cast<double>(i)) + 1e-4;
  std::discrete_distribution<size_t> d(w.begin(), w.end());
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(syms[d(rng)]);
  // Make sure every chosen symbol appears at least once when there is room.
  for (size_t i = 0; i < syms.size() && i < n; ++i) v[(i * 7919) % n] = static_cast<uint8_t>(syms[i]);
  return v;
}

struct Stats {
  int frames = 0, fse = 0, direct = 0, four = 0, one = 0;
};

void check_frame(const std::vector<uint8_t>& src, Stats& st, const char* what) {
  std::vector<uint8_t> f;
  HuffFrameInfo info;
  if (!write_huffman_frame(src.data(), src.size(), f, &info)) {
    EXPECT_TRUE(f.empty());
    return;
  }
  ASSERT_EQ(info.frame_bytes, f.size());
  EXPECT_EQ(ZSTD_getFrameContentSize(f.data(), f.size()), src.size()) << what;
  EXPECT_EQ(ZSTD_findFrameCompressedSize(f.data(), f.size()), f.size()) << what;
  std::vector<uint8_t> out(src.size() + 1);
  const size_t r = ZSTD_decompress(out.data(), out.size(), f.data(), f.size());
  ASSERT_FALSE(ZSTD_isError(r)) << what << " n=" << src.size() << ": " << ZSTD_getErrorName(r)
                                << (info.fse_tree ? " fse" : " direct") << " streams=" << info.streams;
  ASSERT_EQ(r, src.size()) << what;
  out.resize(r);
  ASSERT_EQ(out, src) << what;
  EXPECT_EQ(info.streams, src.size() >= 1024 ? 4 : 1);
  st.frames++;
  (info.fse_tree ? st.fse : st.direct)++;
  (info.streams == 4 ? st.four : st.one)++;
}

TEST(HuffmanFrame, LibzstdDecodesRandomDistributions) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 2));
  Stats st;
  const size_t sizes[] = {1, 2, 3, 5, 17, 100, 255, 256, 257, 600, 1000, 1023, 1024, 1025, 2049,
                          4096, 16383, 16384, 16385, 32768, 65535, 65536};
  for (size_t n : sizes)
    for (int trial = 0; trial < 12; ++trial) {
      const bool high = trial % 2 == 0;  // symbols up to 255 (FSE tree) or up to 128 (direct)
      const int nsym = 2 + static_cast<int>(rng() % (high ? 255 : 100));
      const int lo = high ? 0 : static_cast<int>(rng() % 28);
      const int hi = high ? 255 : std::min(128, lo + nsym + static_cast<int>(rng() % 64));
      auto v = sample(rng, n, std::min(nsym, hi - lo + 1), lo, hi, (1 + rng() % 100) / 100.0);
      if (trial % 4 == 1 && n > 1) v[n / 2] = 255;  // symbol 255 present
      check_frame(v, st, "random");
    }
  for (int trial = 0; trial < 300; ++trial) {  // random sizes
    const size_t n = 1 + rng() % 65536;
    const int nsym = 2 + static_cast<int>(rng() % 255);
    auto v = sample(rng, n, nsym, 0, 255, (1 + rng() % 100) / 100.0);
    check_frame(v, st, "random size");
  }
  std::printf("frames %d: direct tree %d, FSE tree %d, 1 stream %d, 4 streams %d\n", st.frames,
              st.direct, st.fse, st.one, st.four);
  EXPECT_GT(st.fse, 50);
  EXPECT_GT(st.direct, 40);
  EXPECT_GT(st.one, 20);
  EXPECT_GT(st.four, 50);
}

TEST(HuffmanFrame, EveryAlphabetSizeWithSymbol255) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 3));
  Stats st;
  for (int nsym = 2; nsym <= 256; ++nsym) {
    // Symbols 256-nsym .. 255, so 255 is present and the FSE tree is used when nsym < 128.
    std::vector<uint8_t> v(4096 + static_cast<size_t>(nsym) * 13);
    std::geometric_distribution<int> g(0.08);
    for (auto& b : v) b = static_cast<uint8_t>(255 - std::min(nsym - 1, g(rng)));
    for (int s = 0; s < nsym; ++s) v[static_cast<size_t>(s) * 11] = static_cast<uint8_t>(255 - s);
    check_frame(v, st, "alphabet high");
    for (auto& b : v) b = static_cast<uint8_t>(255 - b);  // symbols 0 .. nsym-1: direct when <= 129
    check_frame(v, st, "alphabet low");
  }
  EXPECT_GE(st.frames, 480);
}

TEST(HuffmanFrame, SingleSymbolAndTinyInputs) {
  std::vector<uint8_t> f;
  std::vector<uint8_t> one(1000, 77);
  EXPECT_FALSE(write_huffman_frame(one.data(), one.size(), f));  // CONST territory
  EXPECT_FALSE(write_huffman_frame(one.data(), 0, f));
  EXPECT_TRUE(f.empty());
  std::vector<uint8_t> two = {1, 2};
  EXPECT_FALSE(write_huffman_frame(two.data(), two.size(), f));  // block would exceed content
}

TEST(HuffmanFrame, SizeIsTheOptimalCodePlusSmallOverhead) {
  std::mt19937 rng(ndp::testing::test_seed(kSeed + 4));
  for (double p : {0.2, 0.4, 0.6}) {
    std::geometric_distribution<int> g(p);
    std::vector<uint8_t> v(32768);
    for (auto& b : v) b = static_cast<uint8_t>(std::max(0, 125 - g(rng)));
    uint32_t h[256] = {0};
    for (uint8_t b : v) h[b]++;
    double bits = 0;
    for (uint32_t c : h)
      if (c) bits -= c * std::log2(static_cast<double>(c) / static_cast<double>(v.size()));
    uint8_t len[256];
    ASSERT_GT(huffman_code_lengths(h, kHuffMaxBits, len), 0);
    const double code_bytes = static_cast<double>(cost(h, len)) / 8;
    std::vector<uint8_t> f;
    HuffFrameInfo info;
    ASSERT_TRUE(write_huffman_frame(v.data(), v.size(), f, &info));
    // Overhead: frame header 7, block header 3, literals header 4, tree, jump table 6, 4 stream
    // end marks (<= 4 bytes), sequences header 1.
    const double overhead = static_cast<double>(f.size()) - code_bytes;
    std::printf("p=%.1f: entropy %.0f B, optimal 11-bit Huffman code %.0f B, frame %zu B (tree %zu B)\n", p,
                bits / 8, code_bytes, f.size(), info.tree_bytes);
    EXPECT_LE(overhead, 7 + 3 + 4 + static_cast<double>(info.tree_bytes) + 6 + 4 + 1);
    EXPECT_GE(overhead, 0);
    EXPECT_GE(code_bytes, bits / 8 - 1e-6);  // no prefix code beats the entropy
    // At least as small as libzstd's level-3 frame on literal-like data.
    std::vector<uint8_t> z(ZSTD_compressBound(v.size()));
    const size_t zs = ZSTD_compress(z.data(), z.size(), v.data(), v.size(), 3);
    EXPECT_LE(f.size(), zs);
  }
}

}  // namespace
}  // namespace ndp
