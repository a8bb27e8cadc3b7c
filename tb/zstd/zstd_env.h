// Verification environment of the Zstandard decoder (rtl/zstd/zstd_decoder): a stream driver with
// a random valid-gap knob feeding 8-byte input beats, a sink with random backpressure, stream
// monitors on both sides, and one result per job (data bytes, status row, cycle stamps). Shared by
// the GoogleTest fixture (test_zstd_decoder.cc) and the ndp-rtl engine zstd-decode.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tb_report.h"
#include "tb_rng.h"
#include "tb_sim.h"
#include "tb_stream.h"

namespace ndp::tb {

// ---- data helpers (zstd_env.cc) ------------------------------------------------------------------
struct ZstdVector {
  std::string name;
  std::vector<uint8_t> frame, orig;
};
// decodecorpus frames and originals of set "small" or "large". False (why set) when absent.
bool load_decodecorpus(const std::string& set, std::vector<ZstdVector>* out, std::string* why);
// libzstd at `level`, with or without the content checksum (and content size in the header).
std::vector<uint8_t> libzstd_compress(const std::vector<uint8_t>& src, int level, bool checksum);
// libzstd with explicit parameters (the campaigns of large blocks, windows and dictionaries).
struct ZstdParams {
  int level = 3;
  int window_log = 0;           // 0: the level's default
  bool checksum = false;        // content checksum (and content size in the header)
  bool split_blocks = true;     // libzstd's block splitter (auto); false: whole 128 KiB blocks
  std::vector<uint8_t> dict;    // a dictionary (raw content, or a trained one with its ID)
};
std::vector<uint8_t> libzstd_compress(const std::vector<uint8_t>& src, const ZstdParams& p);
// One block of a single-frame input, from its headers: type (0 raw, 1 RLE, 2 compressed), Block_Size,
// and for compressed blocks Number_of_Sequences and whether it is in the 3-byte form (> 32,512).
// out_begin/out_end: the block's decoded byte range (filled by libzstd_history_decode).
struct ZstdBlock {
  uint8_t type = 0;
  uint32_t size = 0, nseq = 0;
  uint8_t modes = 0;  // Symbol_Compression_Modes (when nseq > 0)
  bool nseq_3byte = false;
  uint64_t out_begin = 0, out_end = 0;
};
// Window_Size of the frame at the start of `frame` (the content size for single-segment frames).
bool zstd_frame_window(const std::vector<uint8_t>& frame, uint64_t* window);
// Parses the block headers (and each compressed block's literals and sequences headers) of the
// frame at the start of `frame`. False when the structure does not parse.
bool zstd_frame_blocks(const std::vector<uint8_t>& frame, std::vector<ZstdBlock>* blocks);
// libzstd's block decoder run block by block with only the last `hist` bytes decoded before each block
// visible to its matches (ZSTD_insertBlock of a copy, then ZSTD_decompressBlock), plus the block's own
// bytes: a block it rejects needs more than `hist` bytes of history (or is corrupt); one it accepts
// may still reach up to its own length further back than a sliding window of `hist` bytes would.
// Returns -1 when every block decodes, else the index of the first block it rejects; *out holds the
// bytes of the blocks before it, blocks their output ranges (out_begin also for the rejected one).
int libzstd_history_decode(const std::vector<uint8_t>& frame, size_t hist, std::vector<uint8_t>* out,
                           std::vector<ZstdBlock>* blocks);
// libzstd reference decode into at most cap bytes. Returns false when libzstd rejects the input.
bool libzstd_decompress(const std::vector<uint8_t>& src, size_t cap, std::vector<uint8_t>* out,
                        std::string* err = nullptr);
// libzstd's streaming decoder (ZSTD_decompressStream, as the zstd CLI): unlike the one-shot call in
// libzstd 1.5.4 it checks each block's decoded size against Block_Maximum_Size. Output grows as
// decoded (no cap-sized buffer); false when libzstd rejects the input or it decodes to more than cap.
bool libzstd_decompress_stream(const std::vector<uint8_t>& src, size_t cap, std::vector<uint8_t>* out,
                               std::string* err = nullptr);
// Bytes of `rel` under the shared zstd-golden folder (the Zstandard project's conformance frames).
bool load_zstd_golden(const std::string& rel, std::vector<uint8_t>* out, std::string* why);
// docs/zstd.md "Bounded decoding": cycles <= 32 x (input bytes + output capacity) + 40000 x blocks,
// with blocks <= input bytes / 3; checked with blocks taken as input/3 + 1.
inline uint64_t zstd_cycle_bound(size_t in, size_t cap) { return 32 * (in + cap) + 40000 * (in / 3 + 1); }
// "first difference at byte i (got n bytes, want m bytes)"
std::string zstd_first_diff(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want);
// Write bytes to a file (for repeating a failing vector with ndp-rtl zstd-decode).
void save_vector(const std::string& path, const std::vector<uint8_t>& v);
// Text for the libzstd vectors: the RFC 8878 text in the shared reference folder.
bool load_reference_text(std::vector<uint8_t>* out, std::string* why);
// Exponent (EXPBYTE) and mantissa planes of stories260K (BF16 by RNE), blocks of `block` elements.
bool load_plane_blocks(size_t block, std::vector<ZstdVector>* out, std::string* why);
// Names of zstd_pkg::err_e codes.
const char* zstd_err_name(uint8_t code);
constexpr uint8_t kZstdErrFrameHdr = 3, kZstdErrHistory = 4, kZstdErrBlockSize = 6, kZstdErrHuffman = 8,
                  kZstdErrSequences = 10, kZstdErrOffset = 11, kZstdErrNoTable = 14;

// ---- environment ---------------------------------------------------------------------------------
struct ZIn {
  std::array<uint8_t, 8> data{};
  uint8_t cnt = 0;
  bool last = false;
  bool operator==(const ZIn& o) const { return data == o.data && cnt == o.cnt && last == o.last; }
};
struct ZOut {
  uint64_t data = 0;
  uint8_t cnt = 0, code = 0;
  bool last = false, err = false;
  bool operator==(const ZOut& o) const {
    return data == o.data && cnt == o.cnt && code == o.code && last == o.last && err == o.err;
  }
};
struct ZResult {
  std::vector<uint8_t> bytes;  // data bytes before the status row
  uint8_t code = 0;            // zstd_pkg::err_e of the status row
  bool done = false;           // a status row arrived
  uint64_t cycles = 0;         // from the job's start to its status row
  uint64_t out_first = 0, out_last = 0;  // cycles of the first / last data row
};

template <class Model>
class ZstdDecEnv {
 public:
  ZstdDecEnv(uint64_t seed, const std::string& fst, double gap, double backpressure)
      : rng_(seed), dut_(seed, fst) {
    Model* m = &dut_.model();
    StreamPort<ZIn> in;
    in.valid = [m] { return m->in_valid_i != 0; };
    in.ready = [m] { return m->in_ready_o != 0; };
    in.read = [m] {
      ZIn b;
      for (int i = 0; i < 8; ++i) b.data[i] = static_cast<uint8_t>(m->in_data_i >> (8 * i));
      b.cnt = m->in_cnt_i;
      b.last = m->in_last_i;
      return b;
    };
    in.set_valid = [m](bool v) { m->in_valid_i = v; };
    in.write = [m](const ZIn& b) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(b.data[i]) << (8 * i);
      m->in_data_i = v;
      m->in_cnt_i = b.cnt;
      m->in_last_i = b.last;
    };
    StreamPort<ZOut> out;
    out.valid = [m] { return m->out_valid_o != 0; };
    out.ready = [m] { return m->out_ready_i != 0; };
    out.read = [m] {
      ZOut b;
      b.data = m->out_data_o;
      b.cnt = m->out_cnt_o;
      b.last = m->out_last_o;
      b.err = m->out_err_o;
      b.code = m->out_code_o;
      return b;
    };
    out.set_ready = [m](bool r) { m->out_ready_i = r; };
    drv_ = std::make_unique<StreamDriver<ZIn>>(in, rng_, gap);
    sink_ = std::make_unique<StreamSink<ZOut>>(out, rng_, backpressure, [this](const ZOut& b) { on_out(b); });
    mon_in_ = std::make_unique<StreamMonitor<ZIn>>("zstd_decoder in", in);
    mon_out_ = std::make_unique<StreamMonitor<ZOut>>("zstd_decoder out", out);
    dut_.attach(drv_.get());
    dut_.attach(sink_.get());
    dut_.attach(mon_in_.get());
    dut_.attach(mon_out_.get());
    dut_.reset();
  }

