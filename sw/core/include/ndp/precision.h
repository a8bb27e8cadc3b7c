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

// Parse a region name for a source type: "full", "e8m3", "fp8-e4m3", "fp8-e5m2", "fp6-e3m2",
// "fp6-e2m3", "fp4-e2m1", "mxfp8", "mxfp4". Errors name the region and the source type.
Result<Region> parse_region(std::string_view name, DType src, int guard);
std::string region_name(const Region& r, DType src);
// Every region a source type exposes with the given guard count (for analyze tables).
std::vector<Region> all_regions(DType src, int guard);

// Plane ids (subset of plane_order(src, l), in storage order) the region fetches.
std::vector<uint8_t> region_planes(const Region& r, DType src, Layout l);

// Output bytes for n elements (section 5.1 packing, MX groups of 32 with the partial last group).
uint64_t region_output_bytes(const Region& r, DType src, uint64_t n);

// Convert n source elements to the region format. src_elems holds the values reconstructed from the
// fetched planes (unfetched bits zero), natural encoding. `first_elem` is the index of src_elems[0]
// in the tensor; it must be a multiple of 32 for MX regions and of 4 for FP6 (chunk starts are).
// Writes region_output_bytes(r, src, n) bytes.
Status assemble_region(const Region& r, DType src, const uint8_t* src_elems, uint64_t n,
                       uint8_t* out);

}  // namespace ndp
