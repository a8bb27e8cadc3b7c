// Address map of docs/spec.md 7.1-7.3: format numbers, region windows, element positions,
// descriptors, tensor spans and the driver's base rule; lane status mapping of 7.5.
#include "ndp/device_map.h"

#include <algorithm>
#include <string>

#include <xxhash.h>

namespace ndp::dev {
namespace {

std::string num(uint64_t v) { return std::to_string(v); }
std::string hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), d[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}
void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Format numbers 16..22 in table order.
constexpr RegionKind kNamedFormats[] = {RegionKind::kFP8E4M3, RegionKind::kFP8E5M2, RegionKind::kFP6E3M2,
                                        RegionKind::kFP6E2M3, RegionKind::kFP4E2M1, RegionKind::kMXFP8,
                                        RegionKind::kMXFP4};

}  // namespace

LaneStatus lane_status(BlockFault f) {
  switch (f) {
    case BlockFault::kNone: return LaneStatus::kOk;
    case BlockFault::kHeaderTruncated: return LaneStatus::kHdrTrunc;
    case BlockFault::kCodecUnknown: return LaneStatus::kCodecUnknown;
    case BlockFault::kFlagsReserved: return LaneStatus::kFlagsReserved;
    case BlockFault::kPlaneUndefined: return LaneStatus::kPlaneUndef;
    case BlockFault::kSizeRule: return LaneStatus::kSizeRule;
    case BlockFault::kPlaneMismatch: return LaneStatus::kPlaneMismatch;
    case BlockFault::kBlockMismatch: return LaneStatus::kBlockMismatch;
    case BlockFault::kRawMismatch: return LaneStatus::kRawMismatch;
    case BlockFault::kPayloadTruncated: return LaneStatus::kPayloadTrunc;
    case BlockFault::kLz4Payload: return LaneStatus::kLz4Base;
    case BlockFault::kZstdPayload: return LaneStatus::kZstdBase;
    case BlockFault::kChecksum: return LaneStatus::kChecksum;
    case BlockFault::kPadding: return LaneStatus::kPadding;
  }
  return LaneStatus::kOk;
}

bool err_code_matches(uint8_t rtl, uint8_t model) {
  if (rtl == model) return true;
  const uint8_t lz4 = lane_error_code(LaneStatus::kLz4Base), zstd = lane_error_code(LaneStatus::kZstdBase);
  if (model == lz4) return rtl > lz4 && rtl < zstd;  // 16 + 16 + lz4_pkg::err_e
  if (model == zstd) return rtl > zstd && rtl <= zstd + 18;
  return false;
}

Result<uint8_t> format_number(const Region& r, DType src) {
  NDP_RETURN_IF_ERROR(region_valid(r, src));
  if (r.kind == RegionKind::kFull) return uint8_t{kFormatFull};
  if (r.kind == RegionKind::kEmK) return static_cast<uint8_t>(kFormatEmK + r.k);
  for (size_t i = 0; i < std::size(kNamedFormats); ++i)
    if (kNamedFormats[i] == r.kind) return static_cast<uint8_t>(kFormatFp8E4M3 + i);
  return Status::Error("format_number: no format number for region " + region_name(r, src));
}

uint8_t region_window(uint8_t f, int g) { return static_cast<uint8_t>(kWindowRegionBase + 32 * g + f); }

bool region_window_defined(uint8_t window) {
  if (window < kWindowRegionBase || window >= kWindowRegionBase + 96) return false;
  const uint8_t f = window & 31;
  return f <= kFormatEmK + 10 || (f >= kFormatFp8E4M3 && f <= kFormatMxfp4);
}

Result<Region> decode_region_window(uint8_t window, DType src) {
  if (!region_window_defined(window))
    return Status::Error("window " + hex(window) + " is not a region window (DECERR)");
  const uint8_t f = window & 31;
  Region r;
  r.guard = (window - kWindowRegionBase) / 32;
  if (f == kFormatFull) {
    r.guard = 0;
  } else if (f <= kFormatEmK + 10) {
    r.kind = RegionKind::kEmK;
    r.k = f - kFormatEmK;
  } else {
    r.kind = kNamedFormats[f - kFormatFp8E4M3];
  }
  Status s = region_valid(r, src);
  if (!s.ok()) return Status::Error("window " + hex(window) + ": " + s.message() + " (DECERR)");
  return r;
}

