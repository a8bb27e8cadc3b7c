#include "image_format.h"

#include <xxhash.h>

#include <cstring>

#include "ndp/checked.h"

namespace ndp::image_internal {
namespace {

std::string num(uint64_t v) { return std::to_string(v); }

// Bounds-checked cursor over the image; errors name the absolute offset and the field.
struct Cursor {
  const uint8_t* base;
  uint64_t size;
  uint64_t pos;
  Status take(uint64_t n, const char* field, const uint8_t** p) {
    if (pos > size || n > size - pos)
      return Status::Error("tensor table: offset " + num(pos) + ": truncated reading " + field + " (" +
                           num(n) + " bytes, image is " + num(size) + " bytes)");
    *p = base + pos;
    pos += n;
    return Status::Ok();
  }
  Status u(int bytes, const char* field, uint64_t* v) {
    const uint8_t* p;
    NDP_RETURN_IF_ERROR(take(static_cast<uint64_t>(bytes), field, &p));
    *v = get(p, bytes);
    return Status::Ok();
  }
};

}  // namespace

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

void write_file_header(const FileHeader& h, uint8_t* out) {
  std::memset(out, 0, kImageHeaderBytes);
  std::memcpy(out, kMagic, 4);
  std::vector<uint8_t> f;
  put(f, kImageVersion, 2);
  put(f, 0, 2);
  put(f, h.tensors, 4);
  put(f, 0, 4);
  put(f, h.table_offset, 8);
  put(f, h.total_bytes, 8);
  put(f, h.table_xxh32, 4);
  std::memcpy(out + 4, f.data(), f.size());
}

Result<FileHeader> parse_file_header(const uint8_t* p, size_t size) {
  if (size < kImageHeaderBytes)
    return Status::Error("offset 0: image truncated: " + num(size) + " bytes, the header needs 64");
  if (std::memcmp(p, kMagic, 4) != 0) return Status::Error("offset 0: bad magic (not an NDPI image)");
  const uint64_t version = get(p + 4, 2);
  if (version != kImageVersion)
    return Status::Error("offset 4: unsupported image version " + num(version) + " (reader supports 1)");
  FileHeader h;
  h.tensors = static_cast<uint32_t>(get(p + 8, 4));
  h.table_offset = get(p + 16, 8);
  h.total_bytes = get(p + 24, 8);
  h.table_xxh32 = static_cast<uint32_t>(get(p + 32, 4));
  if (h.total_bytes != size)
    return Status::Error("offset 24: header records " + num(h.total_bytes) + " image bytes, the image has " +
                         num(size) + (h.total_bytes > size ? " (truncated)" : ""));
  if (h.table_offset < kImageHeaderBytes || h.table_offset > size)
    return Status::Error("offset 16: tensor table offset " + num(h.table_offset) + " outside the image (" +
                         num(size) + " bytes)");
  return h;
}

std::vector<uint8_t> tensor_plane_ids(DType t, Layout l, TensorKind k) {
  std::vector<uint8_t> ids;
  if (k == TensorKind::kKvStream) ids.push_back(kPlaneKvBase);
  const std::vector<uint8_t> order = plane_order(t, l);
  ids.insert(ids.end(), order.begin(), order.end());
  return ids;
}

uint32_t plane_raw_size(const TensorInfo& ti, uint8_t plane, uint64_t n) {
  if (plane == kPlaneKvBase) return ti.kv.channels * ti.kv.heads;
  return static_cast<uint32_t>(plane_raw_bytes(plane, n));
}

Status check_entry(const TensorInfo& t) {
  const std::string w = "tensor '" + t.name + "': ";
  if (t.name.empty() || t.name.size() > 65535) return Status::Error("tensor name must be 1..65535 bytes");
  if (t.shape.size() > kMaxDims) return Status::Error(w + num(t.shape.size()) + " dimensions (at most 16)");
  uint64_t n = 1;
  for (uint64_t d : t.shape)
    if (!mul_ok(n, d, &n)) return Status::Error(w + "shape overflows 64 bits");
  if (n != t.elems) return Status::Error(w + "shape has " + num(n) + " elements, entry says " + num(t.elems));
  const DTypeInfo& di = dtype_info(t.dtype);
  const bool expbyte = t.layout == Layout::kExpByte && di.is_float;
  if (t.kind == TensorKind::kWeight) {
    if (t.chunk_elems < kMinChunkElems || t.chunk_elems > kMaxChunkElems || t.chunk_elems % 64)
      return Status::Error(w + "chunk_elems " + num(t.chunk_elems) + " is not a multiple of 64 in [64, 524288]");
    if (expbyte && t.chunk_elems > kMaxPlaneBytes)
      return Status::Error(w + "chunk_elems " + num(t.chunk_elems) + " > 65536 with the expbyte layout");
  } else {
    if (t.dtype != DType::kBF16 && t.dtype != DType::kFP16)
      return Status::Error(w + "KV streams hold bf16 or fp16, not " + di.name);
    const KvGeometry& g = t.kv;
    if (!g.window || !g.channels || !g.heads)
      return Status::Error(w + "KV window, channels and heads must be >= 1");
    uint64_t ch = uint64_t{g.channels} * g.heads, win = 0;
    if (ch > kMaxPlaneBytes) return Status::Error(w + "KV channels x heads " + num(ch) + " > 65536");
    if (!mul_ok(ch, g.window, &win) || win != t.chunk_elems)
      return Status::Error(w + "chunk_elems " + num(t.chunk_elems) + " != W x C x H");
    if ((expbyte ? win : (win + 7) / 8) > kMaxPlaneBytes)
      return Status::Error(w + "KV window of " + num(win) + " elements exceeds a 65536-byte plane block");
    if (t.shape.size() != 3 || t.shape[1] != g.heads || t.shape[2] != g.channels || t.shape[0] == 0)
      return Status::Error(w + "KV shape must be {tokens >= 1, heads, channels}");
    const uint64_t windows = (t.shape[0] + g.window - 1) / g.window;
    if (t.chunks != windows)
      return Status::Error(w + "window count " + num(t.chunks) + " != ceil(tokens / W) = " + num(windows));
    if (t.last_window_tokens != t.shape[0] - (windows - 1) * g.window)
      return Status::Error(w + "tokens in the last window " + num(t.last_window_tokens) + " inconsistent");
  }
  if (t.plane_ids != tensor_plane_ids(t.dtype, t.layout, t.kind))
    return Status::Error(w + "plane ids do not match the dtype and layout");
  return Status::Ok();
}

void append_entry(const TensorInfo& t, std::vector<uint8_t>& out) {
  put(out, t.name.size(), 2);
  out.insert(out.end(), t.name.begin(), t.name.end());
  put(out, static_cast<uint8_t>(t.dtype), 1);
  put(out, static_cast<uint8_t>(t.layout), 1);
  put(out, static_cast<uint8_t>(t.kind), 1);
  put(out, t.shape.size(), 1);
  for (uint64_t d : t.shape) put(out, d, 8);
  put(out, t.elems, 8);
  put(out, t.chunk_elems, 4);
  put(out, t.plane_ids.size(), 1);
  out.insert(out.end(), t.plane_ids.begin(), t.plane_ids.end());
  put(out, t.index_offset, 8);
  put(out, t.first_chunk_offset, 8);
  put(out, t.stored_bytes, 8);
  if (t.kind == TensorKind::kKvStream) {
    put(out, t.kv.window, 4);
    put(out, t.kv.channels, 4);
    put(out, t.kv.heads, 4);
    put(out, t.chunks, 4);
    put(out, t.last_window_tokens, 4);
  }
}

Result<TensorInfo> parse_entry(const uint8_t* image, uint64_t size, uint64_t* pos) {
  Cursor c{image, size, *pos};
  const uint64_t start = *pos;
  TensorInfo t;
  uint64_t v;
  const uint8_t* p;
  NDP_RETURN_IF_ERROR(c.u(2, "name length", &v));
  NDP_RETURN_IF_ERROR(c.take(v, "name", &p));
  t.name.assign(reinterpret_cast<const char*>(p), v);
  const std::string at = "tensor table: entry at offset " + num(start) + " ('" + t.name + "'): ";
  NDP_RETURN_IF_ERROR(c.u(1, "dtype", &v));
  auto dt = dtype_from_code(static_cast<uint8_t>(v));
  if (!dt) return Status::Error(at + "offset " + num(c.pos - 1) + ": unknown dtype code " + num(v));
  t.dtype = *dt;
  NDP_RETURN_IF_ERROR(c.u(1, "layout", &v));
  if (v > 1) return Status::Error(at + "offset " + num(c.pos - 1) + ": unknown layout " + num(v));
  t.layout = static_cast<Layout>(v);
  NDP_RETURN_IF_ERROR(c.u(1, "kind", &v));
  if (v > 1) return Status::Error(at + "offset " + num(c.pos - 1) + ": unknown tensor kind " + num(v));
  t.kind = static_cast<TensorKind>(v);
  NDP_RETURN_IF_ERROR(c.u(1, "ndim", &v));
  if (v > kMaxDims) return Status::Error(at + "offset " + num(c.pos - 1) + ": " + num(v) + " dimensions (at most 16)");
  t.shape.resize(v);
  for (auto& d : t.shape) NDP_RETURN_IF_ERROR(c.u(8, "dimension", &d));
  NDP_RETURN_IF_ERROR(c.u(8, "element count", &t.elems));
  NDP_RETURN_IF_ERROR(c.u(4, "chunk_elems", &v));
  t.chunk_elems = static_cast<uint32_t>(v);
  NDP_RETURN_IF_ERROR(c.u(1, "plane slots", &v));
  NDP_RETURN_IF_ERROR(c.take(v, "plane ids", &p));
  t.plane_ids.assign(p, p + v);
  NDP_RETURN_IF_ERROR(c.u(8, "index offset", &t.index_offset));
  NDP_RETURN_IF_ERROR(c.u(8, "first chunk offset", &t.first_chunk_offset));
  NDP_RETURN_IF_ERROR(c.u(8, "stored bytes", &t.stored_bytes));
  if (t.kind == TensorKind::kKvStream) {
    uint64_t f[5];
    for (auto& x : f) NDP_RETURN_IF_ERROR(c.u(4, "KV geometry", &x));
    t.kv.window = static_cast<uint32_t>(f[0]);
    t.kv.channels = static_cast<uint32_t>(f[1]);
    t.kv.heads = static_cast<uint32_t>(f[2]);
    t.chunks = f[3];
    t.last_window_tokens = static_cast<uint32_t>(f[4]);
  } else {
    t.chunks = t.elems == 0 ? 0 : (t.elems - 1) / std::max<uint32_t>(t.chunk_elems, 1) + 1;
  }
  Status st = check_entry(t);
  if (!st.ok()) return st.prepend(at);
  *pos = c.pos;
  return t;
}

}  // namespace ndp::image_internal

namespace ndp {

uint64_t TensorInfo::chunk_elems_of(uint64_t k) const {
  if (kind == TensorKind::kKvStream) {
    const uint64_t per_token = uint64_t{kv.channels} * kv.heads;
    return (k + 1 == chunks ? last_window_tokens : kv.window) * per_token;
  }
  if (k + 1 < chunks) return chunk_elems;
  return elems - (chunks - 1) * chunk_elems;
}

}  // namespace ndp
