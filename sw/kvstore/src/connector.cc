// KvConnector (connector.h): per-layer saves into allocated blocks, background layer-by-layer loads.
#include "ndp/kvstore/connector.h"

#include "ndp/kvstore/prefix.h"

namespace ndp::kv {

KvConnector::~KvConnector() {
  std::vector<RequestId> ids;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [id, s] : saves_) ids.push_back(id);
    for (auto& [id, l] : loads_) ids.push_back(id);
  }
  for (RequestId id : ids) request_finished(id);
}

Result<uint64_t> KvConnector::matched_tokens(std::span<const int32_t> tokens) {
  const auto keys = prefix_keys(tokens, s_.geometry().tokens, o_.model_salt);
  uint64_t n = 0;
  for (const Key& k : keys) {
    auto c = s_.contains(k);
    if (!c.ok()) return c.status();
    if (!c.value()) break;
    ++n;
  }
  return n * s_.geometry().tokens;
}

Status KvConnector::begin_save(RequestId r, std::span<const int32_t> tokens) {
  Save sv;
  sv.keys = prefix_keys(tokens, s_.geometry().tokens, o_.model_salt);
  sv.block.assign(sv.keys.size(), -1);
  sv.layers_saved.assign(sv.keys.size(), 0);
  for (size_t i = 0; i < sv.keys.size(); ++i) {
    auto c = s_.contains(sv.keys[i]);
    if (!c.ok()) return c.status();
    if (c.value()) continue;
    auto b = s_.allocate(PutOptions{o_.evict_if_full});
    if (!b.ok()) {
      for (int64_t x : sv.block)
        if (x >= 0) (void)s_.abort(uint32_t(x));
      return b.status();
    }
    sv.block[i] = b.value();
  }
  std::lock_guard<std::mutex> g(mu_);
  saves_[r] = std::move(sv);
  return Status::Ok();
}

Status KvConnector::save_layer(RequestId r, uint32_t layer, std::span<const void* const> k_pages,
                               std::span<const void* const> v_pages) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = saves_.find(r);
  if (it == saves_.end()) return Status::Error("save_layer: request " + std::to_string(r) + " has no begin_save");
  Save& sv = it->second;
  const Geometry& geo = s_.geometry();
  if (layer >= geo.layers) return Status::Error("save_layer: layer " + std::to_string(layer) + " out of range");
  if (k_pages.size() < sv.keys.size() || v_pages.size() < sv.keys.size())
    return Status::Error("save_layer: " + std::to_string(sv.keys.size()) + " pages needed per kind");
  for (size_t i = 0; i < sv.keys.size(); ++i) {
    if (sv.block[i] < 0) continue;
    s_.write(uint32_t(sv.block[i]), geo.slice_offset(layer, 0), k_pages[i], geo.slice_bytes());
    s_.write(uint32_t(sv.block[i]), geo.slice_offset(layer, 1), v_pages[i], geo.slice_bytes());
    ++sv.layers_saved[i];
  }
  return Status::Ok();
}

Result<uint64_t> KvConnector::wait_for_save(RequestId r) {
  Save sv;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = saves_.find(r);
    if (it == saves_.end()) return Status::Error("wait_for_save: request " + std::to_string(r) + " has no begin_save");
    sv = std::move(it->second);
    saves_.erase(it);
  }
  uint64_t stored = 0;
  Status first;
  for (size_t i = 0; i < sv.keys.size(); ++i) {
    if (sv.block[i] < 0) continue;
    const uint32_t b = uint32_t(sv.block[i]);
    if (sv.layers_saved[i] != s_.geometry().layers) {
      (void)s_.abort(b);  // some layer never came: never publish a partial block
      continue;
    }
    auto c = s_.commit(b, sv.keys[i]);
    if (!c.ok() && first.ok()) first = c.status();
    stored += c.ok() && c.value() == PutResult::kStored;
  }
  if (!first.ok()) return first;
  return stored;
}

