// Encoder sweep driver: streams every non-constant real plane block (planes.h) back to back through
// a Verilated lz4_encoder built with the parameters given to sweep.sh, checks each block against the
// golden model (ndp::lz4_hw_compress with the same parameters) and liblz4's decoder, and prints the
// sustained input rate, per-block rates and the ratio against LZ4_compress_default per plane class.
#include <lz4.h>

#include <cstdio>
#include <map>

#include "Vlz4_encoder.h"
#include "ndp/lz4_hw_model.h"
#include "planes.h"
#include "verilated.h"

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s DATA_DIR P HASH_BANKS MATCH_BYTES OUT_BYTES [LAZY BACKEXT]\n", argv[0]);
    return 2;
  }
  ndp::Lz4HwParams hp;
  hp.bytes_per_cycle = std::atoi(argv[2]);
  hp.hash_banks = std::atoi(argv[3]);
  hp.match_bytes = std::atoi(argv[4]);
  const unsigned ob = static_cast<unsigned>(std::atoi(argv[5]));
  if (argc >= 8) {
    hp.lazy = std::atoi(argv[6]) != 0;
    hp.back_ext = std::atoi(argv[7]) != 0;
  }
  const unsigned P = static_cast<unsigned>(hp.bytes_per_cycle);
  std::vector<SweepPlane> planes;
  if (!sweep_planes(argv[1], &planes)) {
    std::fprintf(stderr, "real data not found under %s\n", argv[1]);
    return 2;
  }
  VerilatedContext ctx;
  Vlz4_encoder d(&ctx);
  sweep_reset(d);
  size_t bi = 0, pos = 0, bo = 0;
  uint64_t cyc = 0;
  std::vector<uint64_t> start(planes.size() + 1, 0);
  std::vector<uint8_t> out;
  std::map<int, double> hw, lz, raw;
  std::map<int, std::vector<double>> rate;
  while (bo < planes.size()) {
    const bool sent = bi >= planes.size();
    unsigned cnt = 0;
    if (!sent) {
      const auto& b = planes[bi].bytes;
      cnt = static_cast<unsigned>(std::min<size_t>(P, b.size() - pos));
      uint8_t* in = reinterpret_cast<uint8_t*>(&d.in_data_i);
      for (unsigned i = 0; i < P; ++i) in[i] = i < cnt ? b[pos + i] : 0;
      d.in_cnt_i = cnt;
      d.in_last_i = pos + cnt == b.size();
      d.in_size_i = static_cast<uint32_t>(b.size());
    }
    d.in_valid_i = !sent;
    d.out_ready_i = 1;
    d.clk_i = 0;
    d.eval();
    const bool ihs = d.in_valid_i && d.in_ready_o, ohs = d.out_valid_o, ol = d.out_last_o;
    const unsigned oc = d.out_cnt_o;
    const uint8_t* od = reinterpret_cast<const uint8_t*>(&d.out_data_o);
    if (ohs) out.insert(out.end(), od, od + std::min(oc, ob));
    d.clk_i = 1;
    d.eval();
    ++cyc;
    if (ihs) {
      if (pos == 0) start[bi] = cyc;
      pos += cnt;
      if (pos == planes[bi].bytes.size()) {
        ++bi;
        pos = 0;
      }
    }
    if (ohs && ol) {
      const auto& b = planes[bo].bytes;
      std::vector<uint8_t> ref, dec(b.size());
      (void)ndp::lz4_hw_compress(b.data(), b.size(), ref, hp);
      const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(out.data()), reinterpret_cast<char*>(dec.data()),
                                        static_cast<int>(out.size()), static_cast<int>(b.size()));
      if (out != ref || r != static_cast<int>(b.size()) || dec != b) {
        std::printf("MISMATCH block %zu\n", bo);
        return 1;
      }
      std::vector<char> l(static_cast<size_t>(LZ4_compressBound(static_cast<int>(b.size()))));
      const int c = sweep_class(planes[bo].plane);
      hw[c] += static_cast<double>(out.size());
      lz[c] += LZ4_compress_default(reinterpret_cast<const char*>(b.data()), l.data(), static_cast<int>(b.size()),
                                    static_cast<int>(l.size()));
      raw[c] += static_cast<double>(b.size());
      out.clear();
      ++bo;
    }
  }
  start[planes.size()] = cyc;
  double total = 0;
  for (size_t i = 0; i < planes.size(); ++i) {
    total += static_cast<double>(planes[i].bytes.size());
    rate[sweep_class(planes[i].plane)].push_back(static_cast<double>(planes[i].bytes.size()) / static_cast<double>(start[i + 1] - start[i]));
  }
  std::printf("lz4_encoder P=%u banks=%d D=%d out=%u lazy=%d backext=%d (liblz4 %d): %zu blocks, sustained %.3f input B/cycle\n",
              P, hp.hash_banks, hp.match_bytes, ob, hp.lazy, hp.back_ext, LZ4_versionNumber(), planes.size(),
              total / static_cast<double>(cyc));
  const char* nm[3] = {"EXPBYTE", "exponent bit-planes", "sign/mantissa planes"};
  for (int k = 0; k < 3; ++k)
    std::printf("  %-20s %4zu blocks, B/cycle p5 %.2f p50 %.2f p95 %.2f | ratio %.4f, liblz4 %.4f (%.2f%%)\n", nm[k],
                rate[k].size(), sweep_pct(rate[k], 5), sweep_pct(rate[k], 50), sweep_pct(rate[k], 95), raw[k] / hw[k],
                raw[k] / lz[k], 100.0 * lz[k] / hw[k]);
  return 0;
}
