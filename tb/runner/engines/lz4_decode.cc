// Engine `lz4-decode`: a raw LZ4 block file (lz4_Block_format.md, no frame) -> its decoded bytes,
// through the lz4_decoder model (32 bytes per cycle in and out, 4 match slots). The decoded size
// is --raw-size N, or what liblz4 finds when the option is absent. The output is checked against
// liblz4 (LZ4_decompress_safe) and against the decoder's documented rules; a block the rules reject
// writes nothing and reports the error name.
#include <string>
#include <vector>

#include "Vlz4_decoder.h"
#include "engine.h"
#include "../../lz4/lz4_env.h"
#include "tb_report.h"

namespace {

int run_lz4_decode(const ndp::rtl::EngineArgs& a, ndp::rtl::EngineResult& r) {
  using namespace ndp;
  std::vector<uint8_t> comp;
  if (!rtl::read_file(a.in_path, &comp, &r.message)) return 2;
  bool ok = true;
  int64_t raw = a.get_int("--raw-size", 0, &ok);
  if (!ok) return 2;
  std::vector<uint8_t> lib(65536);
  const int lr = tb::liblz4_decompress(comp.data(), comp.size(), lib.data(), static_cast<size_t>(raw > 0 ? raw : 65536));
  if (raw <= 0) {
    if (lr <= 0) {
      r.message = a.in_path + ": liblz4 cannot decode it into 64 KiB; give --raw-size";
      return 2;
    }
    raw = lr;
  }
  if (raw > 65536) {
    r.message = "--raw-size " + std::to_string(raw) + " above 65536 (the largest LZ4 plane block)";
    return 2;
  }
  std::vector<uint8_t> ref;
  const uint8_t ref_code = tb::lz4_ref_decode(comp.data(), comp.size(), static_cast<uint32_t>(raw), 65536, &ref);
  tb::Lz4DecEnv<Vlz4_decoder> env(a.seed, a.fst, a.gaps, a.backpressure);
  env.push_block(comp.data(), comp.size(), static_cast<uint32_t>(raw));
  const uint64_t before = tb::failure_count();
  const bool ran = env.run(4 * comp.size() + 4 * static_cast<uint64_t>(raw) + 100000);
  if (!ran || env.results().empty()) {
    r.message = "simulation did not complete";
    return 1;
  }
  const tb::Lz4DecResult& g = env.results()[0];
  const uint8_t code = g.err ? g.code : 0;
  bool match = code == ref_code && tb::failure_count() == before;
  if (code == 0) {
    match = match && g.bytes == ref && lr == raw && std::equal(ref.begin(), ref.end(), lib.begin());
    if (!rtl::write_file(a.out_path, g.bytes, &r.message)) return 1;
  }
  r.cycles = g.out_last - g.in_first + 1;
  r.in_bytes = comp.size();
  r.out_bytes = g.bytes.size();
  r.bytes_per_cycle = static_cast<double>(g.bytes.size()) / static_cast<double>(r.cycles);
  r.status = match ? (code == 0 ? "ok" : "error") : "mismatch";
  if (code != 0) r.message = std::string("malformed LZ4 block: ") + tb::lz4_err_name(code);
  r.add("decoder_status", std::string(tb::lz4_err_name(code)));
  r.add("reference_status", std::string(tb::lz4_err_name(ref_code)));
  r.add("liblz4_accepts", static_cast<uint64_t>(lr == raw));
  r.add("liblz4_version", static_cast<uint64_t>(tb::liblz4_version()));
  r.add("out_bytes_per_cycle", r.bytes_per_cycle);
  return 0;
}

}  // namespace

NDP_RTL_ENGINE("lz4-decode", "IN OUT [--raw-size N]", run_lz4_decode);
