// Verification environments of the LZ4 lane engines (rtl/lz4): lz4_decoder and lz4_encoder,
// templated on the Verilator model so that every parameter point (a separate model) shares them.
// Each has a stream driver with a random valid-gap knob, a sink with random backpressure, stream
// monitors on both sides, and per-block results with handshake cycle stamps; the encoder's bytes
// go through a scoreboard fed by the golden model (ndp::lz4_hw_compress). Shared by the GoogleTest
// fixtures (test_lz4_*.cc) and the ndp-rtl engines lz4-encode / lz4-decode.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <memory>
#include <string>
#include <vector>

#include "ndp/lz4_hw_model.h"
#include "tb_report.h"
#include "tb_rng.h"
#include "tb_scoreboard.h"
#include "tb_sim.h"
#include "tb_stream.h"
#include "tb_wide.h"

namespace ndp::tb {

// ------------------------------------------------------------------------------------------------
// Data helpers (lz4_env.cc)

// One plane block of real weights: BF16 by FP32 -> BF16 round-to-nearest-even, chunks of 32768
// elements, planes from ndp::pack_chunk (expbyte layout: sign, EXPBYTE, mantissa planes; bitplane
// layout: its eight exponent bit-planes, the only planes it adds).
struct PlaneBlock {
  std::string label;  // "stories260K/<tensor> chunk 0 plane 0x40"
  uint8_t plane = 0;
  std::vector<uint8_t> bytes;
};
// Planes of stories260K and the GPT-2 attention weights (att.{query,key,value,proj}.w of
// decoder1..6). max_gpt2_layers limits the GPT-2 part (0: none). Returns false (why set) when the
// shared data folder is absent.
bool load_real_planes(std::vector<PlaneBlock>* out, int max_gpt2_layers, std::string* why);
// True when every byte equals the first (the block would be stored CONST, never LZ4).
bool all_equal(const std::vector<uint8_t>& v);
// Synthetic data of a given flavour: 0 random, 1 sparse (mostly zero), 2 short period, 3 runs,
// 4 small alphabet, 5 all zero.
std::vector<uint8_t> synth_data(Rng& rng, size_t n, int flavour);
// The system liblz4 (liblz4.so.1, loaded with dlopen): the Verilator runtime linked into every
// bench carries its own LZ4 1.7.1 (gtkwave's FST writer) whose symbols would otherwise shadow the
// library's, so the benches reach the real one through these function pointers.
int liblz4_version();
// liblz4 block of src: level 0 LZ4_compress_default, level < 0 LZ4_compress_fast with
// acceleration -level, level > 0 LZ4_compress_HC at that level.
std::vector<uint8_t> liblz4_compress(const std::vector<uint8_t>& src, int level);
// LZ4_decompress_safe(src, dst, n, cap): decoded size or a negative error.
int liblz4_decompress(const uint8_t* src, size_t n, uint8_t* dst, size_t cap);
// Reference of the decoder's acceptance rules (docs/lz4.md "Rejected blocks"): decodes comp into
// *out (never past raw_size bytes) and returns the lz4_pkg::err_e code the RTL must report (0 when
// the block is accepted). max_block: the engine's MaxBlockBytes.
uint8_t lz4_ref_decode(const uint8_t* comp, size_t n, uint32_t raw_size, uint32_t max_block,
                       std::vector<uint8_t>* out);
// Sequences of a well-formed LZ4 block: byte position of the token, of the offset field (0 for the
// final sequence), decoded position where the match starts, literal and match lengths.
struct Lz4SeqPos {
  size_t token = 0, off_at = 0;
  uint32_t lit = 0, match = 0, out_match = 0;
};
std::vector<Lz4SeqPos> lz4_sequence_positions(const std::vector<uint8_t>& comp);
// Names of the lz4_pkg::err_e codes.
const char* lz4_err_name(uint8_t code);
// Percentile (0..100) of v (copied, sorted); 0 when empty.
double percentile(std::vector<double> v, double p);

// Block rates (bytes per cycle) collected over a run and summarised as the docs report them.
struct RateSummary {
  std::vector<double> per_block;
  double bytes = 0, cycles = 0;
  void add(double b, double c) {
    per_block.push_back(c > 0 ? b / c : 0);
    bytes += b;
    cycles += c;
  }
  double aggregate() const { return cycles > 0 ? bytes / cycles : 0; }
  std::string text() const;  // "N blocks, aggregate X B/cycle, p5/p50/p95/min ..."
};

// ------------------------------------------------------------------------------------------------
// lz4_decoder

struct Lz4DecIn {
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0;
  bool last = false;
  uint32_t raw_size = 0;
  bool operator==(const Lz4DecIn& o) const {
    return data == o.data && cnt == o.cnt && last == o.last && raw_size == o.raw_size;
  }
};
struct Lz4DecOut {
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0, code = 0;
  bool last = false, err = false;
  bool operator==(const Lz4DecOut& o) const {
    return data == o.data && cnt == o.cnt && code == o.code && last == o.last && err == o.err;
  }
};

// How the DUT ended one block.
struct Lz4DecResult {
  std::vector<uint8_t> bytes;  // data bytes received (before the error row, if any)
  bool err = false;
  uint8_t code = 0;
  uint64_t in_first = 0, in_last = 0;    // handshake cycles of the block's first / last input beat
  uint64_t out_first = 0, out_last = 0;  // first / last output row (out_last: the row with last)
};

template <class Model>
class Lz4DecEnv {
 public:
  // in_bytes / out_bytes: the model's InBytes / OutBytes parameters.
  Lz4DecEnv(uint64_t seed, const std::string& fst, double gap, double backpressure,
            unsigned in_bytes = 32, unsigned out_bytes = 32)
      : rng_(seed), dut_(seed, fst), in_bytes_(in_bytes), out_bytes_(out_bytes) {
    Model* m = &dut_.model();
    StreamPort<Lz4DecIn> in;
    in.valid = [m] { return m->in_valid_i != 0; };
    in.ready = [m] { return m->in_ready_o != 0; };
    in.read = [this, m] {
      Lz4DecIn b;
      get_bytes(m->in_data_i, b.data.data(), in_bytes_);
      b.cnt = m->in_cnt_i;
      b.last = m->in_last_i;
      b.raw_size = m->in_raw_size_i;
      return b;
    };
    in.set_valid = [m](bool v) { m->in_valid_i = v; };
    in.write = [m](const Lz4DecIn& b) {
      put_bytes(m->in_data_i, b.data.data(), b.data.size());
      m->in_cnt_i = b.cnt;
      m->in_last_i = b.last;
      m->in_raw_size_i = b.raw_size;
    };
    StreamPort<Lz4DecOut> out;
    out.valid = [m] { return m->out_valid_o != 0; };
    out.ready = [m] { return m->out_ready_i != 0; };
    out.read = [this, m] {
      Lz4DecOut b;
      get_bytes(m->out_data_o, b.data.data(), out_bytes_);
      b.cnt = m->out_cnt_o;
      b.last = m->out_last_o;
      b.err = m->out_err_o;
      b.code = m->out_code_o;
      return b;
    };
    out.set_ready = [m](bool r) { m->out_ready_i = r; };
    drv_ = std::make_unique<StreamDriver<Lz4DecIn>>(in, rng_, gap);
    sink_ = std::make_unique<StreamSink<Lz4DecOut>>(out, rng_, backpressure,
                                                    [this](const Lz4DecOut& b) { on_out(b); });
    mon_in_ = std::make_unique<StreamMonitor<Lz4DecIn>>("lz4_decoder in", in);
    mon_out_ = std::make_unique<StreamMonitor<Lz4DecOut>>("lz4_decoder out", out);
    spans_ = std::make_unique<PacketSpans>([m] { return m->in_valid_i && m->in_ready_o; },
                                           [this] { return dut_.cycle(); });
    dut_.attach(drv_.get());
    dut_.attach(sink_.get());
    dut_.attach(mon_in_.get());
    dut_.attach(mon_out_.get());
    dut_.attach(spans_.get());
    dut_.reset();
  }

