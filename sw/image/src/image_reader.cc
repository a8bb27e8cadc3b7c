// ImageReader: validation at open, block fetch + decode, full tensors, precision regions, verify.
#include <xxhash.h>

#include <cstring>
#include <string_view>
#include <unordered_set>

#include "image_format.h"
#include "ndp/file.h"
#include "ndp/image.h"

namespace ndp {

using namespace image_internal;

namespace {
std::string num(uint64_t v) { return std::to_string(v); }
}  // namespace

struct ImageReader::Impl {
  std::vector<uint8_t> owned;
  const uint8_t* base = nullptr;
  uint64_t size = 0;
  std::vector<TensorInfo> tensors;
  std::vector<std::vector<uint64_t>> chunk_off;  // absolute chunk offsets per tensor
  std::vector<std::vector<uint32_t>> rel;        // chunks x P relative block offsets
  BlockDecoder dec;
  std::vector<std::vector<uint8_t>> bufs;

  Status parse();
  Status parse_index(size_t ti);
  uint64_t chunk_end(size_t ti, uint64_t k) const {
    const TensorInfo& t = tensors[ti];
    return k + 1 < t.chunks ? chunk_off[ti][k + 1] : t.first_chunk_offset + t.stored_bytes;
  }
  uint64_t block_at(size_t ti, uint64_t k, size_t p) const {
    return chunk_off[ti][k] + rel[ti][k * tensors[ti].plane_ids.size() + p];
  }
  uint64_t block_len(size_t ti, uint64_t k, size_t p) const {
    const size_t P = tensors[ti].plane_ids.size();
    const uint64_t end = p + 1 < P ? block_at(ti, k, p + 1) : chunk_end(ti, k);
    return end - block_at(ti, k, p);
  }
  // Index of the first element of chunk k.
  uint64_t first_elem(size_t ti, uint64_t k) const {
    const TensorInfo& t = tensors[ti];
    return k * (t.kind == TensorKind::kKvStream ? uint64_t{t.kv.window} * t.kv.channels * t.kv.heads : t.chunk_elems);
  }
  // Decode plane slot p of chunk k into out (resized to its raw size).
  Status decode(size_t ti, uint64_t k, size_t p, std::vector<uint8_t>& out, ReadStats* st);
  // Decode chunk k's slots with want[p] true; others are left empty.
  Status fetch_chunk(size_t ti, uint64_t k, const std::vector<bool>& want, ReadStats* st);
  // Reconstruct chunk k's elements (natural encoding) from the fetched slots into dst (KV: token
  // major, exponent bases added back).
  void rebuild(size_t ti, uint64_t k, const std::vector<bool>& want, uint8_t* dst);
};

Status ImageReader::Impl::parse() {
  auto hr = parse_file_header(base, size);
  if (!hr.ok()) return hr.status();
  const FileHeader& h = hr.value();
  uint64_t pos = h.table_offset;
  // Every entry is at least 43 bytes, so the loop ends (truncated) long before a lying count matters.
  for (uint32_t i = 0; i < h.tensors; ++i) {
    auto e = parse_entry(base, size, &pos);
    if (!e.ok()) return e.status();
    tensors.push_back(std::move(e.value()));
  }
  // The checksum first (a corrupted table reports as such), then the names: one hash-set pass.
  const uint32_t sum = XXH32(base + h.table_offset, pos - h.table_offset, 0);
  if (sum != h.table_xxh32)
    return Status::Error("offset 32: tensor table checksum mismatch (table at offset " + num(h.table_offset) +
                         ", " + num(pos - h.table_offset) + " bytes)");
  std::unordered_set<std::string_view> names;
  for (const TensorInfo& t : tensors)
    if (!names.insert(t.name).second) return Status::Error("tensor table: duplicate tensor name '" + t.name + "'");
  chunk_off.resize(tensors.size());
  rel.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) NDP_RETURN_IF_ERROR(parse_index(i));
  return Status::Ok();
}

