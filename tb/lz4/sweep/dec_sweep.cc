// Decoder sweep driver: LZ4_compress_default of every real plane block (planes.h) that LZ4 would
// store (it saves a 64-byte burst), streamed back to back through a Verilated lz4_decoder built
// with the parameters given to sweep.sh; every block is checked against its source, and the rate
// (block k's cycles: from block k-1's final row to block k's) is printed per plane class.
#include <lz4.h>

#include <cstdio>
#include <map>

#include "Vlz4_decoder.h"
#include "planes.h"
#include "verilated.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DATA_DIR OUT_BYTES\n", argv[0]);
    return 2;
  }
  const unsigned ob = static_cast<unsigned>(std::atoi(argv[2]));
  std::vector<SweepPlane> all, planes;
  std::vector<std::vector<uint8_t>> comp;
  if (!sweep_planes(argv[1], &all)) {
    std::fprintf(stderr, "real data not found under %s\n", argv[1]);
    return 2;
  }
  for (auto& p : all) {
    std::vector<uint8_t> c(static_cast<size_t>(LZ4_compressBound(static_cast<int>(p.bytes.size()))));
    const int n = LZ4_compress_default(reinterpret_cast<const char*>(p.bytes.data()), reinterpret_cast<char*>(c.data()),
                                       static_cast<int>(p.bytes.size()), static_cast<int>(c.size()));
    if ((static_cast<size_t>(n) + 63) / 64 >= (p.bytes.size() + 63) / 64) continue;
    c.resize(static_cast<size_t>(n));
    comp.push_back(std::move(c));
    planes.push_back(std::move(p));
  }
  VerilatedContext ctx;
  Vlz4_decoder d(&ctx);
  sweep_reset(d);
  size_t bi = 0, pos = 0, bo = 0;
  uint64_t cyc = 0, prev = 0;
  std::vector<uint8_t> out;
  std::map<int, std::vector<double>> rate;
  std::map<int, double> bytes, cycles;
  while (bo < planes.size()) {
    const bool sent = bi >= planes.size();
    unsigned cnt = 0;
    if (!sent) {
      cnt = static_cast<unsigned>(std::min<size_t>(32, comp[bi].size() - pos));
      uint8_t* in = reinterpret_cast<uint8_t*>(&d.in_data_i);
      for (unsigned i = 0; i < 32; ++i) in[i] = i < cnt ? comp[bi][pos + i] : 0;
      d.in_cnt_i = cnt;
      d.in_last_i = pos + cnt == comp[bi].size();
      d.in_raw_size_i = static_cast<uint32_t>(planes[bi].bytes.size());
    }
    d.in_valid_i = !sent;
    d.out_ready_i = 1;
    d.clk_i = 0;
    d.eval();
    const bool ihs = d.in_valid_i && d.in_ready_o, ohs = d.out_valid_o, ol = d.out_last_o, err = d.out_err_o;
    const unsigned oc = d.out_cnt_o;
    const uint8_t* od = reinterpret_cast<const uint8_t*>(&d.out_data_o);
    if (ohs) out.insert(out.end(), od, od + std::min(oc, ob));
    d.clk_i = 1;
    d.eval();
    ++cyc;
    if (ihs) {
      pos += cnt;
      if (pos == comp[bi].size()) {
        ++bi;
        pos = 0;
      }
    }
    if (ohs && ol) {
      if (err || out != planes[bo].bytes) {
        std::printf("MISMATCH block %zu\n", bo);
        return 1;
      }
      const int c = sweep_class(planes[bo].plane);
      const double n = static_cast<double>(out.size()), k = static_cast<double>(cyc - prev);
      rate[c].push_back(n / k);
      rate[3].push_back(n / k);
      bytes[c] += n;
      cycles[c] += k;
      bytes[3] += n;
      cycles[3] += k;
      prev = cyc;
      out.clear();
      ++bo;
    }
  }
  std::printf("lz4_decoder out=%u (liblz4 %d default level): %zu LZ4-stored blocks\n", ob, LZ4_versionNumber(), planes.size());
  const char* nm[4] = {"EXPBYTE", "exponent bit-planes", "other planes", "all"};
  for (int k : {0, 1, 2, 3})
    if (!rate[k].empty())
      std::printf("  %-20s %4zu blocks, aggregate %.2f B/cycle, per block p5 %.2f p50 %.2f p95 %.2f\n", nm[k],
                  rate[k].size(), bytes[k] / cycles[k], sweep_pct(rate[k], 5), sweep_pct(rate[k], 50), sweep_pct(rate[k], 95));
  return 0;
}