  // Queue one LZ4 block (comp may be empty) with the decoded size the DUT is told. Beats carry
  // in_bytes bytes, or a random 0..in_bytes when random_beats.
  void push_block(const uint8_t* comp, size_t n, uint32_t raw_size, bool random_beats = false) {
    size_t pos = 0;
    do {
      Lz4DecIn b;
      size_t k = std::min<size_t>(in_bytes_, n - pos);
      if (random_beats) k = std::min<size_t>(k, rng_.range(0, in_bytes_));
      std::copy(comp + pos, comp + pos + k, b.data.begin());
      b.cnt = static_cast<uint8_t>(k);
      pos += k;
      b.last = pos == n;
      b.raw_size = raw_size;
      drv_->push(b);
      spans_->beat(b.last);
    } while (pos < n);
    ++pushed_;
  }
  // Run until every queued block has ended on the output (false on timeout or RTL assertion).
  bool run(uint64_t max_cycles) {
    return dut_.run_until([this] { return results_.size() >= pushed_; }, max_cycles);
  }
  const std::vector<Lz4DecResult>& results() const { return results_; }
  Dut<Model>& dut() { return dut_; }
  bool protocol_ok() const { return mon_in_->violations() == 0 && mon_out_->violations() == 0; }

 private:
  void on_out(const Lz4DecOut& b) {
    if (cur_.bytes.empty() && cur_.out_first == 0) cur_.out_first = dut_.cycle();
    if (b.cnt > out_bytes_) fail("lz4_decoder: out_cnt " + std::to_string(b.cnt) + " > OutBytes");
    cur_.bytes.insert(cur_.bytes.end(), b.data.begin(), b.data.begin() + std::min<unsigned>(b.cnt, out_bytes_));
    if (b.err && (b.cnt != 0 || !b.last)) fail("lz4_decoder: error row with data or without last");
    if (b.last) {
      cur_.err = b.err;
      cur_.code = b.code;
      cur_.out_last = dut_.cycle();
      std::tie(cur_.in_first, cur_.in_last) = spans_->span(results_.size());
      results_.push_back(std::move(cur_));
      cur_ = Lz4DecResult{};
    }
  }

