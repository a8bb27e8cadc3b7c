// ImageWriter: packs tensors into plane blocks and lays out the image
//   [64-byte header][chunk data of every tensor][plane index of every tensor][tensor table].
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <set>

#include "image_format.h"
#include "ndp/checked.h"
#include "ndp/image.h"

namespace ndp {

using namespace image_internal;

struct ImageWriter::Impl {
  bool keep = true;
  bool finished = false;
  std::vector<uint8_t> data;  // the image being built: 64 bytes for the header, then chunk data
  uint64_t data_bytes = 0;    // chunk data bytes (== data.size() - 64 when keep)
  std::vector<TensorInfo> infos;
  std::vector<std::vector<uint64_t>> chunk_offsets;  // absolute, per tensor
  std::vector<std::vector<uint32_t>> rel_offsets;    // chunks x P, per tensor
  std::vector<TensorStats> stats;
  std::set<std::string> names;
  BlockEncoder enc;
  PlaneBlockEncoder custom;  // set_block_encoder (empty: enc)
  std::vector<uint8_t> scratch;
  std::vector<std::vector<uint8_t>> planes;
  uint64_t max_bytes = 0;         // set_max_image_bytes (0: none)
  uint64_t meta_bytes = 0;        // index + table bytes of the finished tensors
  uint64_t cur_entry_bytes = 0;   // table entry of the tensor being added

  // Undoes a failed add (error return or exception) unless commit() was called: the writer's
  // tables, data and name set return to what they were when the Undo was made.
  class Undo {
   public:
    explicit Undo(Impl& m) : m_(m), data_size_(m.data.size()), data_bytes_(m.data_bytes), tensors_(m.infos.size()) {}
    Undo(const Undo&) = delete;
    Undo& operator=(const Undo&) = delete;
    void commit() { done_ = true; }
    ~Undo() {
      if (done_) return;
      if (m_.infos.size() > tensors_) m_.names.erase(m_.infos.back().name);
      m_.infos.resize(tensors_);
      m_.chunk_offsets.resize(tensors_);
      m_.rel_offsets.resize(tensors_);
      m_.stats.resize(tensors_);
      if (m_.data.size() > data_size_) m_.data.resize(data_size_);  // shrinking never reallocates
      m_.data_bytes = data_bytes_;
    }

   private:
    Impl& m_;
    size_t data_size_;
    uint64_t data_bytes_;
    size_t tensors_;
    bool done_ = false;
  };

