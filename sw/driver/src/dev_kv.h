// KV cache streams written through the device's KV pages (docs/spec.md 7.7): the driver side of the
// KV write path. A stream is a list of pages, one KV window each; tokens are written into the open
// page through the KV window (the device transforms, encodes and stores a page when its W tokens are
// in, or when the driver seals it early), reads come back through the KV window from the page's
// window buffer or its stored blocks. Pages and DRAM slots are allocated here, freed with the
// stream, and a sealed page's slot is cut to its stored bytes. When all B window buffers are in
// use, opening a page first seals the open page written longest ago (a partial window: it costs
// ratio, spec 7.7). Not thread-safe (callers lock).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ndp/device_map.h"
#include "ndp/driver.h"
#include "ndp/kv.h"
#include "range_alloc.h"

namespace ndp::drv {

class DevKvStore {
 public:
  DevKvStore(dev::HostPort& port, RangeAlloc& dram, const dev::KvCaps& caps) : port_(port), dram_(dram), caps_(caps) {}
  ~DevKvStore();
  // True when the device takes pages of this type and geometry (N = C x H a multiple of 32, W x N
  // within a window buffer, the dtype in the KV dtype mask).
  bool fits(DType t, const KvGeometry& g) const;
  Status create(uint32_t id, DType t, const KvGeometry& g);
  bool has(uint32_t id) const { return streams_.count(id) != 0; }
  Status append(uint32_t id, const uint16_t* token_major, uint64_t tokens, CallStats* st);
  Status read(uint32_t id, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st);
  Result<uint64_t> tokens(uint32_t id) const;
  Status release(uint32_t id);
  // Pages sealed early to free a window buffer, since creation.
  uint64_t early_seals() const { return early_seals_; }

 private:
  struct Page {
    uint32_t number = 0;
    uint64_t slot = 0;
    uint64_t first = 0;   // the stream's token index of the page's token 0
    uint32_t tokens = 0;  // written (open) or stored (sealed)
    bool sealed = false;
    uint64_t last_write = 0;  // write counter at the last append into it (open pages)
  };
  struct Stream {
    DType dtype = DType::kBF16;
    KvGeometry g;
    uint32_t width = 0;  // N
    std::vector<Page> pages;
  };
  Status open_page(uint32_t id, Stream& s);
  Status seal(Page& pg);
  Status free_page(const Page& pg);
  Status after_seal(Page& pg);
  uint64_t token_address(const Page& pg, uint32_t t, uint32_t width) const;

  dev::HostPort& port_;
  RangeAlloc& dram_;
  dev::KvCaps caps_;
  std::map<uint32_t, Stream> streams_;
  std::vector<bool> page_used_;
  uint32_t open_ = 0;
  uint64_t writes_ = 0, early_seals_ = 0;
};

}  // namespace ndp::drv