  Rng rng_;
  Dut<Model> dut_;
  unsigned in_bytes_, out_bytes_;
  std::unique_ptr<StreamDriver<Lz4DecIn>> drv_;
  std::unique_ptr<StreamSink<Lz4DecOut>> sink_;
  std::unique_ptr<StreamMonitor<Lz4DecIn>> mon_in_;
  std::unique_ptr<StreamMonitor<Lz4DecOut>> mon_out_;
  std::unique_ptr<PacketSpans> spans_;
  size_t pushed_ = 0;
  Lz4DecResult cur_;
  std::vector<Lz4DecResult> results_;
};

// ------------------------------------------------------------------------------------------------
// lz4_encoder

struct Lz4EncIn {
  std::array<uint8_t, 16> data{};
  uint8_t cnt = 0;
  bool last = false;
  uint32_t size = 0;
  bool operator==(const Lz4EncIn& o) const {
    return data == o.data && cnt == o.cnt && last == o.last && size == o.size;
  }
};
struct Lz4EncOut {
  std::array<uint8_t, 32> data{};
  uint8_t cnt = 0;
  bool last = false;
  bool operator==(const Lz4EncOut& o) const { return data == o.data && cnt == o.cnt && last == o.last; }
};

struct Lz4EncResult {
  std::vector<uint8_t> bytes;  // the LZ4 block the DUT wrote
  uint64_t in_first = 0, in_last = 0, out_last = 0;
};

template <class Model>
class Lz4EncEnv {
 public:
  // p: the model's InBytes (and the golden model's bytes_per_cycle); params: the golden model's
  // parameters of the same build.
  Lz4EncEnv(uint64_t seed, const std::string& fst, double gap, double backpressure,
            const Lz4HwParams& params, unsigned out_bytes)
      : rng_(seed), dut_(seed, fst), hp_(params), p_(static_cast<unsigned>(params.bytes_per_cycle)),
        out_bytes_(out_bytes) {
    Model* m = &dut_.model();
    StreamPort<Lz4EncIn> in;
    in.valid = [m] { return m->in_valid_i != 0; };
    in.ready = [m] { return m->in_ready_o != 0; };
    in.read = [this, m] {
      Lz4EncIn b;
      get_bytes(m->in_data_i, b.data.data(), p_);
      b.cnt = m->in_cnt_i;
      b.last = m->in_last_i;
      b.size = m->in_size_i;
      return b;
    };
    in.set_valid = [m](bool v) { m->in_valid_i = v; };
    in.write = [this, m](const Lz4EncIn& b) {
      put_bytes(m->in_data_i, b.data.data(), p_);
      m->in_cnt_i = b.cnt;
      m->in_last_i = b.last;
      m->in_size_i = b.size;
    };
    StreamPort<Lz4EncOut> out;
    out.valid = [m] { return m->out_valid_o != 0; };
    out.ready = [m] { return m->out_ready_i != 0; };
    out.read = [this, m] {
      Lz4EncOut b;
      get_bytes(m->out_data_o, b.data.data(), out_bytes_);
      b.cnt = m->out_cnt_o;
      b.last = m->out_last_o;
      return b;
    };
    out.set_ready = [m](bool r) { m->out_ready_i = r; };
    drv_ = std::make_unique<StreamDriver<Lz4EncIn>>(in, rng_, gap);
    sink_ = std::make_unique<StreamSink<Lz4EncOut>>(out, rng_, backpressure,
                                                    [this](const Lz4EncOut& b) { on_out(b); });
    mon_in_ = std::make_unique<StreamMonitor<Lz4EncIn>>("lz4_encoder in", in);
    mon_out_ = std::make_unique<StreamMonitor<Lz4EncOut>>("lz4_encoder out", out);
    spans_ = std::make_unique<PacketSpans>([m] { return m->in_valid_i && m->in_ready_o; },
                                           [this] { return dut_.cycle(); });
    dut_.attach(drv_.get());
    dut_.attach(sink_.get());
    dut_.attach(mon_in_.get());
    dut_.attach(mon_out_.get());
    dut_.attach(spans_.get());
    dut_.reset();
  }

