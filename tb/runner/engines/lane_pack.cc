// Engine `pack`: a model -> a device image whose every plane block the RTL wrote.
//   ndp-rtl pack MODEL -o IMAGE [--lanes N] [--codec auto|lz4|zstd|raw] [--format F] [--as bf16]
//                [--match REGEX] [--block BYTES] [--layout expbyte|bitplane] [--buffer BYTES]
// The model is read as `ndp pack` reads it (ndp::load_model, same options); every tensor must be
// BF16 (the bp_aggregator model's element type: --as bf16 converts FP32 by RNE). The tensors stream
// back to back through the bp_aggregator model (16 elements per cycle); each plane it completes
// goes into a plane buffer (--buffer bytes, default one chunk: 2 x 8 x --block), which holds the
// aggregator's output back when full, and from there to the next free codec_lane model (encode
// side: CONST, the LZ4 and ZSTD engines under the codec policy, Huffman frames for EXPBYTE, RAW).
// All models are clocked together, one cycle at a time. The lanes' stored blocks go into the image
// through ImageWriter (set_block_encoder), so header, chunk layout, plane index and tensor table are
// those `ndp pack` writes. Checks: the aggregator's planes and every lane's blocks against the
// golden models (scoreboards), then the image: ImageReader::verify (what `ndp verify` runs) and a
// bit-exact read of every tensor (what `ndp unpack` runs), and the device ratio against the one
// `ndp pack` gets with the same model and options (ImageWriter with the software BlockEncoder):
// status "ok" only when all hold and the ratios are within --tolerance (default 0.01, relative).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>

#include "../../lane/lane_env.h"
#include "agg_env.h"
#include "engine.h"
#include "ndp/image.h"
#include "ndp/model_load.h"
#include "ndp/precision.h"
#include "tb_report.h"

namespace {

using namespace ndp;

struct PackOptions {
  ModelLoadOptions load;
  TensorOptions tensor;
  unsigned lanes = 1;
  uint64_t buffer = 0;  // plane buffer bytes between the aggregator and the lanes
  double tolerance = 0.01;
};

bool parse_options(const rtl::EngineArgs& a, PackOptions* o, std::string* err) {
  o->load.format = a.get("--format", "auto");
  o->load.as = a.get("--as");
  o->load.group = a.get("--group");
  o->load.match = a.get("--match");
  if (!codec_policy_from_name(a.get("--codec", "auto").c_str(), &o->tensor.policy)) {
    *err = "unknown --codec '" + a.get("--codec") + "' (auto, lz4, zstd or raw)";
    return false;
  }
  const std::string layout = a.get("--layout", "expbyte");
  if (layout != "expbyte" && layout != "bitplane") {
    *err = "unknown --layout '" + layout + "' (expbyte or bitplane)";
    return false;
  }
  o->tensor.layout = layout == "expbyte" ? Layout::kExpByte : Layout::kBitplane;
  bool ok = true;
  const int64_t block = a.get_int("--block", 4096, &ok);
  const int64_t lanes = a.get_int("--lanes", 1, &ok);
  o->tolerance = a.get_double("--tolerance", 0.01, &ok);
  if (!ok) return false;
  if (block < 8 || block > 4096 || block % 8) {
    *err =
        "--block must be a multiple of 8 in [8, 4096] (bit-plane bytes; the aggregator holds chunks of at most "
        "32768 elements)";
    return false;
  }
  o->tensor.chunk_elems = static_cast<uint32_t>(block * 8);
  const int64_t buffer = a.get_int("--buffer", 2 * o->tensor.chunk_elems, &ok);
  if (!ok || lanes < 1 || lanes > 16 || buffer < 2 * o->tensor.chunk_elems || o->tolerance < 0) {
    *err = "--lanes must be 1..16, --buffer at least one chunk's planes (" + std::to_string(2 * o->tensor.chunk_elems) +
           " bytes), --tolerance >= 0";
    return false;
  }
  o->lanes = static_cast<unsigned>(lanes);
  o->buffer = static_cast<uint64_t>(buffer);
  return true;
}

bool load_bf16_model(const rtl::EngineArgs& a, const PackOptions& o, Model* m, std::string* err) {
  auto r = load_model(a.in_path, o.load);
  if (!r.ok()) {
    *err = r.status().message();
    return false;
  }
  for (const Tensor& t : r->tensors) {
    if (t.dtype != DType::kBF16) {
      *err = a.in_path + ": tensor '" + t.name + "' is " + dtype_info(t.dtype).name +
             "; the bp_aggregator model packs BF16 elements (use --as bf16)";
      return false;
    }
  }
  *m = std::move(r.value());
  return true;
}

// One plane block of the image, in storage order.
struct PlaneJob {
  uint32_t tensor = 0;
  uint64_t chunk = 0;
  uint8_t plane_id = 0;
  bool guard = false;
  uint64_t offset = 0, bytes = 0;  // where the aggregator's output holds the plane
};

std::vector<PlaneJob> plan_jobs(const Model& m, const TensorOptions& o) {
  std::vector<PlaneJob> jobs;
  const std::vector<uint8_t> order = plane_order(DType::kBF16, o.layout);
  uint64_t at = 0;
  for (size_t ti = 0; ti < m.tensors.size(); ++ti) {
    const uint64_t n = m.tensors[ti].elements;
    for (uint64_t k = 0; k * o.chunk_elems < n; ++k) {
      const uint64_t ne = std::min<uint64_t>(o.chunk_elems, n - k * o.chunk_elems);
      for (uint8_t id : order) {
        PlaneJob j{static_cast<uint32_t>(ti), k, id, plane_is_guard(DType::kBF16, id), at, plane_raw_bytes(id, ne)};
        at += j.bytes;
        jobs.push_back(j);
      }
    }
  }
  return jobs;
}

// The packing path: bp_aggregator -> plane buffer -> N codec_lane encode sides, clocked together.
class PackSim {
 public:
  PackSim(const rtl::EngineArgs& a, const PackOptions& o, const Model& m, std::vector<PlaneJob> jobs)
      : o_(o), jobs_(std::move(jobs)), agg_(a.seed, a.fst, a.gaps, a.backpressure), blocks_(jobs_.size()) {
    agg_.keep_output(true);
    agg_.set_output_gate([this] { return agg_.output().size() - handed_bytes_ < o_.buffer; });
    for (unsigned l = 0; l < o.lanes; ++l) {
      lanes_.push_back(std::make_unique<tb::LaneEnv>(a.seed + 1 + l, "", a.gaps, a.backpressure));
      owned_.emplace_back();
    }
    busy_.assign(o.lanes, 0);
    for (const Tensor& t : m.tensors)
      if (t.elements) agg_.push_tensor(t.data.data(), t.elements, o.tensor.chunk_elems, o.tensor.layout, t.name);
  }

