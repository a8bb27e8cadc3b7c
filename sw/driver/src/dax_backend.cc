// The dax backend (docs/driver.md, "dax"): CXL memory without an NDP controller, as a devdax
// character device, a regular file standing in for one, or the memory of a CPU-less NUMA node
// placed with sw/runtime. Stored images are copied into that memory unmodified and read with
// software NDP (SoftReader): only the plane blocks a region needs cross the link.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>

#include "backends.h"
#include "kv_store.h"
#include "ndp/runtime/runtime.h"
#include "ndp/soft_ndp.h"
#include "range_alloc.h"

namespace ndp::drv {

namespace {

constexpr uint64_t kDaxAlign = uint64_t{2} << 20;  // devdax mappings are made in 2 MiB units

struct DaxImage {
  uint64_t at = 0, bytes = 0;
  std::unique_ptr<ImageReader> reader;
  std::unique_ptr<SoftReader> soft;
};

// Size of a devdax character device from sysfs (/sys/dev/char/MAJ:MIN/size).
Result<uint64_t> devdax_size(const std::string& path, const struct stat& sb) {
  const std::string sys = "/sys/dev/char/" + std::to_string(major(sb.st_rdev)) + ":" +
                          std::to_string(minor(sb.st_rdev)) + "/size";
  std::ifstream f(sys);
  uint64_t size = 0;
  if (!(f >> size) || size == 0) return Status::Error("dax:" + path + ": not a devdax device (no " + sys + ")");
  return size;
}

class DaxBackend : public Backend, public KvMemory {
 public:
  ~DaxBackend() override {
    images_.clear();
    kv_.reset();
    if (map_) munmap(map_, map_len_);
    if (fd_ >= 0) close(fd_);
  }

  static Result<std::unique_ptr<Backend>> open_path(const std::string& path);
  static Result<std::unique_ptr<Backend>> open_node(int node, uint64_t bytes);

  std::string name() const override { return name_; }

  Result<uint32_t> load(const uint8_t* image, size_t bytes) override {
    std::unique_lock<std::shared_mutex> lock(mu_);
    auto at = alloc_.alloc(bytes, 4096);
    if (!at)
      return Status::Error("image does not fit: " + std::to_string(bytes) + " bytes, " + name_ + " has " +
                           std::to_string(alloc_.free_bytes()) + " of " + std::to_string(alloc_.size()) +
                           " bytes free");
    std::memcpy(mem_ + *at, image, bytes);
    auto rd = ImageReader::open_view(mem_ + *at, bytes);  // validates from CXL memory
    if (!rd.ok()) {
      alloc_.free(*at);
      return rd.status();
    }
    DaxImage im;
    im.at = *at;
    im.bytes = bytes;
    im.reader = std::move(rd.value());
    im.soft = std::make_unique<SoftReader>(*im.reader, mem_ + *at);
    const uint32_t id = next_++;
    images_[id] = std::move(im);
    return id;
  }

  Status unload(uint32_t image) override {
    std::unique_lock<std::shared_mutex> lock(mu_);
    auto it = images_.find(image);
    if (it == images_.end()) return Status::Error("no image " + std::to_string(image) + " loaded");
    alloc_.free(it->second.at);
    images_.erase(it);
    return Status::Ok();
  }

  Status read(uint32_t image, uint32_t tensor, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
              CallStats* st) override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = images_.find(image);
    if (it == images_.end()) return Status::Error("no image " + std::to_string(image) + " loaded");
    return it->second.soft->read(tensor, r, offset, bytes, out, st);
  }

  Result<uint32_t> kv_create(DType t, const KvGeometry& g) override {
    std::lock_guard<std::mutex> lock(kv_mu_);
    NDP_RETURN_IF_ERROR(kv_->create(kv_next_, t, g));
    return kv_next_++;
  }
  Status kv_append(uint32_t s, const uint16_t* tm, uint64_t tokens, CallStats* st) override {
    std::lock_guard<std::mutex> lock(kv_mu_);
    return kv_->append(s, tm, tokens, st);
  }
  Status kv_read(uint32_t s, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) override {
    std::lock_guard<std::mutex> lock(kv_mu_);
    return kv_->read(s, first, tokens, out, st);
  }
  Result<uint64_t> kv_tokens(uint32_t s) override {
    std::lock_guard<std::mutex> lock(kv_mu_);
    return kv_->tokens(s);
  }
  Result<bool> kv_on_device(uint32_t s) override {  // software NDP: the windows are the node's
    std::lock_guard<std::mutex> lock(kv_mu_);
    auto t = kv_->tokens(s);
    if (!t.ok()) return t.status();
    return false;
  }
  Status kv_free(uint32_t s) override {
    std::lock_guard<std::mutex> lock(kv_mu_);
    return kv_->release(s);
  }

  BackendInfo info() override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    BackendInfo i;
    i.memory_bytes = alloc_.size();
    i.free_bytes = alloc_.free_bytes();
    return i;
  }

