// Engine `zstd-decode`: Zstandard frames -> decoded bytes through the zstd_decoder model (rtl/zstd).
// IN is a job: one or more frames (skippable frames allowed), as a .zst file holds them. OUT
// receives the decoded bytes. Checked against libzstd's streaming decoder (as the zstd CLI; it
// checks Block_Maximum_Size, which one-shot ZSTD_decompress in 1.5.4 does not): status "ok" when
// both agree (same bytes, or both reject; ErrHistory counts as agreement), "mismatch" otherwise.
// libzstd before 1.5.6 wrongly rejects Number_of_Sequences 0 in the 2-byte form (docs/zstd.md
// "Conformance"). --cap N sets the output capacity (default: libzstd's output size, or 16 MiB when
// libzstd rejects the input).
#include "../../zstd/zstd_env.h"
#include "Vzstd_decoder.h"
#include "engine.h"

namespace {

int run_zstd_decode(const ndp::rtl::EngineArgs& a, ndp::rtl::EngineResult& r) {
  using namespace ndp;
  std::vector<uint8_t> in;
  if (!rtl::read_file(a.in_path, &in, &r.message)) return 2;
  std::vector<uint8_t> ref;
  const bool lib_ok = tb::libzstd_decompress_stream(in, size_t{1} << 30, &ref);
  bool ok = true;
  int64_t cap = a.get_int("--cap", lib_ok ? static_cast<int64_t>(ref.size()) : (16 << 20), &ok);
  if (!ok || cap < 0 || cap > 0xFFFFFFFFll) {
    r.message = "--cap must be 0..2^32-1";
    return 2;
  }
  tb::ZstdDecEnv<Vzstd_decoder> env(a.seed, a.fst, a.gaps, a.backpressure);
  const uint64_t bound = tb::zstd_cycle_bound(in.size(), static_cast<size_t>(cap));
  tb::ZResult res = env.decode(in, static_cast<uint32_t>(cap), bound);
  if (!rtl::write_file(a.out_path, res.bytes, &r.message)) return 1;
  r.cycles = res.cycles;
  r.in_bytes = in.size();
  r.out_bytes = res.bytes.size();
  r.bytes_per_cycle = res.cycles ? double(res.bytes.size()) / double(res.cycles) : 0.0;
  const bool rtl_ok = res.done && res.code == 0;
  if (!res.done) {
    r.status = "error";
    r.message = "no status row within " + std::to_string(bound) + " cycles";
  } else if (rtl_ok ? (lib_ok && res.bytes == ref && ref.size() <= static_cast<size_t>(cap)) : !lib_ok ||
                          res.code == tb::kZstdErrHistory || ref.size() > static_cast<size_t>(cap)) {
    r.status = "ok";
  } else {
    r.status = "mismatch";
    r.message = !rtl_ok  ? "RTL rejected what libzstd accepts"
                : lib_ok ? "RTL output differs from libzstd"
                         : "RTL accepted what libzstd rejects (libzstd < 1.5.6 rejects valid frames with "
                           "Number_of_Sequences 0 in the 2-byte form)";
  }
  r.add("rtl_code", std::string(tb::zstd_err_name(res.code)));
  r.add("libzstd", std::string(lib_ok ? "ok" : "error"));
  if (res.out_last > res.out_first)
    r.add("sustained_out_bytes_per_cycle", double(res.bytes.size()) / double(res.out_last - res.out_first + 1));
  return 0;
}

}  // namespace

NDP_RTL_ENGINE("zstd-decode", "IN OUT [--cap BYTES]", run_zstd_decode);
