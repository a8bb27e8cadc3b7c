// DeviceModel: bursts and beats, the control window (registers, descriptor table and commit), the
// store window and the DRAM accounting (docs/spec.md 7.1, 7.3-7.5; docs/device-model.md).
#include <algorithm>
#include <cstring>
#include <string>

#include "device_impl.h"

namespace ndp::dev {
namespace {

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
bool pow2(uint64_t v) { return v && !(v & (v - 1)); }
unsigned log2u(uint64_t v) {
  unsigned l = 0;
  while (v > 1) v >>= 1, ++l;
  return l;
}

}  // namespace

// ---- SparseDram ---------------------------------------------------------------------------------

void SparseDram::read(uint64_t addr, size_t n, uint8_t* out) const {
  while (n) {
    const uint64_t page = addr / kPage, in = addr % kPage;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n, kPage - in));
    auto it = pages_.find(page);
    if (it == pages_.end()) std::memset(out, 0, take);
    else std::memcpy(out, it->second->data() + in, take);
    addr += take, out += take, n -= take;
  }
}

void SparseDram::write_line(uint64_t addr, const uint8_t* data, uint64_t strobe) {
  if (!strobe) return;
  auto& p = pages_[addr / kPage];
  if (!p) p = std::make_unique<std::array<uint8_t, kPage>>(), p->fill(0);
  uint8_t* dst = p->data() + addr % kPage;
  for (unsigned j = 0; j < kBeatBytes; ++j)
    if (strobe >> j & 1) dst[j] = data[j];
}

// ---- configuration and creation -----------------------------------------------------------------

Status DeviceConfig::validate() const {
  NDP_RETURN_IF_ERROR(dram.validate());
  if (!pow2(dram_bytes) || dram_bytes < 4096 || dram_bytes > kOffsetMask + 1)
    return Status::Error("device config: DRAM size " + std::to_string(dram_bytes) +
                         " is not a power of two in 4 KiB..1 TiB");
  if (dram_bytes > dram.capacity_bytes())
    return Status::Error("device config: DRAM size " + std::to_string(dram_bytes) + " exceeds the DDR5 capacity " +
                         std::to_string(dram.capacity_bytes()));
  if (lanes < 1 || lanes > 255) return Status::Error("device config: lanes must be 1..255");
  if (max_tensors < 1 || max_tensors > 65535) return Status::Error("device config: max_tensors must be 1..65535");
  if (!pow2(max_chunk_elems) || max_chunk_elems < 128 || max_chunk_elems > 524288)
    return Status::Error("device config: max_chunk_elems must be a power of two in 128..524288");
  if (chunk_align_log2 < 6 || (uint32_t{1} << chunk_align_log2) > max_chunk_elems)
    return Status::Error("device config: chunk_align_log2 must be in 6..log2(max_chunk_elems)");
  if (chunk_buffers < 1 || chunk_buffers > 255) return Status::Error("device config: chunk_buffers must be 1..255");
  if (staging_sets < 1 || staging_sets > 255) return Status::Error("device config: staging_sets must be 1..255");
  if (max_prefetch > 255 || (max_prefetch > 0 && max_prefetch + 2 > chunk_buffers))
    return Status::Error("device config: max_prefetch must be at most chunk_buffers - 2");
  if (track_entries < 1 || track_entries > 255) return Status::Error("device config: track_entries must be 1..255");
  if (kv_pages > 65535) return Status::Error("device config: kv_pages must be 0..65535");
  if (kv_pages > 0) {
    if (kv_buffers < 1 || kv_buffers > 255) return Status::Error("device config: kv_buffers must be 1..255");
    if (!pow2(kv_buffer_elems) || kv_buffer_elems < 32 || kv_buffer_elems > (1u << 20))
      return Status::Error("device config: kv_buffer_elems must be a power of two in 32..2^20");
    if (!kv_dtype_mask || (kv_dtype_mask & ~((1u << 1) | (1u << 2))))
      return Status::Error("device config: kv_dtype_mask must name bf16 and/or fp16 only");
  }
  return Status::Ok();
}

DeviceModel::DeviceModel() : impl_(std::make_unique<Impl>()) {}
DeviceModel::~DeviceModel() = default;

