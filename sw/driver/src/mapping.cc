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

#include <atomic>
#include <cstdlib>
#include <thread>

#include "device_impl.h"

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
  void* raw = nullptr;  // the mmap (over-allocated for alignment)
  uint64_t raw_len = 0;
  uint8_t* base = nullptr;
  int uffd = -1, stop = -1;
  std::thread th;
  std::atomic<uint64_t> faults{0};
  std::mutex mu;
  Status first_error;

  ~Impl() {
    if (th.joinable()) {
      const uint64_t one = 1;
      (void)!write(stop, &one, sizeof one);
      th.join();
    }
    if (raw) munmap(raw, raw_len);
    if (uffd >= 0) close(uffd);
    if (stop >= 0) close(stop);
  }

  // Fill the unit holding `addr` (zero past the region's end, or on a failed read).
  void serve(uint64_t addr, uint8_t* buf) {
    const uint64_t u = (addr - reinterpret_cast<uint64_t>(base)) / unit;
    const uint64_t at = u * unit, n = at < length ? std::min(unit, length - at) : 0;
    Status s = n ? dev->fault_read(image, tensor, r, offset + at, n, buf) : Status::Ok();
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      if (first_error.ok()) first_error = s;
    }
    std::memset(buf + (s.ok() ? n : 0), 0, unit - (s.ok() ? n : 0));
    faults++;  // before the copy wakes the faulting thread
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

  Status start() {
    raw_len = RangeUp(length, unit) + unit;
    raw = mmap(nullptr, raw_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
      raw = nullptr;
      return Status::Error(errno_text("map: mmap"));
    }
    base = reinterpret_cast<uint8_t*>(RangeUp(reinterpret_cast<uint64_t>(raw), unit));
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
  NDP_RETURN_IF_ERROR(mi.start());
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
