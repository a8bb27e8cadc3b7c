// Mapped regions (Device::map): an anonymous read-only range registered with userfaultfd in
// MISSING mode; a handler thread serves each first touch of a fault unit by reading that unit's
// region bytes from the device and installing them with UFFDIO_COPY.
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

#include "device_impl.h"
#include "ndp/runtime/runtime.h"

namespace ndp::drv {

namespace {
constexpr uint64_t kPage = 4096;
std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }
}  // namespace

struct Mapping::Impl {
  Device* dev = nullptr;
  Device::Impl* dimpl = nullptr;
  uint32_t image = 0;
  size_t tensor = 0;
  Region r;
  uint64_t offset = 0, length = 0, unit = kPage;
  uint64_t rc = 1, total = 0;  // region bytes of one chunk and of the tensor
  struct Cached {
    uint64_t k = ~uint64_t{0}, stamp = 0;
    std::vector<uint8_t> bytes;
  } cache[2];
  uint64_t stamp = 0;
  void* raw = nullptr;  // the mmap (over-allocated for alignment)
  uint64_t raw_len = 0;
  uint8_t* base = nullptr;
  int uffd = -1, stop = -1;
  std::thread th;
  std::atomic<uint64_t> faults{0};
  std::mutex mu;
  Status first_error;

  std::optional<rt::Allocation> placed;  // the range, when placed on a host node by sw/runtime

  ~Impl() {
    if (th.joinable()) {
      const uint64_t one = 1;
      (void)!write(stop, &one, sizeof one);
      th.join();
    }
    if (uffd >= 0 && base) {  // before the runtime's munmap
      struct uffdio_range rg = {reinterpret_cast<uint64_t>(base), RangeUp(length, unit)};
      ioctl(uffd, UFFDIO_UNREGISTER, &rg);
    }
    placed.reset();
    if (raw) munmap(raw, raw_len);
    if (uffd >= 0) close(uffd);
    if (stop >= 0) close(stop);
  }

  // Region chunk k (bytes [k rc, min(total, (k + 1) rc))) from the two-entry cache or the device.
  const std::vector<uint8_t>* chunk(uint64_t k, Status* st) {
    for (Cached& c : cache)
      if (c.k == k) {
        c.stamp = ++stamp;
        return &c.bytes;
      }
    Cached& c = cache[0].stamp <= cache[1].stamp ? cache[0] : cache[1];
    c.k = ~uint64_t{0};
    c.bytes.resize(std::min(rc, total - k * rc));
    *st = dimpl->checked_read(image, tensor, r, k * rc, c.bytes.size(), c.bytes.data(), nullptr, false);
    if (!st->ok()) return nullptr;
    c.k = k;
    c.stamp = ++stamp;
    return &c.bytes;
  }

  // Region bytes [from, from + n) into buf: one read for a large unit, else through the chunk cache.
  Status fill(uint64_t from, uint64_t n, uint8_t* buf) {
    if (n >= 2 * rc) return dimpl->checked_read(image, tensor, r, from, n, buf, nullptr, false);
    Status st;
    for (uint64_t k = from / rc; k * rc < from + n; ++k) {
      const std::vector<uint8_t>* c = chunk(k, &st);
      if (!c) return st;
      const uint64_t lo = std::max(from, k * rc), hi = std::min(from + n, k * rc + c->size());
      std::memcpy(buf + (lo - from), c->data() + (lo - k * rc), hi - lo);
    }
    return st;
  }

