#include "zenc_env.h"

#include <algorithm>

#include "tb_wide.h"

namespace ndp::tb {

template <class Model>
ZstdEncEnv<Model>::ZstdEncEnv(uint64_t seed, const std::string& fst, double gap, double backpressure)
    : rng_(seed), dut_(seed, fst) {
  Model* m = &dut_.model();
  StreamPort<ZeIn> in;
  in.valid = [m] { return m->in_valid_i != 0; };
  in.ready = [m] { return m->in_ready_o != 0; };
  in.read = [m] {
    ZeIn b;
    get_bytes(m->in_data_i, b.data.data(), 16);
    b.cnt = m->in_cnt_i;
    b.last = m->in_last_i;
    b.size = m->in_size_i;
    b.huf = m->in_huf_i;
    b.hl = m->in_hl_i;
    b.first = m->in_first_i;
    b.lastblk = m->in_lastblk_i;
    b.total = m->in_total_i;
    return b;
  };
  in.set_valid = [m](bool v) { m->in_valid_i = v; };
  in.write = [m](const ZeIn& b) {
    put_bytes(m->in_data_i, b.data.data(), 16);
    m->in_cnt_i = b.cnt;
    m->in_last_i = b.last;
    m->in_size_i = b.size;
    m->in_huf_i = b.huf;
    m->in_hl_i = b.hl;
    m->in_first_i = b.first;
    m->in_lastblk_i = b.lastblk;
    m->in_total_i = b.total;
  };
  StreamPort<ZeOut> out;
  out.valid = [m] { return m->out_valid_o != 0; };
  out.ready = [m] { return m->out_ready_i != 0; };
  out.read = [m] {
    ZeOut b;
    get_bytes(m->out_data_o, b.data.data(), 32);
    b.cnt = m->out_cnt_o;
    b.last = m->out_last_o;
    b.kind = m->out_kind_o;
    return b;
  };
  out.set_ready = [m](bool r) { m->out_ready_i = r; };
  drv_ = std::make_unique<StreamDriver<ZeIn>>(in, rng_, gap);
  sink_ = std::make_unique<StreamSink<ZeOut>>(out, rng_, backpressure, [this](const ZeOut& b) { on_out(b); });
  mon_in_ = std::make_unique<StreamMonitor<ZeIn>>("zstd_encoder in", in);
  mon_out_ = std::make_unique<StreamMonitor<ZeOut>>("zstd_encoder out", out);
  spans_ = std::make_unique<PacketSpans>([m] { return m->in_valid_i && m->in_ready_o; },
                                         [this] { return dut_.cycle(); });
  dut_.attach(drv_.get());
  dut_.attach(sink_.get());
  dut_.attach(mon_in_.get());
  dut_.attach(mon_out_.get());
  dut_.attach(spans_.get());
  dut_.reset();
}

template <class Model>
ZstdEncEnv<Model>::~ZstdEncEnv() = default;

template <class Model>
bool ZstdEncEnv<Model>::push_frame(const std::vector<uint8_t>& src, bool huf, size_t block_bytes, const std::string& label,
                                   bool hl) {
  ZeFrame f;
  std::vector<uint8_t> ref;
  ZstdHwParams p = params_;
  p.huffman_literals = p.huffman_literals && hl;
  Status st = zstd_hw_frame(src.data(), src.size(), huf, block_bytes, ref, &f.model, p);
  if (!st.ok()) {
    fail("zstd_encoder env: " + label + ": " + st.message());
    return false;
  }
  f.raw = src.size();
  sb_.expect(label, std::move(ref));
  const size_t fi = frames_.size();
  frames_.push_back(std::move(f));
  for (size_t pos = 0; pos < src.size(); pos += block_bytes) {
    const size_t len = std::min(block_bytes, src.size() - pos);
    for (size_t b = 0; b < len; b += 16) {
      ZeIn in;
      in.cnt = static_cast<uint8_t>(std::min<size_t>(16, len - b));
      std::copy(src.begin() + static_cast<long>(pos + b), src.begin() + static_cast<long>(pos + b + in.cnt),
                in.data.begin());
      in.last = b + in.cnt == len;
      in.size = static_cast<uint32_t>(len);
      in.huf = huf;
      in.hl = hl;
      in.first = pos == 0;
      in.lastblk = pos + len == src.size();
      in.total = static_cast<uint32_t>(src.size());
      drv_->push(in);
      spans_->beat(in.last);
    }
    jobs_.push_back({fi, pos + len == src.size()});
    ++jobs_pushed_;
  }
  return true;
}

template <class Model>
void ZstdEncEnv<Model>::on_out(const ZeOut& b) {
  if (jobs_.empty()) {
    fail("zstd_encoder: output beat with no job in flight");
    return;
  }
  if (!b.last && b.cnt != 32) fail("zstd_encoder: a beat before the last is not full");
  if (b.cnt == 0 || b.cnt > 32) fail("zstd_encoder: beat of " + std::to_string(b.cnt) + " bytes");
  const auto [fi, lastblk] = jobs_.front();
  ZeFrame& f = frames_[fi];
  const size_t n = std::min<size_t>(b.cnt, 32);
  sb_.actual(b.data.data(), n);
  f.bytes.insert(f.bytes.end(), b.data.begin(), b.data.begin() + static_cast<long>(n));
  if (!b.last) return;
  const size_t bi = f.kinds.size();
  f.kinds.push_back(b.kind);
  if (bi < f.model.size() && b.kind != static_cast<uint8_t>(f.model[bi].kind) && kinds_ok_) {
    kinds_ok_ = false;
    fail("zstd_encoder: frame " + std::to_string(fi) + " block " + std::to_string(bi) + ": kind " +
         zstd_hw_kind_name(static_cast<ZstdHwKind>(b.kind)) + ", model " + zstd_hw_kind_name(f.model[bi].kind));
  }
  const auto span = spans_->span(jobs_done_);
  if (bi == 0) f.in_first = span.first;
  f.in_last = span.second;
  f.out_last = dut_.cycle();
  if (lastblk) f.done = true;
  jobs_.pop_front();
  ++jobs_done_;
}

template <class Model>
bool ZstdEncEnv<Model>::run(uint64_t max_cycles) {
  const bool ok = dut_.run_until([this] { return jobs_done_ == jobs_pushed_; }, max_cycles);
  if (!ok) fail("zstd_encoder: " + std::to_string(jobs_pushed_ - jobs_done_) + " of " + std::to_string(jobs_pushed_) +
                " blocks did not come out within " + std::to_string(max_cycles) + " cycles");
  return ok;
}

template <class Model>
bool ZstdEncEnv<Model>::finish() {
  const bool sb = sb_.finish();
  return sb && kinds_ok_ && mon_in_->violations() == 0 && mon_out_->violations() == 0;
}

template class ZstdEncEnv<Vzstd_encoder>;
template class ZstdEncEnv<Vzstd_encoder_h8>;

}  // namespace ndp::tb