Status ImageReader::Impl::parse_index(size_t ti) {
  const TensorInfo& t = tensors[ti];
  const std::string w = "tensor '" + t.name + "': ";
  const uint64_t P = t.plane_ids.size();
  // Every block is at least 13 bytes (header + 1 payload byte): bounds the chunk count by the data.
  if (t.first_chunk_offset < kImageHeaderBytes || t.first_chunk_offset > size ||
      t.stored_bytes > size - t.first_chunk_offset)
    return Status::Error(w + "chunk data [" + num(t.first_chunk_offset) + ", +" + num(t.stored_bytes) +
                         ") outside the image (" + num(size) + " bytes)");
  if (t.chunks > t.stored_bytes / (13 * P))
    return Status::Error(w + num(t.chunks) + " chunks cannot fit in " + num(t.stored_bytes) + " stored bytes");
  const uint64_t ibytes = t.chunks * (8 + 4 * P);
  if (t.index_offset < kImageHeaderBytes || t.index_offset > size || ibytes > size - t.index_offset)
    return Status::Error(w + "plane index at offset " + num(t.index_offset) + " (" + num(ibytes) +
                         " bytes) outside the image");
  std::vector<uint64_t>& off = chunk_off[ti];
  std::vector<uint32_t>& r = rel[ti];
  off.resize(t.chunks);
  r.resize(t.chunks * P);
  const uint8_t* p = base + t.index_offset;
  const uint64_t data_end = t.first_chunk_offset + t.stored_bytes;
  for (uint64_t k = 0; k < t.chunks; ++k) {
    const uint64_t at = t.index_offset + k * (8 + 4 * P);
    off[k] = get(p, 8);
    p += 8;
    for (uint64_t s = 0; s < P; ++s, p += 4) r[k * P + s] = static_cast<uint32_t>(get(p, 4));
    const uint64_t prev_end = k == 0 ? t.first_chunk_offset : off[k - 1];
    if ((k == 0 && off[k] != t.first_chunk_offset) || (k > 0 && off[k] <= prev_end) || off[k] >= data_end)
      return Status::Error(w + "index offset " + num(at) + ": chunk " + num(k) + " offset " + num(off[k]) +
                           " out of order or outside the chunk data");
    if (r[k * P] != 0) return Status::Error(w + "index offset " + num(at + 8) + ": first block offset is not 0");
    for (uint64_t s = 1; s < P; ++s)
      if (uint64_t{r[k * P + s]} < uint64_t{r[k * P + s - 1]} + 13)
        return Status::Error(w + "index offset " + num(at + 8 + 4 * s) + ": block offsets of chunk " + num(k) +
                             " not increasing by at least 13 bytes");
  }
  for (uint64_t k = 0; k < t.chunks; ++k)
    if (off[k] + uint64_t{r[k * P + P - 1]} + 13 > chunk_end(ti, k))
      return Status::Error(w + "index offset " + num(t.index_offset + k * (8 + 4 * P)) + ": blocks of chunk " +
                           num(k) + " run past the chunk end " + num(chunk_end(ti, k)));
  return Status::Ok();
}

Status ImageReader::Impl::decode(size_t ti, uint64_t k, size_t p, std::vector<uint8_t>& out, ReadStats* st) {
  const TensorInfo& t = tensors[ti];
  const uint8_t id = t.plane_ids[p];
  const uint64_t n = t.chunk_elems_of(k);
  const uint64_t at = block_at(ti, k, p), len = block_len(ti, k, p);
  const std::string what = "tensor '" + t.name + "' chunk " + num(k) + " plane " + hex(id) + " (block at offset " +
                           num(at) + ")";
  PlaneCheck c;
  Status s = decode_chunk_plane(dec, t.dtype, id, k, n, plane_raw_size(t, id, n), base + at, len, what, out, &c);
  if (st && c.rule != PlaneRule::kBlock) {  // counted once the block decoder accepted it
    st->fetched_bytes += len;
    st->blocks++;
  }
  return s;
}

