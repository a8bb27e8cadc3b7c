// Engine `lz4-encode`: a file -> LZ4 through the lz4_encoder model (16 input bytes per cycle;
// --p8 for the 8-bytes-per-cycle point). A file of at most --block bytes (default 65536) becomes
// one raw LZ4 block (lz4_Block_format.md); with --frame the file is cut into --block-byte blocks
// and written as an LZ4 frame (lz4_Frame_format.md: independent blocks, no checksums) that the
// `lz4` tool decodes. Every block is checked against the golden model (lz4_hw_compress) and
// liblz4's decoder; the ratio of LZ4_compress_default on the same blocks is reported alongside.
#include <xxhash.h>

#include <string>
#include <vector>

#include "Vlz4_encoder.h"
#include "Vlz4_encoder_p8.h"
#include "engine.h"
#include "../../lz4/lz4_env.h"
#include "tb_report.h"

namespace {

using namespace ndp;

template <class Model>
int encode(const rtl::EngineArgs& a, const Lz4HwParams& hp, unsigned out_bytes, const std::vector<uint8_t>& in,
           size_t block, bool frame, rtl::EngineResult& r) {
  tb::Lz4EncEnv<Model> env(a.seed, a.fst, a.gaps, a.backpressure, hp, out_bytes);
  std::vector<std::vector<uint8_t>> blocks;
  for (size_t pos = 0; pos < in.size(); pos += block) {
    blocks.emplace_back(in.begin() + static_cast<long>(pos),
                        in.begin() + static_cast<long>(std::min(in.size(), pos + block)));
    env.push_block(blocks.back().data(), blocks.back().size(), "block " + std::to_string(blocks.size() - 1));
  }
  const uint64_t before = tb::failure_count();
  if (!env.run(8 * in.size() + 100000)) {
    r.message = "simulation did not complete";
    return 1;
  }
  bool match = env.finish() && tb::failure_count() == before;
  const auto& res = env.results();
  std::vector<uint8_t> out;
  if (frame) {  // magic, FLG (version 01, independent blocks), BD (64 KiB max), header checksum
    out = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x40};
    out.push_back(static_cast<uint8_t>((XXH32(out.data() + 4, 2, 0) >> 8) & 0xFF));
  }
  uint64_t hw = 0, lib = 0;
  for (size_t i = 0; i < res.size(); ++i) {
    std::vector<uint8_t> d(blocks[i].size());
    const int n = tb::liblz4_decompress(res[i].bytes.data(), res[i].bytes.size(), d.data(), d.size());
    match = match && n == static_cast<int>(d.size()) && d == blocks[i];
    hw += res[i].bytes.size();
    lib += tb::liblz4_compress(blocks[i], 0).size();
    if (frame && res[i].bytes.size() >= blocks[i].size()) {
      // a block that does not shrink is stored uncompressed (size field bit 31): a frame's blocks
      // may not exceed the 64 KiB maximum block size
      const uint32_t sz = static_cast<uint32_t>(blocks[i].size()) | 0x80000000u;
      for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(sz >> (8 * k)));
      out.insert(out.end(), blocks[i].begin(), blocks[i].end());
      continue;
    }
    if (frame) {
      const uint32_t sz = static_cast<uint32_t>(res[i].bytes.size());
      for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(sz >> (8 * k)));
    }
    out.insert(out.end(), res[i].bytes.begin(), res[i].bytes.end());
  }
  if (frame) out.insert(out.end(), {0, 0, 0, 0});
  if (!rtl::write_file(a.out_path, out, &r.message)) return 1;
  r.cycles = res.empty() ? 0 : res.back().out_last - res.front().in_first + 1;
  r.in_bytes = in.size();
  r.out_bytes = out.size();
  r.bytes_per_cycle = r.cycles ? static_cast<double>(in.size()) / static_cast<double>(r.cycles) : 0;
  r.status = match ? "ok" : "mismatch";
  const uint64_t in_span = res.empty() ? 0 : res.back().in_last - res.front().in_first + 1;
  r.add("sustained_in_bytes_per_cycle", in_span ? static_cast<double>(in.size()) / static_cast<double>(in_span) : 0.0);
  r.add("blocks", static_cast<uint64_t>(res.size()));
  r.add("ratio", hw ? static_cast<double>(in.size()) / static_cast<double>(hw) : 0.0);
  r.add("liblz4_default_ratio", lib ? static_cast<double>(in.size()) / static_cast<double>(lib) : 0.0);
  r.add("bytes_per_cycle_param", static_cast<uint64_t>(hp.bytes_per_cycle));
  r.add("liblz4_version", static_cast<uint64_t>(tb::liblz4_version()));
  return 0;
}

int run_lz4_encode(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  std::vector<uint8_t> in;
  if (!rtl::read_file(a.in_path, &in, &r.message)) return 2;
  bool ok = true;
  const int64_t block = a.get_int("--block", 65536, &ok);
  if (!ok) return 2;
  if (block < 1 || block > 65536) {
    r.message = "--block must be 1..65536";
    return 2;
  }
  const bool frame = a.has("--frame");
  if (in.empty() || (!frame && in.size() > static_cast<size_t>(block))) {
    r.message = a.in_path + ": " + std::to_string(in.size()) + " bytes; a raw block holds 1.." +
                std::to_string(block) + " (use --frame for larger files)";
    return 2;
  }
  if (a.has("--p8")) {
    Lz4HwParams p;
    p.bytes_per_cycle = 8;
    p.match_bytes = 8;
    p.hash_banks = 32;
    return encode<Vlz4_encoder_p8>(a, p, 16, in, static_cast<size_t>(block), frame, r);
  }
  return encode<Vlz4_encoder>(a, Lz4HwParams{}, 32, in, static_cast<size_t>(block), frame, r);
}

}  // namespace

NDP_RTL_ENGINE("lz4-encode", "IN OUT [--block N] [--frame] [--p8]", run_lz4_encode, {"--frame", "--p8"});
