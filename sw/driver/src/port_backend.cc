// PortBackend: the host driver's steps over a device's host port (docs/driver.md, "emu and rtl").
#include "ndp/port_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "dev_kv.h"
#include "kv_store.h"
#include "ndp/device_model.h"
#include "range_alloc.h"
#include "device_errors.h"

namespace ndp::drv {

using namespace ndp::dev;

namespace {

constexpr uint64_t kNoBase = ~uint64_t{0};
constexpr uint64_t kReadPiece = uint64_t{1} << 20;  // bytes per HostPort read call

std::string hexs(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The device parameters of CAPS (spec 7.4).
struct Caps {
  uint32_t lanes = 0, max_tensors = 0, max_chunk_log2 = 0, align_log2 = 0;
  uint8_t dtype_mask = 0;
  uint64_t dram_bytes = 0;
  static Caps decode(uint64_t v) {
    Caps c;
    c.lanes = v & 0xFF;
    c.max_tensors = (v >> 8) & 0xFFFF;
    c.max_chunk_log2 = (v >> 24) & 0x1F;
    c.dtype_mask = static_cast<uint8_t>(v >> 32);
    c.dram_bytes = uint64_t{1} << ((v >> 40) & 0xFF);
    c.align_log2 = (v >> 48) & 0x1F;
    return c;
  }
};

struct ImageRec {
  uint64_t dram = 0, bytes = 0, win = 0;
  std::vector<TensorInfo> tensors;
  std::vector<uint64_t> base;             // per tensor, kNoBase when not mapped
  std::vector<Descriptor> desc;           // per tensor (valid where base != kNoBase)
  std::unique_ptr<ImageReader> kv_reader; // over kv_copy, when the image has KV streams
  std::vector<uint8_t> kv_copy;
};

}  // namespace

struct PortBackend::Impl : KvMemory {
  std::mutex mu;
  std::unique_ptr<HostPort> port;
  std::string name;
  std::function<double()> energy;
  Caps caps;
  RangeAlloc dram, win{kOffsetMask + 1};
  std::map<uint32_t, ImageRec> images;
  std::vector<std::pair<uint32_t, uint32_t>> table;  // descriptor t -> (image, tensor)
  uint32_t next_image = 1;
  bool enabled = false;
  KvStore kv{*this};                 // streams the device's KV pages do not take (golden model here)
  std::unique_ptr<DevKvStore> dkv;   // streams written through the device's KV pages (spec 7.7)
  uint32_t next_stream = 1;          // KV stream ids, shared by both stores
  bool on_device(uint32_t stream) const { return dkv && dkv->has(stream); }

  Status check_supported(const TensorInfo& t) const;
  Status plan_image(ImageRec& rec, const ImageReader& rd);
  Status commit();
  Status read_lines(uint8_t window, uint64_t addr, uint64_t bytes, uint8_t* buf, std::vector<Resp>& resp);
  Status explain(uint8_t window, uint64_t line, Resp resp, const ImageRec& rec, size_t tensor);
  Status read_kv_tensor(ImageRec& rec, uint32_t t, const Region& r, uint64_t off, uint64_t n, uint8_t* out,
                        CallStats* st);

