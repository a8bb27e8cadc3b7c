// Creating, opening and validating a pool: the file, devdax or memfd backing, the layout of the
// regions (format.h) and the superblock checks that detect a corrupt or foreign header.
#include <fcntl.h>
#include <numaif.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "ndp/runtime/mempolicy.h"
#include "pool_internal.h"

namespace ndp::kv {
namespace {

constexpr uint64_t kDaxAlign = 2ull << 20;

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t pow2_at_least(uint64_t v) {
  uint64_t p = 64;
  while (p < v) p <<= 1;
  return p;
}
std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

struct Layout {
  uint64_t slot = 0, blocks = 0, index_slots = 0;
  uint64_t off_state = 0, off_index = 0, off_rpc = 0, off_data = 0, total = 0;
};

Layout layout_for(const Geometry& g, uint64_t blocks, uint32_t channels, uint32_t depth) {
  Layout l;
  l.slot = round_up(sizeof(fmt::BlockHeader) + g.block_bytes(), kCacheLine);
  l.blocks = blocks;
  l.index_slots = pow2_at_least(2 * blocks);
  l.off_state = fmt::kSuperBytes;
  l.off_index = round_up(l.off_state + 8 * blocks, kCacheLine);
  l.off_rpc = round_up(l.off_index + 8 * l.index_slots, 4096);
  l.off_data = round_up(l.off_rpc + uint64_t{channels} * fmt::channel_bytes(depth), 4096);
  l.total = round_up(l.off_data + blocks * l.slot, 4096);
  return l;
}

// The most blocks whose layout fits in `bytes`.
uint64_t blocks_fitting(const Geometry& g, uint64_t bytes, uint32_t channels, uint32_t depth) {
  uint64_t lo = 0, hi = fmt::kMaxBlocks;
  while (lo < hi) {
    const uint64_t mid = (lo + hi + 1) / 2;
    if (layout_for(g, mid, channels, depth).total <= bytes)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Size of a devdax character device from sysfs; 0 and an error when it is not one.
Result<uint64_t> devdax_size(const std::string& path, const struct stat& st) {
  const std::string sys = "/sys/dev/char/" + std::to_string(major(st.st_rdev)) + ":" +
                          std::to_string(minor(st.st_rdev)) + "/size";
  std::ifstream f(sys);
  uint64_t v = 0;
  if (!(f >> v) || v == 0) return Status::Error(path + ": character device without a devdax size in " + sys);
  return v;
}

Status check_create(const CreateOptions& o) {
  NDP_RETURN_IF_ERROR(o.geometry.validate());
  if (o.rpc_channels == 0 || o.rpc_channels > 4096) return Status::Error("rpc_channels must be 1..4096");
  if (o.rpc_depth == 0 || o.rpc_depth > 1024) return Status::Error("rpc_depth must be 1..1024");
  if (o.blocks > fmt::kMaxBlocks) return Status::Error("at most " + std::to_string(fmt::kMaxBlocks) + " blocks");
  if (o.blocks == 0 && o.pool_bytes == 0) return Status::Error("give the number of blocks or the pool size");
  return Status::Ok();
}

void fill_super(fmt::Superblock& sb, const CreateOptions& o, const Layout& l, uint64_t pool_bytes) {
  std::memset(&sb, 0, sizeof sb);
  std::memcpy(sb.magic, fmt::kMagic, sizeof sb.magic);
  sb.version = fmt::kVersion;
  sb.super_bytes = fmt::kSuperBytes;
  sb.pool_bytes = pool_bytes;
  sb.tokens = o.geometry.tokens, sb.layers = o.geometry.layers, sb.kv_heads = o.geometry.kv_heads;
  sb.head_dim = o.geometry.head_dim, sb.elem_bytes = o.geometry.elem_bytes;
  sb.coherence = static_cast<uint32_t>(o.coherence);
  sb.block_bytes = o.geometry.block_bytes(), sb.slot_bytes = l.slot, sb.n_blocks = l.blocks;
  sb.index_slots = l.index_slots, sb.rpc_channels = o.rpc_channels, sb.rpc_depth = o.rpc_depth;
  sb.off_state = l.off_state, sb.off_index = l.off_index, sb.off_rpc = l.off_rpc, sb.off_data = l.off_data;
  sb.created_ns = now_realtime_ns();
  sb.uuid = std::random_device{}() | (uint64_t{std::random_device{}()} << 32);
  sb.checksum = XXH64(&sb, offsetof(fmt::Superblock, checksum), 0);
}

Status bind_node(void* p, uint64_t len, int node) {
  if (node < 0) return Status::Ok();
  const auto allowed = rt::allowed_memory_nodes();
  if (std::find(allowed.begin(), allowed.end(), node) == allowed.end())
    return Status::Error("node " + std::to_string(node) + " is not an online memory node this process may use");
  NDP_RETURN_IF_ERROR(rt::detail::mbind_nodes(p, len, MPOL_BIND, {node}, MPOL_MF_STRICT));
  return rt::detail::populate_write(p, len);
}

}  // namespace

Status Geometry::validate() const {
  if (!tokens || !layers || !kv_heads || !head_dim) return Status::Error("block geometry: every dimension must be > 0");
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4)
    return Status::Error("block geometry: elem_bytes must be 1, 2 or 4, got " + std::to_string(elem_bytes));
  if (block_bytes() > (1ull << 30)) return Status::Error("block geometry: a block over 1 GiB (" + describe() + ")");
  return Status::Ok();
}

std::string Geometry::describe() const {
  return std::to_string(tokens) + " tok x " + std::to_string(layers) + " layers x " + std::to_string(kv_heads) +
         " heads x " + std::to_string(head_dim) + " ch x " + std::to_string(elem_bytes) + " B = " +
         std::to_string(block_bytes()) + " B";
}

const char* fault_point_name(FaultPoint p) {
  static const char* names[] = {"allocated", "payload-half", "payload-done", "sealed", "indexed", "remove-unindexed"};
  return names[static_cast<int>(p)];
}

class PoolMapper {
 public:
  static Result<std::unique_ptr<KvStore>> format(int fd, const std::string& path, const CreateOptions& o,
                                                 uint64_t avail, bool is_dax);
  static Result<std::unique_ptr<KvStore>> map_existing(int fd, const std::string& path, uint64_t size,
                                                       bool is_dax, const OpenOptions& oo);
};

Result<std::unique_ptr<KvStore>> PoolMapper::format(int fd, const std::string& path, const CreateOptions& o,
                                                    uint64_t avail, bool is_dax) {
  uint64_t blocks = o.blocks;
  if (blocks == 0) blocks = blocks_fitting(o.geometry, o.pool_bytes ? o.pool_bytes : avail, o.rpc_channels, o.rpc_depth);
  if (blocks == 0) return Status::Error(path + ": " + std::to_string(o.pool_bytes ? o.pool_bytes : avail) +
                                        " B cannot hold one block of " + std::to_string(o.geometry.block_bytes()) + " B");
  const Layout l = layout_for(o.geometry, blocks, o.rpc_channels, o.rpc_depth);
  const uint64_t size = std::max(l.total, o.pool_bytes);
  if (is_dax && size > avail)
    return Status::Error(path + ": the pool needs " + std::to_string(size) + " B, the device has " + std::to_string(avail));
  if (!is_dax && ftruncate(fd, static_cast<off_t>(size)) != 0) return Status::Error(errno_text(path + ": ftruncate"));
  const uint64_t map = is_dax ? round_up(size, kDaxAlign) : size;
  void* p = mmap(nullptr, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status::Error(errno_text(path + ": mmap " + std::to_string(map) + " B"));
  std::unique_ptr<KvStore> s(new KvStore());
  s->fd_ = fd, s->base_ = static_cast<uint8_t*>(p), s->map_bytes_ = map, s->path_ = path;
  if (auto st = bind_node(p, map, o.numa_node); !st.ok()) return st.prepend(path + ": ");
  if (o.populate && o.numa_node < 0)
    if (auto st = rt::detail::populate_write(p, map); !st.ok()) return st.prepend(path + ": ");
  // Metadata first (a devdax or reused file holds old bytes), the superblock last: a create
  // that dies half way leaves no valid magic.
  std::memset(s->base_, 0, l.off_data);
  flush_lines(s->base_, l.off_data);
  fmt::Superblock sb;
  fill_super(sb, o, l, size);
  store_bytes(s->base_, &sb, sizeof sb, Coherence::kFlush);
  NDP_RETURN_IF_ERROR(s->init_from_super(path));
  return s;
}

Result<std::unique_ptr<KvStore>> KvStore::create(const std::string& path, const CreateOptions& o) {
  NDP_RETURN_IF_ERROR(check_create(o).prepend(path + ": "));
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISCHR(st.st_mode)) {
    auto sz = devdax_size(path, st);
    if (!sz.ok()) return sz.status();
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return Status::Error(errno_text(path + ": open"));
    auto r = PoolMapper::format(fd, path, o, sz.value(), true);
    if (!r.ok()) ::close(fd);
    return r;
  }
  if (exists && !o.overwrite) return Status::Error(path + ": exists (pass overwrite / --force to replace it)");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error(errno_text(path + ": create"));
  auto r = PoolMapper::format(fd, path, o, 0, false);
  if (!r.ok()) ::close(fd);
  return r;
}

Result<std::unique_ptr<KvStore>> KvStore::create_memfd(const std::string& name, const CreateOptions& o) {
  NDP_RETURN_IF_ERROR(check_create(o).prepend("memfd:" + name + ": "));
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return Status::Error(errno_text("memfd_create " + name));
  auto r = PoolMapper::format(fd, "memfd:" + name, o, 0, false);
  if (!r.ok()) ::close(fd);
  return r;
}

Result<std::unique_ptr<KvStore>> PoolMapper::map_existing(int fd, const std::string& path, uint64_t size,
                                                          bool is_dax, const OpenOptions& oo) {
  if (size < fmt::kSuperBytes)
    return Status::Error(path + ": " + std::to_string(size) + " B is too small for a pool superblock");
  const uint64_t map = is_dax ? round_up(size, kDaxAlign) : size;
  void* p = mmap(nullptr, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status::Error(errno_text(path + ": mmap"));
  std::unique_ptr<KvStore> s(new KvStore());
  s->fd_ = fd, s->base_ = static_cast<uint8_t*>(p), s->map_bytes_ = map, s->path_ = path;
  invalidate_lines(s->base_, sizeof(fmt::Superblock));
  NDP_RETURN_IF_ERROR(s->init_from_super(path));
  if (!oo.use_pool_coherence) s->coh_ = oo.coherence;
  return s;
}

Result<std::unique_ptr<KvStore>> KvStore::open(const std::string& path, const OpenOptions& o) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Status::Error(errno_text(path + ": open"));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    return Status::Error(errno_text(path + ": stat"));
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  const bool dax = S_ISCHR(st.st_mode);
  if (dax) {
    auto sz = devdax_size(path, st);
    if (!sz.ok()) {
      ::close(fd);
      return sz.status();
    }
    size = sz.value();
  }
  auto r = PoolMapper::map_existing(fd, path, size, dax, o);
  if (!r.ok()) ::close(fd);
  return r;
}

// Every field of the superblock is checked before anything else in the pool is touched.
Status KvStore::init_from_super(const std::string& origin) {
  fmt::Superblock sb;
  std::memcpy(&sb, base_, sizeof sb);
  auto bad = [&](const char* field, size_t off, const std::string& why) {
    return Status::Error(origin + ": corrupt pool header: " + field + " at offset " + std::to_string(off) + " " + why);
  };
  if (std::memcmp(sb.magic, fmt::kMagic, sizeof sb.magic) != 0)
    return bad("magic", offsetof(fmt::Superblock, magic), "is not NDPKVS01 (not a KV pool, or destroyed)");
  if (sb.version != fmt::kVersion)
    return bad("version", offsetof(fmt::Superblock, version), "is " + std::to_string(sb.version) + ", expected 1");
  if (sb.checksum != XXH64(&sb, offsetof(fmt::Superblock, checksum), 0))
    return bad("checksum", offsetof(fmt::Superblock, checksum), "does not match the superblock");
  geo_ = Geometry{sb.tokens, sb.layers, sb.kv_heads, sb.head_dim, sb.elem_bytes};
  if (auto st = geo_.validate(); !st.ok()) return st.prepend(origin + ": ");
  const Layout l = layout_for(geo_, sb.n_blocks, sb.rpc_channels, sb.rpc_depth);
  if (sb.n_blocks == 0 || sb.n_blocks > fmt::kMaxBlocks || sb.block_bytes != geo_.block_bytes() ||
      sb.slot_bytes != l.slot || sb.index_slots != l.index_slots || sb.off_state != l.off_state ||
      sb.off_index != l.off_index || sb.off_rpc != l.off_rpc || sb.off_data != l.off_data || sb.coherence > 2)
    return bad("layout", offsetof(fmt::Superblock, n_blocks), "is inconsistent with the geometry");
  if (l.total > sb.pool_bytes || sb.pool_bytes > map_bytes_)
    return bad("pool_bytes", offsetof(fmt::Superblock, pool_bytes),
               "= " + std::to_string(sb.pool_bytes) + " does not fit the mapping of " + std::to_string(map_bytes_) + " B");
  pool_bytes_ = sb.pool_bytes, n_blocks_ = sb.n_blocks, slot_bytes_ = sb.slot_bytes, index_slots_ = sb.index_slots;
  off_state_ = sb.off_state, off_index_ = sb.off_index, off_rpc_ = sb.off_rpc, off_data_ = sb.off_data;
  rpc_channels_ = sb.rpc_channels, rpc_depth_ = sb.rpc_depth;
  coh_ = static_cast<Coherence>(sb.coherence);
  local_ = std::make_unique<LocalMeta>(*this);
  meta_ = local_.get();
  return Status::Ok();
}

KvStore::~KvStore() {
  if (base_) munmap(base_, map_bytes_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ndp::kv