  // KvMemory over the mapped range (callers hold kv_mu_; the allocator is shared with images).
  Result<uint64_t> kv_alloc(uint64_t bytes) override {
    std::unique_lock<std::shared_mutex> lock(mu_);
    auto a = alloc_.alloc(bytes, 64);
    if (!a) return Status::Error(name_ + " full (" + std::to_string(alloc_.free_bytes()) + " bytes free)");
    return *a;
  }
  void kv_release(uint64_t addr) override {
    std::unique_lock<std::shared_mutex> lock(mu_);
    alloc_.free(addr);
  }
  Status kv_store(uint64_t addr, const uint8_t* data, size_t n, CallStats* st) override {
    std::memcpy(mem_ + addr, data, n);
    if (st) st->link_bytes += n;
    return Status::Ok();
  }
  Status kv_fetch(uint64_t addr, size_t n, uint8_t* out, CallStats* st) override {
    std::memcpy(out, mem_ + addr, n);
    if (st) {
      st->link_bytes += n;
      st->device_bytes += n;
    }
    return Status::Ok();
  }

 private:
  DaxBackend() : kv_(std::make_unique<KvStore>(*this)) {}
  void attach(uint8_t* mem, uint64_t size, std::string name) {
    mem_ = mem;
    alloc_ = RangeAlloc(size);
    name_ = std::move(name);
  }

  std::string name_;
  int fd_ = -1;
  void* map_ = nullptr;
  uint64_t map_len_ = 0;
  std::optional<rt::Allocation> node_mem_;
  uint8_t* mem_ = nullptr;
  std::shared_mutex mu_;
  RangeAlloc alloc_;
  std::map<uint32_t, DaxImage> images_;
  uint32_t next_ = 1;
  std::mutex kv_mu_;
  std::unique_ptr<KvStore> kv_;
  uint32_t kv_next_ = 1;  // KV stream ids
};

Result<std::unique_ptr<Backend>> DaxBackend::open_path(const std::string& path) {
  const std::string w = "dax:" + path + ": ";
  if (path.empty()) return Status::Error("dax: needs a path (dax:/dev/daxX.Y or dax:FILE)");
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Status::Error(w + "cannot open: " + std::strerror(errno));
  std::unique_ptr<DaxBackend> b(new DaxBackend());
  b->fd_ = fd;
  struct stat sb;
  if (fstat(fd, &sb) != 0) return Status::Error(w + "fstat failed: " + std::strerror(errno));
  uint64_t size = 0;
  if (S_ISCHR(sb.st_mode)) {
    auto s = devdax_size(path, sb);
    if (!s.ok()) return s.status();
    size = s.value() / kDaxAlign * kDaxAlign;
  } else if (S_ISREG(sb.st_mode)) {
    size = static_cast<uint64_t>(sb.st_size);
    if (size < 4096) return Status::Error(w + "file of " + std::to_string(size) + " bytes (make one with truncate -s 1G)");
  } else {
    return Status::Error(w + "neither a devdax device nor a regular file");
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status::Error(w + "mmap of " + std::to_string(size) + " bytes failed: " + std::strerror(errno));
  b->map_ = p;
  b->map_len_ = size;
  b->attach(static_cast<uint8_t*>(p), size, "dax:" + path);
  return std::unique_ptr<Backend>(std::move(b));
}

Result<std::unique_ptr<Backend>> DaxBackend::open_node(int node, uint64_t bytes) {
  auto topo = rt::discover_sysfs();
  if (!topo.ok()) return topo.status();
  rt::Runtime runtime(std::move(topo.value()));
  rt::AllocOptions ao;
  ao.populate = false;  // bound to the node now, faulted in as images are written
  auto a = runtime.allocate(bytes, rt::Placement::on_node(node), ao);
  if (!a.ok()) return a.status();
  std::unique_ptr<DaxBackend> b(new DaxBackend());
  b->node_mem_.emplace(std::move(a.value()));
  b->attach(static_cast<uint8_t*>(b->node_mem_->data()), b->node_mem_->size(), "dax:numa:" + std::to_string(node));
  return std::unique_ptr<Backend>(std::move(b));
}

}  // namespace

Result<std::unique_ptr<Backend>> make_dax_backend(const std::string& arg, const OpenOptions& o) {
  if (arg.rfind("numa:", 0) == 0) {
    char* end = nullptr;
    const long node = std::strtol(arg.c_str() + 5, &end, 10);
    if (arg.size() == 5 || *end != '\0' || node < 0) return Status::Error("dax:" + arg + ": expected dax:numa:N");
    auto b = DaxBackend::open_node(static_cast<int>(node), o.dram_bytes);
    if (!b.ok()) return Status::Error("dax:" + arg + ": " + b.status().message());
    return b;
  }
  return DaxBackend::open_path(arg);
}

}  // namespace ndp::drv
