// encode_kv_window: the stored KV window of docs/spec.md section 6 (KVBASE block, then the plane
// blocks of the transformed window), shared by the device model's KV pages and the driver's KV store.
#include "ndp/image.h"

namespace ndp {

Status encode_kv_window(BlockEncoder& enc, DType t, Layout l, const KvGeometry& g, uint32_t w,
                        const uint16_t* token_major, KvBase base, uint64_t block_id, CodecPolicy policy,
                        std::vector<uint8_t>& out, std::vector<uint32_t>* rel) {
  NDP_RETURN_IF_ERROR(kv_window_check(t, g, w));
  const uint64_t C = uint64_t{g.channels} * g.heads, n = uint64_t{w} * C;
  std::vector<uint16_t> cm(n);
  std::vector<uint8_t> bases(C);
  kv_window_forward(t, g, w, token_major, cm.data(), bases.data(), kv_resolve_base(base, l));
  std::vector<std::vector<uint8_t>> planes;
  pack_chunk(t, l, reinterpret_cast<const uint8_t*>(cm.data()), n, planes);
  const std::vector<uint8_t> ids = plane_order(t, l);
  for (size_t s = 0; s <= ids.size(); ++s) {
    if (rel) rel->push_back(static_cast<uint32_t>(out.size()));
    const std::vector<uint8_t>& src = s == 0 ? bases : planes[s - 1];
    const uint8_t id = s == 0 ? kPlaneKvBase : ids[s - 1];
    auto r = enc.encode(src.data(), src.size(), id, block_id, policy, s > 0 && plane_is_guard(t, id), out);
    if (!r.ok()) return r.status();
  }
  return Status::Ok();
}

}  // namespace ndp