  // Fill the unit holding `addr` (zero past the mapped length, or on a failed read).
  void serve(uint64_t addr, uint8_t* buf) {
    const uint64_t u = (addr - reinterpret_cast<uint64_t>(base)) / unit;
    const uint64_t at = u * unit, n = at < length ? std::min(unit, length - at) : 0;
    Status s = n ? fill(offset + at, n, buf) : Status::Ok();
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      if (first_error.ok()) first_error = s;
    }
    std::memset(buf + (s.ok() ? n : 0), 0, unit - (s.ok() ? n : 0));
    faults++;  // before the copy wakes the faulting thread
    dimpl->count_fault();
    struct uffdio_copy c = {};
    c.dst = reinterpret_cast<uint64_t>(base) + at;
    c.src = reinterpret_cast<uint64_t>(buf);
    c.len = unit;
    if (ioctl(uffd, UFFDIO_COPY, &c) != 0 && errno != EEXIST) {
      std::lock_guard<std::mutex> lock(mu);
      if (first_error.ok()) first_error = Status::Error(errno_text("UFFDIO_COPY"));
    }
  }

  void loop() {
    void* buf = std::aligned_alloc(kPage, unit);
    for (;;) {
      struct pollfd p[2] = {{uffd, POLLIN, 0}, {stop, POLLIN, 0}};
      if (poll(p, 2, -1) < 0 && errno != EINTR) break;
      if (p[1].revents) break;
      struct uffd_msg m;
      const ssize_t got = read(uffd, &m, sizeof m);
      if (got != sizeof m) continue;  // EAGAIN: another read took it
      if (m.event == UFFD_EVENT_PAGEFAULT) serve(m.arg.pagefault.address & ~(kPage - 1), static_cast<uint8_t*>(buf));
    }
    std::free(buf);
  }

  // The range: unit-aligned, read-only, not yet faulted in; bound to host_node when given.
  Status reserve(int host_node) {
    if (host_node >= 0) {
      auto topo = rt::discover_sysfs();
      if (!topo.ok()) return topo.status();
      rt::AllocOptions ao;
      ao.populate = false;
      ao.align = unit;
      auto a = rt::Runtime(std::move(topo.value())).allocate(RangeUp(length, unit), rt::Placement::on_node(host_node), ao);
      if (!a.ok()) return Status::Error("map: " + a.status().message());
      placed.emplace(std::move(a.value()));
      base = static_cast<uint8_t*>(placed->data());
      if (mprotect(base, RangeUp(length, unit), PROT_READ) != 0) return Status::Error(errno_text("map: mprotect"));
      return Status::Ok();
    }
    raw_len = RangeUp(length, unit) + unit;
    raw = mmap(nullptr, raw_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
      raw = nullptr;
      return Status::Error(errno_text("map: mmap"));
    }
    base = reinterpret_cast<uint8_t*>(RangeUp(reinterpret_cast<uint64_t>(raw), unit));
    return Status::Ok();
  }

  Status start(int host_node) {
    NDP_RETURN_IF_ERROR(reserve(host_node));
    uffd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
    if (uffd < 0)
      return Status::Error(errno_text("map: userfaultfd unavailable (needs root or vm.unprivileged_userfaultfd=1)"));
    struct uffdio_api api = {};
    api.api = UFFD_API;
    if (ioctl(uffd, UFFDIO_API, &api) != 0) return Status::Error(errno_text("map: UFFDIO_API"));
    struct uffdio_register reg = {};
    reg.range.start = reinterpret_cast<uint64_t>(base);
    reg.range.len = RangeUp(length, unit);
    reg.mode = UFFDIO_REGISTER_MODE_MISSING;
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) return Status::Error(errno_text("map: UFFDIO_REGISTER"));
    stop = eventfd(0, EFD_CLOEXEC);
    if (stop < 0) return Status::Error(errno_text("map: eventfd"));
    th = std::thread([this] { loop(); });
    return Status::Ok();
  }

  static uint64_t RangeUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
};

Result<std::unique_ptr<Mapping>> Device::map(uint32_t image, size_t tensor, const Region& r, uint64_t offset,
                                             uint64_t length, uint64_t fault_bytes) {
  if (fault_bytes != kPage && fault_bytes != (uint64_t{2} << 20))
    return Status::Error("map: fault unit must be 4096 or 2097152 bytes, not " + std::to_string(fault_bytes));
  if (offset % kPage)
    return Status::Error("map: unaligned map: offset " + std::to_string(offset) + " is not a multiple of 4096");
  if (length == 0) return Status::Error("map: length 0");
  NDP_RETURN_IF_ERROR(impl_->validate_range(image, tensor, r, offset, length, "map"));
  const TensorInfo& ti = (*tensors(image))[tensor];
  std::unique_ptr<Mapping> m(new Mapping());
  m->impl_ = std::make_unique<Mapping::Impl>();
  Mapping::Impl& mi = *m->impl_;
  mi.dev = this;
  mi.dimpl = impl_.get();
  mi.image = image;
  mi.tensor = tensor;
  mi.r = r;
  mi.offset = offset;
  mi.length = length;
  mi.unit = fault_bytes;
  mi.total = region_output_bytes(r, ti.dtype, ti.elems);
  mi.rc = ti.kind == TensorKind::kWeight ? region_output_bytes(r, ti.dtype, ti.chunk_elems) : mi.total;
  NDP_RETURN_IF_ERROR(mi.start(impl_->opts.host_node));
  m->addr_ = mi.base;
  m->length_ = length;
  m->unit_ = fault_bytes;
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->mapped.insert(image);
  return m;
}

Mapping::~Mapping() {
  if (!impl_) return;
  Device::Impl* d = impl_->dimpl;
  const uint32_t image = impl_->image;
  impl_.reset();
  std::lock_guard<std::mutex> lock(d->mu);
  auto it = d->mapped.find(image);
  if (it != d->mapped.end()) d->mapped.erase(it);
}

uint64_t Mapping::faults() const { return impl_->faults; }

Status Mapping::status() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->first_error;
}

}  // namespace ndp::drv
