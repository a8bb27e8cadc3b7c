// Bit-plane layout (docs/spec.md section 2): plane ids, storage order, pack/unpack of one chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndp/dtype.h"

namespace ndp {

enum class Layout : uint8_t { kBitplane = 0, kExpByte = 1 };

constexpr uint8_t kPlaneExpByte = 0x40;  // whole exponent field, one byte per element
constexpr uint8_t kPlaneKvBase = 0x41;   // KV window per-channel base exponents

constexpr uint32_t kDefaultChunkElems = 32768;

// Plane ids of one chunk of type t in storage order (sign first, descending significance).
// For integer types the layout argument is ignored (always bit-planes).
std::vector<uint8_t> plane_order(DType t, Layout l);

// Raw (decoded) bytes of plane `plane` for a chunk of n elements: ceil(n/8) for a bit-plane,
// n for kPlaneExpByte.
size_t plane_raw_bytes(uint8_t plane, uint64_t n);

// True if `plane` is the exponent byte plane or an exponent bit-plane of t.
bool plane_is_exponent(DType t, uint8_t plane);

// Pack n elements of type t (natural little-endian encoding, dtype_bytes(t, n) bytes at src) into
// the planes of plane_order(t, l). planes[i] is resized to plane_raw_bytes(order[i], n).
void pack_chunk(DType t, Layout l, const uint8_t* src, uint64_t n,
                std::vector<std::vector<uint8_t>>& planes);

// Inverse of pack_chunk. planes[i] corresponds to plane_order(t, l)[i]; a nullptr plane is read as
// all zero bits (that is how a precision region reconstructs values from the planes it fetched).
// Writes dtype_bytes(t, n) bytes to dst.
void unpack_chunk(DType t, Layout l, const std::vector<const uint8_t*>& planes, uint64_t n,
                  uint8_t* dst);

}  // namespace ndp