Status ImageReader::Impl::fetch_chunk(size_t ti, uint64_t k, const std::vector<bool>& want, ReadStats* st) {
  bufs.resize(want.size());
  for (size_t p = 0; p < want.size(); ++p) {
    if (want[p])
      NDP_RETURN_IF_ERROR(decode(ti, k, p, bufs[p], st));
    else
      bufs[p].clear();
  }
  return Status::Ok();
}

void ImageReader::Impl::rebuild(size_t ti, uint64_t k, const std::vector<bool>& want, uint8_t* dst) {
  const TensorInfo& t = tensors[ti];
  const uint64_t n = t.chunk_elems_of(k);
  const size_t first = t.kind == TensorKind::kKvStream ? 1 : 0;
  std::vector<const uint8_t*> ptr;
  for (size_t p = first; p < want.size(); ++p) ptr.push_back(want[p] ? bufs[p].data() : nullptr);
  if (t.kind == TensorKind::kWeight) {
    unpack_chunk(t.dtype, t.layout, ptr, n, dst);
    return;
  }
  std::vector<uint16_t> cm(n);
  unpack_chunk(t.dtype, t.layout, ptr, n, reinterpret_cast<uint8_t*>(cm.data()));
  const uint32_t w = static_cast<uint32_t>(n / (uint64_t{t.kv.channels} * t.kv.heads));
  std::vector<uint16_t> tm(n);
  kv_window_inverse(t.dtype, t.kv, w, cm.data(), bufs[0].data(), tm.data());
  std::memcpy(dst, tm.data(), 2 * n);
}

ImageReader::ImageReader() : impl_(std::make_unique<Impl>()) {}
ImageReader::~ImageReader() = default;

static Result<std::unique_ptr<ImageReader>> finish_open(std::unique_ptr<ImageReader> r, Status st) {
  if (!st.ok()) return st;
  return r;
}

Result<std::unique_ptr<ImageReader>> ImageReader::open_file(const std::string& path) {
  std::vector<uint8_t> bytes;
  NDP_RETURN_IF_ERROR(read_whole_file(path, &bytes));  // in memory: a mapping would SIGBUS if the file shrank
  auto r = open_bytes(std::move(bytes));
  if (!r.ok()) return Status(r.status()).prepend(path + ": ");
  return r;
}

Result<std::unique_ptr<ImageReader>> ImageReader::open_bytes(std::vector<uint8_t> bytes) {
  std::unique_ptr<ImageReader> r(new ImageReader());
  Impl& m = *r->impl_;
  m.owned = std::move(bytes);
  m.base = m.owned.data();
  m.size = m.owned.size();
  Status st = m.parse();
  return finish_open(std::move(r), st);
}

Result<std::unique_ptr<ImageReader>> ImageReader::open_view(const uint8_t* data, size_t size) {
  std::unique_ptr<ImageReader> r(new ImageReader());
  Impl& m = *r->impl_;
  m.base = data;
  m.size = size;
  Status st = m.parse();
  return finish_open(std::move(r), st);
}

const std::vector<TensorInfo>& ImageReader::tensors() const { return impl_->tensors; }
uint64_t ImageReader::image_bytes() const { return impl_->size; }

Result<size_t> ImageReader::find(std::string_view name) const {
  for (size_t i = 0; i < impl_->tensors.size(); ++i)
    if (impl_->tensors[i].name == name) return i;
  return Status::Error("no tensor named '" + std::string(name) + "' in the image");
}

uint64_t ImageReader::block_offset(size_t tensor, uint64_t chunk, size_t slot) const {
  return impl_->block_at(tensor, chunk, slot);
}
uint64_t ImageReader::block_span(size_t tensor, uint64_t chunk, size_t slot) const {
  return impl_->block_len(tensor, chunk, slot);
}