Result<ElementPos> element_offset(const Region& r, DType src, uint64_t i) {
  NDP_RETURN_IF_ERROR(region_valid(r, src));
  const unsigned nib = static_cast<unsigned>(4 * (i % 2));
  switch (r.kind) {
    case RegionKind::kFull:
      if (src == DType::kINT4) return ElementPos{i / 2, nib};
      return ElementPos{i * (dtype_info(src).bits / 8), 0};
    case RegionKind::kEmK: return ElementPos{2 * i, 0};
    case RegionKind::kFP8E4M3:
    case RegionKind::kFP8E5M2: return ElementPos{i, 0};
    case RegionKind::kFP6E3M2:
    case RegionKind::kFP6E2M3: return ElementPos{6 * i / 8, static_cast<unsigned>(6 * i % 8)};
    case RegionKind::kFP4E2M1: return ElementPos{i / 2, nib};
    case RegionKind::kMXFP8: return ElementPos{33 * (i / 32) + 1 + i % 32, 0};
    case RegionKind::kMXFP4: return ElementPos{17 * (i / 32) + 1 + (i % 32) / 2, nib};
  }
  return Status::Error("element_offset: unknown region kind");
}

Result<uint64_t> element_address(const Region& r, DType src, uint64_t base, uint64_t i, unsigned* bit) {
  auto f = format_number(r, src);
  if (!f.ok()) return f.status();
  auto pos = element_offset(r, src, i);
  if (!pos.ok()) return pos.status();
  if (bit) *bit = pos->bit;
  return window_address(region_window(f.value(), r.guard), base + pos->byte);
}

void Descriptor::encode(uint8_t out[64]) const {
  std::fill(out, out + 64, uint8_t{0});
  put_le(out + 0, base, 8);
  put_le(out + 8, elems, 8);
  put_le(out + 16, image, 8);
  put_le(out + 24, index, 8);
  put_le(out + 32, data_end, 8);
  put_le(out + 40, chunk_elems, 4);
  out[44] = dtype;
  out[45] = layout;
  out[46] = slots;
  out[47] = flags;
}

Descriptor Descriptor::decode(const uint8_t in[64]) {
  Descriptor d;
  d.base = get_le(in + 0, 8);
  d.elems = get_le(in + 8, 8);
  d.image = get_le(in + 16, 8);
  d.index = get_le(in + 24, 8);
  d.data_end = get_le(in + 32, 8);
  d.chunk_elems = static_cast<uint32_t>(get_le(in + 40, 4));
  d.dtype = in[44];
  d.layout = in[45];
  d.slots = in[46];
  d.flags = in[47];
  return d;
}

uint64_t tensor_span(const TensorInfo& t) {
  uint64_t s = 1;
  for (int g = 0; g <= 2; ++g)
    for (const Region& r : all_regions(t.dtype, g)) s = std::max(s, region_output_bytes(r, t.dtype, t.elems));
  return s;
}

Result<MapPlan> plan_map(const ImageReader& img, uint64_t image_base) {
  if (image_base % kBeatBytes)
    return Status::Error("plan_map: image base " + hex(image_base) + " is not 64-byte aligned");
  MapPlan plan;
  uint64_t base = 0;
  const std::vector<TensorInfo>& ts = img.tensors();
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorInfo& t = ts[i];
    if (t.kind != TensorKind::kWeight || t.elems == 0) continue;
    const uint64_t span = tensor_span(t);
    if (base > kOffsetMask || span > kOffsetMask + 1 - base)
      return Status::Error("plan_map: tensor '" + t.name + "' at base " + hex(base) + " (" + num(span) +
                           " bytes) leaves the 1 TiB region window");
    Descriptor d;
    d.base = base;
    d.elems = t.elems;
    d.image = image_base;
    d.index = image_base + t.index_offset;
    d.data_end = image_base + t.first_chunk_offset + t.stored_bytes;
    d.chunk_elems = t.chunk_elems;
    d.dtype = static_cast<uint8_t>(t.dtype);
    d.layout = static_cast<uint8_t>(t.layout);
    d.slots = static_cast<uint8_t>(t.plane_ids.size());
    d.flags = kDescValid;
    plan.desc.push_back(d);
    plan.image_tensor.push_back(i);
    base = (base + span + kTensorAlign - 1) / kTensorAlign * kTensorAlign;
  }
  return plan;
}

const char* resp_name(Resp r) {
  switch (r) {
    case Resp::kOkay: return "OKAY";
    case Resp::kExOkay: return "EXOKAY";
    case Resp::kSlvErr: return "SLVERR";
    case Resp::kDecErr: return "DECERR";
  }
  return "?";
}

}  // namespace ndp::dev

// ---- KV pages (7.7) ----------------------------------------------------------------------------

