// Cache-line flush, invalidate and non-temporal copy for the software-coherent pool (coherence.h).
#include "ndp/kvstore/coherence.h"

#include <atomic>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace ndp::kv {

const char* coherence_name(Coherence c) {
  switch (c) {
    case Coherence::kNonTemporal: return "nt";
    case Coherence::kFlush: return "flush";
    default: return "host";
  }
}

Result<Coherence> parse_coherence(const std::string& s) {
  if (s == "host") return Coherence::kHost;
  if (s == "nt") return Coherence::kNonTemporal;
  if (s == "flush") return Coherence::kFlush;
  return Status::Error("coherence mode '" + s + "' is not one of host, nt, flush");
}

const CpuCacheOps& cpu_cache_ops() {
  static const CpuCacheOps ops = [] {
    CpuCacheOps o;
#if defined(__x86_64__)
    o.x86 = true;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
      o.clflushopt = (b >> 23) & 1u;
      o.clwb = (b >> 24) & 1u;
    }
#endif
    return o;
  }();
  return ops;
}

namespace {

inline uintptr_t line_down(const void* p) { return reinterpret_cast<uintptr_t>(p) & ~uintptr_t(kCacheLine - 1); }

#if defined(__x86_64__)
__attribute__((target("clflushopt"))) void flush_opt(uintptr_t a, uintptr_t end) {
  for (; a < end; a += kCacheLine) _mm_clflushopt(reinterpret_cast<void*>(a));
}
void flush_legacy(uintptr_t a, uintptr_t end) {
  for (; a < end; a += kCacheLine) _mm_clflush(reinterpret_cast<void*>(a));
}

// Streaming copy: the unaligned head and tail go through the cache and are flushed; the aligned
// middle is written with MOVNTDQ, 64 bytes per step.
void nt_copy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const size_t head = std::min(n, (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15);
  if (head) {
    std::memcpy(d, s, head);
    flush_lines(d, head);
  }
  d += head, s += head, n -= head;
  for (; n >= 64; d += 64, s += 64, n -= 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  for (; n >= 16; d += 16, s += 16, n -= 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  if (n) {
    std::memcpy(d, s, n);
    flush_lines(d, n);
  }
  _mm_sfence();
}
#endif

}  // namespace

void store_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

void full_fence() {
#if defined(__x86_64__)
  _mm_mfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

namespace {
// Write back and invalidate the lines of [p, p+n); the caller fences. Returns whether the weakly
// ordered CLFLUSHOPT was used (an SFENCE then orders it; CLFLUSH needs MFENCE).
bool flush_range(const void* p, size_t n) {
#if defined(__x86_64__)
  const uintptr_t a = line_down(p), end = reinterpret_cast<uintptr_t>(p) + n;
  if (cpu_cache_ops().clflushopt) {
    flush_opt(a, end);
    return true;
  }
  flush_legacy(a, end);
#else
  (void)p, (void)n;
#endif
  return false;
}
}  // namespace

void flush_lines(const void* p, size_t n) {
  if (n == 0) return;
  if (flush_range(p, n))
    store_fence();
  else
    full_fence();
}

// CLFLUSHOPT also invalidates; either way a full fence orders the flushes before later loads.
void invalidate_lines(const void* p, size_t n) {
  if (n == 0) return;
  flush_range(p, n);
  full_fence();
}

void store_bytes(void* dst, const void* src, size_t n, Coherence c) {
  switch (c) {
    case Coherence::kNonTemporal:
#if defined(__x86_64__)
      nt_copy(dst, src, n);
      return;
#endif
      [[fallthrough]];
    case Coherence::kFlush:
      std::memcpy(dst, src, n);
      flush_lines(dst, n);
      return;
    default:
      std::memcpy(dst, src, n);
  }
}

void load_bytes(void* dst, const void* src, size_t n, Coherence c) {
  if (c != Coherence::kHost) invalidate_lines(src, n);
  std::memcpy(dst, src, n);
}

void publish(const void* word, Coherence c) {
  if (c != Coherence::kHost) flush_lines(word, 8);
}

void refresh(const void* word, Coherence c) {
  if (c != Coherence::kHost) invalidate_lines(word, 8);
}

}  // namespace ndp::kv