// Both reads grow their output one verified chunk at a time: a chunk's bytes are allocated only after
// every block it needs decoded and passed its checks, so an image whose table claims more than its
// blocks hold costs at most the chunks that really decode (docs/image-format.md, "Memory bounds").
Status ImageReader::read_tensor(size_t ti, std::vector<uint8_t>& out, ReadStats* st) {
  out.clear();
  if (ti >= impl_->tensors.size()) return Status::Error("read_tensor: tensor index out of range");
  const TensorInfo& t = impl_->tensors[ti];
  const std::vector<bool> want(t.plane_ids.size(), true);
  for (uint64_t k = 0; k < t.chunks; ++k) {
    NDP_RETURN_IF_ERROR(impl_->fetch_chunk(ti, k, want, st));
    const uint64_t first = impl_->first_elem(ti, k);
    out.resize(dtype_bytes(t.dtype, first + t.chunk_elems_of(k)));
    impl_->rebuild(ti, k, want, out.data() + dtype_bytes(t.dtype, first));
  }
  return Status::Ok();
}

Status ImageReader::read_region(size_t ti, const Region& r, std::vector<uint8_t>& out, ReadStats* st) {
  out.clear();
  if (ti >= impl_->tensors.size()) return Status::Error("read_region: tensor index out of range");
  const TensorInfo& t = impl_->tensors[ti];
  const bool kv = t.kind == TensorKind::kKvStream;
  const std::vector<uint8_t> fetch = region_planes(r, t.dtype, t.layout);
  std::vector<bool> want(t.plane_ids.size(), false);
  for (size_t p = 0; p < t.plane_ids.size(); ++p)
    for (uint8_t id : fetch) want[p] = want[p] || t.plane_ids[p] == id;
  if (kv) want[0] = true;  // KVBASE: the exponent bases are needed for any region
  std::vector<uint8_t> elems;  // KV: token-major elements, assembled once all windows are read
  for (uint64_t k = 0; k < t.chunks; ++k) {
    NDP_RETURN_IF_ERROR(impl_->fetch_chunk(ti, k, want, st));
    const uint64_t n = t.chunk_elems_of(k), first = impl_->first_elem(ti, k);
    if (kv) {
      elems.resize(dtype_bytes(t.dtype, first + n));
      impl_->rebuild(ti, k, want, elems.data() + dtype_bytes(t.dtype, first));
      continue;
    }
    std::vector<const uint8_t*> planes;
    for (size_t p = 0; p < want.size(); ++p) planes.push_back(want[p] ? impl_->bufs[p].data() : nullptr);
    out.resize(region_output_bytes(r, t.dtype, first + n));
    Status s = chunk_region(r, t.dtype, t.layout, planes, n, out.data() + region_output_bytes(r, t.dtype, first));
    if (!s.ok()) return s.prepend("tensor '" + t.name + "' chunk " + num(k) + ": ");
  }
  out.resize(region_output_bytes(r, t.dtype, t.elems));  // KV: sized here; weights: already this size
  if (kv && t.elems) {
    Status s = assemble_region(r, t.dtype, elems.data(), t.elems, out.data());
    if (!s.ok()) return s.prepend("tensor '" + t.name + "': ");
  }
  return Status::Ok();
}

std::vector<BadBlock> ImageReader::verify() {
  std::vector<BadBlock> bad;
  std::vector<uint8_t> buf;
  for (size_t ti = 0; ti < impl_->tensors.size(); ++ti) {
    const TensorInfo& t = impl_->tensors[ti];
    for (uint64_t k = 0; k < t.chunks; ++k)
      for (size_t p = 0; p < t.plane_ids.size(); ++p) {
        Status s = impl_->decode(ti, k, p, buf, nullptr);
        if (!s.ok()) bad.push_back({t.name, k, t.plane_ids[p], impl_->block_at(ti, k, p), s.message()});
      }
  }
  return bad;
}

}  // namespace ndp