  // Run until every block came out of a lane; false on a timeout or an RTL assertion.
  bool run(uint64_t max_cycles) {
    while (done_ < jobs_.size()) {
      if (cycles_ >= max_cycles) {
        tb::fail("pack: timeout after " + std::to_string(cycles_) + " cycles");
        return false;
      }
      ++cycles_;
      if (!agg_.dut().tick()) return false;
      while (ready_end_ < jobs_.size() && agg_.output().size() >= jobs_[ready_end_].offset + jobs_[ready_end_].bytes)
        ++ready_end_;
      dispatch();
      for (size_t l = 0; l < lanes_.size(); ++l) {
        if (!lanes_[l]->dut().tick()) return false;
        collect(l);
      }
    }
    return true;
  }
  bool finish() {
    bool ok = agg_.finish();
    for (auto& l : lanes_) ok = l->finish() && ok;
    return ok;
  }
  const std::vector<std::vector<uint8_t>>& blocks() const { return blocks_; }
  const std::vector<uint8_t>& planes() const { return agg_.output(); }
  uint64_t cycles() const { return cycles_; }
  const tb::StreamStats& agg_stats() const { return agg_.stats(); }
  double lane_busy() const {  // mean fraction of the cycles a lane held a block
    uint64_t b = 0;
    for (uint64_t x : busy_) b += x;
    return cycles_ ? double(b) / double(cycles_ * lanes_.size()) : 0.0;
  }

 private:
  // Hand the oldest completed planes to free lanes (a lane takes its next block once the last
  // output beat of the previous one left: codec_lane_enc holds one block at a time).
  void dispatch() {
    for (size_t i = 0; i < lanes_.size() && handed_ < ready_end_; ++i) {
      const size_t l = (rr_ + i) % lanes_.size();
      if (!owned_[l].empty()) continue;
      const PlaneJob& j = jobs_[handed_];
      const auto at = agg_.output().begin() + static_cast<long>(j.offset);
      std::vector<uint8_t> plane(at, at + static_cast<long>(j.bytes));
      lanes_[l]->push_plane(plane, j.plane_id, static_cast<uint16_t>(j.chunk), j.guard, o_.tensor.policy);
      owned_[l].push_back(handed_++);
      handed_bytes_ += j.bytes;
      rr_ = (l + 1) % lanes_.size();
    }
  }
  void collect(size_t l) {
    if (!owned_[l].empty()) ++busy_[l];
    const auto& res = lanes_[l]->enc_results();
    while (taken_.size() <= l) taken_.push_back(0);
    for (; taken_[l] < res.size(); ++taken_[l], ++done_) {
      blocks_[owned_[l].front()] = res[taken_[l]].bytes;
      owned_[l].pop_front();
    }
  }