  // Decode one job (the bytes of one or more frames) with an output capacity of cap bytes.
  // Runs until the status row or max_cycles (result.done false then; a failure is reported).
  ZResult decode(const std::vector<uint8_t>& job, uint32_t cap, uint64_t max_cycles) {
    dut_->out_cap_i = cap;
    cur_ = ZResult{};
    size_t pos = 0;
    do {
      ZIn b;
      size_t k = std::min<size_t>(8, job.size() - pos);
      std::copy(job.begin() + static_cast<std::ptrdiff_t>(pos), job.begin() + static_cast<std::ptrdiff_t>(pos + k),
                b.data.begin());
      b.cnt = static_cast<uint8_t>(k);
      pos += k;
      b.last = pos == job.size();
      drv_->push(b);
    } while (pos < job.size());
    start_ = dut_.cycle();
    dut_.run_until([this] { return cur_.done; }, max_cycles);
    if (!cur_.done) drv_->clear();
    return cur_;
  }
  Dut<Model>& dut() { return dut_; }
  Rng& rng() { return rng_; }
  bool protocol_ok() const { return mon_in_->violations() == 0 && mon_out_->violations() == 0; }
  void set_knobs(double gap, double bp) {
    drv_->set_gap(gap);
    sink_->set_backpressure(bp);
  }

 private:
  void on_out(const ZOut& b) {
    if (b.last) {
      if (b.cnt != 0) fail("zstd_decoder: status row carries data");
      cur_.code = b.code;
      cur_.done = true;
      cur_.cycles = dut_.cycle() - start_;
      return;
    }
    if (b.cnt == 0 || b.cnt > 8) fail("zstd_decoder: data row with " + std::to_string(b.cnt) + " bytes");
    if (cur_.bytes.empty()) cur_.out_first = dut_.cycle();
    cur_.out_last = dut_.cycle();
    for (int i = 0; i < b.cnt && i < 8; ++i) cur_.bytes.push_back(static_cast<uint8_t>(b.data >> (8 * i)));
  }
  Rng rng_;
  Dut<Model> dut_;
  std::unique_ptr<StreamDriver<ZIn>> drv_;
  std::unique_ptr<StreamSink<ZOut>> sink_;
  std::unique_ptr<StreamMonitor<ZIn>> mon_in_;
  std::unique_ptr<StreamMonitor<ZOut>> mon_out_;
  ZResult cur_;
  uint64_t start_ = 0;
};

}  // namespace ndp::tb
