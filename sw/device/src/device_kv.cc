// DeviceModel KV pages (docs/spec.md 7.7): the page table, append-only token writes into window
// buffers, the seal (KV transform of section 6, golden block encoder, page header) into the page's
// DRAM slot, reads from a window buffer or a decoded sealed page, restore after reset.
#include <algorithm>
#include <cstring>
#include <string>

#include "device_impl.h"
#include "ndp/kv.h"
#include "ndp/planes.h"

namespace ndp::dev {
namespace {

uint64_t lines_per_token(uint32_t width) { return uint64_t{width} * 2 / kBeatBytes; }

}  // namespace

uint32_t DeviceModel::Impl::kv_span_log2() const {
  uint32_t l = 0;
  while ((uint64_t{1} << l) < uint64_t{cfg.kv_buffer_elems} * 2) ++l;
  return l;
}

uint8_t DeviceModel::Impl::kv_check(const KvPageDesc& d) const {
  auto t = dtype_from_code(d.dtype);
  if (!t || !(cfg.kv_dtype_mask >> d.dtype & 1) || d.layout > 1 || d.policy > 3 || d.window < 1 ||
      d.width < kKvWidthAlign || d.width % kKvWidthAlign || uint64_t{d.window} * d.width > cfg.kv_buffer_elems)
    return kKvRejectGeometry;
  if (d.slot % kBeatBytes || d.slot >= cfg.dram_bytes || d.slot_bytes > cfg.dram_bytes - d.slot ||
      d.slot_bytes < kv_slot_bytes(*t, static_cast<Layout>(d.layout), d.window, d.width))
    return kKvRejectSlot;
  return 0;
}

void DeviceModel::Impl::kv_free(uint32_t p) {
  KvPage& pg = kv[p];
  if (pg.state == KvPageState::kOpen) --kv_open;
  pg.state = KvPageState::kFree;
  pg.lines = pg.tokens = pg.stored = 0;
  pg.buf = {};
  if (kv_rd.valid && kv_rd.page == p) kv_rd.valid = false;
}

bool DeviceModel::Impl::kv_header(uint32_t p, KvPageHeader& h, bool log) {
  const KvPageDesc& d = kv[p].d;
  uint8_t raw[kKvPageHeaderBytes];
  dram_access(d.slot, d.slot + kKvPageHeaderBytes, false);
  dram_wait();  // the block fetch depends on the header
  mem.read(d.slot, kKvPageHeaderBytes, raw);
  auto r = KvPageHeader::decode(raw);
  bool ok = r.ok();
  if (ok) {
    h = r.value();
    const size_t P = kv_page_planes(static_cast<DType>(d.dtype), static_cast<Layout>(d.layout)).size();
    ok = h.window == d.window && h.width == d.width && h.dtype == d.dtype && h.layout == d.layout && h.blocks == P &&
         h.tokens >= 1 && h.tokens <= d.window && h.stored_bytes <= d.slot_bytes &&
         h.stored_bytes >= kKvPageHeaderBytes + P * kMinBlockSpan;
  }
  if (!ok && log) log_error(kErrIndex, 0, 0, p, 0, d.slot);
  return ok;
}

uint8_t DeviceModel::Impl::kv_restore(uint32_t p, const KvPageDesc& d) {
  KvPage& pg = kv[p];
  pg.d = d;
  KvPageHeader h;
  if (!kv_header(p, h, false)) return kKvRejectRestore;
  pg.state = KvPageState::kSealed;
  pg.tokens = h.tokens;
  pg.stored = h.stored_bytes;
  return 0;
}

bool DeviceModel::Impl::kv_desc_read(uint64_t o, uint8_t* out) const {
  if (o < kKvPageTableBase || (o - kKvPageTableBase) / kDescBytes >= kv.size()) return false;
  const KvPage& pg = kv[(o - kKvPageTableBase) / kDescBytes];
  KvPageDesc s;
  s.state = pg.state;
  s.tokens = pg.state == KvPageState::kOpen ? static_cast<uint32_t>(pg.lines / lines_per_token(pg.d.width))
                                           : pg.tokens;
  s.stored_bytes = pg.state == KvPageState::kSealed ? pg.stored : 0;
  s.encode(out);
  std::memcpy(out, pg.written, sizeof pg.written);
  return true;
}

bool DeviceModel::Impl::kv_desc_write(uint64_t o, const uint8_t* data, uint64_t strobe) {
  if (o < kKvPageTableBase || (o - kKvPageTableBase) / kDescBytes >= kv.size()) return false;
  if ((strobe & 0xFFFFFFFF) != 0xFFFFFFFF) return true;  // bytes 0..31 not all written: no action
  const uint32_t p = static_cast<uint32_t>((o - kKvPageTableBase) / kDescBytes);
  KvPage& pg = kv[p];
  std::memcpy(pg.written, data, sizeof pg.written);
  kv_free(p);
  uint8_t full[64] = {};
  std::memcpy(full, data, 32);
  const KvPageDesc d = KvPageDesc::decode(full);
  if (!(d.flags & kKvFlagValid)) return true;
  uint8_t why = kv_check(d);
  if (!why && (d.flags & kKvFlagRestore)) {
    why = kv_restore(p, d);
  } else if (!why) {
    if (kv_open >= cfg.kv_buffers) {
      why = kKvRejectNoBuffer;
    } else {
      ++kv_open;
      pg.d = d;
      pg.state = KvPageState::kOpen;
      pg.buf.assign(uint64_t{d.window} * d.width * 2, 0);
    }
  }
  if (why) {
    pg.state = KvPageState::kFree;
    log_error(kErrKvPageRejected, why, 0, p, 0, 0);
  }
  return true;
}

void DeviceModel::Impl::kv_seal(uint32_t p) {
  KvPage& pg = kv[p];
  const KvPageDesc& d = pg.d;
  const DType t = static_cast<DType>(d.dtype);
  const Layout l = static_cast<Layout>(d.layout);
  const uint32_t w = static_cast<uint32_t>(pg.lines / lines_per_token(d.width));
  std::vector<uint16_t> tm(uint64_t{w} * d.width);
  std::memcpy(tm.data(), pg.buf.data(), tm.size() * 2);
  std::vector<uint8_t> blob(kKvPageHeaderBytes);
  KvPageHeader h;
  h.tokens = w, h.window = d.window, h.width = d.width, h.dtype = d.dtype, h.layout = d.layout;
  h.blocks = static_cast<uint8_t>(kv_page_planes(t, l).size());
  // Cannot fail: kv_check admitted the geometry (1..65536 bytes per plane, W x N <= KvBufferElems).
  (void)encode_kv_window(enc, t, l, KvGeometry{d.window, d.width, 1}, w, tm.data(), KvBase::kAuto, p,
                         static_cast<CodecPolicy>(d.policy), blob);
  h.stored_bytes = static_cast<uint32_t>(blob.size());
  h.encode(blob.data());
  blob.resize((blob.size() + kBeatBytes - 1) / kBeatBytes * kBeatBytes, 0);  // whole lines
  for (uint64_t a = 0; a < blob.size(); a += kBeatBytes) mem.write_line(d.slot + a, blob.data() + a, ~uint64_t{0});
  dram_access(d.slot, d.slot + blob.size(), true);
  --kv_open;
  pg.state = KvPageState::kSealed;
  pg.tokens = w;
  pg.stored = h.stored_bytes;
  pg.lines = 0;
  pg.buf = {};
  cnt[kKvSeals]++;
  cnt[kKvStored] += h.stored_bytes;
  kv_rd.valid = false;
}

void DeviceModel::Impl::kv_seal_request(uint64_t page) {
  if (page >= kv.size()) return;
  const uint32_t p = static_cast<uint32_t>(page);
  KvPage& pg = kv[p];
  if (pg.state == KvPageState::kFree) return log_error(kErrKvFree, 0, 0, p, 0, 0);
  const uint64_t lpt = lines_per_token(pg.d.width);
  if (pg.state == KvPageState::kSealed || pg.lines == 0 || pg.lines % lpt)
    return log_error(kErrKvWrite, 0, 0, p, pg.state == KvPageState::kSealed ? pg.tokens : pg.lines / lpt, 0);
  kv_seal(p);
}

bool DeviceModel::Impl::kv_load(uint32_t p) {
  if (kv_rd.valid && kv_rd.page == p) return true;
  kv_rd.valid = false;
  KvPageHeader h;
  if (!kv_header(p, h, true)) return false;
  const KvPageDesc& d = kv[p].d;
  const DType t = static_cast<DType>(d.dtype);
  const Layout l = static_cast<Layout>(d.layout);
  const std::vector<uint8_t> ids = kv_page_planes(t, l);
  const uint64_t n = uint64_t{h.tokens} * d.width;
  // The blocks in one fetch, walked by their headers (spec 7.7 "Slot").
  const uint64_t at = d.slot + kKvPageHeaderBytes, n_bytes = h.stored_bytes - kKvPageHeaderBytes;
  std::vector<uint8_t> blocks(n_bytes);
  dram_access(at, at + n_bytes, false);
  mem.read(at, blocks.size(), blocks.data());
  std::vector<uint64_t> off;
  if (!kv_walk_blocks(blocks.data(), blocks.size(), ids.size(), off)) {
    log_error(kErrIndex, 0, 0, p, 0, d.slot);
    return false;
  }
  std::vector<std::vector<uint8_t>> planes(ids.size());
  std::vector<uint8_t> stored;
  bool ok = true;
  for (size_t s = 0; s < ids.size(); ++s) {  // every block, in storage order; the first failure is logged
    const uint64_t a = off[s] - kKvPageHeaderBytes, b = off[s + 1] - kKvPageHeaderBytes;
    cnt[kBlocks]++;
    stored.assign(blocks.begin() + static_cast<std::ptrdiff_t>(a), blocks.begin() + static_cast<std::ptrdiff_t>(b));
    const uint8_t code = decode_any_block(t, ids[s], p, p, s, n,
                                          static_cast<uint32_t>(kv_block_raw_bytes(ids[s], h.tokens, d.width)),
                                          stored, planes[s]);
    if (code != kErrNone && ok) log_error(code, ids[s], static_cast<uint16_t>(s), p, 0, d.slot + off[s]);
    ok = ok && code == kErrNone;
  }
  if (!ok) return false;
  std::vector<const uint8_t*> ptr;
  for (size_t s = 1; s < ids.size(); ++s) ptr.push_back(planes[s].data());
  std::vector<uint16_t> cm(n), tm(n);
  unpack_chunk(t, l, ptr, n, reinterpret_cast<uint8_t*>(cm.data()));
  kv_window_inverse(t, KvGeometry{d.window, d.width, 1}, h.tokens, cm.data(), planes[0].data(), tm.data());
  kv_rd.bytes.resize(n * 2);
  std::memcpy(kv_rd.bytes.data(), tm.data(), n * 2);
  kv_rd.valid = true;
  kv_rd.page = p;
  return true;
}

KvPage* DeviceModel::Impl::kv_locate(uint64_t o, uint32_t& p, uint64_t& line, Resp& r) {
  const uint32_t S = kv_span_log2();
  r = Resp::kDecErr;
  if (kv.empty() || (o >> S) >= kv.size()) return nullptr;  // past the page table
  p = static_cast<uint32_t>(o >> S);
  line = (o & ((uint64_t{1} << S) - 1)) / kBeatBytes;
  if (kv[p].state == KvPageState::kFree) {  // never stale data of an earlier use
    log_error(kErrKvFree, 0, 0, p, 0, o);
    r = Resp::kSlvErr;
    return nullptr;
  }
  return &kv[p];
}

Resp DeviceModel::Impl::kv_read_beat(uint64_t o, uint8_t* out) {
  uint32_t p = 0;
  uint64_t line = 0;
  Resp r;
  KvPage* pg = kv_locate(o, p, line, r);
  if (!pg) return r;
  if (pg->state == KvPageState::kOpen) {
    if (line >= pg->lines) return Resp::kDecErr;
    std::memcpy(out, pg->buf.data() + line * kBeatBytes, kBeatBytes);
    return Resp::kOkay;
  }
  if (line >= pg->tokens * lines_per_token(pg->d.width)) return Resp::kDecErr;
  if (!kv_load(p)) return Resp::kSlvErr;
  std::memcpy(out, kv_rd.bytes.data() + line * kBeatBytes, kBeatBytes);
  return Resp::kOkay;
}

Resp DeviceModel::Impl::kv_write_beat(uint64_t o, const uint8_t* data, uint64_t strobe) {
  uint32_t p = 0;
  uint64_t line = 0;
  Resp r;
  KvPage* pg = kv_locate(o, p, line, r);
  if (!pg) return r;
  const uint64_t lpt = lines_per_token(pg->d.width);
  if (pg->state == KvPageState::kSealed || strobe != ~uint64_t{0} || line != pg->lines) {
    log_error(kErrKvWrite, 0, 0, p, line / lpt, o);
    return Resp::kSlvErr;
  }
  std::memcpy(pg->buf.data() + line * kBeatBytes, data, kBeatBytes);
  if (++pg->lines == uint64_t{pg->d.window} * lpt) kv_seal(p);
  return Resp::kOkay;
}

}  // namespace ndp::dev
