// NDP image files (docs/spec.md section 4): a 64-byte header, the chunk data (plane blocks), one
// plane index per tensor and the tensor table. ImageWriter packs and encodes tensors (weights and
// KV window streams); ImageReader validates an image and reads tensors or precision regions back,
// fetching only the plane blocks a region needs. docs/image-format.md describes the API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ndp/block.h"
#include "ndp/dtype.h"
#include "ndp/kv.h"
#include "ndp/planes.h"
#include "ndp/precision.h"
#include "ndp/status.h"

namespace ndp {

constexpr uint32_t kImageVersion = 1;
constexpr size_t kImageHeaderBytes = 64;

enum class TensorKind : uint8_t { kWeight = 0, kKvStream = 1 };

// One tensor-table entry (section 4.2) plus what follows from it.
struct TensorInfo {
  std::string name;
  DType dtype = DType::kBF16;
  Layout layout = Layout::kExpByte;
  TensorKind kind = TensorKind::kWeight;
  std::vector<uint64_t> shape;  // KV streams: {tokens, heads H, channels C}
  uint64_t elems = 0;           // N
  uint32_t chunk_elems = 0;     // KV: W x C x H
  std::vector<uint8_t> plane_ids;  // storage order within a chunk (KV: KVBASE first)
  uint64_t index_offset = 0;
  uint64_t first_chunk_offset = 0;
  uint64_t stored_bytes = 0;    // bytes of stored chunk data
  uint64_t chunks = 0;          // number of chunks (KV: windows)
  KvGeometry kv;                // KV only
  uint32_t last_window_tokens = 0;  // KV only

  uint64_t tokens() const { return kind == TensorKind::kKvStream ? elems / (uint64_t{kv.channels} * kv.heads) : 0; }
  // Elements in chunk k (the last chunk may be partial).
  uint64_t chunk_elems_of(uint64_t k) const;
};

// Encoding options of one tensor.
struct TensorOptions {
  uint32_t chunk_elems = kDefaultChunkElems;  // weights only: multiple of 64 in [64, 524288]
  Layout layout = Layout::kExpByte;           // integer types are always stored as bit-planes
  CodecPolicy policy = CodecPolicy::kAuto;
  KvBase kv_base = KvBase::kAuto;             // KV streams only: the encoder's base choice (section 6)
};

// Per-plane encoding statistics (stored bytes count the 12-byte block headers).
struct PlaneStats {
  uint8_t plane_id = 0;
  bool guard = false;
  uint64_t blocks = 0;
  uint64_t raw_bytes = 0;
  uint64_t stored_bytes = 0;
  uint64_t codec_blocks[4] = {0, 0, 0, 0};  // by Codec value
  uint64_t codec_stored[4] = {0, 0, 0, 0};
  uint64_t huffman_blocks = 0;  // ZSTD blocks holding the literals-only Huffman frame
};

struct TensorStats {
  std::string name;
  DType dtype = DType::kBF16;
  Layout layout = Layout::kExpByte;
  TensorKind kind = TensorKind::kWeight;
  uint64_t elems = 0;
  uint64_t raw_bytes = 0;     // element bytes, dtype_bytes(dtype, elems)
  uint64_t stored_bytes = 0;  // all blocks of the tensor (headers + payloads)
  uint64_t index_bytes = 0;
  uint64_t table_bytes = 0;   // its tensor-table entry
  std::vector<PlaneStats> planes;  // storage order
};

// Encoder of one plane block with BlockEncoder::encode's contract: appends the stored block (12-byte
// header + payload) of plane[0..n-1] to out and returns what it chose. ImageWriter calls it once per
// plane block, in storage order (tensor, chunk, slot).
using PlaneBlockEncoder = std::function<Result<BlockInfo>(const uint8_t* plane, size_t n, uint8_t plane_id,
                                                          uint64_t block_id, CodecPolicy policy, bool guard,
                                                          std::vector<uint8_t>& out)>;

// Builds an image in memory. Not thread-safe.
class ImageWriter {
 public:
  // keep_data = false: encode for statistics only (stats(), image_bytes()); finish() then fails.
  explicit ImageWriter(bool keep_data = true);
  ~ImageWriter();
  ImageWriter(const ImageWriter&) = delete;
  ImageWriter& operator=(const ImageWriter&) = delete;

