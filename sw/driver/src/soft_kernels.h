// Host-side unpack kernels of software NDP (soft_ndp.cc).
#pragma once

#include <cstdint>

namespace ndp::drv {

// BF16 `expbyte` chunk of n elements from its planes: sign (plane 15), the exponent bytes and the
// mantissa bit-planes 6..0 (mant[6 - b] = plane b, storage order); a nullptr plane reads as zero bits.
// Writes n BF16 words (little-endian) to dst: the same bytes as unpack_chunk(kBF16, kExpByte, ...).
void unpack_bf16_expbyte(const uint8_t* sign, const uint8_t* exp, const uint8_t* const mant[7], uint64_t n,
                         uint8_t* dst);
// The kernel unpack_bf16_expbyte runs on this CPU: "avx512-gfni" or "swar".
const char* bf16_kernel_name();

}  // namespace ndp::drv

#include "ndp/precision.h"

namespace ndp::drv {

// Region bytes of n elements of a 16-bit source (bf16 or fp16, natural little-endian words) for a
// region other than `full`: the same bytes as assemble_region, through per-region tables built
// once with the golden convert_element / convert_mx_element (MX: bf16 sources only). Returns false
// (nothing written) where it does not apply; the caller then runs assemble_region.
bool assemble16(const Region& r, DType src, const uint16_t* words, uint64_t n, uint8_t* out);

}  // namespace ndp::drv

namespace ndp::drv {

// XXH32 (seed 0) of `count` buffers: out[i] = XXH32(data[i], len[i]). Groups of four buffers of
// equal length (at least 16 bytes) are hashed side by side in one AVX-512 register (each 128-bit
// lane holds one buffer's four accumulators) where the CPU has AVX-512; the rest one by one.
void xxh32_batch(const uint8_t* const* data, const uint32_t* len, size_t count, uint32_t* out);

}  // namespace ndp::drv