  // KvMemory over the store window.
  Result<uint64_t> kv_alloc(uint64_t bytes) override {
    auto a = dram.alloc(bytes, kBeatBytes);
    if (!a) return Status::Error("device DRAM full (" + std::to_string(dram.free_bytes()) + " bytes free)");
    return *a;
  }
  void kv_release(uint64_t addr) override { dram.free(addr); }
  Status kv_store(uint64_t addr, const uint8_t* data, size_t n, CallStats* st) override {
    if (st) st->link_bytes += (RangeAlloc::align_up(addr + n, 64) - (addr & ~uint64_t{63}));
    return store_write(*port, addr, data, n);
  }
  Status kv_fetch(uint64_t addr, size_t n, uint8_t* out, CallStats* st) override {
    const uint64_t first = addr & ~uint64_t{63}, last = RangeAlloc::align_up(addr + n, 64);
    std::vector<uint8_t> buf(last - first);
    std::vector<Resp> resp;
    NDP_RETURN_IF_ERROR(read_lines(kWindowStore, first, buf.size(), buf.data(), resp));
    std::memcpy(out, buf.data() + (addr - first), n);
    if (st) {
      st->link_bytes += buf.size();
      st->device_bytes += buf.size();
    }
    return Status::Ok();
  }
};

PortBackend::PortBackend() : impl_(std::make_unique<Impl>()) {}
PortBackend::~PortBackend() = default;

Result<std::unique_ptr<PortBackend>> PortBackend::attach(std::unique_ptr<HostPort> port, std::string name,
                                                         std::function<double()> energy) {
  std::unique_ptr<PortBackend> b(new PortBackend());
  Impl& m = *b->impl_;
  m.port = std::move(port);
  m.name = std::move(name);
  m.energy = std::move(energy);
  auto id = csr_read(*m.port, kCsrId);
  if (!id.ok()) return id.status();
  if ((id.value() & 0xFFFFFFFF) != kIdMagic || ((id.value() >> 32) & 0xFFFF) != kSpecVersion)
    return Status::Error(m.name + ": not an NDP device (ID register " + hexs(id.value()) + ")");
  auto caps = csr_read(*m.port, kCsrCaps);
  if (!caps.ok()) return caps.status();
  m.caps = Caps::decode(caps.value());
  m.dram = RangeAlloc(m.caps.dram_bytes);
  auto kvc = csr_read(*m.port, kCsrKvCaps);
  if (!kvc.ok()) return kvc.status();
  if (kvc.value()) m.dkv = std::make_unique<DevKvStore>(*m.port, m.dram, KvCaps::decode(kvc.value()));
  return b;
}

std::string PortBackend::name() const { return impl_->name; }

Status PortBackend::Impl::check_supported(const TensorInfo& t) const {
  const std::string w = "tensor '" + t.name + "': the device ";
  if (!((caps.dtype_mask >> static_cast<unsigned>(t.dtype)) & 1))
    return Status::Error(w + "does not support dtype " + dtype_info(t.dtype).name + " (CAPS dtype mask " +
                         hexs(caps.dtype_mask) + ")");
  const uint64_t a = uint64_t{1} << caps.align_log2, lo = std::max<uint64_t>(128, a);
  if (t.chunk_elems % a || t.chunk_elems < lo || t.chunk_elems > (uint64_t{1} << caps.max_chunk_log2))
    return Status::Error(w + "needs chunk_elems a multiple of " + std::to_string(a) + " in [" + std::to_string(lo) +
                         ", " + std::to_string(uint64_t{1} << caps.max_chunk_log2) + "], the image has " +
                         std::to_string(t.chunk_elems));
  return Status::Ok();
}

// Device DRAM, the window-offset range and the descriptors of one image (not yet written).
Status PortBackend::Impl::plan_image(ImageRec& rec, const ImageReader& rd) {
  size_t mapped = 0;
  for (const TensorInfo& t : rec.tensors)
    if (t.kind == TensorKind::kWeight && t.elems) {
      NDP_RETURN_IF_ERROR(check_supported(t));
      ++mapped;
    }
  if (table.size() + mapped > caps.max_tensors)
    return Status::Error("image does not fit: " + std::to_string(mapped) + " tensors to map, " +
                         std::to_string(caps.max_tensors - table.size()) + " of " +
                         std::to_string(caps.max_tensors) + " device descriptors free");
  auto at = dram.alloc(rec.bytes, 4096);
  if (!at)
    return Status::Error("image does not fit: " + std::to_string(rec.bytes) + " bytes, the device DRAM has " +
                         std::to_string(dram.free_bytes()) + " of " + std::to_string(dram.size()) + " bytes free");
  rec.dram = *at;
  auto plan = plan_map(rd, rec.dram);
  if (!plan.ok()) return plan.status();
  uint64_t span = kTensorAlign;
  for (size_t i = 0; i < plan->desc.size(); ++i)
    span = std::max(span, RangeAlloc::align_up(plan->desc[i].base + tensor_span(rec.tensors[plan->image_tensor[i]]),
                                               kTensorAlign));
  auto w = win.alloc(span, kTensorAlign);
  if (!w) {
    dram.free(rec.dram);
    return Status::Error("image does not fit: its tensors need " + std::to_string(span) +
                         " bytes of region-window space, none left");
  }
  rec.win = *w;
  rec.base.assign(rec.tensors.size(), kNoBase);
  rec.desc.assign(rec.tensors.size(), Descriptor{});
  for (size_t i = 0; i < plan->desc.size(); ++i) {
    Descriptor d = plan->desc[i];
    d.base += rec.win;
    rec.base[plan->image_tensor[i]] = d.base;
    rec.desc[plan->image_tensor[i]] = d;
  }
  return Status::Ok();
}

// Write every loaded image's descriptors sorted by base, commit, check, enable.
Status PortBackend::Impl::commit() {
  std::vector<std::pair<uint64_t, std::pair<uint32_t, uint32_t>>> all;
  for (const auto& [id, rec] : images)
    for (size_t t = 0; t < rec.base.size(); ++t)
      if (rec.base[t] != kNoBase) all.push_back({rec.base[t], {id, static_cast<uint32_t>(t)}});
  std::sort(all.begin(), all.end());
  table.clear();
  for (size_t i = 0; i < all.size(); ++i) {
    const auto [img, t] = all[i].second;
    NDP_RETURN_IF_ERROR(write_descriptor(*port, static_cast<uint32_t>(i), images[img].desc[t]));
    table.push_back({img, t});
  }
  NDP_RETURN_IF_ERROR(csr_write(*port, kCsrTensorCount, table.size()));
  auto status = csr_read(*port, kCsrStatus);
  if (!status.ok()) return status.status();
  if (status.value() >> 32) {
    auto code = csr_read(*port, kCsrErrCode);
    const uint64_t t = code.ok() ? code.value() >> 32 : 0;
    std::string which = t < table.size() ? "tensor '" + images[table[t].first].tensors[table[t].second].name + "'"
                                         : "descriptor " + std::to_string(t);
    return Status::Error("the device rejected " + std::to_string(status.value() >> 32) + " descriptor(s), first " +
                         which);
  }
  if (!enabled) NDP_RETURN_IF_ERROR(csr_write(*port, kCsrCtrl, kCtrlEnable));
  enabled = true;
  return Status::Ok();
}

Result<uint32_t> PortBackend::load(const uint8_t* image, size_t bytes) {
  auto rd = ImageReader::open_view(image, bytes);
  if (!rd.ok()) return rd.status();
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  ImageRec rec;
  rec.bytes = bytes;
  rec.tensors = rd.value()->tensors();
  NDP_RETURN_IF_ERROR(m.plan_image(rec, *rd.value()));
  Status s = store_write(*m.port, rec.dram, image, bytes);
  const bool has_kv = std::any_of(rec.tensors.begin(), rec.tensors.end(),
                                  [](const TensorInfo& t) { return t.kind == TensorKind::kKvStream; });
  if (s.ok() && has_kv) {  // the node's golden-model copy for KV tensors (not mapped by the device)
    rec.kv_copy.assign(image, image + bytes);
    auto kr = ImageReader::open_view(rec.kv_copy.data(), rec.kv_copy.size());
    if (kr.ok()) rec.kv_reader = std::move(kr.value());
  }
  const uint32_t id = m.next_image++;
  const uint64_t dram_at = rec.dram, win_at = rec.win;
  m.images[id] = std::move(rec);
  if (s.ok()) s = m.commit();
  if (!s.ok()) {
    m.images.erase(id);
    m.dram.free(dram_at);
    m.win.free(win_at);
    Status undo = m.commit();
    (void)undo;
    return s;
  }
  return id;
}

Status PortBackend::unload(uint32_t image) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  auto it = m.images.find(image);
  if (it == m.images.end()) return Status::Error("no image " + std::to_string(image) + " loaded");
  m.dram.free(it->second.dram);
  m.win.free(it->second.win);
  m.images.erase(it);
  return m.commit();
}

Status PortBackend::Impl::read_lines(uint8_t window, uint64_t addr, uint64_t bytes, uint8_t* buf,
                                     std::vector<Resp>& resp) {
  resp.clear();
  std::vector<Resp> part;
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(kReadPiece, bytes - done);
    NDP_RETURN_IF_ERROR(port->read(window_address(window, addr + done), n, buf + done, &part));
    resp.insert(resp.end(), part.begin(), part.end());
    done += n;
  }
  return Status::Ok();
}

