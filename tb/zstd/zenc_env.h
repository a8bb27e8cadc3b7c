// Verification environment of the Zstandard encoder (rtl/zstd/zstd_encoder): a stream driver with a
// random valid-gap knob feeding 16-byte input beats (one packet per block, the job's fields held),
// a sink with random backpressure, stream monitors on both sides, and a scoreboard fed by the
// golden model (ndp::zstd_hw_frame): every frame is compared byte for byte, and each block's kind
// with the model's. Shared by test_zstd_encoder.cc and the ndp-rtl engine zstd-encode.
//
// One environment per zstd_encoder build (Model: Vzstd_encoder, the defaults; Vzstd_encoder_h8,
// HashBytes = 8 and HufLits = 1). The golden model's match finder parameters are read from the build itself (the
// RTL's public parameters), so the comparison follows whatever the model was verilated with.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vzstd_encoder.h"
#include "Vzstd_encoder_h8.h"
#include "Vzstd_encoder_h8_zstd_encoder.h"
#include "Vzstd_encoder_zstd_encoder.h"
#include "ndp/zstd_hw_model.h"
#include "tb_report.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"

namespace ndp::tb {

struct ZeIn {
  std::array<uint8_t, 16> data{};
  uint8_t cnt = 0;
  bool last = false, huf = false, hl = false, first = false, lastblk = false;
  uint32_t size = 0, total = 0;
  bool operator==(const ZeIn& o) const {
    return data == o.data && cnt == o.cnt && last == o.last && huf == o.huf && hl == o.hl && first == o.first &&
           lastblk == o.lastblk && size == o.size && total == o.total;
  }
};
struct ZeOut {
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0, kind = 0;
  bool last = false;
  bool operator==(const ZeOut& o) const { return data == o.data && cnt == o.cnt && last == o.last; }
};

struct ZeFrame {
  std::vector<uint8_t> bytes;        // the RTL's frame
  std::vector<ZstdHwBlockInfo> model;  // the model's blocks
  std::vector<uint8_t> kinds;        // the RTL's block kinds
  uint64_t raw = 0;                  // content bytes
  uint64_t in_first = 0, in_last = 0, out_last = 0;  // cycles
  bool done = false;
};

// The class of a build's zstd_encoder module, which holds its public parameters.
template <class Model>
struct ZencTop;
template <>
struct ZencTop<Vzstd_encoder> {
  using type = Vzstd_encoder_zstd_encoder;
};
template <>
struct ZencTop<Vzstd_encoder_h8> {
  using type = Vzstd_encoder_h8_zstd_encoder;
};

// The golden model's parameters of a zstd_encoder build: its finder's InBytes, HashBits, HashBytes,
// HashBanks and MatchBytes (Lazy and BackExt are the finder's defaults, as in the model), and whether
// sequences blocks Huffman-code their literals (HufLits).
template <class Model>
ZstdHwParams zenc_params() {
  using T = typename ZencTop<Model>::type;
  ZstdHwParams p;
  p.finder.bytes_per_cycle = static_cast<int>(T::InBytes);
  p.finder.hash_bits = static_cast<int>(T::HashBits);
  p.finder.hash_bytes = static_cast<int>(T::HashBytes);
  p.finder.hash_banks = static_cast<int>(T::HashBanks);
  p.finder.match_bytes = static_cast<int>(T::MatchBytes);
  p.huffman_literals = T::HufLits != 0;
  return p;
}

template <class Model = Vzstd_encoder>
class ZstdEncEnv {
 public:
  ZstdEncEnv(uint64_t seed, const std::string& fst, double gap, double backpressure);
  ~ZstdEncEnv();

  // Queue the frame of src cut into blocks of block_bytes (Huffman mode when huf; hl: its sequences
  // blocks Huffman-code their literals, in a HufLits build); its golden frame goes on the
  // scoreboard. False (with a failure) when the model rejects the arguments.
  bool push_frame(const std::vector<uint8_t>& src, bool huf, size_t block_bytes, const std::string& label,
                  bool hl = true);
  // Run until every queued frame came out (false on timeout, reported).
  bool run(uint64_t max_cycles);
  bool finish();  // scoreboard verdict and the block kinds
  const std::vector<ZeFrame>& frames() const { return frames_; }
  Dut<Model>& dut() { return dut_; }
  const ZstdHwParams& params() const { return params_; }
  uint64_t input_stalls() const { return drv_->stalls(); }

 private:
  void on_out(const ZeOut& b);

  Rng rng_;
  Dut<Model> dut_;
  ZstdHwParams params_ = zenc_params<Model>();
  std::unique_ptr<StreamDriver<ZeIn>> drv_;
  std::unique_ptr<StreamSink<ZeOut>> sink_;
  std::unique_ptr<StreamMonitor<ZeIn>> mon_in_;
  std::unique_ptr<StreamMonitor<ZeOut>> mon_out_;
  std::unique_ptr<PacketSpans> spans_;
  ByteScoreboard sb_{"zstd_encoder"};
  std::vector<ZeFrame> frames_;
  std::deque<std::pair<size_t, bool>> jobs_;  // queued jobs: frame index, last block of the frame
  size_t jobs_pushed_ = 0, jobs_done_ = 0;
  bool kinds_ok_ = true;
};

}  // namespace ndp::tb
