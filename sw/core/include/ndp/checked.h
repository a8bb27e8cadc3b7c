// Overflow-checked size arithmetic for readers and writers: every size that a file's header
// implies (counts x element sizes, offsets + lengths) is computed with these, never with a bare
// `*` or `+` that can wrap.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace ndp {

// a*b / a+b into *r; false (and *r unspecified) on uint64 overflow.
inline bool mul_ok(uint64_t a, uint64_t b, uint64_t* r) { return !__builtin_mul_overflow(a, b, r); }
inline bool add_ok(uint64_t a, uint64_t b, uint64_t* r) { return !__builtin_add_overflow(a, b, r); }

// Product of all factors into *r; false on overflow.
inline bool product_ok(std::initializer_list<uint64_t> factors, uint64_t* r) {
  uint64_t p = 1;
  for (uint64_t f : factors)
    if (!mul_ok(p, f, &p)) return false;
  *r = p;
  return true;
}

}  // namespace ndp