Result<std::unique_ptr<DeviceModel>> DeviceModel::create(const DeviceConfig& cfg) {
  NDP_RETURN_IF_ERROR(cfg.validate());
  auto d = Ddr5Model::create(cfg.dram);
  if (!d.ok()) return d.status();
  std::unique_ptr<DeviceModel> m(new DeviceModel());
  m->impl_->cfg = cfg;
  m->impl_->dram.emplace(std::move(d.value()));
  m->impl_->init();
  return m;
}

void DeviceModel::Impl::init() {
  desc_mem.assign(size_t{cfg.max_tensors} * kDescBytes, 0);
  cache.assign(cfg.chunk_buffers, ChunkEntry{});
  prefetch = cfg.max_prefetch;
  track = max_track();
  kv.assign(cfg.kv_pages, KvPage{});
}

void DeviceModel::reset() {
  // Everything but DRAM (contents and timing model) back to power-on.
  auto fresh = std::make_unique<Impl>();
  fresh->cfg = impl_->cfg;
  fresh->dram = std::move(impl_->dram);
  fresh->mem = std::move(impl_->mem);
  fresh->dram_tag = impl_->dram_tag;
  fresh->cycle_base = fresh->dram->now_cycle();
  impl_ = std::move(fresh);
  impl_->init();
}

const DeviceConfig& DeviceModel::config() const { return impl_->cfg; }

// ---- DRAM timing model and error log -------------------------------------------------------------

void DeviceModel::Impl::dram_access(uint64_t addr, uint64_t end, bool write) {
  const uint64_t first = addr & ~(kBeatBytes - 1), last = (end + kBeatBytes - 1) & ~(kBeatBytes - 1);
  cnt[write ? kDramWr : kDramRd] += last - first;
  for (uint64_t a = first; a < last; a += 4096) {
    Ddr5Request q;
    q.addr = a;
    q.bytes = static_cast<uint32_t>(std::min<uint64_t>(4096, last - a));
    q.write = write;
    q.tag = dram_tag++;
    for (;;) {  // backpressure: let time pass until the queue takes it
      auto ok = dram->submit(q);
      if (!ok.ok() || ok.value()) break;
      const uint64_t t = dram->next_event_ps();
      if (t == UINT64_MAX) dram->tick();
      else dram->advance_to(std::max(t, dram->now_ps() + 1));
    }
  }
  Ddr5Completion c;
  while (dram->pop_completion(c)) {
  }
}

void DeviceModel::Impl::dram_wait() {
  dram->drain();
  Ddr5Completion c;
  while (dram->pop_completion(c)) {
  }
}

void DeviceModel::Impl::log_error(uint8_t code, uint8_t plane, uint16_t slot, uint32_t tensor, uint64_t chunk,
                                  uint64_t addr) {
  if (err_count++ == 0) {
    err_code = code | uint64_t{plane} << 8 | uint64_t{slot} << 16 | uint64_t{tensor} << 32;
    err_chunk = chunk;
    err_addr = addr;
  }
}

Ddr5Stats DeviceModel::dram_stats() {
  impl_->dram_wait();
  return impl_->dram->stats();
}

void DeviceModel::peek_dram(uint64_t addr, size_t n, uint8_t* out) const {
  std::memset(out, 0, n);
  if (addr >= impl_->cfg.dram_bytes) return;
  impl_->mem.read(addr, static_cast<size_t>(std::min<uint64_t>(n, impl_->cfg.dram_bytes - addr)), out);
}

// ---- registers ------------------------------------------------------------------------------------

