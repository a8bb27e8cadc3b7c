// DeviceModel internals shared by device_model.cc (bus, registers, descriptors, DRAM) and
// device_region.cc (region reads: chunk lookup, fetch, decode, assembly).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ndp/device_model.h"
#include "ndp/block.h"
#include "ndp/image.h"

namespace ndp::dev {

constexpr uint64_t kMinBlockSpan = kBlockHeaderBytes + 1;             // 13: a stored block's span
constexpr uint64_t kMaxBlockSpan = kBlockHeaderBytes + kMaxPlaneBytes;  // 65548

// Device DRAM as lazily allocated 64 KiB pages; unwritten bytes read zero.
class SparseDram {
 public:
  void read(uint64_t addr, size_t n, uint8_t* out) const;
  // One 64-byte line at addr (64-byte aligned) with a byte mask.
  void write_line(uint64_t addr, const uint8_t* data, uint64_t strobe);

 private:
  static constexpr uint64_t kPage = 65536;
  std::unordered_map<uint64_t, std::unique_ptr<std::array<uint8_t, kPage>>> pages_;
};

// A committed, accepted descriptor.
struct MappedTensor {
  Descriptor d;
  uint32_t number = 0;  // descriptor index t
  DType dtype = DType::kBF16;
  Layout layout = Layout::kExpByte;
  std::vector<uint8_t> order;  // plane_order(dtype, layout)
  uint64_t chunks = 0;
};

// One chunk buffer entry (spec 7.6): invalid, or the decoded region bytes of (window, tensor, chunk).
struct ChunkEntry {
  bool valid = false;   // tagged
  bool failed = false;  // a failed prefetch: tagged, decoded again on demand by the next lookup hit
  uint8_t window = 0;   // region window with g dropped for `full`
  uint32_t tensor = 0;
  uint64_t chunk = 0;
  uint64_t stamp = 0;  // last use, for LRU
  std::vector<uint8_t> bytes;
  bool is(uint8_t w, uint32_t t, uint64_t k) const { return valid && window == w && tensor == t && chunk == k; }
};

// One KV page-table entry (spec 7.7).
struct KvPage {
  uint8_t written[32] = {};  // descriptor bytes 0..31 as last written
  KvPageDesc d;              // the accepted fields (valid while the page is not free)
  KvPageState state = KvPageState::kFree;
  uint64_t lines = 0;             // open: 64-byte lines written
  uint32_t tokens = 0;            // whole tokens written (open) or stored (sealed)
  uint32_t stored = 0;            // sealed: page header + blocks
  std::vector<uint8_t> buf;       // open: the window buffer, token-major
};

// Counter slots, in CSR order from CNT_HOST_RD_BEATS.
enum Counter { kHostRd, kHostWr, kDecErr, kSlvErr, kDramRd, kDramWr, kChunks, kChunkHits, kBlocks, kKvSeals,
               kKvStored, kCounters };

struct DeviceModel::Impl {
  DeviceConfig cfg;
  std::optional<Ddr5Model> dram;
  SparseDram mem;
  std::vector<uint8_t> desc_mem;  // max_tensors x 64 bytes as written
  std::vector<MappedTensor> map;  // accepted descriptors, ascending base
  bool enable = false;
  uint64_t tensor_count = 0, rejected = 0;
  uint64_t err_code = 0, err_chunk = 0, err_addr = 0, err_count = 0;
  uint64_t cnt[kCounters] = {};
  uint64_t cycle_base = 0;  // DRAM cycle of the last counter clear
  std::vector<ChunkEntry> cache;  // chunk_buffers entries
  uint64_t stamp = 0;
  uint32_t prefetch = 0;          // PREFETCH
  uint32_t track = 0;             // TRACK: the model answers in request order whatever its value
  uint32_t max_track() const { return cfg.chunk_buffers < 2 ? 0 : cfg.chunk_buffers - 2; }
  struct Current {                // the entry the previous region beat read (spec 7.6)
    bool valid = false;
    size_t entry = 0;
  } cur;
  BlockDecoder dec;
  uint64_t dram_tag = 0;
  std::vector<KvPage> kv;         // kv_pages entries
  uint32_t kv_open = 0;           // window buffers in use
  struct KvReadBuffer {           // the last decoded sealed page
    bool valid = false;
    uint32_t page = 0;
    std::vector<uint8_t> bytes;   // token-major
  } kv_rd;
  BlockEncoder enc;
  uint32_t kv_span_log2() const;

