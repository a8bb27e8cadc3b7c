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
// libzstd reference decode into at most cap bytes. Returns false when libzstd rejects the input.
bool libzstd_decompress(const std::vector<uint8_t>& src, size_t cap, std::vector<uint8_t>* out,
                        std::string* err = nullptr);
// Write bytes to a file (for repeating a failing vector with ndp-rtl zstd-decode).
void save_vector(const std::string& path, const std::vector<uint8_t>& v);
// Text for the libzstd vectors: the RFC 8878 text in the shared reference folder.
bool load_reference_text(std::vector<uint8_t>* out, std::string* why);
// Exponent (EXPBYTE) and mantissa planes of stories260K (BF16 by RNE), blocks of `block` elements.
bool load_plane_blocks(size_t block, std::vector<ZstdVector>* out, std::string* why);
// Names of zstd_pkg::err_e codes.
const char* zstd_err_name(uint8_t code);
constexpr uint8_t kZstdErrHistory = 4;

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
