// Verification environment of codec_lane (rtl/lane): drivers with random valid gaps and sinks
// with random backpressure on both directions, stream monitors, a scoreboard on the encode side fed
// by the golden plane-block encoder of the hardware lane (ndp::encode_block_lane), and per-block
// results on the decode side for comparison with the reference of the lane's checks
// (lane_ref_decode) and with the golden decoder (ndp::BlockDecoder). Shared by test_codec_lane.cc
// and the ndp-rtl engines.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Vcodec_lane.h"
#include "ndp/block.h"
#include "ndp/lz4_hw_model.h"
#include "ndp/zstd_hw_model.h"
#include "tb_report.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"
#include "tb_wide.h"

namespace ndp::tb {

// Status codes of lane_pkg::status_e.
enum LaneStatus : uint8_t {
  kLaneOk = 0, kLaneHdrTrunc = 1, kLaneCodecUnknown = 2, kLaneFlagsReserved = 3, kLanePlaneUndef = 4,
  kLaneSizeRule = 5, kLanePlaneMismatch = 6, kLaneBlockMismatch = 7, kLaneRawMismatch = 8,
  kLanePayloadTrunc = 9, kLaneUnsupported = 10, kLaneChecksum = 11, kLanePadding = 12, kLaneLz4Base = 16,
  kLaneZstdBase = 32,  // + zstd_lane_dec code: 1..15 zstd_pkg::err_e, 16 header rule, 17 frames, 18 size
  kLaneZstdAny = 0xFF  // reference only: "some ZSTD payload code" (the golden model gives no finer verdict)
};
constexpr uint8_t kLaneZstdRuleFhd = kLaneZstdBase + 16;
bool lane_code_matches(uint8_t rtl, uint8_t ref);
const char* lane_status_name(uint8_t code);

// Reference of the decode direction's verdict for one stored block (stored[0..n-1] is the whole
// packet): the status the RTL must report and, when it is kLaneOk, the decoded bytes. ZSTD payloads
// follow the golden decoder (spec section 3 frame rules, then libzstd with raw_size as capacity);
// a rejected one is kLaneZstdRuleFhd when its first 5 bytes break the magic/descriptor rule (the
// RTL checks those first) and kLaneZstdAny otherwise.
uint8_t lane_ref_decode(const uint8_t* stored, size_t n, const BlockExpect& exp, std::vector<uint8_t>* out);

struct LaneEncIn {
  std::array<uint8_t, 16> data{};
  uint8_t cnt = 0;
  bool last = false;
  uint16_t block_id = 0;
  uint8_t plane_id = 0;
  bool guard = false;
  uint8_t policy = 0;  // ndp::CodecPolicy
  uint32_t raw_size = 0;
  bool operator==(const LaneEncIn& o) const {
    return data == o.data && cnt == o.cnt && last == o.last && block_id == o.block_id && plane_id == o.plane_id &&
           guard == o.guard && policy == o.policy && raw_size == o.raw_size;
  }
};
struct LaneBeat32 {  // encode output and decode input
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0;
  bool last = false;
  uint16_t exp_block_id = 0;
  uint8_t exp_plane_id = 0, pad_mask = 0;
  uint32_t exp_raw_size = 0;
  bool operator==(const LaneBeat32& o) const {
    return data == o.data && cnt == o.cnt && last == o.last && exp_block_id == o.exp_block_id &&
           exp_plane_id == o.exp_plane_id && pad_mask == o.pad_mask && exp_raw_size == o.exp_raw_size;
  }
};
struct LaneDecOut {
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0, code = 0;
  bool last = false, err = false;
  bool operator==(const LaneDecOut& o) const {
    return data == o.data && cnt == o.cnt && code == o.code && last == o.last && err == o.err;
  }
};

struct LaneDecResult {
  std::vector<uint8_t> bytes;
  uint8_t code = 0;
  bool err = false;
  uint64_t in_first = 0, out_last = 0;
};
struct LaneEncResult {
  std::vector<uint8_t> bytes;  // the stored block
  uint64_t in_first = 0, out_last = 0;
};

class LaneEnv {
 public:
  LaneEnv(uint64_t seed, const std::string& fst, double gap, double backpressure);
  ~LaneEnv();

  // Encode direction: queue a raw plane under a codec policy; its golden stored block
  // (ndp::encode_block_lane) goes on the scoreboard. Returns false (with a failure) when the golden
  // model rejects the arguments.
  bool push_plane(const std::vector<uint8_t>& plane, uint8_t plane_id, uint16_t block_id, bool guard,
                  CodecPolicy policy);
  // Decode direction: queue one stored block (one packet) with the index's expectations.
  void push_stored(const std::vector<uint8_t>& stored, const BlockExpect& exp, bool random_beats);
  // Run until every queued block came out in both directions.
  bool run(uint64_t max_cycles);
  bool finish();  // encode scoreboard verdict (the monitors report through tb::fail as they go)
  const std::vector<LaneEncResult>& enc_results() const { return enc_res_; }
  const std::vector<LaneDecResult>& dec_results() const { return dec_res_; }
  Dut<Vcodec_lane>& dut() { return dut_; }

 private:
  void on_enc_out(const LaneBeat32& b);
  void on_dec_out(const LaneDecOut& b);

  Rng rng_;
  Dut<Vcodec_lane> dut_;
  std::unique_ptr<StreamDriver<LaneEncIn>> enc_drv_;
  std::unique_ptr<StreamSink<LaneBeat32>> enc_sink_;
  std::unique_ptr<StreamDriver<LaneBeat32>> dec_drv_;
  std::unique_ptr<StreamSink<LaneDecOut>> dec_sink_;
  std::vector<std::unique_ptr<Component>> mons_;
  std::unique_ptr<PacketSpans> enc_spans_, dec_spans_;  // first input handshake per packet
  ByteScoreboard sb_{"codec_lane encode"};
  size_t enc_pushed_ = 0, dec_pushed_ = 0;
  LaneEncResult enc_cur_;
  LaneDecResult dec_cur_;
  std::vector<LaneEncResult> enc_res_;
  std::vector<LaneDecResult> dec_res_;
};

}  // namespace ndp::tb
