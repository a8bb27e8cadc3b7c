// DevKvStore: KV streams in the device's KV pages (docs/spec.md 7.7, docs/driver.md "KV streams").
#include "dev_kv.h"

#include <algorithm>
#include <string>

namespace ndp::drv {

using namespace ndp::dev;

namespace {
std::string sid(uint32_t id) { return "KV stream " + std::to_string(id); }
}  // namespace

DevKvStore::~DevKvStore() {
  for (auto& [id, s] : streams_)
    for (const Page& pg : s.pages) (void)free_page(pg);
}

bool DevKvStore::fits(DType t, const KvGeometry& g) const {
  const uint64_t n = uint64_t{g.channels} * g.heads;
  return caps_.max_pages > 0 && (caps_.dtype_mask >> static_cast<int>(t) & 1) && n >= kKvWidthAlign &&
         n % kKvWidthAlign == 0 && g.window >= 1 && uint64_t{g.window} * n <= (uint64_t{1} << caps_.buffer_elems_log2);
}

Status DevKvStore::create(uint32_t id, DType t, const KvGeometry& g) {
  if (!fits(t, g)) return Status::Error(sid(id) + ": geometry not taken by the device's KV pages");
  Stream& s = streams_[id];
  s.dtype = t;
  s.g = g;
  s.width = g.channels * g.heads;
  if (page_used_.empty()) page_used_.assign(caps_.max_pages, false);
  return Status::Ok();
}

uint64_t DevKvStore::token_address(const Page& pg, uint32_t t, uint32_t width) const {
  return kv_address(pg.number, caps_.span_log2, uint64_t{t} * 2 * width);
}

Status DevKvStore::after_seal(Page& pg) {
  auto d = kv_page_read(port_, pg.number);
  if (!d.ok()) return d.status();
  if (d.value().state != KvPageState::kSealed)
    return Status::Error("KV page " + std::to_string(pg.number) + " did not seal");
  pg.sealed = true;
  pg.tokens = d.value().tokens;
  dram_.shrink(pg.slot, RangeAlloc::align_up(d.value().stored_bytes, kBeatBytes));  // the rest is free again
  --open_;
  return Status::Ok();
}

Status DevKvStore::seal(Page& pg) {
  NDP_RETURN_IF_ERROR(csr_write(port_, kCsrKvSeal, pg.number));
  return after_seal(pg);
}

Status DevKvStore::open_page(uint32_t id, Stream& s) {
  if (open_ >= caps_.buffers) {  // every window buffer in use: seal the page written longest ago
    Page* victim = nullptr;
    for (auto& [i, o] : streams_)
      for (Page& pg : o.pages)
        if (!pg.sealed && pg.tokens > 0 && (!victim || pg.last_write < victim->last_write)) victim = &pg;
    if (!victim) return Status::Error(sid(id) + ": every KV window buffer holds an empty page");
    NDP_RETURN_IF_ERROR(seal(*victim));
    ++early_seals_;
  }
  auto it = std::find(page_used_.begin(), page_used_.end(), false);
  if (it == page_used_.end()) return Status::Error(sid(id) + ": device KV page table full");
  const Layout l = Layout::kExpByte;
  const uint64_t bytes = kv_slot_bytes(s.dtype, l, s.g.window, s.width);
  auto slot = dram_.alloc(bytes, kBeatBytes);
  if (!slot) return Status::Error(sid(id) + ": device DRAM full (" + std::to_string(dram_.free_bytes()) + " bytes free)");
  Page pg;
  pg.number = static_cast<uint32_t>(it - page_used_.begin());
  pg.slot = *slot;
  pg.first = s.pages.empty() ? 0 : s.pages.back().first + s.pages.back().tokens;
  KvPageDesc d;
  d.slot = pg.slot;
  d.slot_bytes = static_cast<uint32_t>(bytes);
  d.window = s.g.window;
  d.width = s.width;
  d.dtype = static_cast<uint8_t>(s.dtype);
  d.layout = static_cast<uint8_t>(l);
  d.policy = static_cast<uint8_t>(CodecPolicy::kAuto);
  d.flags = kKvFlagValid;
  Status w = kv_page_write(port_, pg.number, d);
  auto back = w.ok() ? kv_page_read(port_, pg.number) : Result<KvPageDesc>(w);
  if (!back.ok() || back.value().state != KvPageState::kOpen) {
    dram_.free(pg.slot);
    return Status::Error(sid(id) + ": the device refused KV page " + std::to_string(pg.number) +
                         (back.ok() ? "" : ": " + back.status().message()));
  }
  *it = true;
  ++open_;
  s.pages.push_back(pg);
  return Status::Ok();
}

Status DevKvStore::append(uint32_t id, const uint16_t* token_major, uint64_t tokens, CallStats* st) {
  auto f = streams_.find(id);
  if (f == streams_.end()) return Status::Error("no " + sid(id));
  Stream& s = f->second;
  if (tokens && !token_major) return Status::Error(sid(id) + ": no token data");
  const uint64_t row = 2ull * s.width;
  for (uint64_t done = 0; done < tokens;) {
    if (s.pages.empty() || s.pages.back().sealed) NDP_RETURN_IF_ERROR(open_page(id, s));
    Page& pg = s.pages.back();
    const uint32_t take = static_cast<uint32_t>(std::min<uint64_t>(s.g.window - pg.tokens, tokens - done));
    Status w = port_.write(token_address(pg, pg.tokens, s.width),
                           reinterpret_cast<const uint8_t*>(token_major + done * s.width), take * row);
    if (!w.ok()) return w.prepend(sid(id) + " page " + std::to_string(pg.number) + ": ");
    pg.tokens += take;
    pg.last_write = ++writes_;
    done += take;
    if (st) st->link_bytes += take * row;
    if (pg.tokens == s.g.window) NDP_RETURN_IF_ERROR(after_seal(pg));  // the device sealed it
  }
  if (st) st->host_bytes += tokens * row;
  return Status::Ok();
}

Status DevKvStore::read(uint32_t id, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) {
  auto f = streams_.find(id);
  if (f == streams_.end()) return Status::Error("no " + sid(id));
  const Stream& s = f->second;
  const uint64_t total = s.pages.empty() ? 0 : s.pages.back().first + s.pages.back().tokens;
  if (first > total || tokens > total - first)
    return Status::Error(sid(id) + ": tokens [" + std::to_string(first) + ", +" + std::to_string(tokens) +
                         ") beyond the " + std::to_string(total) + " written");
  const uint64_t row = 2ull * s.width;
  auto c0 = csr_read(port_, kCsrCntDramRdBytes), b0 = csr_read(port_, kCsrCntBlocks);
  // the page holding token `first`: the last one starting at or before it
  auto it = std::upper_bound(s.pages.begin(), s.pages.end(), first,
                             [](uint64_t t, const Page& pg) { return t < pg.first; });
  for (uint64_t t = first; t < first + tokens; ++it) {
    const Page& pg = *std::prev(it);
    const uint32_t in = static_cast<uint32_t>(t - pg.first);
    const uint64_t take = std::min<uint64_t>(pg.tokens - in, first + tokens - t);
    std::vector<Resp> resp;
    Status r = port_.read(token_address(pg, in, s.width), take * row,
                          reinterpret_cast<uint8_t*>(out + (t - first) * s.width), &resp);
    if (r.ok()) {
      const auto bad = std::find_if(resp.begin(), resp.end(), [](Resp x) { return x != Resp::kOkay; });
      if (bad != resp.end()) {
        if (st) st->errors += std::count_if(resp.begin(), resp.end(), [](Resp x) { return x != Resp::kOkay; });
        auto code = csr_read(port_, kCsrErrCode);
        r = Status::Error("KV page " + std::to_string(pg.number) + ": " + resp_name(*bad) + " (ERR_CODE " +
                          (code.ok() ? std::to_string(code.value() & 0xFF) : "?") + ")");
      }
    }
    if (!r.ok()) return r.prepend(sid(id) + ": ");
    if (st) st->link_bytes += take * row;
    t += take;
  }
  auto c1 = csr_read(port_, kCsrCntDramRdBytes), b1 = csr_read(port_, kCsrCntBlocks);
  if (st) {
    st->host_bytes += tokens * row;
    if (c0.ok() && c1.ok()) st->device_bytes += c1.value() - c0.value();
    if (b0.ok() && b1.ok()) st->blocks += b1.value() - b0.value();
  }
  return Status::Ok();
}

Result<uint64_t> DevKvStore::tokens(uint32_t id) const {
  auto f = streams_.find(id);
  if (f == streams_.end()) return Status::Error("no " + sid(id));
  const Stream& s = f->second;
  return s.pages.empty() ? 0 : s.pages.back().first + s.pages.back().tokens;
}

Status DevKvStore::free_page(const Page& pg) {
  KvPageDesc off;  // valid clear: the page is freed (its reads answer SLVERR from now on)
  Status s = kv_page_write(port_, pg.number, off);
  dram_.free(pg.slot);
  if (pg.number < page_used_.size()) page_used_[pg.number] = false;
  if (!pg.sealed) --open_;
  return s;
}

Status DevKvStore::release(uint32_t id) {
  auto f = streams_.find(id);
  if (f == streams_.end()) return Status::Error("no " + sid(id));
  Status first;
  for (const Page& pg : f->second.pages) {
    Status s = free_page(pg);
    if (first.ok() && !s.ok()) first = s;
  }
  streams_.erase(f);
  return first;
}

}  // namespace ndp::drv
