#include "fse_weights.h"

#include <cmath>
#include <cstring>

#include "bit_writer.h"

namespace ndp::codec_internal {
namespace {

constexpr int kMaxSym = 15;  // Huffman weights are 0..11; room for the table arrays

int highbit(uint32_t v) { return 31 - __builtin_clz(v); }

// Decoding table of RFC 8878: symbol, number of bits and baseline per state.
struct FseTable {
  int size = 0;
  uint8_t sym[64];
  uint8_t nb[64];
  uint16_t base[64];
};

void build_table(const int16_t* norm, int max_sym, int log, FseTable& t) {
  t.size = 1 << log;
  const int mask = t.size - 1, step = (t.size >> 1) + (t.size >> 3) + 3;
  int pos = 0;
  for (int s = 0; s <= max_sym; ++s)
    for (int i = 0; i < norm[s]; ++i) {
      t.sym[pos] = static_cast<uint8_t>(s);
      pos = (pos + step) & mask;
    }
  uint32_t next[kMaxSym + 1];
  for (int s = 0; s <= max_sym; ++s) next[s] = static_cast<uint32_t>(norm[s]);
  for (int u = 0; u < t.size; ++u) {
    const uint32_t ns = next[t.sym[u]]++;
    t.nb[u] = static_cast<uint8_t>(log - highbit(ns));
    t.base[u] = static_cast<uint16_t>((ns << t.nb[u]) - static_cast<uint32_t>(t.size));
  }
}

// The state of symbol s from which a decoder reaches `target` (unique: the ranges of one symbol's
// states partition the table).
int find_state(const FseTable& t, int s, uint32_t target) {
  for (int u = 0; u < t.size; ++u)
    if (t.sym[u] == s && target >= t.base[u] && target < t.base[u] + (1u << t.nb[u])) return u;
  return -1;  // unreachable for a valid table
}

}  // namespace

void fse_normalize(const uint32_t* count, int max_sym, int log, int16_t* norm) {
  int left = 1 << log;
  for (int s = 0; s <= max_sym; ++s) {
    norm[s] = count[s] ? 1 : 0;
    left -= norm[s];
  }
  for (; left > 0; --left) {
    int best = -1;
    double best_gain = -1.0;
    for (int s = 0; s <= max_sym; ++s) {
      if (!count[s]) continue;
      const double gain = count[s] * std::log2((norm[s] + 1.0) / norm[s]);
      if (gain > best_gain) {
        best_gain = gain;
        best = s;
      }
    }
    ++norm[best];
  }
}

void fse_write_ncount(const int16_t* norm, int max_sym, int log, std::vector<uint8_t>& out) {
  BitWriter bw(out);
  bw.add(static_cast<uint32_t>(log - kFseMinLog), 4);
  int remaining = (1 << log) + 1, threshold = 1 << log, nbits = log + 1;
  int sym = 0;
  bool prev0 = false;
  while (sym <= max_sym && remaining > 1) {
    if (prev0) {
      int start = sym;
      while (sym <= max_sym && norm[sym] == 0) ++sym;
      while (sym >= start + 24) {
        start += 24;
        bw.add(0xFFFFu, 16);
      }
      while (sym >= start + 3) {
        start += 3;
        bw.add(3u, 2);
      }
      bw.add(static_cast<uint32_t>(sym - start), 2);
    }
    const int count = norm[sym++];
    const int max = (2 * threshold - 1) - remaining;
    remaining -= count;
    int value = count + 1;
    if (value >= threshold) value += max;
    bw.add(static_cast<uint32_t>(value), nbits - (value < max ? 1 : 0));
    prev0 = value == 1;
    while (remaining < threshold) {
      --nbits;
      threshold >>= 1;
    }
  }
  bw.flush_all();
}

void fse_encode_two_state(const uint8_t* w, size_t n, const int16_t* norm, int max_sym, int log,
                          std::vector<uint8_t>& out) {
  FseTable t;
  build_table(norm, max_sym, log, t);
  // x[i] is the state that decodes w[i]; even symbols use state 1, odd ones state 2, and the
  // decoder moves from x[i] to x[i+2] = base + (nb bits). The last symbol's state is free; the one
  // before must read at least one bit so that the decoder sees the stream overflow there and stops
  // after exactly n symbols.
  std::vector<int> x(n);
  std::vector<uint32_t> bits(n, 0);
  for (int u = 0; u < t.size; ++u)
    if (t.sym[u] == w[n - 1]) {
      x[n - 1] = u;
      break;
    }
  for (int u = 0; u < t.size; ++u)
    if (t.sym[u] == w[n - 2] && t.nb[u] > 0) {
      x[n - 2] = u;
      break;
    }
  for (size_t i = n - 2; i-- > 0;) {
    const uint32_t target = static_cast<uint32_t>(x[i + 2]);
    x[i] = find_state(t, w[i], target);
    bits[i] = target - t.base[x[i]];
  }
  // The decoder reads state 1, state 2, then the transition bits of w[0], w[1], ...; a backward
  // stream is read last-written first, so write in the reverse order.
  BitWriter bw(out);
  for (size_t i = n - 2; i-- > 0;) bw.add(bits[i], t.nb[x[i]]);
  bw.add(static_cast<uint32_t>(x[1]), log);
  bw.add(static_cast<uint32_t>(x[0]), log);
  bw.close_backward();
}

bool fse_compress_weights(const uint8_t* w, size_t n, std::vector<uint8_t>& out) {
  if (n < 3) return false;
  uint32_t count[kMaxSym + 1] = {0};
  int max_sym = 0, distinct = 0;
  for (size_t i = 0; i < n; ++i) {
    if (w[i] > kMaxSym) return false;
    if (count[w[i]]++ == 0) ++distinct;
    if (w[i] > max_sym) max_sym = w[i];
  }
  if (distinct < 2) return false;
  std::vector<uint8_t> best;
  for (int log = kFseMinLog; log <= kFseWeightsMaxLog; ++log) {
    int16_t norm[kMaxSym + 1];
    fse_normalize(count, max_sym, log, norm);
    std::vector<uint8_t> cand;
    fse_write_ncount(norm, max_sym, log, cand);
    fse_encode_two_state(w, n, norm, max_sym, log, cand);
    if (best.empty() || cand.size() < best.size()) best.swap(cand);
  }
  out.insert(out.end(), best.begin(), best.end());
  return true;
}

}  // namespace ndp::codec_internal