  const PackOptions& o_;
  std::vector<PlaneJob> jobs_;
  tb::AggEnv agg_;
  std::vector<std::unique_ptr<tb::LaneEnv>> lanes_;
  std::vector<std::deque<size_t>> owned_;  // per lane: job indices handed to it, not yet out
  std::vector<size_t> taken_;
  std::vector<uint64_t> busy_;
  std::vector<std::vector<uint8_t>> blocks_;  // stored block of every job
  size_t ready_end_ = 0, handed_ = 0, done_ = 0, rr_ = 0;
  uint64_t handed_bytes_ = 0, cycles_ = 0;
};

// Hands the RTL's stored blocks to ImageWriter in storage order, checking that each is the block
// the writer asks for: same plane id, block id, raw size, and the writer's plane (its own
// pack_chunk) equal to the aggregator's.
class RtlBlocks {
 public:
  RtlBlocks(const std::vector<PlaneJob>& jobs, const PackSim& sim) : jobs_(jobs), sim_(sim) {}
  Result<BlockInfo> operator()(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id, CodecPolicy, bool,
                               std::vector<uint8_t>& out) {
    const std::string w = "RTL block " + std::to_string(next_);
    if (next_ >= jobs_.size()) return Status::Error(w + ": the writer asks for more blocks than the RTL wrote");
    const PlaneJob& j = jobs_[next_];
    const std::vector<uint8_t>& b = sim_.blocks()[next_++];
    if (j.plane_id != plane_id || j.chunk != block_id || j.bytes != n ||
        std::memcmp(sim_.planes().data() + j.offset, plane, n) != 0) {
      char msg[128];
      std::snprintf(msg, sizeof msg, ": the writer's plane 0x%02x of chunk %llu differs from the aggregator's",
                    plane_id, static_cast<unsigned long long>(block_id));
      return Status::Error(w + msg);
    }
    auto h = parse_block_header(b.data(), b.size(), w.c_str());
    if (!h.ok()) return h.status();
    if (b.size() != kBlockHeaderBytes + h->comp_size || h->plane_id != plane_id ||
        h->block_id != static_cast<uint16_t>(block_id) || h->raw_size != n)
      return Status::Error(w + ": its header disagrees with the block asked for or with its size");
    BlockInfo info;
    info.codec = h->codec;
    info.raw_size = h->raw_size;
    info.comp_size = h->comp_size;
    // the lane's EXPBYTE ZSTD candidate is always the spec 4.3 Huffman frame (Huffman mode)
    info.huffman_frame = h->codec == Codec::kZstd && plane_id == kPlaneExpByte;
    out.insert(out.end(), b.begin(), b.end());
    return info;
  }

 private:
  const std::vector<PlaneJob>& jobs_;
  const PackSim& sim_;
  size_t next_ = 0;
};

// The image `ndp pack` builds from m (encoder empty) or the one around the RTL's blocks.
Status build_image(const Model& m, const TensorOptions& o, PlaneBlockEncoder enc, ImageWriter& w) {
  w.set_block_encoder(std::move(enc));
  for (const Tensor& t : m.tensors)
    NDP_RETURN_IF_ERROR(w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size(), o));
  return Status::Ok();
}

// What `ndp verify` and `ndp unpack` check: every block decodes, every tensor reads back bit-exact.
Status check_image(const std::string& path, const Model& m) {
  auto img = ImageReader::open_file(path);
  if (!img.ok()) return img.status();
  const auto bad = img.value()->verify();
  if (!bad.empty())
    return Status::Error(path + ": " + std::to_string(bad.size()) + " bad block(s), first: tensor '" + bad[0].tensor +
                         "' chunk " + std::to_string(bad[0].chunk) + ": " + bad[0].message);
  if (img.value()->tensors().size() != m.tensors.size())
    return Status::Error(path + ": tensor count differs from the model's");
  std::vector<uint8_t> back;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    NDP_RETURN_IF_ERROR(img.value()->read_tensor(i, back));
    if (back != m.tensors[i].data)
      return Status::Error(path + ": tensor '" + m.tensors[i].name + "' does not read back bit-exact");
  }
  return Status::Ok();
}

