// On-disk structures of an image (docs/spec.md 4.1, 4.2): file header, tensor-table entries and the
// semantic rules both the writer and the reader enforce.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/image.h"

namespace ndp::image_internal {

constexpr uint8_t kMagic[4] = {'N', 'D', 'P', 'I'};
constexpr uint32_t kMinChunkElems = 64, kMaxChunkElems = 524288;
constexpr uint32_t kMaxDims = 16;

struct FileHeader {
  uint32_t tensors = 0;
  uint64_t table_offset = 0;
  uint64_t total_bytes = 0;
  uint32_t table_xxh32 = 0;
};

void write_file_header(const FileHeader& h, uint8_t* out);
// Checks magic, version, that the recorded total equals `size` and that the table offset lies in
// the image. Reserved fields are ignored.
Result<FileHeader> parse_file_header(const uint8_t* p, size_t size);

// Plane ids per chunk in storage order for a tensor (KV streams: KVBASE first).
std::vector<uint8_t> tensor_plane_ids(DType t, Layout l, TensorKind k);
// Raw bytes of plane slot `plane` in chunk k of tensor ti.
uint32_t plane_raw_size(const TensorInfo& ti, uint8_t plane, uint64_t chunk_elems);

// Semantic checks of an entry (codes, shape vs N, chunk size rules, KV fields, plane ids).
Status check_entry(const TensorInfo& t);
// Serialized entry (section 4.2).
void append_entry(const TensorInfo& t, std::vector<uint8_t>& out);
// Parse one entry at absolute offset *pos of image[0..size); advances *pos. Errors name the offset.
Result<TensorInfo> parse_entry(const uint8_t* image, uint64_t size, uint64_t* pos);

// Little-endian helpers.
inline void put(std::vector<uint8_t>& o, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline uint64_t get(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}
std::string hex(uint64_t v);

}  // namespace ndp::image_internal