// Why the beat at `line` failed: clear the error log, read the beat again (a failed chunk is never
// buffered, so the device decodes and logs it again), read ERR_*, clear the log.
Status PortBackend::Impl::explain(uint8_t window, uint64_t line, Resp resp, const ImageRec& rec, size_t tensor) {
  const std::string at = "tensor '" + rec.tensors[tensor].name + "': ";
  if (resp == Resp::kDecErr)
    return Status::Error(at + "the device answered DECERR at " + hexs(window_address(window, line)));
  NDP_RETURN_IF_ERROR(csr_write(*port, kCsrCtrl, kCtrlEnable | kCtrlClearErrLog));
  std::vector<uint8_t> beat(kBeatBytes);
  std::vector<Resp> r;
  NDP_RETURN_IF_ERROR(port->read(window_address(window, line), kBeatBytes, beat.data(), &r));
  auto code = csr_read(*port, kCsrErrCode), chunk = csr_read(*port, kCsrErrChunk), addr = csr_read(*port, kCsrErrAddr);
  NDP_RETURN_IF_ERROR(csr_write(*port, kCsrCtrl, kCtrlEnable | kCtrlClearErrLog));
  if (!code.ok() || !chunk.ok() || !addr.ok() || (code.value() & 0xFF) == kErrNone)
    return Status::Error(at + "the device answered " + resp_name(resp) + " at " + hexs(window_address(window, line)));
  return Status::Error(at + describe_device_error(code.value(), chunk.value(), addr.value(), rec.dram));
}

