// Bit-plane layout (docs/spec.md section 2): plane ids, storage order, pack/unpack of one chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndp/dtype.h"
#include "ndp/status.h"

namespace ndp {

enum class Layout : uint8_t { kBitplane = 0, kExpByte = 1 };

constexpr uint8_t kPlaneExpByte = 0x40;  // whole exponent field, one byte per element
constexpr uint8_t kPlaneKvBase = 0x41;   // KV window per-channel base exponents

constexpr uint32_t kDefaultChunkElems = 32768;

// Plane ids of one chunk of type t in storage order (sign first, descending significance).
// For integer types the layout argument is ignored (always bit-planes).
std::vector<uint8_t> plane_order(DType t, Layout l);

// Raw (decoded) bytes of plane `plane` for a chunk of n elements: ceil(n/8) for a bit-plane,
// n for kPlaneExpByte, n for kPlaneKvBase (there n is the channel count C x H); 0 for reserved ids.
size_t plane_raw_bytes(uint8_t plane, uint64_t n);

// True if `plane` is the exponent byte plane or an exponent bit-plane of t.
bool plane_is_exponent(DType t, uint8_t plane);

// Validate one decoded plane of a chunk of n elements before unpacking it: `plane` must belong to
// plane_order(t, l), `size` must equal plane_raw_bytes(plane, n), bit-plane padding bits (section 2)
// must be zero and EXPBYTE values must fit the E-bit exponent field. The error names the plane and
// the offending byte.
Status check_plane(DType t, Layout l, uint8_t plane, const uint8_t* data, size_t size, uint64_t n);

// Pack n elements of type t (natural little-endian encoding, dtype_bytes(t, n) bytes at src) into
// the planes of plane_order(t, l). planes is resized to the plane count and planes[i] to
// plane_raw_bytes(order[i], n); padding bits of the last bit-plane byte are zero. For int4 the high
// nibble of the last byte is ignored when n is odd. Runs at several GB/s (SWAR 8x8 bit transposes,
// see docs/golden-model.md).
void pack_chunk(DType t, Layout l, const uint8_t* src, uint64_t n,
                std::vector<std::vector<uint8_t>>& planes);

// Inverse of pack_chunk. planes[i] corresponds to plane_order(t, l)[i]; a nullptr plane is read as
// all zero bits (that is how a precision region reconstructs values from the planes it fetched), and
// so is a missing entry when planes.size() < plane count. Padding bits and EXPBYTE bits above the
// E-bit field are ignored (check_plane reports them). Writes exactly dtype_bytes(t, n) bytes to dst.
void unpack_chunk(DType t, Layout l, const std::vector<const uint8_t*>& planes, uint64_t n,
                  uint8_t* dst);

}  // namespace ndp