namespace ndp::dev {

uint64_t KvCaps::encode() const {
  return (max_pages & 0xFFFF) | uint64_t{buffers & 0xFF} << 16 | uint64_t{buffer_elems_log2 & 0x1F} << 24 |
         uint64_t{dtype_mask} << 32 | uint64_t{span_log2 & 0x1F} << 40;
}

KvCaps KvCaps::decode(uint64_t v) {
  KvCaps c;
  c.max_pages = v & 0xFFFF;
  c.buffers = (v >> 16) & 0xFF;
  c.buffer_elems_log2 = (v >> 24) & 0x1F;
  c.dtype_mask = static_cast<uint8_t>(v >> 32);
  c.span_log2 = (v >> 40) & 0x1F;
  return c;
}

void KvPageDesc::encode(uint8_t out[64]) const {
  std::fill(out, out + 64, uint8_t{0});
  put_le(out + 0, slot, 8);
  put_le(out + 8, slot_bytes, 4);
  put_le(out + 12, window, 4);
  put_le(out + 16, width, 4);
  out[20] = dtype;
  out[21] = layout;
  out[22] = policy;
  out[23] = flags;
  out[32] = static_cast<uint8_t>(state);
  put_le(out + 36, tokens, 4);
  put_le(out + 40, stored_bytes, 4);
}

KvPageDesc KvPageDesc::decode(const uint8_t in[64]) {
  KvPageDesc d;
  d.slot = get_le(in + 0, 8);
  d.slot_bytes = static_cast<uint32_t>(get_le(in + 8, 4));
  d.window = static_cast<uint32_t>(get_le(in + 12, 4));
  d.width = static_cast<uint32_t>(get_le(in + 16, 4));
  d.dtype = in[20];
  d.layout = in[21];
  d.policy = in[22];
  d.flags = in[23];
  d.state = static_cast<KvPageState>(in[32] & 3);
  d.tokens = static_cast<uint32_t>(get_le(in + 36, 4));
  d.stored_bytes = static_cast<uint32_t>(get_le(in + 40, 4));
  return d;
}

void KvPageHeader::encode(uint8_t out[kKvPageHeaderBytes]) const {
  std::fill(out, out + kKvPageHeaderBytes, uint8_t{0});
  put_le(out + 0, kKvPageMagic, 4);
  put_le(out + 4, tokens, 4);
  put_le(out + 8, window, 4);
  put_le(out + 12, width, 4);
  out[16] = dtype;
  out[17] = layout;
  out[18] = blocks;
  put_le(out + 20, stored_bytes, 4);
  put_le(out + 60, XXH32(out, 60, 0), 4);
}

Result<KvPageHeader> KvPageHeader::decode(const uint8_t in[kKvPageHeaderBytes]) {
  if (get_le(in, 4) != kKvPageMagic) return Status::Error("KV page header: bad magic");
  if (get_le(in + 60, 4) != XXH32(in, 60, 0)) return Status::Error("KV page header: checksum mismatch");
  KvPageHeader h;
  h.tokens = static_cast<uint32_t>(get_le(in + 4, 4));
  h.window = static_cast<uint32_t>(get_le(in + 8, 4));
  h.width = static_cast<uint32_t>(get_le(in + 12, 4));
  h.dtype = in[16];
  h.layout = in[17];
  h.blocks = in[18];
  h.stored_bytes = static_cast<uint32_t>(get_le(in + 20, 4));
  return h;
}

bool kv_walk_blocks(const uint8_t* blocks, uint64_t n, size_t P, std::vector<uint64_t>& offsets) {
  offsets.clear();
  uint64_t at = 0;
  for (size_t s = 0; s < P; ++s) {
    if (n - at < kBlockHeaderBytes) return false;
    const uint64_t comp = get_le(blocks + at + 6, 2);
    offsets.push_back(kKvPageHeaderBytes + at);
    at += kBlockHeaderBytes + (comp ? comp : 65536);
    if (at > n) return false;
  }
  offsets.push_back(kKvPageHeaderBytes + at);
  return at == n;
}

std::vector<uint8_t> kv_page_planes(DType t, Layout l) {
  std::vector<uint8_t> ids{kPlaneKvBase};
  for (uint8_t id : plane_order(t, l)) ids.push_back(id);
  return ids;
}

uint64_t kv_block_raw_bytes(uint8_t plane_id, uint64_t w, uint32_t width) {
  return plane_id == kPlaneKvBase ? width : plane_raw_bytes(plane_id, w * width);
}

uint64_t kv_slot_bytes(DType t, Layout l, uint32_t window, uint32_t width) {
  uint64_t b = kKvPageHeaderBytes;
  for (uint8_t id : kv_page_planes(t, l)) b += kBlockHeaderBytes + kv_block_raw_bytes(id, window, width);
  return (b + kBeatBytes - 1) / kBeatBytes * kBeatBytes;
}

}  // namespace ndp::dev