Status PortBackend::Impl::read_kv_tensor(ImageRec& rec, uint32_t t, const Region& r, uint64_t off, uint64_t n,
                                         uint8_t* out, CallStats* st) {
  if (!rec.kv_reader) return Status::Error("tensor '" + rec.tensors[t].name + "': KV stream not available");
  std::vector<uint8_t> all;
  ReadStats rs;
  Status s = rec.kv_reader->read_region(t, r, all, &rs);
  if (st) {
    st->device_bytes += rs.fetched_bytes;
    st->link_bytes += n;
    st->blocks += rs.blocks;
    st->errors += s.ok() ? 0 : 1;
  }
  if (!s.ok()) return s;
  std::memcpy(out, all.data() + off, n);
  return Status::Ok();
}

Status PortBackend::read(uint32_t image, uint32_t tensor, const Region& r, uint64_t offset, uint64_t bytes,
                         uint8_t* out, CallStats* st) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  auto it = m.images.find(image);
  if (it == m.images.end() || tensor >= it->second.tensors.size())
    return Status::Error("no tensor " + std::to_string(tensor) + " in image " + std::to_string(image));
  ImageRec& rec = it->second;
  const TensorInfo& ti = rec.tensors[tensor];
  if (st) st->host_bytes += bytes;
  if (ti.kind == TensorKind::kKvStream) return m.read_kv_tensor(rec, tensor, r, offset, bytes, out, st);
  if (bytes == 0) return Status::Ok();
  if (rec.base[tensor] == kNoBase) return Status::Error("tensor '" + ti.name + "' is not mapped");
  auto f = format_number(r, ti.dtype);
  if (!f.ok()) return f.status();
  const uint8_t window = region_window(f.value(), r.guard);
  const uint64_t first = offset & ~uint64_t{63}, last = RangeAlloc::align_up(offset + bytes, 64);
  auto c0 = csr_read(*m.port, kCsrCntDramRdBytes), b0 = csr_read(*m.port, kCsrCntBlocks);
  std::vector<uint8_t> buf;
  std::vector<Resp> resp;
  Status s;
  uint64_t bad_line = 0, errors = 0;
  Resp bad_resp = Resp::kOkay;
  for (uint64_t at = first; at < last && s.ok(); at += kReadPiece) {  // bounded memory: one piece at a time
    buf.resize(std::min(kReadPiece, last - at));
    s = m.read_lines(window, rec.base[tensor] + at, buf.size(), buf.data(), resp);
    for (size_t i = 0; i < resp.size(); ++i)
      if (resp[i] != Resp::kOkay && errors++ == 0) {
        bad_line = rec.base[tensor] + at + kBeatBytes * i;
        bad_resp = resp[i];
      }
    const uint64_t lo = std::max(at, offset), hi = std::min(at + buf.size(), offset + bytes);
    if (s.ok() && !errors) std::memcpy(out + (lo - offset), buf.data() + (lo - at), hi - lo);
  }
  // Prefetches the reads started may still be decoding (STATUS bit 2): let the counters settle.
  for (int i = 0; i < 100000; ++i) {
    auto status = csr_read(*m.port, kCsrStatus);
    if (!status.ok() || !(status.value() & kStatusDecoding)) break;
  }
  auto c1 = csr_read(*m.port, kCsrCntDramRdBytes), b1 = csr_read(*m.port, kCsrCntBlocks);
  if (st) {
    st->link_bytes += last - first;
    if (c0.ok() && c1.ok()) st->device_bytes += c1.value() - c0.value();
    if (b0.ok() && b1.ok()) st->blocks += b1.value() - b0.value();
    st->errors += errors;
  }
  if (!s.ok()) return s;
  if (errors) return m.explain(window, bad_line, bad_resp, rec, tensor);
  return Status::Ok();
}