void codec_counts(const ImageWriter& w, rtl::EngineResult& r) {
  uint64_t n[4] = {0, 0, 0, 0}, huf = 0;
  for (const TensorStats& t : w.stats())
    for (const PlaneStats& p : t.planes) {
      for (int c = 0; c < 4; ++c) n[c] += p.codec_blocks[c];
      huf += p.huffman_blocks;
    }
  r.add("raw_blocks", n[0]);
  r.add("const_blocks", n[1]);
  r.add("lz4_blocks", n[2]);
  r.add("zstd_blocks", n[3]);
  r.add("huffman_blocks", huf);
}

// The image around the RTL's blocks, written to IMAGE, and `ndp pack`'s image of the same tensors
// and options; the checks of the status. Fills r (the caller set cycles and status "mismatch").
int write_and_check(const rtl::EngineArgs& a, const PackOptions& o, const Model& m, const std::vector<PlaneJob>& jobs,
                    const PackSim& sim, rtl::EngineResult& r) {
  ImageWriter hw, sw;
  Status st = build_image(m, o.tensor, RtlBlocks(jobs, sim), hw);
  if (st.ok()) st = build_image(m, o.tensor, {}, sw);
  auto hw_img = st.ok() ? hw.finish() : Result<std::vector<uint8_t>>(st);
  auto sw_img = sw.finish();
  if (!hw_img.ok() || !sw_img.ok()) {
    r.message = (hw_img.ok() ? sw_img.status() : hw_img.status()).message();
    return 1;
  }
  if (!rtl::write_file(a.out_path, hw_img.value(), &r.message)) return 1;
  st = check_image(a.out_path, m);
  if (!st.ok()) r.message = st.message();
  const double ratio = double(r.in_bytes) / double(hw_img->size()),
               sw_ratio = double(r.in_bytes) / double(sw_img->size());
  const double diff = ratio / sw_ratio - 1.0;
  const bool ratio_ok = std::abs(diff) <= o.tolerance;
  if (st.ok() && !ratio_ok)
    r.message = "device ratio " + std::to_string(ratio) + " is not within " + std::to_string(o.tolerance) +
                " (relative) of ndp pack's " + std::to_string(sw_ratio);
  r.out_bytes = hw_img->size();
  if (r.status != "mismatch") r.status = r.message.empty() ? "ok" : "error";
  r.add("ratio", ratio);
  r.add("ndp_pack_ratio", sw_ratio);
  r.add("ratio_rel_diff", diff);
  r.add("image_verified", static_cast<uint64_t>(st.ok()));
  r.add("ratio_within_tolerance", static_cast<uint64_t>(ratio_ok));
  r.add("identical_image", static_cast<uint64_t>(hw_img.value() == sw_img.value()));
  codec_counts(hw, r);
  return 0;
}

int run_pack(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  PackOptions o;
  Model m;
  if (!parse_options(a, &o, &r.message) || !load_bf16_model(a, o, &m, &r.message)) return 2;
  std::vector<PlaneJob> jobs = plan_jobs(m, o.tensor);
  if (jobs.empty()) {
    r.message = a.in_path + ": no elements to pack (every tensor is empty)";
    return 2;
  }
  for (const Tensor& t : m.tensors) r.in_bytes += t.data.size();
  const uint64_t before = tb::failure_count();
  PackSim sim(a, o, m, jobs);
  if (!sim.run(64 * r.in_bytes + 1000000)) {
    r.message = "simulation did not complete";
    return 1;
  }
  const bool match = sim.finish() && tb::failure_count() == before;
  r.cycles = sim.cycles();
  r.bytes_per_cycle = double(r.in_bytes) / double(r.cycles);
  r.status = match ? "" : "mismatch";
  const int rc = write_and_check(a, o, m, jobs, sim, r);
  r.add("lanes", static_cast<uint64_t>(o.lanes));
  r.add("tensors", static_cast<uint64_t>(m.tensors.size()));
  r.add("blocks", static_cast<uint64_t>(jobs.size()));
  r.add("lane_busy", sim.lane_busy());
  r.add("aggregator_in_stalls", sim.agg_stats().in_stalls);
  r.add("chunk_elems", static_cast<uint64_t>(o.tensor.chunk_elems));
  r.add("codec", a.get("--codec", "auto"));
  r.add("layout", std::string(o.tensor.layout == Layout::kExpByte ? "expbyte" : "bitplane"));
  return rc;
}

}  // namespace

NDP_RTL_ENGINE("pack",
               "MODEL -o IMAGE [--lanes N] [--codec auto|lz4|zstd|raw] [--format F] [--as bf16] [--match REGEX] "
               "[--block BYTES] [--layout expbyte|bitplane] [--buffer BYTES] [--tolerance REL]",
               run_pack);
