// Exact splits and stripe layouts.
#include "ndp/runtime/stripes.h"

#include <algorithm>
#include <numeric>

namespace ndp::rt {

std::vector<uint64_t> split_by_weights(uint64_t total, const std::vector<uint64_t>& weights) {
  std::vector<uint64_t> out(weights.size(), 0);
  unsigned __int128 wsum = 0;
  for (uint64_t w : weights) wsum += w;
  if (weights.empty() || wsum == 0) return out;
  std::vector<std::pair<unsigned __int128, size_t>> rem;
  uint64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    unsigned __int128 num = static_cast<unsigned __int128>(total) * weights[i];
    out[i] = static_cast<uint64_t>(num / wsum);
    given += out[i];
    rem.push_back({num % wsum, i});
  }
  // Largest remainder first; ties go to the lower index so results are deterministic.
  std::stable_sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total; ++k, ++given) ++out[rem[k % rem.size()].second];
  return out;
}

std::vector<uint64_t> reduce_weights(const std::vector<uint64_t>& w) {
  uint64_t g = 0;
  for (uint64_t v : w) g = std::gcd(g, v);
  std::vector<uint64_t> r = w;
  if (g > 1)
    for (auto& v : r) v /= g;
  return r;
}

std::vector<Run> plan_runs(const std::vector<int>& nodes, const std::vector<uint64_t>& quota, uint64_t unit_pages) {
  std::vector<Run> runs;
  if (unit_pages == 0) unit_pages = 1;
  std::vector<uint64_t> left = quota;
  std::vector<__int128> cur(quota.size(), 0);
  uint64_t page = 0;
  for (;;) {
    __int128 active = 0;
    for (size_t i = 0; i < left.size(); ++i)
      if (left[i] > 0) active += static_cast<__int128>(quota[i]);
    if (active == 0) break;
    size_t pick = left.size();
    for (size_t i = 0; i < left.size(); ++i) {
      if (left[i] == 0) continue;
      cur[i] += static_cast<__int128>(quota[i]);
      if (pick == left.size() || cur[i] > cur[pick]) pick = i;
    }
    cur[pick] -= active;
    uint64_t n = std::min(unit_pages, left[pick]);
    left[pick] -= n;
    if (!runs.empty() && runs.back().node == nodes[pick])
      runs.back().pages += n;
    else
      runs.push_back({page, n, nodes[pick]});
    page += n;
  }
  return runs;
}

std::vector<int> runs_to_pages(const std::vector<Run>& runs) {
  std::vector<int> out;
  for (const auto& r : runs) out.insert(out.end(), r.pages, r.node);
  return out;
}

}  // namespace ndp::rt
