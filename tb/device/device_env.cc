#include "device_env.h"

#include "ndp_device_models.h"  // generated: the Vndp_device_l<N> models and NDP_DEVICE_MODELS

#include <cstdlib>

#include "device_bfm.h"

namespace ndp::tb {

namespace {
constexpr unsigned kBeat = dev_bfm::kBeat;
}

DeviceEnv::DeviceEnv(uint64_t seed, const DevKnobs& k, unsigned lanes) : dram_(size_t{1} << kDramAw, 0) {
#define NDP_DEVICE_MODEL_CASE(N) \
  if (lanes == N) impl_ = std::make_unique<BfmT<Vndp_device_l##N>>(*this, seed, k);
  NDP_DEVICE_MODELS(NDP_DEVICE_MODEL_CASE)
#undef NDP_DEVICE_MODEL_CASE
  if (!impl_) {  // a build without that model (NDP_DEVICE_LANES, or NDP_TB_ONLY without device)
    fail("no ndp_device model with " + std::to_string(lanes) + " lanes in this build (NDP_DEVICE_LANES)");
    std::abort();
  }
  reset();
}

DeviceEnv::DeviceEnv(uint64_t seed, const DevKnobs& k, const MakeImpl& make)
    : dram_(size_t{1} << kDramAw, 0) {
  impl_ = make(*this, seed, k);
  reset();
}

bool DeviceEnv::has_lanes(unsigned lanes) {
#define NDP_DEVICE_MODEL_CASE(N) if (lanes == N) return true;
  NDP_DEVICE_MODELS(NDP_DEVICE_MODEL_CASE)
#undef NDP_DEVICE_MODEL_CASE
  return false;
}
DeviceEnv::~DeviceEnv() = default;

void DeviceEnv::reset() { impl_->reset_dut(); }
uint64_t DeviceEnv::cycle() const { return impl_->cycle(); }

size_t DeviceEnv::submit_read(uint64_t addr, unsigned beats, uint32_t id, unsigned size, unsigned burst) {
  reads_.push_back({});
  reads_.back().data.assign(size_t(beats) * kBeat, 0);
  impl_->ar_q.push_back({reads_.size() - 1, addr, beats, size, burst, id});
  return reads_.size() - 1;
}

size_t DeviceEnv::submit_write(uint64_t addr, const std::vector<uint8_t>& data, uint32_t id,
                               const std::vector<uint64_t>& strobes, unsigned burst) {
  WriteJob w;
  w.addr = addr;
  w.beats = static_cast<unsigned>((data.size() + kBeat - 1) / kBeat);
  w.id = id;
  w.burst = burst;
  w.data = data;
  w.data.resize(size_t(w.beats) * kBeat, 0);
  w.strobes = strobes;
  writes_.push_back(std::move(w));
  impl_->aw_q.push_back(writes_.size() - 1);
  return writes_.size() - 1;
}

bool DeviceEnv::drain(uint64_t max_cycles) {
  auto all_done = [&] {
    for (const auto& r : reads_)
      if (!r.done) return false;
    for (const auto& w : writes_)
      if (!w.done) return false;
    return true;
  };
  return impl_->run_until(all_done, max_cycles);
}

void DeviceEnv::idle(uint64_t cycles) {
  const uint64_t end = cycle() + cycles;
  impl_->run_until([&] { return cycle() >= end; }, cycles + 1);
}

namespace {
// Bursts of at most 4 KiB that do not cross a 4 KiB boundary.
template <class F>
void for_each_burst(uint64_t addr, size_t bytes, F f) {
  for (uint64_t at = addr, end = addr + bytes; at < end;) {
    uint64_t n = std::min<uint64_t>(end - at, 4096 - at % 4096);
    f(at, static_cast<size_t>(at - addr), static_cast<unsigned>(n / kBeat));
    at += n;
  }
}
}  // namespace

Status DeviceEnv::write(uint64_t addr, const uint8_t* data, size_t bytes, const uint64_t* strobes) {
  if (addr % kBeat || bytes == 0 || bytes % kBeat) return Status::Error("rtl write: unaligned");
  std::vector<std::pair<size_t, uint64_t>> t;
  for_each_burst(addr, bytes, [&](uint64_t at, size_t off, unsigned beats) {
    std::vector<uint64_t> st;
    if (strobes) st.assign(strobes + off / kBeat, strobes + off / kBeat + beats);
    t.push_back({submit_write(at, std::vector<uint8_t>(data + off, data + off + size_t{beats} * kBeat), 1, st), at});
  });
  if (!drain(watchdog)) return Status::Error("rtl write: no response (watchdog)");
  for (auto& [k, at] : t)
    if (writes_[k].resp != 0)
      return Status::Error("rtl write burst at " + std::to_string(at) + ": BRESP " + std::to_string(writes_[k].resp));
  return Status::Ok();
}

Status DeviceEnv::read(uint64_t addr, size_t bytes, uint8_t* out, std::vector<ndp::dev::Resp>* beat_resp) {
  if (addr % kBeat || bytes == 0 || bytes % kBeat) return Status::Error("rtl read: unaligned");
  std::vector<std::pair<size_t, size_t>> t;
  for_each_burst(addr, bytes, [&](uint64_t at, size_t off, unsigned beats) {
    t.push_back({submit_read(at, beats, 2), off});
  });
  if (!drain(watchdog)) return Status::Error("rtl read: no response (watchdog)");
  if (beat_resp) beat_resp->clear();
  for (auto& [k, off] : t) {
    const ReadResult& r = reads_[k];
    std::memcpy(out + off, r.data.data(), r.data.size());
    for (size_t i = 0; i < r.resp.size(); ++i) {
      if (beat_resp) beat_resp->push_back(static_cast<ndp::dev::Resp>(r.resp[i]));
      else if (r.resp[i] != 0)
        return Status::Error("rtl read at " + std::to_string(addr + off + 64 * i) + ": RRESP " + std::to_string(r.resp[i]));
    }
  }
  return Status::Ok();
}

Ddr5Stats DeviceEnv::dram_stats() const { return impl_->ddr ? impl_->ddr->stats() : Ddr5Stats{}; }

}  // namespace ndp::tb
