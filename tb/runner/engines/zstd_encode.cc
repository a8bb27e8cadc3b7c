// Engine `zstd-encode`: a file -> one Zstandard frame through the zstd_encoder model (rtl/zstd).
// The file is cut into blocks of --block bytes (default 65536, the lane's largest block); every
// block is one job of the engine, the first carries the frame header. --huffman selects the
// literals-only Huffman mode of EXPBYTE planes (docs/spec.md 4.3). The frame is checked against the
// golden model (zstd_hw_frame, byte for byte) and decoded with libzstd: status "ok" when both hold.
// Reported alongside: block kinds, the ratio, and libzstd's ratio at levels 1 and 3 on the same file
// cut into the same blocks (each block its own frame, as the lane stores planes).
#include <zstd.h>

#include "../../zstd/zenc_env.h"
#include "../../zstd/zstd_env.h"
#include "engine.h"
#include "tb_report.h"

namespace {

using namespace ndp;

uint64_t libzstd_blocks(const std::vector<uint8_t>& in, size_t block, int level) {
  uint64_t total = 0;
  std::vector<uint8_t> buf(ZSTD_compressBound(block));
  for (size_t pos = 0; pos < in.size(); pos += block) {
    const size_t n = std::min(block, in.size() - pos);
    const size_t r = ZSTD_compress(buf.data(), buf.size(), in.data() + pos, n, level);
    total += ZSTD_isError(r) ? n : r;
  }
  return total;
}

int run_zstd_encode(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  std::vector<uint8_t> in;
  if (!rtl::read_file(a.in_path, &in, &r.message)) return 2;
  bool ok = true;
  const int64_t block = a.get_int("--block", 65536, &ok);
  if (!ok) return 2;
  if (block < 1 || block > 65536) {
    r.message = "--block must be 1..65536";
    return 2;
  }
  if (in.empty() || in.size() > 0xFFFFFFFFull) {
    r.message = a.in_path + ": " + std::to_string(in.size()) + " bytes; a frame holds 1..2^32-1";
    return 2;
  }
  const bool huf = a.has("--huffman");
  tb::ZstdEncEnv env(a.seed, a.fst, a.gaps, a.backpressure);
  const uint64_t before = tb::failure_count();
  if (!env.push_frame(in, huf, static_cast<size_t>(block), a.in_path)) {
    r.message = "the golden model rejected the input";
    return 1;
  }
  if (!env.run(64 * in.size() + 200000)) {
    r.message = "simulation did not complete";
    return 1;
  }
  const tb::ZeFrame& f = env.frames().front();
  std::vector<uint8_t> dec;
  std::string err;
  const bool lib_ok = tb::libzstd_decompress(f.bytes, in.size(), &dec, &err) && dec == in;
  const bool match = env.finish() && tb::failure_count() == before;
  if (!rtl::write_file(a.out_path, f.bytes, &r.message)) return 1;
  r.cycles = f.out_last - f.in_first + 1;
  r.in_bytes = in.size();
  r.out_bytes = f.bytes.size();
  r.bytes_per_cycle = static_cast<double>(in.size()) / static_cast<double>(r.cycles);
  r.status = match && lib_ok ? "ok" : "mismatch";
  if (!lib_ok) r.message = "libzstd does not decode the frame to the input" + (err.empty() ? "" : ": " + err);
  uint64_t kinds[4] = {0, 0, 0, 0};
  for (uint8_t k : f.kinds) ++kinds[k & 3];
  r.add("blocks", static_cast<uint64_t>(f.kinds.size()));
  r.add("raw_blocks", kinds[0]);
  r.add("rle_blocks", kinds[1]);
  r.add("sequence_blocks", kinds[2]);
  r.add("huffman_blocks", kinds[3]);
  r.add("ratio", static_cast<double>(in.size()) / static_cast<double>(f.bytes.size()));
  r.add("libzstd_l1_ratio", static_cast<double>(in.size()) /
                                static_cast<double>(libzstd_blocks(in, static_cast<size_t>(block), 1)));
  r.add("libzstd_l3_ratio", static_cast<double>(in.size()) /
                                static_cast<double>(libzstd_blocks(in, static_cast<size_t>(block), 3)));
  r.add("mode", std::string(huf ? "huffman" : "sequences"));
  r.add("input_stalls", env.input_stalls());
  return 0;
}

}  // namespace

NDP_RTL_ENGINE("zstd-encode", "IN OUT [--huffman] [--block N]", run_zstd_encode, {"--huffman"});
