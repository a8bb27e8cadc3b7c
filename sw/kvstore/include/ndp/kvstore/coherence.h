// Software coherence for memory that other hosts share without hardware cache coherence (a CXL 2.0
// pool behind a switch, ../shared/papers/beluga-kvcache.txt section 5.1): how bytes are stored into
// and loaded from the shared pool, and how a control word is published.
//
//   kHost        cache-coherent sharing: processes of one host, or hosts under CXL 3 hardware
//                coherence. Plain stores and loads; release/acquire atomics order them.
//   kNonTemporal writer: non-temporal (streaming) stores that bypass the cache, then a store
//                fence; control words written back with a cache-line flush. Reader: each line is
//                flushed (invalidated) from the local cache before it is loaded. Beluga's O1.
//   kFlush       writer: ordinary stores, then every written line flushed (CLFLUSHOPT, or CLFLUSH
//                where the CPU lacks it) and a store fence. Reader: as kNonTemporal.
//
// CLWB is not used on the read side: it writes a line back but may keep it cached, so a later load
// can still hit a stale copy. Atomic read-modify-write (compare-and-swap) is coherent only within
// one host: across non-coherent hosts the pool's allocator and index must be driven by one
// process (the index service, rpc.h) and the other hosts reach them over the shared-memory RPC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ndp/status.h"

namespace ndp::kv {

enum class Coherence : uint8_t { kHost = 0, kNonTemporal = 1, kFlush = 2 };

const char* coherence_name(Coherence c);  // "host", "nt", "flush"
// Accepts the names above. Error names the value and the accepted ones.
Result<Coherence> parse_coherence(const std::string& s);

inline constexpr size_t kCacheLine = 64;

// What the CPU offers (probed once with CPUID on x86-64; all false elsewhere).
struct CpuCacheOps {
  bool x86 = false;
  bool clflushopt = false;
  bool clwb = false;
};
const CpuCacheOps& cpu_cache_ops();

// Write back and invalidate every cache line overlapping [p, p+n), then a store fence. The lines
// are in memory when it returns (CLFLUSHOPT+SFENCE, or CLFLUSH+MFENCE without CLFLUSHOPT).
void flush_lines(const void* p, size_t n);
// Drop every cache line overlapping [p, p+n) from this CPU's caches (CLFLUSH writes back a dirty
// line first), then a full fence, so the following loads come from memory.
void invalidate_lines(const void* p, size_t n);
void store_fence();
void full_fence();

// Copy n bytes into shared memory as the mode requires; on return the bytes are globally visible
// in the order of the mode (kNonTemporal/kFlush: in memory, fenced).
void store_bytes(void* dst, const void* src, size_t n, Coherence c);
// Copy n bytes out of shared memory; kNonTemporal/kFlush invalidate the source lines first.
void load_bytes(void* dst, const void* src, size_t n, Coherence c);
// Make a control word written with an atomic store visible outside this host (flush its line
// unless kHost). Call after the store; readers call refresh() before loading it.
void publish(const void* word, Coherence c);
void refresh(const void* word, Coherence c);

}  // namespace ndp::kv