  // Queue one block (1..65536 bytes); its golden LZ4 block goes on the scoreboard.
  void push_block(const uint8_t* src, size_t n, const std::string& label) {
    std::vector<uint8_t> ref;
    Status st = lz4_hw_compress(src, n, ref, hp_);
    if (!st.ok()) {
      fail("golden model: " + st.message());
      return;
    }
    sb_.expect(label, std::move(ref));
    for (size_t pos = 0; pos < n; pos += p_) {
      Lz4EncIn b;
      size_t k = std::min<size_t>(p_, n - pos);
      std::copy(src + pos, src + pos + k, b.data.begin());
      b.cnt = static_cast<uint8_t>(k);
      b.last = pos + k == n;
      b.size = static_cast<uint32_t>(n);
      drv_->push(b);
      spans_->beat(b.last);
    }
    ++pushed_;
  }
  bool run(uint64_t max_cycles) {
    return dut_.run_until([this] { return results_.size() >= pushed_; }, max_cycles);
  }
  // Scoreboard verdict (prints "N items compared").
  bool finish() { return sb_.finish() && mon_in_->violations() == 0 && mon_out_->violations() == 0; }
  const std::vector<Lz4EncResult>& results() const { return results_; }
  Dut<Model>& dut() { return dut_; }
  uint64_t input_stalls() const { return drv_->stalls(); }

 private:
  void on_out(const Lz4EncOut& b) {
    unsigned k = std::min<unsigned>(b.cnt, out_bytes_);
    if (!b.last && b.cnt != out_bytes_) fail("lz4_encoder: a beat before the last is not full");
    sb_.actual(b.data.data(), k);
    cur_.bytes.insert(cur_.bytes.end(), b.data.begin(), b.data.begin() + k);
    if (b.last) {  // (a block ending early shows as a mismatch against the next block's bytes)
      cur_.out_last = dut_.cycle();
      std::tie(cur_.in_first, cur_.in_last) = spans_->span(results_.size());
      results_.push_back(std::move(cur_));
      cur_ = Lz4EncResult{};
    }
  }

  Rng rng_;
  Dut<Model> dut_;
  Lz4HwParams hp_;
  unsigned p_, out_bytes_;
  std::unique_ptr<StreamDriver<Lz4EncIn>> drv_;
  std::unique_ptr<StreamSink<Lz4EncOut>> sink_;
  std::unique_ptr<StreamMonitor<Lz4EncIn>> mon_in_;
  std::unique_ptr<StreamMonitor<Lz4EncOut>> mon_out_;
  std::unique_ptr<PacketSpans> spans_;
  ByteScoreboard sb_{"lz4_encoder"};
  size_t pushed_ = 0;
  Lz4EncResult cur_;
  std::vector<Lz4EncResult> results_;
};

}  // namespace ndp::tb
