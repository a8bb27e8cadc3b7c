// The RTL and the golden models side by side, shared by the device benches (tb/device, tb/fpga):
// Mirror sends every burst to a DeviceEnv (the RTL) and to DeviceModel (sw/device, the
// transaction-level golden model) and compares the answers beat by beat; load/load_stories put a
// packed image into both with the driver's load_image; read_region reads a whole region and
// compares it with ImageReader::read_region (what `ndp read` prints).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device_env.h"
#include "ndp/device_model.h"
#include "ndp/image.h"
#include "ndp/precision.h"
#include "tb_data.h"

namespace ndp::tb {

using dev::Resp;
inline constexpr uint64_t kImageBase = 0x10040;  // 64-byte aligned, not page aligned

inline dev::DeviceConfig model_config(unsigned lanes = 4) {
  dev::DeviceConfig c;  // the bench RTL's parameters
  c.dram_bytes = uint64_t{1} << DeviceEnv::kDramAw;
  c.lanes = lanes;
  c.max_tensors = 64;
  c.max_chunk_elems = 32768;
  c.chunk_align_log2 = 11;
  c.dtype_mask = 1u << static_cast<int>(DType::kBF16);
  const DeviceEnv::Params p = DeviceEnv::params(lanes);
  c.chunk_buffers = p.bufs;
  c.staging_sets = p.sets;
  c.max_prefetch = p.max_prefetch;
  c.kv_pages = 0;  // the RTL has no KV write path yet (spec 7.7): KV_CAPS 0, window 0x40 DECERR
  return c;
}

// One register through a host port (the RTL's or the model's); all ones when the read fails.
inline uint64_t reg(dev::HostPort& port, uint64_t off) {
  auto v = dev::csr_read(port, off);
  EXPECT_TRUE(v.ok()) << "register 0x" << std::hex << off << ": " << v.status().message();
  return v.ok() ? v.value() : ~uint64_t{0};
}

// The RTL and the model side by side: every burst goes to both, answers are compared per beat.
class Mirror {
 public:
  Mirror(uint64_t seed, const DevKnobs& k) : Mirror(std::make_unique<DeviceEnv>(seed, k), 4) {}
  // Another top with ndp_device's ports (tb/fpga) at `lanes` lanes.
  Mirror(std::unique_ptr<DeviceEnv> e, unsigned lanes) : owned_(std::move(e)), env(*owned_) {
    auto m = dev::DeviceModel::create(model_config(lanes));
    EXPECT_TRUE(m.ok()) << m.status().message();
    model = std::move(m.value());
  }
  // Queue a read burst on the RTL and answer it on the model now (the model answers in request
  // order; the RTL answers one ID's bursts in order, different IDs in any order: check() compares
  // each burst with its own answer).
  // Returns the RTL's ticket (DeviceEnv::read_result).
  size_t read(uint64_t addr, unsigned beats, uint32_t id, unsigned size = 6, unsigned burst = 1) {
    Pending p{env.submit_read(addr, beats, id, size, burst), addr, {}, {}};
    p.data.assign(size_t{beats} * 64, 0);
    p.resp.assign(beats, Resp::kOkay);
    model->read_burst(addr, beats, p.data.data(), p.resp.data(), static_cast<dev::BurstType>(burst), size);
    const size_t ticket = p.ticket;
    pending_.push_back(std::move(p));
    return ticket;
  }
  void write(uint64_t addr, const std::vector<uint8_t>& data, unsigned burst = 1) {
    unsigned beats = static_cast<unsigned>(data.size() / 64);
    size_t t = env.submit_write(addr, data, 3, {}, burst);
    Resp m = model->write_burst(addr, beats, data.data(), nullptr, static_cast<dev::BurstType>(burst));
    EXPECT_TRUE(env.drain(env.watchdog));
    EXPECT_EQ(env.write_resp(t), static_cast<uint8_t>(m)) << "BRESP of the write at 0x" << std::hex << addr;
  }
  // Drain the RTL and compare every pending burst; returns beats compared.
  uint64_t check() {
    if (!env.drain(env.watchdog)) return 0;
    uint64_t beats = 0;
    last_.clear();
    for (const Pending& p : pending_) {
      const ReadResult& r = env.read_result(p.ticket);
      last_.push_back(r.resp);
      for (size_t i = 0; i < p.resp.size(); ++i, ++beats) {
        uint64_t a = (p.addr & ~uint64_t{63}) + 64 * i;
        if (r.resp[i] != static_cast<uint8_t>(p.resp[i])) {
          ADD_FAILURE() << "beat at 0x" << std::hex << a << ": RRESP " << int(r.resp[i]) << ", model "
                        << int(p.resp[i]) << "; RTL ERR_CODE 0x" << reg(env, dev::kCsrErrCode);
          pending_.clear();
          return beats;
        }
        for (int j = 0; j < 64; ++j)
          if (r.data[64 * i + j] != p.data[64 * i + j]) {
            ADD_FAILURE() << "beat at 0x" << std::hex << a << " byte " << std::dec << j << ": RTL 0x" << std::hex
                          << int(r.data[64 * i + j]) << ", model 0x" << int(p.data[64 * i + j]);
            pending_.clear();
            return beats;
          }
      }
    }
    pending_.clear();
    return beats;
  }
  // Wait (bounded) until the RTL has no chunk decode in flight (STATUS bit 2: prefetches outlive the
  // bursts that started them), so its counters have settled.
  void settle() {
    int polls = 1;
    for (; polls < 1000 && (reg(env, dev::kCsrStatus) & dev::kStatusDecoding); ++polls) env.idle(200);
    EXPECT_LT(polls, 1000) << "decodes still in flight";
    for (int i = 0; i < polls; ++i) reg(*model, dev::kCsrStatus);  // the same register reads on the model
  }
  // The error log, STATUS and every counter but CNT_CYCLES agree (read through both host ports).
  // With TRACK > 0 (spec 7.6 "Read tracker") the RTL serves bursts in the order their chunks
  // arrive, so what depends on that order is left out: the error log beyond STATUS, and the chunk,
  // hit, block and DRAM-read counters; what every beat's answer fixes is still compared.
  void check_registers() {
    settle();
    auto rd = [&](uint64_t off, uint64_t* rtl, uint64_t* mdl) {
      *rtl = reg(env, off);
      *mdl = reg(*model, off);
    };
    uint64_t r, m;
    rd(dev::kCsrTrack, &r, &m);
    EXPECT_EQ(r, m) << "TRACK";
    if (r != 0) return check_order_free_registers();
    rd(dev::kCsrErrCode, &r, &m);
    EXPECT_TRUE(dev::err_code_matches(r & 0xFF, m & 0xFF)) << "ERR_CODE RTL 0x" << std::hex << r << " model 0x" << m;
    EXPECT_EQ(r >> 8, m >> 8) << "ERR_CODE plane/slot/tensor";
    for (uint64_t off : {dev::kCsrErrChunk, dev::kCsrErrAddr, dev::kCsrErrCount, dev::kCsrCaps, dev::kCsrCaps2,
                         dev::kCsrPrefetch, dev::kCsrTensorCount}) {
      rd(off, &r, &m);
      EXPECT_EQ(r, m) << "register 0x" << std::hex << off;
    }
    rd(dev::kCsrStatus, &r, &m);
    EXPECT_EQ(r & ~dev::kStatusBusy, m & ~dev::kStatusBusy) << "STATUS";
    for (uint64_t off = dev::kCsrCntHostRdBeats; off <= dev::kCsrCntBlocks; off += 8) {
      rd(off, &r, &m);
      EXPECT_EQ(r, m) << "counter 0x" << std::hex << off;
    }
  }
  void check_order_free_registers() {
    for (uint64_t off : {dev::kCsrCaps, dev::kCsrCaps2, dev::kCsrPrefetch, dev::kCsrTensorCount, dev::kCsrStatus,
                         dev::kCsrCntHostRdBeats, dev::kCsrCntHostWrBeats, dev::kCsrCntDecErr, dev::kCsrCntSlvErr,
                         dev::kCsrCntDramWrBytes}) {
      const uint64_t r = reg(env, off), m = reg(*model, off);
      const uint64_t mask = off == dev::kCsrStatus ? ~dev::kStatusBusy : ~uint64_t{0};
      EXPECT_EQ(r & mask, m & mask) << "register 0x" << std::hex << off;
    }
  }
  // A register write through both ports.
  void csr_write(uint64_t off, uint64_t value) {
    EXPECT_TRUE(dev::csr_write(env, off, value).ok()) << "RTL register 0x" << std::hex << off;
    EXPECT_TRUE(dev::csr_write(*model, off, value).ok()) << "model register 0x" << std::hex << off;
  }
  // Store-window write of the same bytes into both DRAMs.
  void poke(uint64_t dram_addr, const std::vector<uint8_t>& bytes) {
    EXPECT_TRUE(dev::store_write(env, dram_addr, bytes.data(), bytes.size()).ok());
    EXPECT_TRUE(dev::store_write(*model, dram_addr, bytes.data(), bytes.size()).ok());
  }

