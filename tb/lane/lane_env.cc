#include "lane_env.h"

#include <zstd.h>

#include <algorithm>

#include "../lz4/lz4_env.h"

namespace ndp::tb {

const char* lane_status_name(uint8_t code) {
  static const char* k[] = {"ok",           "header-truncated", "codec-unknown",  "flags-reserved",
                            "plane-undefined", "size-rule",     "plane-mismatch", "block-mismatch",
                            "raw-mismatch", "payload-truncated", "unsupported",  "checksum",
                            "padding"};
  if (code < 13) return k[code];
  if (code == kLaneZstdAny) return "zstd-payload (any)";
  if (code == kLaneZstdRuleFhd) return "zstd-frame-rule";
  if (code > kLaneZstdBase && code <= kLaneZstdBase + 18) return "zstd-payload";
  if (code >= kLaneLz4Base && code < kLaneZstdBase) return "lz4-payload";
  return "?";
}

bool lane_code_matches(uint8_t rtl, uint8_t ref) {
  if (ref == kLaneZstdAny) return rtl > kLaneZstdBase && rtl <= kLaneZstdBase + 18;
  return rtl == ref;
}

namespace {

// The golden decoder's ZSTD payload verdict (BlockDecoder::decode_zstd_payload). A rejected payload
// is kLaneZstdRuleFhd when its first 5 bytes break the magic / descriptor rule (zstd_lane_dec checks
// those before the decoder's own code), else any ZSTD code. Returns 0 with the bytes, or that code.
uint8_t zstd_ref_payload(const uint8_t* p, size_t n, uint32_t raw, std::vector<uint8_t>* out) {
  if (n >= 5) {
    const uint32_t magic = static_cast<uint32_t>(p[0] | (p[1] << 8) | (p[2] << 16)) | (static_cast<uint32_t>(p[3]) << 24);
    if (magic != ZSTD_MAGICNUMBER || !(p[4] & 0x20) || (p[4] & 0x1F)) return kLaneZstdRuleFhd;
  }
  static thread_local BlockDecoder dec;
  out->assign(raw, 0);
  if (!dec.decode_zstd_payload(p, n, raw, out->data(), "zstd payload").ok()) {
    out->clear();
    return kLaneZstdAny;
  }
  return kLaneOk;
}

}  // namespace

uint8_t lane_ref_decode(const uint8_t* p, size_t n, const BlockExpect& exp, std::vector<uint8_t>* out) {
  out->clear();
  if (n < kBlockHeaderBytes) return kLaneHdrTrunc;
  const unsigned codec = p[3] & 0x0F;
  if (codec > 3) return kLaneCodecUnknown;
  if (p[3] & 0xE0) return kLaneFlagsReserved;
  if (!plane_id_defined(p[2])) return kLanePlaneUndef;
  const uint32_t raw = (p[4] | (p[5] << 8)) ? static_cast<uint32_t>(p[4] | (p[5] << 8)) : 65536u;
  const uint32_t comp = (p[6] | (p[7] << 8)) ? static_cast<uint32_t>(p[6] | (p[7] << 8)) : 65536u;
  if ((codec == 0 && comp != raw) || (codec == 1 && comp != 1) || (codec != 0 && comp == 65536))
    return kLaneSizeRule;
  if (p[2] != exp.plane_id) return kLanePlaneMismatch;
  if ((p[0] | (p[1] << 8)) != static_cast<int>(exp.block_id & 0xFFFF)) return kLaneBlockMismatch;
  if (raw != exp.raw_size) return kLaneRawMismatch;
  const uint8_t* pl = p + kBlockHeaderBytes;
  const size_t have = n - kBlockHeaderBytes;
  const bool trunc = have < comp;
  if (codec == 0) {
    if (trunc) return kLanePayloadTrunc;
    out->assign(pl, pl + raw);
  } else if (codec == 1) {
    if (trunc) return kLanePayloadTrunc;
    out->assign(raw, pl[0]);
  } else if (codec == 3) {
    std::vector<uint8_t> d;
    const uint8_t c = zstd_ref_payload(pl, std::min<size_t>(have, comp), raw, &d);
    if (trunc) return kLanePayloadTrunc;
    if (c) return c;
    *out = std::move(d);
  } else {
    std::vector<uint8_t> d;
    const uint8_t c = lz4_ref_decode(pl, std::min<size_t>(have, comp), raw, 65536, &d);
    if (trunc) return kLanePayloadTrunc;
    if (c) return static_cast<uint8_t>(kLaneLz4Base + c);
    *out = std::move(d);
  }
  const uint32_t sum = block_checksum(out->data(), out->size());
  const uint32_t hdr = static_cast<uint32_t>(p[8] | (p[9] << 8) | (p[10] << 16)) | (static_cast<uint32_t>(p[11]) << 24);
  if (sum != hdr) return kLaneChecksum;
  if (out->back() & exp.pad_mask) return kLanePadding;
  return kLaneOk;
}

LaneEnv::LaneEnv(uint64_t seed, const std::string& fst, double gap, double backpressure)
    : rng_(seed), dut_(seed, fst) {
  Vcodec_lane* m = &dut_.model();
  StreamPort<LaneEncIn> ei;
  ei.valid = [m] { return m->enc_in_valid_i != 0; };
  ei.ready = [m] { return m->enc_in_ready_o != 0; };
  ei.read = [m] {
    LaneEncIn b;
    get_bytes(m->enc_in_data_i, b.data.data(), 16);
    b.cnt = m->enc_in_cnt_i;
    b.last = m->enc_in_last_i;
    b.block_id = m->enc_in_block_id_i;
    b.plane_id = m->enc_in_plane_id_i;
    b.guard = m->enc_in_guard_i;
    b.policy = m->enc_in_policy_i;
    b.raw_size = m->enc_in_raw_size_i;
    return b;
  };
  ei.set_valid = [m](bool v) { m->enc_in_valid_i = v; };
  ei.write = [m](const LaneEncIn& b) {
    put_bytes(m->enc_in_data_i, b.data.data(), 16);
    m->enc_in_cnt_i = b.cnt;
    m->enc_in_last_i = b.last;
    m->enc_in_block_id_i = b.block_id;
    m->enc_in_plane_id_i = b.plane_id;
    m->enc_in_guard_i = b.guard;
    m->enc_in_policy_i = b.policy;
    m->enc_in_raw_size_i = b.raw_size;
  };
  StreamPort<LaneBeat32> eo;
  eo.valid = [m] { return m->enc_out_valid_o != 0; };
  eo.ready = [m] { return m->enc_out_ready_i != 0; };
  eo.read = [m] {
    LaneBeat32 b;
    get_bytes(m->enc_out_data_o, b.data.data(), 32);
    b.cnt = m->enc_out_cnt_o;
    b.last = m->enc_out_last_o;
    return b;
  };
  eo.set_ready = [m](bool r) { m->enc_out_ready_i = r; };
  StreamPort<LaneBeat32> di;
  di.valid = [m] { return m->dec_in_valid_i != 0; };
  di.ready = [m] { return m->dec_in_ready_o != 0; };
  di.read = [m] {
    LaneBeat32 b;
    get_bytes(m->dec_in_data_i, b.data.data(), 32);
    b.cnt = m->dec_in_cnt_i;
    b.last = m->dec_in_last_i;
    b.exp_block_id = m->dec_in_exp_block_id_i;
    b.exp_plane_id = m->dec_in_exp_plane_id_i;
    b.exp_raw_size = m->dec_in_exp_raw_size_i;
    b.pad_mask = m->dec_in_pad_mask_i;
    return b;
  };
  di.set_valid = [m](bool v) { m->dec_in_valid_i = v; };
  di.write = [m](const LaneBeat32& b) {
    put_bytes(m->dec_in_data_i, b.data.data(), 32);
    m->dec_in_cnt_i = b.cnt;
    m->dec_in_last_i = b.last;
    m->dec_in_exp_block_id_i = b.exp_block_id;
    m->dec_in_exp_plane_id_i = b.exp_plane_id;
    m->dec_in_exp_raw_size_i = b.exp_raw_size;
    m->dec_in_pad_mask_i = b.pad_mask;
  };
  StreamPort<LaneDecOut> dout;
  dout.valid = [m] { return m->dec_out_valid_o != 0; };
  dout.ready = [m] { return m->dec_out_ready_i != 0; };
  dout.read = [m] {
    LaneDecOut b;
    get_bytes(m->dec_out_data_o, b.data.data(), 32);
    b.cnt = m->dec_out_cnt_o;
    b.last = m->dec_out_last_o;
    b.err = m->dec_out_err_o;
    b.code = m->dec_out_code_o;
    return b;
  };
  dout.set_ready = [m](bool r) { m->dec_out_ready_i = r; };

  enc_drv_ = std::make_unique<StreamDriver<LaneEncIn>>(ei, rng_, gap);
  enc_sink_ = std::make_unique<StreamSink<LaneBeat32>>(eo, rng_, backpressure,
                                                       [this](const LaneBeat32& b) { on_enc_out(b); });
  dec_drv_ = std::make_unique<StreamDriver<LaneBeat32>>(di, rng_, gap);
  dec_sink_ = std::make_unique<StreamSink<LaneDecOut>>(dout, rng_, backpressure,
                                                       [this](const LaneDecOut& b) { on_dec_out(b); });
  mons_.push_back(std::make_unique<StreamMonitor<LaneEncIn>>("codec_lane enc in", ei));
  mons_.push_back(std::make_unique<StreamMonitor<LaneBeat32>>("codec_lane enc out", eo));
  mons_.push_back(std::make_unique<StreamMonitor<LaneBeat32>>("codec_lane dec in", di));
  mons_.push_back(std::make_unique<StreamMonitor<LaneDecOut>>("codec_lane dec out", dout));
  enc_spans_ = std::make_unique<PacketSpans>([m] { return m->enc_in_valid_i && m->enc_in_ready_o; },
                                              [this] { return dut_.cycle(); });
  dec_spans_ = std::make_unique<PacketSpans>([m] { return m->dec_in_valid_i && m->dec_in_ready_o; },
                                              [this] { return dut_.cycle(); });
  dut_.attach(enc_drv_.get());
  dut_.attach(enc_sink_.get());
  dut_.attach(dec_drv_.get());
  dut_.attach(dec_sink_.get());
  for (auto& c : mons_) dut_.attach(c.get());
  dut_.attach(enc_spans_.get());
  dut_.attach(dec_spans_.get());
  dut_.reset();
}

LaneEnv::~LaneEnv() = default;

bool LaneEnv::push_plane(const std::vector<uint8_t>& plane, uint8_t plane_id, uint16_t block_id, bool guard,
                         CodecPolicy policy) {
  std::vector<uint8_t> ref;
  auto r = encode_block_lane(plane.data(), plane.size(), plane_id, block_id, policy, guard, ref);
  if (!r.ok()) {
    fail("golden encode_block_lane: " + r.status().message());
    return false;
  }
  sb_.expect("plane block " + std::to_string(block_id) + " plane " + std::to_string(plane_id), std::move(ref));
  for (size_t pos = 0; pos < plane.size(); pos += 16) {
    LaneEncIn b;
    const size_t k = std::min<size_t>(16, plane.size() - pos);
    std::copy(plane.begin() + static_cast<long>(pos), plane.begin() + static_cast<long>(pos + k), b.data.begin());
    b.cnt = static_cast<uint8_t>(k);
    b.last = pos + k == plane.size();
    b.block_id = block_id;
    b.plane_id = plane_id;
    b.guard = guard;
    b.policy = static_cast<uint8_t>(policy);
    b.raw_size = static_cast<uint32_t>(plane.size());
    enc_drv_->push(b);
    enc_spans_->beat(b.last);
  }
  ++enc_pushed_;
  return true;
}

void LaneEnv::push_stored(const std::vector<uint8_t>& s, const BlockExpect& exp, bool random_beats) {
  size_t pos = 0;
  do {
    LaneBeat32 b;
    size_t k = std::min<size_t>(32, s.size() - pos);
    if (random_beats) k = std::min<size_t>(k, rng_.range(0, 32));
    std::copy(s.begin() + static_cast<long>(pos), s.begin() + static_cast<long>(pos + k), b.data.begin());
    b.cnt = static_cast<uint8_t>(k);
    pos += k;
    b.last = pos == s.size();
    b.exp_block_id = static_cast<uint16_t>(exp.block_id);
    b.exp_plane_id = exp.plane_id;
    b.exp_raw_size = exp.raw_size;
    b.pad_mask = exp.pad_mask;
    dec_drv_->push(b);
    dec_spans_->beat(b.last);
  } while (pos < s.size());
  ++dec_pushed_;
}

bool LaneEnv::run(uint64_t max_cycles) {
  return dut_.run_until([this] { return enc_res_.size() >= enc_pushed_ && dec_res_.size() >= dec_pushed_; },
                        max_cycles);
}

bool LaneEnv::finish() { return enc_pushed_ == 0 || sb_.finish(); }

void LaneEnv::on_enc_out(const LaneBeat32& b) {
  const unsigned k = std::min<unsigned>(b.cnt, 32);
  if (!b.last && b.cnt != 32) fail("codec_lane encode: a beat before the last is not full");
  sb_.actual(b.data.data(), k);
  enc_cur_.bytes.insert(enc_cur_.bytes.end(), b.data.begin(), b.data.begin() + k);
  if (b.last) {
    const size_t i = enc_res_.size();
    enc_cur_.in_first = enc_spans_->span(i).first;
    enc_cur_.out_last = dut_.cycle();
    enc_res_.push_back(std::move(enc_cur_));
    enc_cur_ = LaneEncResult{};
  }
}

void LaneEnv::on_dec_out(const LaneDecOut& b) {
  if (b.last) {
    if (b.cnt != 0) fail("codec_lane decode: the status beat carries data");
    if (b.err != (b.code != 0)) fail("codec_lane decode: err and code disagree");
    dec_cur_.code = b.code;
    dec_cur_.err = b.err;
    const size_t i = dec_res_.size();
    dec_cur_.in_first = dec_spans_->span(i).first;
    dec_cur_.out_last = dut_.cycle();
    dec_res_.push_back(std::move(dec_cur_));
    dec_cur_ = LaneDecResult{};
    return;
  }
  if (b.cnt == 0 || b.cnt > 32) fail("codec_lane decode: data beat with " + std::to_string(b.cnt) + " bytes");
  dec_cur_.bytes.insert(dec_cur_.bytes.end(), b.data.begin(), b.data.begin() + std::min<unsigned>(b.cnt, 32));
}

}  // namespace ndp::tb
