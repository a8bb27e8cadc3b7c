// Transaction-level model of rtl/lz4/lz4_encoder.sv: the windowed hash match finder, the greedy
// selector with lazy skip, one-byte backward extension and match extension, and the LZ4 sequence
// encoding. Written to mirror the RTL stage by stage; docs/lz4.md describes the algorithm.
#include "ndp/lz4_hw_model.h"

#include <cstring>
#include <string>

#include "ndp/zstd_hw_model.h"

namespace ndp {
namespace {

bool pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// Hash of the hash_bytes (4 or 8) bytes at p: Knuth's multiplicative hash of the little-endian word,
// its top `bits` bits.
uint32_t hash_at(const uint8_t* p, int bits, int hash_bytes) {
  uint64_t v = 0;
  for (int i = 0; i < hash_bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  if (hash_bytes == 8) return static_cast<uint32_t>((v * 0x9E3779B185EBCA87ull) >> (64 - bits));
  return (static_cast<uint32_t>(v) * 2654435761u) >> (32 - bits);
}

// Common prefix of a[0..] and b[0..], at most cap bytes.
uint32_t common(const uint8_t* a, const uint8_t* b, uint32_t cap) {
  uint32_t l = 0;
  while (l < cap && a[l] == b[l]) ++l;
  return l;
}

void put_len(std::vector<uint8_t>& o, uint32_t v) {
  while (v >= 255) {
    o.push_back(255);
    v -= 255;
  }
  o.push_back(static_cast<uint8_t>(v));
}

}  // namespace

Status lz4_hw_check_params(const Lz4HwParams& p) {
  if (!pow2(p.bytes_per_cycle) || p.bytes_per_cycle < 4 || p.bytes_per_cycle > 16)
    return Status::Error("lz4 hw params: bytes_per_cycle must be 4, 8 or 16");
  if (p.hash_bits < 8 || p.hash_bits > 16) return Status::Error("lz4 hw params: hash_bits outside 8..16");
  if (!pow2(p.hash_banks) || p.hash_banks < p.bytes_per_cycle || p.hash_banks > (1 << p.hash_bits))
    return Status::Error("lz4 hw params: hash_banks must be a power of two in [P, 2^hash_bits]");
  if (p.match_bytes < p.bytes_per_cycle || p.match_bytes < 4 || p.match_bytes > 16)
    return Status::Error("lz4 hw params: match_bytes must be in [max(4, P), 16]");
  if (p.hash_bytes != 4 && p.hash_bytes != 8) return Status::Error("lz4 hw params: hash_bytes must be 4 or 8");
  return Status::Ok();
}

Result<std::vector<Lz4HwSeq>> lz4_hw_sequences(const uint8_t* in, size_t n_, const Lz4HwParams& c) {
  NDP_RETURN_IF_ERROR(lz4_hw_check_params(c));
  if (n_ == 0 || n_ > kMaxPlaneBytes)
    return Status::Error("lz4 hw encoder: block of " + std::to_string(n_) + " bytes outside 1..65536");
  const int64_t n = static_cast<int64_t>(n_);
  const int64_t lim = n - 12;   // last position that may start a match
  const int64_t mlim = n - 5;   // a match ends at or before this position
  const int P = c.bytes_per_cycle, D = c.match_bytes;
  std::vector<int32_t> table(size_t{1} << c.hash_bits, -1);  // position, -1 = invalid
  std::vector<Lz4HwSeq> seqs;
  int64_t a = 0, q = 0;  // literal anchor, next position the selector may use

  std::vector<uint32_t> h(P), len(P);
  std::vector<int64_t> cand(P);
  std::vector<char> part(P), served(P);
  for (int64_t w = 0; w < n; w += P) {
    // stage 1-3: hash, bank arbitration, table read/forwarding, compare
    for (int k = 0; k < P; ++k) {
      const int64_t i = w + k;
      part[k] = i <= lim;
      served[k] = 0;
      cand[k] = -1;
      len[k] = 0;
      if (part[k]) h[k] = hash_at(in + i, c.hash_bits, c.hash_bytes);
    }
    for (int k = 0; k < P; ++k) {
      if (!part[k]) continue;
      int first = k;  // lowest position of the window using the same bank
      for (int m = 0; m < k; ++m)
        if (part[m] && (h[m] & (c.hash_banks - 1)) == (h[k] & (c.hash_banks - 1))) {
          first = m;
          break;
        }
      served[k] = h[first] == h[k];
    }
    for (int k = 0; k < P; ++k) {
      if (!served[k]) continue;
      int64_t j = -1;
      for (int m = k - 1; m >= 0; --m)
        if (served[m] && h[m] == h[k]) {
          j = w + m;
          break;
        }
      if (j < 0) j = table[h[k]];
      cand[k] = j;
      if (j >= 0) {
        const int64_t i = w + k;
        const int64_t cap = std::min<int64_t>(D, mlim - i);
        len[k] = common(in + i, in + j, static_cast<uint32_t>(cap));
      }
    }
    for (int k = P - 1; k >= 0; --k) {  // table write: the latest served position of each hash
      if (!served[k]) continue;
      bool later = false;
      for (int m = k + 1; m < P; ++m) later |= served[m] && h[m] == h[k];
      if (!later) table[h[k]] = static_cast<int32_t>(w + k);
    }
    // stage 4: selector
    for (int k = 0; k < P; ++k) {
      const int64_t i = w + k;
      if (i < q || i >= n || len[k] < 4) continue;
      if (c.lazy && k + 1 < P && len[k + 1] > len[k]) continue;
      int64_t m = cand[k];
      int64_t ml = len[k];
      if (ml == D && i + D < mlim) ml += common(in + i + D, in + m + D, static_cast<uint32_t>(mlim - i - D));
      int64_t s = i;
      if (c.back_ext && s > a && m >= 1 && in[s - 1] == in[m - 1]) {
        --s;
        --m;
        ++ml;
      }
      seqs.push_back({static_cast<uint32_t>(a), static_cast<uint32_t>(s - a),
                      static_cast<uint32_t>(s - m), static_cast<uint32_t>(ml)});
      a = q = s + ml;
    }
  }
  seqs.push_back({static_cast<uint32_t>(a), static_cast<uint32_t>(n - a), 0, 0});
  return seqs;
}

Status lz4_hw_compress(const uint8_t* src, size_t n, std::vector<uint8_t>& out, const Lz4HwParams& p) {
  auto r = lz4_hw_sequences(src, n, p);
  if (!r.ok()) return r.status();
  for (const Lz4HwSeq& s : r.value()) {
    const uint32_t lt = s.ll < 15 ? s.ll : 15;
    const uint32_t mt = s.ml == 0 ? 0 : (s.ml - 4 < 15 ? s.ml - 4 : 15);
    out.push_back(static_cast<uint8_t>((lt << 4) | mt));
    if (s.ll >= 15) put_len(out, s.ll - 15);
    out.insert(out.end(), src + s.lit_start, src + s.lit_start + s.ll);
    if (s.ml == 0) break;  // the final sequence
    out.push_back(static_cast<uint8_t>(s.off));
    out.push_back(static_cast<uint8_t>(s.off >> 8));
    if (s.ml - 4 >= 15) put_len(out, s.ml - 19);
  }
  return Status::Ok();
}

Result<BlockInfo> encode_block_hw(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id,
                                  CodecPolicy policy, bool guard, std::vector<uint8_t>& out,
                                  const Lz4HwParams& p) {
  if (policy != CodecPolicy::kLz4 && policy != CodecPolicy::kRaw)
    return Status::Error("hw encode block " + std::to_string(block_id) +
                         ": the LZ4-only lane supports the lz4 and raw policies only");
  LaneHwParams lp;
  lp.lz4 = p;
  return encode_block_lane(plane, n, plane_id, block_id, policy, guard, out, lp);
}

}  // namespace ndp