uint64_t DeviceModel::Impl::csr_value(uint64_t off) const {
  switch (off) {
    case kCsrId: return kIdMagic | uint64_t{kSpecVersion} << 32;
    case kCsrCaps:
      return cfg.lanes | uint64_t{cfg.max_tensors} << 8 | uint64_t{log2u(cfg.max_chunk_elems)} << 24 |
             uint64_t{cfg.dtype_mask} << 32 | uint64_t{log2u(cfg.dram_bytes)} << 40 |
             uint64_t{cfg.chunk_align_log2} << 48;
    case kCsrCtrl: return enable ? kCtrlEnable : 0;
    case kCsrTensorCount: return tensor_count;
    case kCsrStatus: return (err_count ? kStatusError : 0) | rejected << 32;
    case kCsrCaps2:
      return cfg.chunk_buffers | uint64_t{cfg.staging_sets} << 8 | uint64_t{cfg.max_prefetch} << 16 |
             uint64_t{cfg.track_entries} << 24 | uint64_t{max_track()} << 32;
    case kCsrPrefetch: return prefetch;
    case kCsrTrack: return track;
    case kCsrErrCode: return err_code;
    case kCsrErrChunk: return err_chunk;
    case kCsrErrAddr: return err_addr;
    case kCsrErrCount: return err_count;
    case kCsrCntCycles: return dram->now_cycle() - cycle_base;
    case kCsrKvCaps: {
      if (!cfg.kv_pages) return 0;
      KvCaps c;
      c.max_pages = cfg.kv_pages;
      c.buffers = cfg.kv_buffers;
      c.buffer_elems_log2 = log2u(cfg.kv_buffer_elems);
      c.dtype_mask = cfg.kv_dtype_mask;
      c.span_log2 = kv_span_log2();
      return c.encode();
    }
    case kCsrCntKvSeals: return cnt[kKvSeals];
    case kCsrCntKvStoredBytes: return cnt[kKvStored];
    default: break;
  }
  if (off >= kCsrCntHostRdBeats && off <= kCsrCntBlocks) return cnt[(off - kCsrCntHostRdBeats) / 8];
  return 0;
}

uint64_t DeviceModel::peek_csr(uint64_t offset) const { return impl_->csr_value(offset & ~uint64_t{7}); }

void DeviceModel::Impl::write_csr(uint64_t off, uint64_t v) {
  if (off == kCsrTensorCount) {
    commit(v);
  } else if (off == kCsrCtrl) {
    enable = v & kCtrlEnable;
    if (v & kCtrlClearCounters) {
      std::fill(std::begin(cnt), std::end(cnt), 0);
      cycle_base = dram->now_cycle();
    }
    if (v & kCtrlClearErrLog) err_code = err_chunk = err_addr = err_count = 0;
    if (v & kCtrlFlush) flush_cache(), kv_rd.valid = false;
  } else if (off == kCsrPrefetch) {
    prefetch = std::min<uint32_t>(static_cast<uint32_t>(v & 0xFF), cfg.max_prefetch);
  } else if (off == kCsrKvSeal) {
    kv_seal_request(v);
  } else if (off == kCsrTrack) {
    track = std::min<uint32_t>(static_cast<uint32_t>(v & 0xFF), max_track());
  }  // other offsets: read-only or undefined, the write is ignored
}

Status DeviceModel::Impl::check_descriptor(const Descriptor& d, const MappedTensor* prev) const {
  if (!(d.flags & kDescValid)) return Status::Error("valid flag clear");
  if (d.base % kTensorAlign || d.base > kOffsetMask) return Status::Error("base " + hex(d.base) + " unaligned or beyond 1 TiB");
  if (prev && d.base <= prev->d.base) return Status::Error("base " + hex(d.base) + " not above the previous one");
  if (d.elems == 0) return Status::Error("no elements");
  auto t = dtype_from_code(d.dtype);
  if (!t || !(cfg.dtype_mask >> d.dtype & 1)) return Status::Error("dtype " + std::to_string(d.dtype) + " not supported");
  if (d.layout > 1) return Status::Error("layout " + std::to_string(d.layout));
  const Layout l = static_cast<Layout>(d.layout);
  if (d.slots != plane_order(*t, l).size()) return Status::Error("slot count " + std::to_string(d.slots));
  const uint32_t align = uint32_t{1} << cfg.chunk_align_log2;
  if (d.chunk_elems % align || d.chunk_elems < std::max<uint32_t>(128, align) || d.chunk_elems > cfg.max_chunk_elems ||
      (l == Layout::kExpByte && dtype_info(*t).is_float && d.chunk_elems > kMaxPlaneBytes))
    return Status::Error("chunk_elems " + std::to_string(d.chunk_elems));
  if (d.image >= cfg.dram_bytes || d.index >= cfg.dram_bytes || d.data_end > cfg.dram_bytes)
    return Status::Error("image, index or data_end outside DRAM");
  return Status::Ok();
}

