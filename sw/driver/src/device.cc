// Device: the libndp front end. Validates every request, keeps the tensor tables of the loaded
// images and the statistics, and hands the work to the backend.
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "device_impl.h"

namespace ndp::drv {

namespace {
double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Device::Device() : impl_(std::make_unique<Impl>()) {}
Device::~Device() = default;

Result<std::unique_ptr<Device>> Device::open(std::string_view uri, const OpenOptions& o) {
  auto b = make_backend(std::string(uri), o);
  if (!b.ok()) return b.status();
  std::unique_ptr<Device> d(new Device());
  d->impl_->be = std::move(b.value());
  d->impl_->opts = o;
  d->uri_ = std::string(uri);
  return d;
}

std::string Device::backend_name() const { return impl_->be->name(); }

Result<uint32_t> Device::load(const uint8_t* image, size_t bytes) {
  auto rd = ImageReader::open_view(image, bytes);
  if (!rd.ok()) return rd.status();
  auto id = impl_->be->load(image, bytes);
  if (!id.ok()) return id.status();
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->images[id.value()] = rd.value()->tensors();
  return id;
}

Result<uint32_t> Device::load_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  const bool err = std::ferror(f);
  std::fclose(f);
  if (err) return Status::Error(path + ": read error");
  auto id = load(bytes.data(), bytes.size());
  if (!id.ok()) return Status::Error(path + ": " + id.status().message());
  return id;
}

Status Device::unload(uint32_t image) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->images.count(image)) return Status::Error("no image " + std::to_string(image) + " loaded");
    if (impl_->mapped.count(image)) return Status::Error("image " + std::to_string(image) + " is still mapped");
    impl_->images.erase(image);
  }
  return impl_->be->unload(image);
}

const std::vector<TensorInfo>* Device::tensors(uint32_t image) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->images.find(image);
  return it == impl_->images.end() ? nullptr : &it->second;
}

Result<size_t> Device::find(uint32_t image, std::string_view name) const {
  const std::vector<TensorInfo>* ts = tensors(image);
  if (!ts) return Status::Error("no image " + std::to_string(image) + " loaded");
  for (size_t i = 0; i < ts->size(); ++i)
    if ((*ts)[i].name == name) return i;
  return Status::Error("no tensor named '" + std::string(name) + "' in the image");
}

Result<uint64_t> Device::region_bytes(uint32_t image, size_t tensor, const Region& r) const {
  const std::vector<TensorInfo>* ts = tensors(image);
  if (!ts) return Status::Error("no image " + std::to_string(image) + " loaded");
  if (tensor >= ts->size())
    return Status::Error("tensor " + std::to_string(tensor) + " out of range (" + std::to_string(ts->size()) +
                         " tensors)");
  const TensorInfo& t = (*ts)[tensor];
  Status s = region_valid(r, t.dtype);
  if (!s.ok()) return s.prepend("tensor '" + t.name + "': ");
  return region_output_bytes(r, t.dtype, t.elems);
}

Status Device::Impl::checked_read(uint32_t image, size_t tensor, const Region& r, uint64_t offset, uint64_t bytes,
                                  uint8_t* out, CallStats* st, bool fault) {
  CallStats cs;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = validate_range(image, tensor, r, offset, bytes, "read");
  if (s.ok() && bytes && !out) s = Status::Error("read: null output buffer");
  if (s.ok()) s = be->read(image, static_cast<uint32_t>(tensor), r, offset, bytes, out, &cs);
  cs.seconds = since(t0);
  account(cs, s.ok(), fault);
  if (st) *st = cs;
  return s;
}

Status Device::Impl::validate_range(uint32_t image, size_t tensor, const Region& r, uint64_t offset, uint64_t bytes,
                                    const char* what) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = images.find(image);
  if (it == images.end()) return Status::Error(std::string(what) + ": no image " + std::to_string(image) + " loaded");
  if (tensor >= it->second.size())
    return Status::Error(std::string(what) + ": tensor " + std::to_string(tensor) + " out of range (" +
                         std::to_string(it->second.size()) + " tensors)");
  const TensorInfo& t = it->second[tensor];
  Status s = region_valid(r, t.dtype);
  if (!s.ok()) return s.prepend("tensor '" + t.name + "': ");
  const uint64_t total = region_output_bytes(r, t.dtype, t.elems);
  if (offset > total || bytes > total - offset)
    return Status::Error(std::string(what) + " [" + std::to_string(offset) + ", +" + std::to_string(bytes) +
                         ") beyond tensor '" + t.name + "' region " + region_name(r, t.dtype) + " (" +
                         std::to_string(total) + " bytes)");
  return Status::Ok();
}

void Device::Impl::account(const CallStats& cs, bool ok, bool fault) {
  std::lock_guard<std::mutex> lock(mu);
  totals.total.add(cs);
  totals.calls++;
  totals.failed_calls += ok ? 0 : 1;
  totals.page_faults += fault ? 1 : 0;
}

void Device::Impl::count_fault() {
  std::lock_guard<std::mutex> lock(mu);
  totals.page_faults++;
}

Status Device::read(uint32_t image, size_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
                    CallStats* st) {
  return impl_->checked_read(image, tensor, r, offset, bytes, out, st, false);
}

Status Device::read_region(uint32_t image, size_t tensor, const Region& r, std::vector<uint8_t>& out, CallStats* st) {
  auto n = region_bytes(image, tensor, r);
  if (!n.ok()) return n.status();
  out.resize(n.value());
  return read(image, tensor, r, 0, n.value(), out.data(), st);
}

Result<uint32_t> Device::kv_create(DType t, const KvGeometry& g) {
  auto id = impl_->be->kv_create(t, g);
  if (!id.ok()) return id.status();
  return id;
}

Status Device::kv_append(uint32_t stream, const uint16_t* tm, uint64_t tokens, CallStats* st) {
  CallStats cs;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = impl_->be->kv_append(stream, tm, tokens, &cs);
  cs.seconds = since(t0);
  impl_->account(cs, s.ok(), false);
  if (st) *st = cs;
  return s;
}

Status Device::kv_read(uint32_t stream, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) {
  CallStats cs;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = tokens && !out ? Status::Error("kv_read: null output buffer")
                            : impl_->be->kv_read(stream, first, tokens, out, &cs);
  cs.seconds = since(t0);
  impl_->account(cs, s.ok(), false);
  if (st) *st = cs;
  return s;
}

Result<uint64_t> Device::kv_tokens(uint32_t stream) { return impl_->be->kv_tokens(stream); }
Result<bool> Device::kv_on_device(uint32_t stream) { return impl_->be->kv_on_device(stream); }
Status Device::kv_free(uint32_t stream) { return impl_->be->kv_free(stream); }

DeviceStats Device::stats() const {
  BackendInfo i = impl_->be->info();
  std::lock_guard<std::mutex> lock(impl_->mu);
  DeviceStats s = impl_->totals;
  s.images = impl_->images.size();
  s.device_memory = i.memory_bytes;
  s.device_free = i.free_bytes;
  s.dram_energy_nj = i.dram_energy_nj;
  return s;
}

}  // namespace ndp::drv
