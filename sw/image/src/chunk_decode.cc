// Chunk decoding pieces shared by ImageReader and the device model: one plane block of a chunk with
// the image rules on top of the block decoder, the fetch mask of a region, and a chunk's region bytes.
#include "ndp/image.h"

namespace ndp {

Status decode_chunk_plane(BlockDecoder& dec, DType t, uint8_t plane_id, uint64_t chunk, uint64_t n,
                          uint32_t raw_size, const uint8_t* stored, uint64_t span, const std::string& what,
                          std::vector<uint8_t>& out, PlaneCheck* check) {
  PlaneCheck dummy;
  PlaneCheck& c = check ? *check : dummy;
  c = PlaneCheck{};
  BlockExpect x;
  x.plane_id = plane_id;
  x.block_id = chunk;
  x.raw_size = raw_size;
  x.pad_mask = plane_id < 32 && n % 8 ? static_cast<uint8_t>(0xFFu << (n % 8)) : 0;
  x.what = what.c_str();
  out.resize(raw_size);
  size_t used = 0;
  Status s = dec.decode(stored, span, x, out.data(), &used, &c.block);
  if (!s.ok()) {
    c.rule = PlaneRule::kBlock;
    return s;
  }
  if (used != span) {
    c.rule = PlaneRule::kSpan;
    return Status::Error(what + ": block is " + std::to_string(used) + " bytes, the index gives it " +
                         std::to_string(span));
  }
  const int e = dtype_info(t).exp_bits;
  if (plane_id == kPlaneExpByte && e < 8)
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i] >> e) {
        c.rule = PlaneRule::kExpRange;
        return Status::Error(what + ": exponent byte " + std::to_string(i) + " exceeds " + std::to_string(e) +
                             " bits");
      }
  return Status::Ok();
}

std::vector<bool> region_slot_mask(const Region& r, DType t, Layout l) {
  const std::vector<uint8_t> order = plane_order(t, l), fetch = region_planes(r, t, l);
  std::vector<bool> want(order.size(), false);
  for (size_t p = 0; p < order.size(); ++p)
    for (uint8_t id : fetch) want[p] = want[p] || order[p] == id;
  return want;
}

Status chunk_region(const Region& r, DType t, Layout l, const std::vector<const uint8_t*>& planes, uint64_t n,
                    uint8_t* out) {
  std::vector<uint8_t> elems(dtype_bytes(t, n));
  unpack_chunk(t, l, planes, n, elems.data());
  return assemble_region(r, t, elems.data(), n, out);
}

}  // namespace ndp
