#include "device.h"

#include <map>

#include "ndp/image.h"

namespace ndp {

Status add_device_figures(const Model& m, const AnalyzeOptions& opt, Report& r) {
  CodecPolicy policy;
  if (!codec_policy_from_name(opt.codec.c_str(), &policy))
    return Status::Error("unknown codec '" + opt.codec + "' (auto, lz4, zstd or raw)");
  ImageWriter w(/*keep_data=*/false);
  TensorOptions to;
  to.chunk_elems = opt.block_bytes * 8;
  to.layout = opt.layout;
  to.policy = policy;
  for (const auto& t : m.tensors) {
    Status s = w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size(), to);
    if (!s.ok()) return s.prepend("tensor '" + t.name + "': ");
  }
  const auto& stats = w.stats();
  // Region figures, keyed by (name, guard) in first-seen order.
  std::map<std::pair<std::string, int>, size_t> region_slot;
  for (size_t i = 0; i < stats.size(); ++i) {
    const TensorStats& ts = stats[i];
    Figures& f = r.tensors[i].fig;
    f.device = ts.stored_bytes + ts.index_bytes + ts.table_bytes;
    auto& planes = r.planes[dtype_info(ts.dtype).name];
    std::map<uint8_t, uint64_t> stored_by_plane;
    for (const auto& p : ts.planes) {
      stored_by_plane[p.plane_id] += p.stored_bytes;
      auto& pf = planes[p.plane_id];
      pf.device += p.stored_bytes;
      if (p.plane_id == kPlaneExpByte) pf.raw += p.raw_bytes;  // bit-plane baselines never see it
    }
    for (int g = 0; g <= 2; ++g) {
      for (const Region& reg : all_regions(ts.dtype, g)) {
        // Guard planes matter only where they change what is fetched; keep full at g = 0 only.
        if (reg.kind == RegionKind::kFull && g != 0) continue;
        auto key = std::make_pair(region_name(reg, ts.dtype), g);
        auto it = region_slot.find(key);
        if (it == region_slot.end()) {
          it = region_slot.emplace(key, r.regions.size()).first;
          r.regions.push_back(RegionFigures{key.first, g, 0, 0, 0});
        }
        RegionFigures& rf = r.regions[it->second];
        rf.elements += ts.elems;
        rf.output_bytes += region_output_bytes(reg, ts.dtype, ts.elems);
        for (uint8_t p : region_planes(reg, ts.dtype, ts.layout)) rf.dram_bytes += stored_by_plane[p];
      }
    }
  }
  r.total.device = w.image_bytes();
  return Status::Ok();
}

}  // namespace ndp