  // Every add is all or nothing: an add that fails (an error, or an exception such as bad_alloc)
  // leaves the writer exactly as it was before the call, so finish() still gives a valid image of
  // the tensors added before.
  //
  // Add a weight tensor: `bytes` = dtype_bytes(t, N) bytes of data in natural encoding, N = product
  // of shape (empty shape = scalar). Names are unique, 1..65535 bytes. Packs chunks with
  // pack_chunk and encodes every plane block (GUARD flag from the precision rules).
  Status add_tensor(const std::string& name, DType t, const std::vector<uint64_t>& shape,
                    const uint8_t* data, size_t bytes, const TensorOptions& o = {});
  // Add a KV window stream (section 6): `tokens` tokens, token-major [t][h][c] bf16/fp16 words.
  // Windows of g.window tokens (the last may be partial), channel-major with exponent deltas; each
  // window stores a KVBASE block then the planes of o.layout (o.chunk_elems is ignored); the base
  // exponents are chosen per o.kv_base.
  Status add_kv_stream(const std::string& name, DType t, const KvGeometry& g, const uint16_t* token_major,
                       uint64_t tokens, const TensorOptions& o = {});

  // Limit on the finished image, e.g. the device DRAM it must fit (0 = none, the default): an add
  // whose chunks would make image_bytes() exceed it fails at the first chunk that crosses it.
  void set_max_image_bytes(uint64_t bytes);
  // The encoder of every plane block added from now on (empty: the software BlockEncoder, the
  // default). `ndp-rtl pack` sets one that hands over the blocks the RTL encode lanes wrote, so the
  // image around them (chunk layout, plane index, tensor table) is this writer's.
  void set_block_encoder(PlaneBlockEncoder enc);