  // ---- device_model.cc ----
  void init();  // tables, buffers and registers at power-on (create, reset)
  void log_error(uint8_t code, uint8_t plane, uint16_t slot, uint32_t tensor, uint64_t chunk, uint64_t addr);
  // Submit a DRAM access of the lines covering [addr, end) to the timing model and count it.
  void dram_access(uint64_t addr, uint64_t end, bool write);
  // Wait until every submitted DRAM access has completed (a dependent fetch follows).
  void dram_wait();
  uint64_t csr_value(uint64_t offset) const;
  Resp read_beat(uint64_t line, uint8_t* out);
  Resp write_beat(uint64_t line, const uint8_t* data, uint64_t strobe);
  void write_csr(uint64_t offset, uint64_t value);
  void commit(uint64_t count);
  Status check_descriptor(const Descriptor& d, const MappedTensor* prev) const;

  // ---- device_kv.cc (spec 7.7) ----
  // The page and line of KV window offset o: nullptr with r = DECERR past the page table, or
  // SLVERR for a free page (KvFree logged).
  KvPage* kv_locate(uint64_t o, uint32_t& p, uint64_t& line, Resp& r);
  Resp kv_read_beat(uint64_t offset, uint8_t* out);
  Resp kv_write_beat(uint64_t offset, const uint8_t* data, uint64_t strobe);
  // Page-table beats at control offset kKvPageTableBase + 64 p; false if o is not in the table.
  bool kv_desc_read(uint64_t o, uint8_t* out) const;
  bool kv_desc_write(uint64_t o, const uint8_t* data, uint64_t strobe);
  void kv_seal_request(uint64_t page);  // KV_SEAL
  void kv_free(uint32_t p);
  // 0 when d opens (or restores) on this device, else the KvPageRejected reason.
  uint8_t kv_check(const KvPageDesc& d) const;
  uint8_t kv_restore(uint32_t p, const KvPageDesc& d);
  void kv_seal(uint32_t p);
  // The page header of sealed page p's slot, checked against the page (logs Index when log).
  bool kv_header(uint32_t p, KvPageHeader& h, bool log);
  // Decode sealed page p into the KV read buffer; false (logged) on a header or block failure.
  bool kv_load(uint32_t p);

  // ---- device_region.cc ----
  Resp read_region(uint8_t window, uint64_t offset, uint8_t* out);
  // The decoded region bytes of chunk k (the current chunk, a lookup hit, or a demand decode now;
  // *decoded tells which), or nullptr when the chunk cannot be produced (the error is logged). A
  // lookup is followed by the prefetch step.
  const std::vector<uint8_t>* chunk_bytes(uint8_t window, const MappedTensor& m, const Region& r, uint64_t k,
                                          bool first, bool* decoded);
  // Chunk buffer entry holding (window, tensor, chunk), or -1.
  int find_entry(uint8_t window, uint32_t tensor, uint64_t k) const;
  // The lowest-numbered invalid entry, else the least recently used one.
  size_t victim() const;
  // Tag entry e with chunk k (most recently used) and decode into it; false when the decode fails
  // (logged only when log is set). The entry is left valid: the caller invalidates a failure.
  bool fill_entry(size_t e, uint8_t window, const MappedTensor& m, const Region& r, uint64_t k, bool log);
  // The prefetch step after a lookup of chunk k (spec 7.6); first: the beat is the tensor's first line.
  void prefetch_after(uint8_t window, const MappedTensor& m, const Region& r, uint64_t k, bool first);
  // The mapped tensor with descriptor number m.number + 1, or nullptr.
  const MappedTensor* next_tensor(const MappedTensor& m) const;
  // Drop every entry (FLUSH, TENSOR_COUNT).
  void flush_cache();
  // Fetch index entry k (and k + 1) and check the spans of the slots in want (code 2 on failure,
  // logged when log is set); start/end receive every slot's DRAM extent.
  bool fetch_index(const MappedTensor& m, uint64_t k, const std::vector<bool>& want, std::vector<uint64_t>& start,
                   std::vector<uint64_t>& end, bool log);
  // Decode slot s of chunk k (n elements) from its stored bytes into plane: kErrNone or the ERR_CODE code.
  uint8_t decode_block(const MappedTensor& m, uint64_t k, size_t s, uint64_t n, const std::vector<uint8_t>& stored,
                       std::vector<uint8_t>& plane);
  // The same for any block: plane id, type, tensor (or KV page) number for messages, block id k,
  // n elements, raw size.
  uint8_t decode_any_block(DType t, uint8_t id, uint32_t number, uint64_t k, size_t s, uint64_t n, uint32_t raw,
                           const std::vector<uint8_t>& stored, std::vector<uint8_t>& plane);
  // Fetch and decode chunk k into out; false on an index or block failure (logged when log is set:
  // demand decodes log, prefetches do not).
  bool decode_chunk(const MappedTensor& m, const Region& r, uint64_t k, std::vector<uint8_t>& out, bool log);
};

}  // namespace ndp::dev
