// SoftReader: software NDP over an image in memory (docs/driver.md, "dax").
#include "ndp/soft_ndp.h"

#include <algorithm>
#include <cstring>

#include "soft_kernels.h"

namespace ndp::drv {

namespace {

// Per-thread decode state: a block decoder, one buffer per plane slot, element and region scratch.
struct Scratch {
  BlockDecoder dec;
  std::vector<std::vector<uint8_t>> planes;
  std::vector<uint8_t> elems, chunk;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

std::string hex2(uint8_t v) {
  static const char* d = "0123456789abcdef";
  return std::string("0x") + d[v >> 4] + d[v & 15];
}

}  // namespace

SoftReader::SoftReader(ImageReader& img, const uint8_t* base) : img_(img), base_(base) {}
SoftReader::~SoftReader() = default;

const char* SoftReader::kernel_name() { return bf16_kernel_name(); }

// True if the block at b (span bytes, the index's extent) is a RAW block that the golden decoder
// accepts once its checksum matches: RAW codec, no flag but GUARD, the expected plane id, block
// id and raw size, a span of exactly 12 + raw bytes, zero padding bits; an EXPBYTE plane with a
// narrow exponent field (range check) is left to the golden path.
static bool raw_candidate(const uint8_t* b, uint64_t span, uint8_t id, uint64_t k, uint32_t raw, uint8_t pad_mask,
                          bool range_check) {
  if (range_check || span < kBlockHeaderBytes || span != kBlockHeaderBytes + raw) return false;
  if ((b[3] & 0x0F) != static_cast<uint8_t>(Codec::kRaw) || (b[3] & 0xF0 & ~kBlockFlagGuard)) return false;
  const uint32_t rs = static_cast<uint32_t>(b[4] | b[5] << 8), cs = static_cast<uint32_t>(b[6] | b[7] << 8);
  const uint32_t raw16 = raw & 0xFFFF;  // 65536 is stored as 0
  return b[2] == id && static_cast<uint32_t>(b[0] | b[1] << 8) == (k & 0xFFFF) && rs == raw16 && cs == raw16 &&
         !(b[kBlockHeaderBytes + raw - 1] & pad_mask);
}

// Every wanted slot through the golden decode_chunk_plane, in storage order: the first failing
// block's error (this is also the path that explains any failure of the fast path).
static Status planes_golden(const ImageReader& img, const uint8_t* base, size_t ti, uint64_t k, const std::vector<bool>& want,
                     std::vector<const uint8_t*>& ptr) {
  const TensorInfo& t = img.tensors()[ti];
  const uint64_t n = t.chunk_elems_of(k);
  Scratch& s = scratch();
  for (size_t p = 0; p < want.size(); ++p) {
    if (!want[p]) continue;
    const uint8_t id = t.plane_ids[p];
    const uint64_t at = img.block_offset(ti, k, p), span = img.block_span(ti, k, p);
    const std::string what = "tensor '" + t.name + "' chunk " + std::to_string(k) + " plane " + hex2(id) +
                             " (block at offset " + std::to_string(at) + ")";
    NDP_RETURN_IF_ERROR(decode_chunk_plane(s.dec, t.dtype, id, k, n, static_cast<uint32_t>(plane_raw_bytes(id, n)),
                                           base + at, span, what, s.planes[p]));
    ptr[p] = s.planes[p].data();
  }
  return Status::Ok();
}

// The fast path: RAW blocks are used in place with their checksums computed in one batch, the
// others decoded by the golden decoder. False when anything fails (planes_golden then explains).
static bool planes_fast(const ImageReader& img, const uint8_t* base, size_t ti, uint64_t k, const std::vector<bool>& want,
                 std::vector<const uint8_t*>& ptr) {
  const TensorInfo& t = img.tensors()[ti];
  const uint64_t n = t.chunk_elems_of(k);
  Scratch& s = scratch();
  const uint8_t* data[64];
  uint32_t len[64], sum[64], got[64];
  size_t raws = 0;
  for (size_t p = 0; p < want.size(); ++p) {
    if (!want[p]) continue;
    const uint8_t id = t.plane_ids[p];
    const uint8_t* b = base + img.block_offset(ti, k, p);
    const uint64_t span = img.block_span(ti, k, p);
    const uint32_t raw = static_cast<uint32_t>(plane_raw_bytes(id, n));
    const uint8_t pad = id < 32 && n % 8 ? static_cast<uint8_t>(0xFFu << (n % 8)) : 0;
    if (raws < 64 && raw_candidate(b, span, id, k, raw, pad, id == kPlaneExpByte && dtype_info(t.dtype).exp_bits < 8)) {
      data[raws] = b + kBlockHeaderBytes;
      len[raws] = raw;
      sum[raws++] = static_cast<uint32_t>(b[8] | b[9] << 8 | b[10] << 16) | static_cast<uint32_t>(b[11]) << 24;
      ptr[p] = b + kBlockHeaderBytes;
      continue;
    }
    if (!decode_chunk_plane(s.dec, t.dtype, id, k, n, raw, b, span, "block", s.planes[p]).ok()) return false;
    ptr[p] = s.planes[p].data();
  }
  xxh32_batch(data, len, raws, got);
  return std::equal(got, got + raws, sum);
}

// Decode the slots of chunk k that `want` selects and write the chunk's region bytes to dst.
static Status decode_chunk(const ImageReader& img, const uint8_t* base, size_t ti, uint64_t k, const Region& r,
                           const std::vector<bool>& want, uint8_t* dst, CallStats* st) {
  const TensorInfo& t = img.tensors()[ti];
  const uint64_t n = t.chunk_elems_of(k);
  Scratch& s = scratch();
  s.planes.resize(want.size());
  std::vector<const uint8_t*> ptr(want.size(), nullptr);
  if (st)
    for (size_t p = 0; p < want.size(); ++p)
      if (want[p]) {
        const uint64_t span = img.block_span(ti, k, p);
        st->device_bytes += span;
        st->link_bytes += span;
        st->blocks++;
      }
  if (!planes_fast(img, base, ti, k, want, ptr)) {
    Status g = planes_golden(img, base, ti, k, want, ptr);
    if (!g.ok()) {
      if (st) st->errors++;
      return g;
    }
  }
  const bool bf16x = t.dtype == DType::kBF16 && t.layout == Layout::kExpByte;
  const uint8_t* mant[7] = {};
  if (bf16x)
    for (int b = 0; b < 7; ++b) mant[b] = ptr[2 + b];
  if (r.kind == RegionKind::kFull) {  // the elements are the region bytes
    if (bf16x)
      unpack_bf16_expbyte(ptr[0], ptr[1], mant, n, dst);
    else
      unpack_chunk(t.dtype, t.layout, ptr, n, dst);
    return Status::Ok();
  }
  s.elems.resize(dtype_bytes(t.dtype, n));
  if (bf16x)
    unpack_bf16_expbyte(ptr[0], ptr[1], mant, n, s.elems.data());
  else
    unpack_chunk(t.dtype, t.layout, ptr, n, s.elems.data());
  if (dtype_info(t.dtype).bits == 16 &&
      assemble16(r, t.dtype, reinterpret_cast<const uint16_t*>(s.elems.data()), n, dst))
    return Status::Ok();
  return assemble_region(r, t.dtype, s.elems.data(), n, dst);
}

Status SoftReader::read(size_t ti, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
                        CallStats* st) const {
  const TensorInfo& t = img_.tensors()[ti];
  if (t.kind == TensorKind::kKvStream) return read_kv(ti, r, offset, bytes, out, st);
  if (st) st->host_bytes += bytes;
  if (bytes == 0) return Status::Ok();
  const std::vector<bool> want = region_slot_mask(r, t.dtype, t.layout);
  // chunk_elems is a multiple of 64, so every full chunk has the same whole number of region bytes.
  const uint64_t rc = region_output_bytes(r, t.dtype, t.chunk_elems);
  const uint64_t end = offset + bytes;
  for (uint64_t k = offset / rc; k < t.chunks && k * rc < end; ++k) {
    const uint64_t c0 = k * rc, c1 = c0 + region_output_bytes(r, t.dtype, t.chunk_elems_of(k));
    const uint64_t lo = std::max(c0, offset), hi = std::min(c1, end);
    if (lo == c0 && hi == c1) {
      NDP_RETURN_IF_ERROR(decode_chunk(img_, base_, ti, k, r, want, out + (c0 - offset), st));
      continue;
    }
    Scratch& s = scratch();
    s.chunk.resize(c1 - c0);
    NDP_RETURN_IF_ERROR(decode_chunk(img_, base_, ti, k, r, want, s.chunk.data(), st));
    std::memcpy(out + (lo - offset), s.chunk.data() + (lo - c0), hi - lo);
  }
  return Status::Ok();
}

Status SoftReader::read_kv(size_t ti, const Region& r, uint64_t offset, uint64_t bytes, uint8_t* out,
                           CallStats* st) const {
  std::lock_guard<std::mutex> lock(kv_mu_);
  std::vector<uint8_t> all;
  ReadStats rs;
  Status s = img_.read_region(ti, r, all, &rs);
  if (st) {
    st->host_bytes += bytes;
    st->device_bytes += rs.fetched_bytes;
    st->link_bytes += rs.fetched_bytes;
    st->blocks += rs.blocks;
    st->errors += s.ok() ? 0 : 1;
  }
  if (!s.ok()) return s;
  std::memcpy(out, all.data() + offset, bytes);
  return Status::Ok();
}

}  // namespace ndp::drv
