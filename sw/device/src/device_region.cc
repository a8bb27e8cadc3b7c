// DeviceModel region reads (docs/spec.md 7.2, 7.3, 7.5): tensor lookup by base, the chunks a beat
// needs, the chunk buffer (LRU over (window, tensor, chunk)), and a chunk decode: index entry fetch
// and checks, the region's plane blocks only, golden block decode, unpack and region assembly.
#include <algorithm>
#include <cstring>
#include <string>

#include "device_impl.h"

namespace ndp::dev {
namespace {

uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace

Resp DeviceModel::Impl::read_region(uint8_t window, uint64_t offset, uint8_t* out) {
  if (!enable) return Resp::kSlvErr;  // not logged (7.5)
  auto it = std::upper_bound(map.begin(), map.end(), offset,
                             [](uint64_t o, const MappedTensor& m) { return o < m.d.base; });
  if (it == map.begin()) return Resp::kDecErr;
  const MappedTensor& m = *(it - 1);
  auto r = decode_region_window(window, m.dtype);
  if (!r.ok()) return Resp::kDecErr;
  const uint64_t total = region_output_bytes(r.value(), m.dtype, m.d.elems);
  const uint64_t b0 = offset - m.d.base;
  if (b0 >= total) return Resp::kDecErr;
  const uint64_t b1 = std::min(b0 + kBeatBytes, total);
  const uint64_t cb = region_output_bytes(r.value(), m.dtype, m.d.chunk_elems);  // bytes per full chunk
  bool decoded_any = false, failed = false;
  for (uint64_t k = b0 / cb; k <= (b1 - 1) / cb; ++k) {
    bool decoded = false;
    const std::vector<uint8_t>* bytes = chunk_bytes(window, m, r.value(), k, b0 == 0, &decoded);
    decoded_any = decoded_any || decoded;
    if (!bytes) {
      failed = true;
      continue;
    }
    const uint64_t c0 = k * cb, lo = std::max(b0, c0), hi = std::min(b1, c0 + bytes->size());
    if (lo < hi) std::memcpy(out + (lo - b0), bytes->data() + (lo - c0), hi - lo);
  }
  if (!decoded_any) cnt[kChunkHits]++;
  if (failed) {
    std::memset(out, 0, kBeatBytes);
    return Resp::kSlvErr;
  }
  return Resp::kOkay;
}

const std::vector<uint8_t>* DeviceModel::Impl::chunk_bytes(uint8_t window, const MappedTensor& m, const Region& r,
                                                           uint64_t k, bool first, bool* decoded) {
  const uint8_t tw = (window & 0x1F) == kFormatFull ? region_window(kFormatFull, 0) : window;
  if (cur.valid && cache[cur.entry].is(tw, m.number, k)) return &cache[cur.entry].bytes;  // no lookup
  int hit = find_entry(tw, m.number, k);
  size_t e = hit >= 0 ? static_cast<size_t>(hit) : victim();
  bool ok = true;
  if (hit >= 0 && !cache[e].failed) {
    cache[e].stamp = ++stamp;
  } else {  // a miss, or a failed prefetch decoded again in its entry
    *decoded = true;
    ok = fill_entry(e, tw, m, r, k, /*log=*/true);
  }
  // The RTL learns of a failed demand decode when it ends, after the prefetch step: the entry stays
  // tagged (and most recently used) until then.
  prefetch_after(tw, m, r, k, first);
  if (!ok) {
    cache[e].valid = false;
    cur.valid = false;
    return nullptr;
  }
  cur = {true, e};
  return &cache[e].bytes;
}

int DeviceModel::Impl::find_entry(uint8_t window, uint32_t tensor, uint64_t k) const {
  for (size_t i = 0; i < cache.size(); ++i)
    if (cache[i].is(window, tensor, k)) return static_cast<int>(i);
  return -1;
}

size_t DeviceModel::Impl::victim() const {
  size_t lru = 0;
  for (size_t i = 0; i < cache.size(); ++i) {
    if (!cache[i].valid) return i;
    if (cache[i].stamp < cache[lru].stamp) lru = i;
  }
  return lru;
}

bool DeviceModel::Impl::fill_entry(size_t e, uint8_t window, const MappedTensor& m, const Region& r, uint64_t k,
                                   bool log) {
  ChunkEntry& c = cache[e];
  c.valid = true;
  c.failed = false;
  c.window = window;
  c.tensor = m.number;
  c.chunk = k;
  c.stamp = ++stamp;
  c.bytes.clear();
  return decode_chunk(m, r, k, c.bytes, log);
}

void DeviceModel::Impl::prefetch_after(uint8_t window, const MappedTensor& m, const Region& r, uint64_t k,
                                       bool first) {
  if (prefetch == 0 || !(first || (k > 0 && find_entry(window, m.number, k - 1) >= 0))) return;
  // The next d chunks in read order: the rest of this tensor, then the next descriptor's tensor.
  const MappedTensor* t = &m;
  Region rt = r;
  uint64_t c = k;
  for (uint32_t j = 1; j <= prefetch; ++j) {
    if (++c >= t->chunks) {
      const MappedTensor* next = next_tensor(*t);
      if (t != &m || !next) return;
      auto rn = decode_region_window(window, next->dtype);
      if (!rn.ok()) return;
      t = next;
      rt = rn.value();
      c = 0;
    }
    if (int e = find_entry(window, t->number, c); e >= 0) {
      cache[static_cast<size_t>(e)].stamp = ++stamp;  // about to be read: keep it over older chunks
      continue;
    }
    const size_t e = victim();
    if (!fill_entry(e, window, *t, rt, c, /*log=*/false)) cache[e].failed = true;
  }
}

const MappedTensor* DeviceModel::Impl::next_tensor(const MappedTensor& m) const {
  for (const MappedTensor& x : map)
    if (x.number == m.number + 1) return &x;
  return nullptr;
}

void DeviceModel::Impl::flush_cache() {
  for (ChunkEntry& e : cache) e.valid = false;
  cur.valid = false;
}

bool DeviceModel::Impl::fetch_index(const MappedTensor& m, uint64_t k, const std::vector<bool>& want,
                                    std::vector<uint64_t>& start, std::vector<uint64_t>& end, bool log) {
  const Descriptor& d = m.d;
  const size_t P = m.order.size();
  const uint64_t E = 8 + 4 * P;
  const size_t s0 = static_cast<size_t>(std::find(want.begin(), want.end(), true) - want.begin());
  // Index entry k (and k + 1 for the last block's end), all inside DRAM (64-bit arithmetic checked).
  const uint64_t entries = k + 1 < m.chunks ? 2 : 1;
  const uint64_t room = (cfg.dram_bytes - d.index) / E;  // whole entries between index and the DRAM end
  const uint64_t entry = d.index + std::min(k, room) * E;
  if (k > room || room - k < entries) {
    if (log) log_error(kErrIndex, m.order[s0], static_cast<uint16_t>(s0), m.number, k, entry);
    return false;
  }
  dram_access(entry, entry + entries * E, false);
  dram_wait();  // the block addresses depend on the entry
  std::vector<uint8_t> ent(entries * E);
  mem.read(entry, ent.size(), ent.data());
  const uint64_t chunk_at = d.image + get_le(ent.data(), 8);  // wrapping 64-bit sums, as the RTL adds
  start.assign(P, 0);
  end.assign(P, 0);
  for (size_t s = 0; s < P; ++s) start[s] = chunk_at + get_le(ent.data() + 8 + 4 * s, 4);
  for (size_t s = 0; s < P; ++s)
    end[s] = s + 1 < P ? start[s + 1] : entries == 2 ? d.image + get_le(ent.data() + E, 8) : d.data_end;
  for (size_t s = 0; s < P; ++s) {
    const uint64_t a = start[s], b = end[s];
    if (want[s] && (a >= b || b - a < kMinBlockSpan || b - a > kMaxBlockSpan || b > d.data_end || b > cfg.dram_bytes)) {
      if (log) log_error(kErrIndex, m.order[s], static_cast<uint16_t>(s), m.number, k, entry);
      return false;
    }
  }
  return true;
}

uint8_t DeviceModel::Impl::decode_block(const MappedTensor& m, uint64_t k, size_t s, uint64_t n,
                                        const std::vector<uint8_t>& stored, std::vector<uint8_t>& plane) {
  const uint8_t id = m.order[s];
  return decode_any_block(m.dtype, id, m.number, k, s, n, static_cast<uint32_t>(plane_raw_bytes(id, n)), stored,
                          plane);
}

uint8_t DeviceModel::Impl::decode_any_block(DType t, uint8_t id, uint32_t number, uint64_t k, size_t s, uint64_t n,
                                            uint32_t raw, const std::vector<uint8_t>& stored,
                                            std::vector<uint8_t>& plane) {
  const std::string what = "tensor " + std::to_string(number) + " chunk " + std::to_string(k) + " slot " +
                           std::to_string(s);
  PlaneCheck c;
  if (!cfg.has_zstd && stored.size() >= kBlockHeaderBytes && (stored[3] & 0x0F) == uint8_t(Codec::kZstd)) {
    // A lane without the ZSTD engine: the header checks and the payload bound, then "unsupported".
    Status st = decode_chunk_plane(dec, t, id, k, n, raw, stored.data(), kBlockHeaderBytes, what, plane, &c);
    if (c.rule != PlaneRule::kBlock || c.block != BlockFault::kPayloadTruncated)
      return lane_error_code(lane_status(c.block));  // a header check failed first
    const uint32_t comp = stored[6] | stored[7] << 8;  // 65536 is a size-rule failure for ZSTD
    return lane_error_code(kBlockHeaderBytes + comp > stored.size() ? LaneStatus::kPayloadTrunc
                                                                     : LaneStatus::kUnsupported);
  }
  if (decode_chunk_plane(dec, t, id, k, n, raw, stored.data(), stored.size(), what, plane, &c).ok())
    return kErrNone;
  if (c.rule == PlaneRule::kSpan) return kErrBlockSpan;
  if (c.rule == PlaneRule::kExpRange) return kErrExpRange;
  return lane_error_code(lane_status(c.block));
}

bool DeviceModel::Impl::decode_chunk(const MappedTensor& m, const Region& r, uint64_t k, std::vector<uint8_t>& out,
                                     bool log) {
  cnt[kChunks]++;
  const size_t P = m.order.size();
  const std::vector<bool> want = region_slot_mask(r, m.dtype, m.layout);
  std::vector<uint64_t> start, end;
  if (!fetch_index(m, k, want, start, end, log)) return false;
  // Fetch and decode the region's blocks in storage order; the first failure is logged.
  const uint64_t n = std::min<uint64_t>(m.d.chunk_elems, m.d.elems - k * m.d.chunk_elems);
  std::vector<std::vector<uint8_t>> planes(P);
  std::vector<const uint8_t*> ptr(P, nullptr);
  std::vector<uint8_t> stored;
  bool ok = true;
  for (size_t s = 0; s < P; ++s) {
    if (!want[s]) continue;
    dram_access(start[s], end[s], false);
    cnt[kBlocks]++;
    stored.resize(end[s] - start[s]);
    mem.read(start[s], stored.size(), stored.data());
    const uint8_t code = decode_block(m, k, s, n, stored, planes[s]);
    if (code != kErrNone && ok && log) log_error(code, m.order[s], static_cast<uint16_t>(s), m.number, k, start[s]);
    ok = ok && code == kErrNone;
    ptr[s] = planes[s].data();
  }
  if (!ok) return false;
  out.resize(region_output_bytes(r, m.dtype, n));
  return chunk_region(r, m.dtype, m.layout, ptr, n, out.data()).ok();
}

}  // namespace ndp::dev