  // A register read through both ports (keeps the read counters in step); returns the RTL's value.
  uint64_t csr(uint64_t off) {
    uint64_t m = reg(*model, off);
    uint64_t r = reg(env, off);
    if (off != dev::kCsrCntCycles && off != dev::kCsrErrCode) {
      EXPECT_EQ(r, m) << "register 0x" << std::hex << off;
    }
    return r;
  }
  // RRESP of every beat of the bursts the last check() compared, in submission order.
  const std::vector<std::vector<uint8_t>>& last_resps() const { return last_; }


 private:
  std::unique_ptr<DeviceEnv> owned_;

 public:
  DeviceEnv& env;
  std::unique_ptr<dev::DeviceModel> model;

 private:
  std::vector<std::vector<uint8_t>> last_;
  struct Pending {
    size_t ticket;
    uint64_t addr;
    std::vector<uint8_t> data;
    std::vector<Resp> resp;
  };
  std::vector<Pending> pending_;
};

struct Loaded {
  std::vector<uint8_t> image;
  std::unique_ptr<ImageReader> reader;
  dev::MapPlan plan;
};

// Load a packed image into both devices with the driver's load_image (RTL: plan into L->plan).
inline bool load(Mirror& mr, std::vector<uint8_t> image, Loaded* L) {
  L->image = std::move(image);
  L->reader = std::move(ImageReader::open_bytes(L->image).value());
  Status a = dev::load_image(mr.env, L->image, kImageBase, &L->plan);
  Status b = dev::load_image(*mr.model, L->image, kImageBase, nullptr);
  EXPECT_TRUE(a.ok()) << a.message();
  EXPECT_TRUE(b.ok()) << b.message();
  return a.ok() && b.ok();
}

// Pack up to n stories260K tensors (BF16) at chunk_elems and load the image into both devices.
inline bool load_stories(Mirror& mr, uint32_t chunk, size_t n, Loaded* L) {
  std::vector<Bf16Tensor> ts;
  std::string why;
  if (!load_stories260k_bf16(&ts, &why)) return false;
  ImageWriter w;
  for (size_t i = 0; i < ts.size() && i < n; ++i) {
    TensorOptions o;
    o.chunk_elems = chunk;
    o.layout = i % 3 == 2 ? Layout::kBitplane : Layout::kExpByte;  // both layouts
    EXPECT_TRUE(w.add_tensor(ts[i].name, DType::kBF16, {ts[i].elements()}, ts[i].bytes.data(), ts[i].bytes.size(), o).ok());
  }
  return load(mr, w.finish().value(), L);
}

inline uint64_t region_addr(const Region& r, uint64_t base, uint64_t off) {
  return dev::window_address(dev::region_window(dev::format_number(r, DType::kBF16).value(), r.guard), base + off);
}

// Read tensor t of region r whole through bursts of up to 4 KiB with IDs 0..ids-1, against the
// model and the golden reader.
inline uint64_t read_region(Mirror& mr, Loaded& L, size_t t, const Region& r, unsigned ids) {
  std::vector<uint8_t> gold;
  EXPECT_TRUE(L.reader->read_region(L.plan.image_tensor[t], r, gold).ok());
  const uint64_t base = L.plan.desc[t].base, len = (gold.size() + 63) / 64 * 64;
  unsigned id = 0;
  std::vector<std::pair<size_t, uint64_t>> mine;
  for (uint64_t a = 0; a < len;) {
    uint64_t n = std::min<uint64_t>(len - a, 4096 - a % 4096);
    mine.push_back({mr.env.submit_read(region_addr(r, base, a), static_cast<unsigned>(n / 64), id++ % ids), a});
    a += n;
  }
  if (!mr.env.drain(mr.env.watchdog)) return 0;
  gold.resize(len, 0);
  for (auto& [tk, a] : mine) {
    const ReadResult& rr = mr.env.read_result(tk);
    for (size_t i = 0; i < rr.resp.size(); ++i) EXPECT_EQ(rr.resp[i], 0) << "offset " << a + 64 * i;
    if (std::memcmp(rr.data.data(), gold.data() + a, rr.data.size()) != 0) {
      ADD_FAILURE() << L.reader->tensors()[L.plan.image_tensor[t]].name << " " << region_name(r, DType::kBF16)
                    << " g" << r.guard << ": region bytes differ from ndp read in [" << a << ", "
                    << a + rr.data.size() << ")";
      return 0;
    }
  }
  // the same reads on the model keep its counters and chunk buffers in step with the RTL
  std::vector<uint8_t> md(len);
  std::vector<Resp> mresp;
  EXPECT_TRUE(mr.model->read(region_addr(r, base, 0), len, md.data(), &mresp).ok());
  EXPECT_EQ(0, std::memcmp(md.data(), gold.data(), len)) << "model differs from ndp read";
  return len / 64;
}

}  // namespace ndp::tb