void DeviceModel::Impl::commit(uint64_t count) {
  tensor_count = std::min<uint64_t>(count, cfg.max_tensors);
  map.clear();
  flush_cache();
  rejected = 0;
  for (uint32_t t = 0; t < tensor_count; ++t) {
    const Descriptor d = Descriptor::decode(desc_mem.data() + size_t{t} * kDescBytes);
    if (!check_descriptor(d, map.empty() ? nullptr : &map.back()).ok()) {
      ++rejected;
      log_error(kErrDescRejected, 0, 0, t, 0, 0);
      continue;
    }
    MappedTensor m;
    m.d = d;
    m.number = t;
    m.dtype = static_cast<DType>(d.dtype);
    m.layout = static_cast<Layout>(d.layout);
    m.order = plane_order(m.dtype, m.layout);
    m.chunks = (d.elems + d.chunk_elems - 1) / d.chunk_elems;
    map.push_back(std::move(m));
  }
}

// ---- beats ------------------------------------------------------------------------------------------

Resp DeviceModel::Impl::read_beat(uint64_t line, uint8_t* out) {
  std::memset(out, 0, kBeatBytes);
  if (line >> kAddressBits) return Resp::kDecErr;
  const uint8_t w = window_of(line);
  const uint64_t o = offset_of(line);
  if (w == kWindowControl) {
    if (o < kCsrSpace) {
      for (unsigned j = 0; j < kBeatBytes; j += 8) {
        const uint64_t v = csr_value(o + j);
        std::memcpy(out + j, &v, 8);
      }
      return Resp::kOkay;
    }
    if (kv_desc_read(o, out)) return Resp::kOkay;
    if (o < kDescTableBase || o - kDescTableBase >= desc_mem.size()) return Resp::kDecErr;
    std::memcpy(out, desc_mem.data() + (o - kDescTableBase), kBeatBytes);
    return Resp::kOkay;
  }
  if (w == kWindowKv) return kv_read_beat(o, out);
  if (w == kWindowStore) {
    if (o >= cfg.dram_bytes) return Resp::kDecErr;
    mem.read(o, kBeatBytes, out);
    dram_access(o, o + kBeatBytes, false);
    return Resp::kOkay;
  }
  if (region_window_defined(w)) return read_region(w, o, out);
  return Resp::kDecErr;
}

Resp DeviceModel::Impl::write_beat(uint64_t line, const uint8_t* data, uint64_t strobe) {
  if (line >> kAddressBits) return Resp::kDecErr;
  const uint8_t w = window_of(line);
  const uint64_t o = offset_of(line);
  if (w == kWindowStore) {
    if (o >= cfg.dram_bytes) return Resp::kDecErr;
    mem.write_line(o, data, strobe);
    dram_access(o, o + kBeatBytes, true);
    return Resp::kOkay;
  }
  if (w == kWindowKv) return kv_write_beat(o, data, strobe);
  if (w != kWindowControl) return Resp::kDecErr;
  if (o < kCsrSpace) {
    for (unsigned j = 0; j < kBeatBytes; j += 8) {
      if ((strobe >> j & 0xFF) != 0xFF) continue;
      uint64_t v;
      std::memcpy(&v, data + j, 8);
      write_csr(o + j, v);
    }
    return Resp::kOkay;
  }
  if (kv_desc_write(o, data, strobe)) return Resp::kOkay;
  if (o < kDescTableBase || o - kDescTableBase >= desc_mem.size()) return Resp::kDecErr;
  uint8_t* dst = desc_mem.data() + (o - kDescTableBase);
  for (unsigned j = 0; j < kBeatBytes; ++j)
    if (strobe >> j & 1) dst[j] = data[j];
  return Resp::kOkay;
}

// ---- bursts -------------------------------------------------------------------------------------------

namespace {
// INCR, full 64-byte beats, inside one 4 KiB page.
bool burst_legal(uint64_t addr, unsigned beats, BurstType type, unsigned size_log2) {
  const uint64_t first = addr & ~(kBeatBytes - 1), last = first + kBeatBytes * (beats - 1);
  return type == BurstType::kIncr && size_log2 == 6 && beats <= 256 &&
         first / kBurstBoundary == last / kBurstBoundary;
}
}  // namespace

