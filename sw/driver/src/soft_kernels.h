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