  Status begin(TensorInfo& t);
  // Encode the planes of one chunk (slot order = t.plane_ids) and record its index entry.
  Status encode_chunk(size_t ti, uint64_t k, const std::vector<const std::vector<uint8_t>*>& slots,
                      CodecPolicy policy);
  void end(size_t ti);
};

Status ImageWriter::Impl::begin(TensorInfo& t) {
  if (finished) return Status::Error("image writer: tensor '" + t.name + "' added after finish()");
  if (names.count(t.name)) return Status::Error("image writer: duplicate tensor name '" + t.name + "'");
  t.plane_ids = tensor_plane_ids(t.dtype, t.layout, t.kind);
  NDP_RETURN_IF_ERROR(check_entry(t));
  names.insert(t.name);
  t.first_chunk_offset = kImageHeaderBytes + data_bytes;
  std::vector<uint8_t> e;
  append_entry(t, e);  // fixed-width fields: the size does not depend on the offsets filled in later
  cur_entry_bytes = e.size();
  infos.push_back(t);
  chunk_offsets.emplace_back();
  rel_offsets.emplace_back();
  TensorStats s;
  s.name = t.name;
  s.dtype = t.dtype;
  s.layout = t.layout;
  s.kind = t.kind;
  s.elems = t.elems;
  s.raw_bytes = dtype_bytes(t.dtype, t.elems);
  for (uint8_t id : t.plane_ids) {
    PlaneStats ps;
    ps.plane_id = id;
    ps.guard = plane_is_guard(t.dtype, id);
    s.planes.push_back(ps);
  }
  stats.push_back(std::move(s));
  return Status::Ok();
}

Status ImageWriter::Impl::encode_chunk(size_t ti, uint64_t k,
                                       const std::vector<const std::vector<uint8_t>*>& slots,
                                       CodecPolicy policy) {
  TensorInfo& t = infos[ti];
  TensorStats& s = stats[ti];
  const uint64_t chunk_start = kImageHeaderBytes + data_bytes;
  chunk_offsets[ti].push_back(chunk_start);
  for (size_t p = 0; p < slots.size(); ++p) {
    rel_offsets[ti].push_back(static_cast<uint32_t>(kImageHeaderBytes + data_bytes - chunk_start));
    std::vector<uint8_t>& dst = keep ? data : scratch;
    if (!keep) scratch.clear();
    const size_t before = dst.size();
    PlaneStats& ps = s.planes[p];
    auto r = custom ? custom(slots[p]->data(), slots[p]->size(), t.plane_ids[p], k, policy, ps.guard, dst)
                    : enc.encode(slots[p]->data(), slots[p]->size(), t.plane_ids[p], k, policy, ps.guard, dst);
    if (!r.ok()) return Status(r.status()).prepend("tensor '" + t.name + "' chunk " + std::to_string(k) + ": ");
    const uint64_t stored = dst.size() - before;
    data_bytes += stored;
    ps.blocks++;
    ps.raw_bytes += r->raw_size;
    ps.stored_bytes += stored;
    ps.codec_blocks[static_cast<int>(r->codec)]++;
    ps.codec_stored[static_cast<int>(r->codec)] += stored;
    ps.huffman_blocks += r->huffman_frame;
    s.stored_bytes += stored;
  }
  if (data_bytes - (chunk_start - kImageHeaderBytes) > UINT32_MAX)
    return Status::Error("tensor '" + t.name + "': chunk too large for 32-bit relative offsets");
  const uint64_t image = kImageHeaderBytes + data_bytes + meta_bytes + (k + 1) * (8 + 4 * t.plane_ids.size()) +
                         cur_entry_bytes;
  if (max_bytes && image > max_bytes)
    return Status::Error("tensor '" + t.name + "' chunk " + std::to_string(k) +
                         ": the image would exceed its limit of " + std::to_string(max_bytes) + " bytes");
  return Status::Ok();
}

void ImageWriter::Impl::end(size_t ti) {
  TensorInfo& t = infos[ti];
  t.stored_bytes = kImageHeaderBytes + data_bytes - t.first_chunk_offset;
  TensorStats& s = stats[ti];
  s.index_bytes = t.chunks * (8 + 4 * t.plane_ids.size());
  std::vector<uint8_t> e;
  append_entry(t, e);
  s.table_bytes = e.size();
  meta_bytes += s.index_bytes + s.table_bytes;
}

ImageWriter::ImageWriter(bool keep_data) : impl_(std::make_unique<Impl>()) {
  impl_->keep = keep_data;
  if (keep_data) impl_->data.resize(kImageHeaderBytes);
}
ImageWriter::~ImageWriter() = default;

Status ImageWriter::add_tensor(const std::string& name, DType t, const std::vector<uint64_t>& shape,
                               const uint8_t* data, size_t bytes, const TensorOptions& o) {
  TensorInfo ti;
  ti.name = name;
  ti.dtype = t;
  ti.layout = dtype_info(t).is_float ? o.layout : Layout::kBitplane;
  ti.kind = TensorKind::kWeight;
  ti.shape = shape;
  ti.elems = 1;
  for (uint64_t d : shape)
    if (!mul_ok(ti.elems, d, &ti.elems)) return Status::Error("tensor '" + name + "': shape overflows");
  ti.chunk_elems = o.chunk_elems;
  ti.chunks = ti.elems == 0 || o.chunk_elems == 0 ? 0 : (ti.elems - 1) / o.chunk_elems + 1;
  if (bytes != dtype_bytes(t, ti.elems))
    return Status::Error("tensor '" + name + "': " + std::to_string(bytes) + " data bytes for " +
                         std::to_string(ti.elems) + " elements of " + dtype_info(t).name);
  Impl& m = *impl_;
  Impl::Undo undo(m);
  NDP_RETURN_IF_ERROR(m.begin(ti));
  const size_t idx = m.infos.size() - 1;
  const TensorInfo& info = m.infos[idx];
  std::vector<const std::vector<uint8_t>*> slots;
  for (uint64_t k = 0; k < info.chunks; ++k) {
    const uint64_t n = info.chunk_elems_of(k);
    pack_chunk(t, info.layout, data + dtype_bytes(t, k * info.chunk_elems), n, m.planes);
    slots.clear();
    for (const auto& p : m.planes) slots.push_back(&p);
    NDP_RETURN_IF_ERROR(m.encode_chunk(idx, k, slots, o.policy));
  }
  m.end(idx);
  undo.commit();
  return Status::Ok();
}

Status ImageWriter::add_kv_stream(const std::string& name, DType t, const KvGeometry& g,
                                  const uint16_t* token_major, uint64_t tokens, const TensorOptions& o) {
  TensorInfo ti;
  ti.name = name;
  ti.dtype = t;
  ti.layout = o.layout;
  ti.kind = TensorKind::kKvStream;
  ti.kv = g;
  ti.shape = {tokens, g.heads, g.channels};
  const uint64_t per_token = uint64_t{g.channels} * g.heads;
  if (!product_ok({tokens, per_token}, &ti.elems)) return Status::Error("tensor '" + name + "': KV shape overflows");
  ti.chunk_elems = static_cast<uint32_t>(std::min<uint64_t>(per_token * g.window, UINT32_MAX));
  ti.chunks = g.window ? (tokens + g.window - 1) / g.window : 0;
  ti.last_window_tokens = static_cast<uint32_t>(tokens - (ti.chunks ? (ti.chunks - 1) * g.window : 0));
  if (ti.chunks > UINT32_MAX) return Status::Error("tensor '" + name + "': too many KV windows");
  Impl& m = *impl_;
  Impl::Undo undo(m);
  NDP_RETURN_IF_ERROR(m.begin(ti));
  const size_t idx = m.infos.size() - 1;
  const TensorInfo& info = m.infos[idx];
  std::vector<uint16_t> cm(per_token * g.window);
  std::vector<uint8_t> base(per_token);
  std::vector<const std::vector<uint8_t>*> slots;
  const KvBase choice = kv_resolve_base(o.kv_base, info.layout);
  for (uint64_t k = 0; k < info.chunks; ++k) {
    const uint32_t w = static_cast<uint32_t>(k + 1 == info.chunks ? info.last_window_tokens : g.window);
    kv_window_forward(t, g, w, token_major + k * g.window * per_token, cm.data(), base.data(), choice);
    pack_chunk(t, info.layout, reinterpret_cast<const uint8_t*>(cm.data()), w * per_token, m.planes);
    slots.clear();
    slots.push_back(&base);
    for (const auto& p : m.planes) slots.push_back(&p);
    NDP_RETURN_IF_ERROR(m.encode_chunk(idx, k, slots, o.policy));
  }
  m.end(idx);
  undo.commit();
  return Status::Ok();
}

void ImageWriter::set_max_image_bytes(uint64_t bytes) { impl_->max_bytes = bytes; }
void ImageWriter::set_block_encoder(PlaneBlockEncoder enc) { impl_->custom = std::move(enc); }

const std::vector<TensorStats>& ImageWriter::stats() const { return impl_->stats; }

uint64_t ImageWriter::image_bytes() const {
  return kImageHeaderBytes + impl_->data_bytes + impl_->meta_bytes;
}

Result<std::vector<uint8_t>> ImageWriter::finish() {
  Impl& m = *impl_;
  if (!m.keep) return Status::Error("image writer: created for statistics only, no image to finish");
  if (m.finished) return Status::Error("image writer: finish() called twice");
  m.finished = true;
  const uint64_t total = image_bytes();
  std::vector<uint8_t> img = std::move(m.data);  // header placeholder + chunk data, no copy
  m.data = {};
  img.reserve(total);
  for (size_t i = 0; i < m.infos.size(); ++i) {
    TensorInfo& t = m.infos[i];
    t.index_offset = img.size();
    const size_t P = t.plane_ids.size();
    for (uint64_t k = 0; k < t.chunks; ++k) {
      put(img, m.chunk_offsets[i][k], 8);
      for (size_t p = 0; p < P; ++p) put(img, m.rel_offsets[i][k * P + p], 4);
    }
  }
  FileHeader h;
  h.tensors = static_cast<uint32_t>(m.infos.size());
  h.table_offset = img.size();
  for (const TensorInfo& t : m.infos) append_entry(t, img);
  h.total_bytes = img.size();
  h.table_xxh32 = XXH32(img.data() + h.table_offset, img.size() - h.table_offset, 0);
  write_file_header(h, img.data());
  return img;
}

Status ImageWriter::write_file(const std::string& path) {
  auto r = finish();
  if (!r.ok()) return r.status();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::Error(path + ": cannot create: " + std::strerror(errno));
  const size_t w = std::fwrite(r->data(), 1, r->size(), f);
  const int c = std::fclose(f);
  if (w != r->size() || c != 0) return Status::Error(path + ": write failed: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace ndp
