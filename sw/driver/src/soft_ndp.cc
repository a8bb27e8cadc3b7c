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

// Decode the slots of chunk k that `want` selects and write the chunk's region bytes to dst.
static Status decode_chunk(const ImageReader& img, const uint8_t* base, size_t ti, uint64_t k, const Region& r,
                           const std::vector<bool>& want, uint8_t* dst, CallStats* st) {
  const TensorInfo& t = img.tensors()[ti];
  const uint64_t n = t.chunk_elems_of(k);
  Scratch& s = scratch();
  s.planes.resize(want.size());
  std::vector<const uint8_t*> ptr(want.size(), nullptr);
  for (size_t p = 0; p < want.size(); ++p) {
    if (!want[p]) continue;
    const uint8_t id = t.plane_ids[p];
    const uint64_t at = img.block_offset(ti, k, p), span = img.block_span(ti, k, p);
    const std::string what = "tensor '" + t.name + "' chunk " + std::to_string(k) + " plane " + hex2(id) +
                             " (block at offset " + std::to_string(at) + ")";
    PlaneCheck c;
    Status d = decode_chunk_plane(s.dec, t.dtype, id, k, n, static_cast<uint32_t>(plane_raw_bytes(id, n)), base + at,
                                  span, what, s.planes[p], &c);
    if (st) {
      st->device_bytes += span;
      st->link_bytes += span;
      st->blocks++;
      st->errors += d.ok() ? 0 : 1;
    }
    if (!d.ok()) return d;
    ptr[p] = s.planes[p].data();
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