void DeviceModel::read_burst(uint64_t addr, unsigned beats, uint8_t* out, Resp* resp, BurstType type,
                             unsigned size_log2) {
  Impl& m = *impl_;
  const bool legal = burst_legal(addr, beats, type, size_log2);
  if (!legal && beats) m.log_error(kErrProtocol, 0, 0, kErrTensorNone, 0, addr);
  const uint64_t first = addr & ~(kBeatBytes - 1);
  for (unsigned k = 0; k < beats; ++k) {
    uint8_t* o = out + size_t{k} * kBeatBytes;
    if (legal) {
      resp[k] = m.read_beat(first + kBeatBytes * k, o);
    } else {
      std::memset(o, 0, kBeatBytes);
      resp[k] = Resp::kSlvErr;
    }
    m.cnt[kHostRd]++;
    if (resp[k] == Resp::kDecErr) m.cnt[kDecErr]++;
    if (resp[k] == Resp::kSlvErr) m.cnt[kSlvErr]++;
  }
}

Resp DeviceModel::write_burst(uint64_t addr, unsigned beats, const uint8_t* data, const uint64_t* strobes,
                              BurstType type, unsigned size_log2) {
  Impl& m = *impl_;
  if (!burst_legal(addr, beats, type, size_log2)) {
    if (beats) m.log_error(kErrProtocol, 0, 0, kErrTensorNone, 0, addr);
    m.cnt[kHostWr] += beats;
    m.cnt[kSlvErr] += beats;
    return Resp::kSlvErr;
  }
  Resp b = Resp::kOkay;
  const uint64_t first = addr & ~(kBeatBytes - 1);
  for (unsigned k = 0; k < beats; ++k) {
    m.cnt[kHostWr]++;
    const Resp r = m.write_beat(first + kBeatBytes * k, data + size_t{k} * kBeatBytes, strobes ? strobes[k] : ~uint64_t{0});
    if (r == Resp::kDecErr) {
      m.cnt[kDecErr]++;
      if (b == Resp::kOkay) b = Resp::kDecErr;
    } else if (r == Resp::kSlvErr) {  // a KV beat the page cannot take (7.7)
      m.cnt[kSlvErr]++;
      b = Resp::kSlvErr;
    }
  }
  return b;
}

Status DeviceModel::write(uint64_t addr, const uint8_t* data, size_t bytes, const uint64_t* strobes) {
  if (addr % kBeatBytes || bytes == 0 || bytes % kBeatBytes)
    return Status::Error("device write at " + hex(addr) + ": " + std::to_string(bytes) +
                         " bytes (address and size must be multiples of 64, size > 0)");
  Status first;
  for (uint64_t at = addr, end = addr + bytes; at < end;) {
    const unsigned beats = static_cast<unsigned>((std::min(end, (at / kBurstBoundary + 1) * kBurstBoundary) - at) / kBeatBytes);
    const size_t k = (at - addr) / kBeatBytes;
    const Resp r = write_burst(at, beats, data + k * kBeatBytes, strobes ? strobes + k : nullptr);
    if (r != Resp::kOkay && first.ok())
      first = Status::Error("device write burst at " + hex(at) + ": " + resp_name(r));
    at += uint64_t{beats} * kBeatBytes;
  }
  return first;
}

Status DeviceModel::read(uint64_t addr, size_t bytes, uint8_t* out, std::vector<Resp>* beat_resp) {
  if (addr % kBeatBytes || bytes == 0 || bytes % kBeatBytes)
    return Status::Error("device read at " + hex(addr) + ": " + std::to_string(bytes) +
                         " bytes (address and size must be multiples of 64, size > 0)");
  std::vector<Resp> local;
  std::vector<Resp>& resp = beat_resp ? *beat_resp : local;
  resp.assign(bytes / kBeatBytes, Resp::kOkay);
  for (uint64_t at = addr, end = addr + bytes; at < end;) {
    const unsigned beats = static_cast<unsigned>((std::min(end, (at / kBurstBoundary + 1) * kBurstBoundary) - at) / kBeatBytes);
    const size_t k = (at - addr) / kBeatBytes;
    read_burst(at, beats, out + k * kBeatBytes, resp.data() + k);
    at += uint64_t{beats} * kBeatBytes;
  }
  if (!beat_resp)
    for (size_t k = 0; k < resp.size(); ++k)
      if (resp[k] != Resp::kOkay)
        return Status::Error("device read beat at " + hex(addr + k * kBeatBytes) + ": " + resp_name(resp[k]));
  return Status::Ok();
}

}  // namespace ndp::dev