Status KvConnector::start_load(RequestId r, std::span<const int32_t> tokens, uint64_t blocks, LoadPages pages) {
  const Geometry& geo = s_.geometry();
  const auto keys = prefix_keys(tokens, geo.tokens, o_.model_salt);
  if (blocks > keys.size()) return Status::Error("start_load: only " + std::to_string(keys.size()) + " full blocks in the tokens");
  if (pages.k.size() != geo.layers || pages.v.size() != geo.layers)
    return Status::Error("start_load: pages for " + std::to_string(geo.layers) + " layers needed");
  for (uint32_t l = 0; l < geo.layers; ++l)
    if (pages.k[l].size() < blocks || pages.v[l].size() < blocks)
      return Status::Error("start_load: layer " + std::to_string(l) + " has fewer pages than blocks");
  auto ld = std::make_unique<Load>();
  ld->pages = std::move(pages);
  for (uint64_t i = 0; i < blocks; ++i) {
    BlockRef ref;
    auto f = s_.find(keys[i], ref);
    if (!f.ok()) return f.status();
    if (!f.value()) return Status::Error("start_load: block " + std::to_string(i) + " of request " + std::to_string(r) + " is not stored");
    ld->refs.push_back(ref);
  }
  Load* raw = ld.get();
  {
    std::lock_guard<std::mutex> g(mu_);
    if (loads_.count(r)) return Status::Error("start_load: request " + std::to_string(r) + " is already loading");
    loads_[r] = std::move(ld);
  }
  raw->th = std::thread([this, raw] { load_body(*raw); });
  return Status::Ok();
}

// Layer by layer over all blocks; after each layer every block must still be the one looked up.
void KvConnector::load_body(Load& l) {
  const Geometry& geo = s_.geometry();
  Status st;
  for (uint32_t layer = 0; layer < geo.layers && st.ok(); ++layer) {
    for (size_t i = 0; i < l.refs.size(); ++i) {
      s_.read(l.refs[i].block, geo.slice_offset(layer, 0), l.pages.k[layer][i], geo.slice_bytes());
      s_.read(l.refs[i].block, geo.slice_offset(layer, 1), l.pages.v[layer][i], geo.slice_bytes());
    }
    for (size_t i = 0; i < l.refs.size() && st.ok(); ++i)
      if (!s_.still_valid(l.refs[i]))
        st = Status::Error("load: block " + std::to_string(i) + " was evicted during the load (recompute it)");
    std::lock_guard<std::mutex> g(l.mu);
    l.layers_done = layer + 1;
    l.cv.notify_all();
  }
  for (size_t i = 0; i < l.refs.size() && st.ok(); ++i) {
    std::vector<ConstSlice> copy;
    for (uint32_t layer = 0; layer < geo.layers; ++layer) {
      copy.push_back({l.pages.k[layer][i], geo.slice_bytes()});
      copy.push_back({l.pages.v[layer][i], geo.slice_bytes()});
    }
    st = s_.verify_copy(l.refs[i], copy);
  }
  std::lock_guard<std::mutex> g(l.mu);
  l.status = st, l.finished = true;
  l.cv.notify_all();
}

Status KvConnector::wait_for_layer_load(RequestId r, uint32_t layer) {
  Load* l = nullptr;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = loads_.find(r);
    if (it == loads_.end()) return Status::Error("wait_for_layer_load: request " + std::to_string(r) + " is not loading");
    l = it->second.get();
  }
  std::unique_lock<std::mutex> g(l->mu);
  l->cv.wait(g, [&] { return l->layers_done > layer || l->finished; });
  return l->layers_done > layer ? Status::Ok() : l->status;
}

Status KvConnector::wait_for_load(RequestId r) {
  std::unique_ptr<Load> l;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = loads_.find(r);
    if (it == loads_.end()) return Status::Error("wait_for_load: request " + std::to_string(r) + " is not loading");
    l = std::move(it->second);
    loads_.erase(it);
  }
  l->th.join();
  return l->status;
}

void KvConnector::request_finished(RequestId r) {
  std::unique_ptr<Load> l;
  Save sv;
  bool had_save = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (auto it = loads_.find(r); it != loads_.end()) l = std::move(it->second), loads_.erase(it);
    if (auto it = saves_.find(r); it != saves_.end()) sv = std::move(it->second), saves_.erase(it), had_save = true;
  }
  if (l && l->th.joinable()) l->th.join();
  if (had_save)
    for (int64_t b : sv.block)
      if (b >= 0) (void)s_.abort(uint32_t(b));
}

}  // namespace ndp::kv
