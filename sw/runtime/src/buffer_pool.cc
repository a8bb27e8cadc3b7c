// Pinned buffer pool.
#include "ndp/runtime/buffer_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "ndp/runtime/size.h"

namespace ndp::rt {

Result<std::vector<PoolClass>> plan_buffer_pool(const std::vector<SizeCount>& tensors, uint64_t budget) {
  if (tensors.empty()) return Status::Error("buffer pool: no tensor sizes given");
  std::map<uint64_t, uint64_t> tc;
  for (const auto& t : tensors) {
    if (t.size == 0 || t.count == 0) return Status::Error("buffer pool: tensor size and count must be > 0");
    if (t.size > (1ULL << 40) || t.count > (1ULL << 32)) return Status::Error("buffer pool: size or count too large");
    tc[t.size] += t.count;
  }
  long double total = 0;
  for (const auto& [s, c] : tc) total += static_cast<long double>(s) * c;
  std::vector<PoolClass> out;
  uint64_t any = 0;
  for (const auto& [s, c] : tc) {
    PoolClass p;
    p.size = s;
    p.wanted = c;
    p.share = static_cast<double>(static_cast<long double>(s) * c / total);
    long double fit = static_cast<long double>(p.share) * budget / s;
    p.buffers = std::min<uint64_t>(static_cast<uint64_t>(fit), c);
    any += p.buffers;
    out.push_back(p);
  }
  if (any == 0) return Status::Error("buffer pool: budget " + format_size(budget) + " holds no buffer of any size");
  return out;
}

Result<std::unique_ptr<BufferPool>> BufferPool::create(Runtime& rt, const std::vector<PoolClass>& classes,
                                                       const BufferPoolOptions& o) {
  std::unique_ptr<BufferPool> bp(new BufferPool());
  std::vector<PoolClass> sorted = classes;
  std::stable_sort(sorted.begin(), sorted.end(), [](const PoolClass& a, const PoolClass& b) { return a.size < b.size; });
  uint64_t off = 0, n = 0;
  for (const auto& c : sorted) {
    if (c.size == 0) return Status::Error("buffer pool: class of size 0");
    if (c.buffers == 0) continue;
    if (c.buffers > (1u << 31)) return Status::Error("buffer pool: too many buffers in one class");
    uint64_t stride = align_up(c.size, c.size >= 4096 ? 4096 : 64);
    Cls k{c.size, stride, off, c.buffers, {}};
    for (uint64_t i = c.buffers; i-- > 0;) k.free.push_back(static_cast<uint32_t>(i));
    bp->first_.push_back(n);
    off += stride * c.buffers;
    n += c.buffers;
    bp->cls_.push_back(std::move(k));
  }
  if (bp->cls_.empty()) return Status::Error("buffer pool: no buffers to allocate");
  auto region = rt.allocate(off, o.placement, o.alloc);
  if (!region.ok()) return Status(region.status()).prepend("buffer pool: ");
  bp->region_ = std::move(region.value());
  if (o.lock) {
    if (mlock(bp->region_.data(), bp->region_.size()) != 0)
      return Status::Error("buffer pool: mlock " + format_size(bp->region_.size()) + ": " + std::strerror(errno) +
                           " (raise RLIMIT_MEMLOCK or set lock=false)");
    bp->locked_ = true;
  }
  bp->held_.assign(n, 0);
  bp->st_.capacity = 0;
  for (const auto& c : bp->cls_) bp->st_.capacity += c.size * c.count;
  bp->st_.buffers = bp->st_.free_buffers = n;
  return bp;
}

BufferPool::~BufferPool() {
  if (locked_ && region_.data()) munlock(region_.data(), region_.size());
}

Result<void*> BufferPool::acquire(uint64_t bytes) {
  std::lock_guard<std::mutex> g(mu_);
  if (bytes == 0) return Status::Error("buffer pool: acquire of 0 bytes");
  // Classes are laid out in ascending size, so the first fit is the smallest fit.
  for (size_t k = 0; k < cls_.size(); ++k) {
    Cls& c = cls_[k];
    if (c.size < bytes || c.free.empty()) continue;
    uint32_t i = c.free.back();
    c.free.pop_back();
    held_[first_[k] + i] = bytes;
    ++st_.hits;
    --st_.free_buffers;
    st_.in_use_bytes += c.size;
    st_.requested_bytes += bytes;
    return static_cast<void*>(static_cast<char*>(region_.data()) + c.offset + c.stride * i);
  }
  ++st_.misses;
  return Status::Error("buffer pool: no free buffer of at least " + format_size(bytes));
}

Status BufferPool::release(void* p) {
  std::lock_guard<std::mutex> g(mu_);
  auto base = reinterpret_cast<uintptr_t>(region_.data());
  auto at = reinterpret_cast<uintptr_t>(p);
  if (!p || at < base || at >= base + region_.size())
    return Status::Error("buffer pool: release of a pointer outside the pool");
  uint64_t off = at - base;
  for (size_t k = cls_.size(); k-- > 0;) {
    Cls& c = cls_[k];
    if (off < c.offset) continue;
    uint64_t rel = off - c.offset;
    if (rel % c.stride || rel / c.stride >= c.count)
      return Status::Error("buffer pool: release of a pointer that is not a buffer start (offset " +
                           std::to_string(off) + ")");
    uint64_t i = rel / c.stride;
    uint64_t& h = held_[first_[k] + i];
    if (h == 0) return Status::Error("buffer pool: buffer at offset " + std::to_string(off) + " released twice");
    st_.in_use_bytes -= c.size;
    st_.requested_bytes -= h;
    ++st_.free_buffers;
    h = 0;
    c.free.push_back(static_cast<uint32_t>(i));
    return Status::Ok();
  }
  return Status::Error("buffer pool: release of a pointer outside any class");
}

BufferPoolStats BufferPool::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return st_;
}

}  // namespace ndp::rt
