// KvStore: KV windows encoded on the golden model and kept in device memory.
#include "kv_store.h"

#include <algorithm>
#include <cstring>

#include "ndp/image.h"
#include "ndp/planes.h"

namespace ndp::drv {

namespace {
std::string sid(uint32_t id) { return "KV stream " + std::to_string(id); }
}  // namespace

KvStore::~KvStore() {
  for (auto& [id, s] : streams_)
    for (const Window& w : s.windows) mem_.kv_release(w.addr);
}

Result<KvStore::Stream*> KvStore::find(uint32_t id) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return Status::Error("no " + sid(id));
  return &it->second;
}

Status KvStore::create(uint32_t id, DType t, const KvGeometry& g) {
  Status s = kv_window_check(t, g, g.window);
  if (!s.ok()) return s.prepend("KV stream: ");
  if (streams_.count(id)) return Status::Error(sid(id) + " exists");
  Stream& st = streams_[id];
  st.dtype = t;
  st.g = g;
  return Status::Ok();
}

Status KvStore::store_window(uint32_t id, Stream& s, const uint16_t* token_major, CallStats* st) {
  const uint64_t k = s.windows.size();
  std::vector<uint8_t> blob;
  Window w;
  NDP_RETURN_IF_ERROR(encode_kv_window(enc_, s.dtype, Layout::kExpByte, s.g, s.g.window, token_major, KvBase::kMax,
                                       k, CodecPolicy::kAuto, blob, &w.rel));
  w.rel.push_back(static_cast<uint32_t>(blob.size()));
  auto addr = mem_.kv_alloc(blob.size());
  if (!addr.ok()) return Status::Error(sid(id) + " window " + std::to_string(k) + ": " + addr.status().message());
  w.addr = addr.value();
  Status ws = mem_.kv_store(w.addr, blob.data(), blob.size(), st);
  if (!ws.ok()) {
    mem_.kv_release(w.addr);
    return ws;
  }
  s.windows.push_back(std::move(w));
  return Status::Ok();
}

Status KvStore::append(uint32_t id, const uint16_t* token_major, uint64_t tokens, CallStats* st) {
  auto f = find(id);
  if (!f.ok()) return f.status();
  Stream& s = *f.value();
  const uint64_t per_token = uint64_t{s.g.channels} * s.g.heads, W = s.g.window;
  if (tokens && !token_major) return Status::Error(sid(id) + ": no token data");
  uint64_t done = 0;
  while (done < tokens) {
    const uint64_t have = s.pending.size() / per_token;
    const uint64_t take = std::min(W - have, tokens - done);
    s.pending.insert(s.pending.end(), token_major + done * per_token, token_major + (done + take) * per_token);
    done += take;
    if (s.pending.size() == W * per_token) {
      NDP_RETURN_IF_ERROR(store_window(id, s, s.pending.data(), st));
      s.pending.clear();
    }
  }
  if (st) st->host_bytes += 2 * tokens * per_token;
  return Status::Ok();
}

Status KvStore::load_window(uint32_t id, const Stream& s, uint64_t k, std::vector<uint16_t>& out, CallStats* st) {
  const Window& w = s.windows[k];
  const KvGeometry& g = s.g;
  const uint64_t n = uint64_t{g.window} * g.channels * g.heads, C = uint64_t{g.channels} * g.heads;
  std::vector<uint8_t> blob(w.rel.back());
  NDP_RETURN_IF_ERROR(mem_.kv_fetch(w.addr, blob.size(), blob.data(), st));
  const std::vector<uint8_t> ids = plane_order(s.dtype, Layout::kExpByte);
  std::vector<std::vector<uint8_t>> bufs(ids.size() + 1);
  for (size_t p = 0; p <= ids.size(); ++p) {
    const uint8_t pid = p == 0 ? kPlaneKvBase : ids[p - 1];
    const uint64_t raw = p == 0 ? C : plane_raw_bytes(pid, n);
    const std::string what = sid(id) + " window " + std::to_string(k) + " plane " + std::to_string(pid);
    Status d = decode_chunk_plane(dec_, s.dtype, pid, k, n, static_cast<uint32_t>(raw), blob.data() + w.rel[p],
                                  w.rel[p + 1] - w.rel[p], what, bufs[p]);
    if (!d.ok()) {
      if (st) st->errors++;
      return d;
    }
    if (st) st->blocks++;
  }
  std::vector<const uint8_t*> ptr;
  for (size_t p = 1; p <= ids.size(); ++p) ptr.push_back(bufs[p].data());
  std::vector<uint16_t> cm(n);
  unpack_chunk(s.dtype, Layout::kExpByte, ptr, n, reinterpret_cast<uint8_t*>(cm.data()));
  out.resize(n);
  kv_window_inverse(s.dtype, g, g.window, cm.data(), bufs[0].data(), out.data());
  return Status::Ok();
}

Status KvStore::read(uint32_t id, uint64_t first, uint64_t tokens, uint16_t* out, CallStats* st) {
  auto f = find(id);
  if (!f.ok()) return f.status();
  const Stream& s = *f.value();
  const uint64_t per_token = uint64_t{s.g.channels} * s.g.heads, W = s.g.window;
  const uint64_t stored = s.windows.size() * W, total = stored + s.pending.size() / per_token;
  if (first > total || tokens > total - first)
    return Status::Error(sid(id) + ": tokens [" + std::to_string(first) + ", +" + std::to_string(tokens) +
                         ") beyond the " + std::to_string(total) + " written");
  std::vector<uint16_t> win;
  for (uint64_t t = first; t < first + tokens;) {
    const uint64_t k = t / W, in = t % W, take = std::min(W - in, first + tokens - t);
    const uint16_t* src;
    if (k < s.windows.size()) {
      NDP_RETURN_IF_ERROR(load_window(id, s, k, win, st));
      src = win.data();
    } else {
      src = s.pending.data();
    }
    std::memcpy(out + (t - first) * per_token, src + in * per_token, 2 * take * per_token);
    t += take;
  }
  if (st) st->host_bytes += 2 * tokens * per_token;
  return Status::Ok();
}

Result<uint64_t> KvStore::tokens(uint32_t id) const {
  auto it = streams_.find(id);
  if (it == streams_.end()) return Status::Error("no " + sid(id));
  const Stream& s = it->second;
  return s.windows.size() * s.g.window + s.pending.size() / (uint64_t{s.g.channels} * s.g.heads);
}

Status KvStore::release(uint32_t id) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return Status::Error("no " + sid(id));
  for (const Window& w : it->second.windows) mem_.kv_release(w.addr);
  streams_.erase(it);
  return Status::Ok();
}

}  // namespace ndp::drv
