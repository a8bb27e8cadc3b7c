// Precision regions (docs/spec.md section 5): which planes a region fetches and how the output
// format is assembled from them, including guard-plane round-to-nearest-even.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ndp/dtype.h"
#include "ndp/planes.h"
#include "ndp/status.h"

namespace ndp {

enum class RegionKind : uint8_t {
  kFull,
  kEmK,  // source exponent, K mantissa bits, returned in the source word (bf16/fp32 -> BF16 word)
  kFP8E4M3,
  kFP8E5M2,
  kFP6E3M2,
  kFP6E2M3,
  kFP4E2M1,
  kMXFP8,
  kMXFP4,
};

struct Region {
  RegionKind kind = RegionKind::kFull;
  int k = 0;      // mantissa bits kept, for kEmK
  int guard = 0;  // guard planes g = 0..2 (0 = truncate)
};

// Which regions a source exposes (docs/spec.md 5.1): every source has `full`; integer sources only
// that. Floating sources (bf16, fp16, fp32, fp8-e4m3, fp8-e5m2) expose fp8-e4m3, fp8-e5m2, fp6-e3m2,
// fp6-e2m3, fp4-e2m1, mxfp8 and mxfp4; bf16 and fp32 also e8m0..e8m7 (BF16 words), fp16 also
// e5m0..e5m10 (FP16 words). guard is 0..2 for every region (it does not change `full`).

// OK if r is a region src exposes (kind, k in range, guard 0..2); otherwise the error names both.
Status region_valid(const Region& r, DType src);

// Parse a region name for a source type: "full", "e8m3", "fp8-e4m3", "fp8-e5m2", "fp6-e3m2",
// "fp6-e2m3", "fp4-e2m1", "mxfp8", "mxfp4". Errors name the region and the source type. `full`
// parses with guard 0 whatever `guard` says (it fetches everything anyway).
Result<Region> parse_region(std::string_view name, DType src, int guard);
std::string region_name(const Region& r, DType src);
// Every region a source type exposes with the given guard count (for analyze tables), `full` first.
std::vector<Region> all_regions(DType src, int guard);

// Plane ids (subset of plane_order(src, l), in storage order) the region fetches: sign, the whole
// exponent, and the top t = min(M, m + g) mantissa planes. Empty if !region_valid(r, src).
std::vector<uint8_t> region_planes(const Region& r, DType src, Layout l);

// Mantissa bits the region keeps in its output (m: K for eEmK, 3/2/2/3/1 for fp8-e4m3/fp8-e5m2/
// fp6-e3m2/fp6-e2m3/fp4-e2m1, 3 for mxfp8, 1 for mxfp4, M for full) and fetches (t = min(M, m + g)).
int region_kept_mantissa(const Region& r, DType src);
int region_fetched_mantissa(const Region& r, DType src);

// True if bit-plane `plane` of t serves as a guard plane (g = 1 or 2) of at least one region narrower
// than the full type (kept m < M), i.e. the header's GUARD flag (section 5.3). For bf16 and fp16 that
// is every mantissa plane (the MSB guards e8m0/e5m0), for fp32 the top 9 mantissa planes (e8m7 with
// g = 2 reaches mantissa bit 8 from the top), for fp8-e4m3 planes 1..0, for fp8-e5m2 plane 0.
bool plane_is_guard(DType t, uint8_t plane);

// Output bytes for n elements (section 5.1 packing, MX groups of 32 with the partial last group).
// 0 if !region_valid(r, src).
uint64_t region_output_bytes(const Region& r, DType src, uint64_t n);

// Convert n source elements to the region format. src_elems holds the values reconstructed from the
// fetched planes (unfetched bits zero), natural encoding; the fetch view is applied again here, so
// passing complete elements gives the same output. The conversion starts a new MX group / FP6 4-element
// group / FP4 pair at src_elems[0]; because chunk_elems is a multiple of 64, converting a tensor chunk
// by chunk and concatenating the outputs (chunk k at region_output_bytes(r, src, k * chunk_elems))
// gives the tensor's region. Writes region_output_bytes(r, src, n) bytes (padding bits zero).
// Errors: invalid region for src, null buffers with n > 0.
Status assemble_region(const Region& r, DType src, const uint8_t* src_elems, uint64_t n,
                       uint8_t* out);

// ---- Element-level model (the RTL bp_assembler scoreboard calls these) ----------------------------
// The datapath is the hardware's: fields -> fetch view -> align (shift to the target quantum with
// round and sticky bits) -> pack the pre-rounded code -> round-to-nearest-even increment on the code
// (carries ripple from the mantissa into the exponent) -> range check (Inf or saturate).

// The fetch view v' (5.2 step 1): `bits` with the mantissa bits below the top t cleared.
uint32_t region_view(const Region& r, DType src, uint32_t bits);

// Convert one source element (natural encoding in the low bits of `bits`; bits above the element
// width are ignored) to the region's output code, per section 5.2:
//   full -> bits unchanged; eEmK -> BF16 word (bf16/fp32 sources) or FP16 word (fp16);
//   fp8-* -> byte; fp6-* -> 6-bit code; fp4-e2m1 -> 4-bit code (sign in the top bit of each).
// MX kinds convert as their element format with scale 2^0; use convert_mx_group for section 5.4.
// Requires region_valid(r, src); returns 0 otherwise.
uint32_t convert_element(const Region& r, DType src, uint32_t bits);

// One MX group (section 5.4) of `count` (1..32) source elements: returns the E8M0 scale byte and
// writes `count` element codes (E4M3 bytes for mxfp8, E2M1 codes in bits 3..0 for mxfp4) to codes.
// Requires region_valid(r, src) with r.kind kMXFP8 or kMXFP4; returns 0xFF and zero codes otherwise.
uint8_t convert_mx_group(const Region& r, DType src, const uint32_t* bits, int count, uint8_t* codes);

// One MX element with a known shared exponent X (scale byte X + 127, X in -127..127): the code of
// v' / 2^X rounded per 5.2 (saturating). NaN/Inf sources give code 0 (their group's scale is 0xFF).
uint32_t convert_mx_element(const Region& r, DType src, uint32_t bits, int shared_exp);

}  // namespace ndp