Result<uint64_t> PortBackend::tensor_base(uint32_t image, uint32_t tensor) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->images.find(image);
  if (it == impl_->images.end() || tensor >= it->second.base.size() || it->second.base[tensor] == kNoBase)
    return Status::Error("tensor not mapped");
  return it->second.base[tensor];
}

// KV streams: through the device's KV pages when it has them and takes the geometry, else on the
// golden model in the node (KvStore, stored through the store window).
Result<uint32_t> PortBackend::kv_create(DType t, const KvGeometry& g) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  const uint32_t id = m.next_stream;
  if (m.dkv && m.dkv->fits(t, g)) NDP_RETURN_IF_ERROR(m.dkv->create(id, t, g));
  else NDP_RETURN_IF_ERROR(m.kv.create(id, t, g));
  ++m.next_stream;
  return id;
}
Status PortBackend::kv_append(uint32_t stream, const uint16_t* tm, uint64_t tokens, CallStats* st) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  return m.on_device(stream) ? m.dkv->append(stream, tm, tokens, st) : m.kv.append(stream, tm, tokens, st);
}
Status PortBackend::kv_read(uint32_t stream, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  return m.on_device(stream) ? m.dkv->read(stream, first, tokens, out, st) : m.kv.read(stream, first, tokens, out, st);
}
Result<uint64_t> PortBackend::kv_tokens(uint32_t stream) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  return m.on_device(stream) ? m.dkv->tokens(stream) : m.kv.tokens(stream);
}
Status PortBackend::kv_free(uint32_t stream) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  return m.on_device(stream) ? m.dkv->release(stream) : m.kv.release(stream);
}

Result<bool> PortBackend::kv_on_device(uint32_t stream) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& m = *impl_;
  if (m.on_device(stream)) return true;
  if (m.kv.has(stream)) return false;
  return Status::Error("no KV stream " + std::to_string(stream));
}

BackendInfo PortBackend::info() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  BackendInfo i;
  i.memory_bytes = impl_->dram.size();
  i.free_bytes = impl_->dram.free_bytes();
  if (impl_->energy) i.dram_energy_nj = impl_->energy();
  return i;
}

Result<std::unique_ptr<PortBackend>> make_model_backend(const OpenOptions& o, const std::string& name) {
  DeviceConfig cfg;
  cfg.dram_bytes = o.dram_bytes;
  cfg.chunk_buffers = o.chunk_buffers;
  cfg.max_prefetch = cfg.chunk_buffers >= 2 ? std::min(cfg.max_prefetch, cfg.chunk_buffers - 2) : 0;
  auto m = DeviceModel::create(cfg);
  if (!m.ok()) return m.status();
  DeviceModel* raw = m.value().get();
  auto b = PortBackend::attach(std::move(m.value()), name, [raw] { return raw->dram_stats().total.energy.total_nj(); });
  if (!b.ok()) return b.status();
  return std::move(b.value());
}

}  // namespace ndp::drv
