// Optimal length-limited Huffman code lengths by package-merge (Larmore & Hirschberg).
#include <algorithm>
#include <cstring>
#include <vector>

#include "ndp/huffman_frame.h"

namespace ndp {
namespace {

struct Item {
  uint64_t weight;
  bool leaf;
};

}  // namespace

int huffman_code_lengths(const uint32_t* hist, int max_bits, uint8_t* lengths) {
  std::memset(lengths, 0, 256);
  struct Leaf {
    uint64_t w;
    int sym;
  };
  std::vector<Leaf> leaves;
  for (int s = 0; s < 256; ++s)
    if (hist[s]) leaves.push_back({hist[s], s});
  const size_t n = leaves.size();
  if (n < 2 || max_bits < 1 || max_bits > 30 || (size_t{1} << max_bits) < n) return 0;
  std::stable_sort(leaves.begin(), leaves.end(),
                   [](const Leaf& a, const Leaf& b) { return a.w < b.w; });

  // level[0] is the deepest list (codes of length max_bits); level[d] merges the leaves with the
  // packages (consecutive pairs) of level[d-1]. Both inputs are sorted, so each list is sorted and
  // its packages appear in the order they were formed.
  std::vector<std::vector<Item>> level(static_cast<size_t>(max_bits));
  level[0].reserve(n);
  for (const Leaf& l : leaves) level[0].push_back({l.w, true});
  for (int d = 1; d < max_bits; ++d) {
    const std::vector<Item>& prev = level[static_cast<size_t>(d - 1)];
    std::vector<Item>& cur = level[static_cast<size_t>(d)];
    cur.reserve(n + prev.size() / 2);
    size_t li = 0, pi = 0;
    while (li < n || pi + 1 < prev.size()) {
      const bool take_leaf =
          li < n && (pi + 1 >= prev.size() || leaves[li].w <= prev[pi].weight + prev[pi + 1].weight);
      if (take_leaf) {
        cur.push_back({leaves[li++].w, true});
      } else {
        cur.push_back({prev[pi].weight + prev[pi + 1].weight, false});
        pi += 2;
      }
    }
  }
  // Select the first 2n-2 items of the top list and expand downwards: the selected items of a list
  // are a prefix; its leaves are the lightest leaves (each gains one bit of length) and its k
  // packages are the first 2k items of the list below.
  size_t take = 2 * n - 2;
  std::vector<uint32_t> len(n, 0);
  for (int d = max_bits - 1; d >= 0 && take > 0; --d) {
    const std::vector<Item>& cur = level[static_cast<size_t>(d)];
    size_t nleaf = 0, npkg = 0;
    for (size_t i = 0; i < take && i < cur.size(); ++i) (cur[i].leaf ? nleaf : npkg)++;
    for (size_t i = 0; i < nleaf; ++i) ++len[i];
    take = 2 * npkg;
  }
  int longest = 0;
  for (size_t i = 0; i < n; ++i) {
    lengths[leaves[i].sym] = static_cast<uint8_t>(len[i]);
    longest = std::max(longest, static_cast<int>(len[i]));
  }
  return longest;
}

}  // namespace ndp