  const std::vector<TensorStats>& stats() const;
  // Size in bytes the finished image has (header, data, indexes, table).
  uint64_t image_bytes() const;
  // The finished image. Error if keep_data was false or finish() was already called.
  Result<std::vector<uint8_t>> finish();
  // finish() and write it to `path`.
  Status write_file(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Bytes read from the image by one call (the DRAM traffic of a region).
struct ReadStats {
  uint64_t fetched_bytes = 0;  // plane blocks fetched, headers included
  uint64_t blocks = 0;
};

struct BadBlock {
  std::string tensor;
  uint64_t chunk = 0;
  uint8_t plane_id = 0;
  uint64_t offset = 0;  // absolute offset of the block in the image
  std::string message;
};

// Validated, read-only view of an image. Thread-compatible (one reader per thread for decoding).
class ImageReader {
 public:
  ~ImageReader();
  // Open a file (read into memory, not mapped: a mapped file that shrinks would raise SIGBUS), a byte
  // vector (owned) or a caller-owned view. Validates the header, the tensor table (its XXH32 first,
  // then the entries and unique names) and every plane index; an error names the offset.
  static Result<std::unique_ptr<ImageReader>> open_file(const std::string& path);
  static Result<std::unique_ptr<ImageReader>> open_bytes(std::vector<uint8_t> bytes);
  static Result<std::unique_ptr<ImageReader>> open_view(const uint8_t* data, size_t size);

  const std::vector<TensorInfo>& tensors() const;
  // Index of the tensor called `name`, or an error naming it.
  Result<size_t> find(std::string_view name) const;
  uint64_t image_bytes() const;

  // Whole tensor, bit-exact, natural encoding: dtype_bytes(dtype, N) bytes. KV streams come back
  // token-major [t][h][c], exactly as written.
  // Both reads grow `out` one chunk at a time, after that chunk's blocks decoded and passed their
  // checks, so a corrupt image never costs more than the chunks that really decode; on an error
  // `out` holds at most the chunks read so far.
  Status read_tensor(size_t tensor, std::vector<uint8_t>& out, ReadStats* st = nullptr);
  // Precision region (section 5): fetches only the blocks region_planes() names (KV: plus KVBASE),
  // unpacks with the others absent and assembles the region format. out receives
  // region_output_bytes(r, dtype, N) bytes.
  Status read_region(size_t tensor, const Region& r, std::vector<uint8_t>& out, ReadStats* st = nullptr);
  // Decode every block of every tensor; returns the bad ones (empty = image intact).
  std::vector<BadBlock> verify();

  // Absolute offset and stored size (header + payload) of plane slot p of chunk k.
  uint64_t block_offset(size_t tensor, uint64_t chunk, size_t slot) const;
  uint64_t block_span(size_t tensor, uint64_t chunk, size_t slot) const;

 private:
  ImageReader();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- Chunk decoding, shared by ImageReader and the device model (sw/device) -----------------------

// Which rule a stored plane block broke in decode_chunk_plane.
enum class PlaneRule : uint8_t {
  kOk,
  kBlock,     // a BlockDecoder check; PlaneCheck::block says which
  kSpan,      // the header accounts for 12 + comp_size bytes, the block's index span differs
  kExpRange,  // an EXPBYTE value exceeds the dtype's E-bit exponent field (fp16, fp8)
};
struct PlaneCheck {
  PlaneRule rule = PlaneRule::kOk;
  BlockFault block = BlockFault::kNone;
};

// Decode plane `plane_id` of chunk `chunk` (n elements) of a tensor of type t from its stored block
// stored[0..span-1], span = the block's extent by the plane index. Checks, in order: the BlockDecoder
// rules against plane_id, block id = chunk mod 65536, raw_size and the bit-plane padding of n; the
// header accounts for the span exactly (12 + comp_size == span); EXPBYTE values fit the E-bit field.
// out is resized to raw_size. `what` starts error messages; *check (if given) names the failed rule.
Status decode_chunk_plane(BlockDecoder& dec, DType t, uint8_t plane_id, uint64_t chunk, uint64_t n,
                          uint32_t raw_size, const uint8_t* stored, uint64_t span, const std::string& what,
                          std::vector<uint8_t>& out, PlaneCheck* check = nullptr);

// Slots of plane_order(t, l) that region r fetches (region_planes), as a mask in slot order.
std::vector<bool> region_slot_mask(const Region& r, DType t, Layout l);

// Region bytes of one weight chunk of n elements from its decoded planes: planes[s] is slot s of
// plane_order(t, l), nullptr for a slot the region does not fetch (read as zero bits). unpack_chunk,
// then assemble_region: writes region_output_bytes(r, t, n) bytes to out.
Status chunk_region(const Region& r, DType t, Layout l, const std::vector<const uint8_t*>& planes, uint64_t n,
                    uint8_t* out);

// The stored KV window of section 6 for the w tokens of token_major (g.channels x g.heads words each,
// kv_window_check(t, g, w) ok): transformed channel-major with the base choice `base` (kAuto: the
// layout's reference), packed in layout l, then the KVBASE block and the plane blocks, block_id and
// policy as given, GUARD per plane_is_guard, appended to out. rel (if given) receives the offset in
// out where each block starts. Shared by the device model's KV pages and the driver's KV store.
Status encode_kv_window(BlockEncoder& enc, DType t, Layout l, const KvGeometry& g, uint32_t w,
                        const uint16_t* token_major, KvBase base, uint64_t block_id, CodecPolicy policy,
                        std::vector<uint8_t>& out, std::vector<uint32_t>* rel = nullptr);

}  // namespace ndp
