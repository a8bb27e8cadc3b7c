// Engine `zstd-encode`: a file -> one Zstandard frame through the zstd_encoder model (rtl/zstd).
// The file is cut into blocks of --block bytes (default 65536, the lane's largest block); every
// block is one job of the engine, the first carries the frame header. --huffman selects the
// literals-only Huffman mode of EXPBYTE planes (docs/spec.md 4.3). The frame is checked against the
// golden model (zstd_hw_frame, byte for byte) and decoded with libzstd: status "ok" when both hold.
// Reported alongside: block kinds, the ratio, and libzstd's ratio at levels 1 and 3 on the same
// input cut into the same blocks (each block its own frame, as the lane stores planes).
// --hash-bytes 8 runs the build Vzstd_encoder_h8, whose match finder hashes 8 bytes per position
// (docs/zstd_encoder.md "Hash bytes"; default 4) and which can Huffman-code the literals of
// sequences blocks: --huffman-literals asks for that on every block ("Huffman literals").
//
// Plane mode (--plane expbyte|0..15): IN is a model (--input model, the default here, or fp32 /
// elems as for the other engines); every chunk (--chunk, default 32768) of every tensor (of those
// whose name matches --tensors REGEX) gives that plane of its BF16 elements (docs/spec.md section
// 2; exponent bits 14..7 from the bitplane layout), and each plane that is not all-equal (the lane
// stores those CONST) is one single-block frame, pushed back to back; OUT is the frames
// concatenated (what `zstd -d` decodes as one stream). docs/results/zstd_encoder.md uses this mode.
#include <zstd.h>

#include <algorithm>
#include <regex>

#include "../../zstd/zenc_env.h"
#include "../../zstd/zstd_env.h"
#include "engine.h"
#include "input.h"
#include "ndp/planes.h"
#include "tb_report.h"

namespace {

using namespace ndp;

uint64_t libzstd_size(const uint8_t* p, size_t n, int level) {
  std::vector<uint8_t> buf(ZSTD_compressBound(n));
  const size_t r = ZSTD_compress(buf.data(), buf.size(), p, n, level);
  return ZSTD_isError(r) ? n : r;
}

struct Job {
  std::vector<std::vector<uint8_t>> frames;  // contents of the frames, in order
  size_t block = 65536;                      // block bytes of each frame (plane mode: the plane)
  uint64_t const_planes = 0;                 // plane mode: all-equal planes left out
};

// --plane: the plane of every chunk of every tensor of IN.
bool load_planes(const rtl::EngineArgs& a, Job* job, std::string* err) {
  const std::string p = a.get("--plane");
  uint8_t id = kPlaneExpByte;
  if (p != "expbyte") {
    char* end = nullptr;
    const long b = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || b < 0 || b > 15) {
      *err = "--plane must be expbyte or a BF16 bit-plane 0..15 (got '" + p + "')";
      return false;
    }
    id = static_cast<uint8_t>(b);
  }
  uint32_t chunk = 0;
  bool unused_layout = false;
  std::vector<tb::Bf16Tensor> ts;
  if (!rtl::chunk_and_layout(a, &chunk, &unused_layout, err) || !rtl::load_tensors(a, a.get("--input", "model"), &ts, err))
    return false;
  const Layout l = (id == kPlaneExpByte || id < 7 || id == 15) ? Layout::kExpByte : Layout::kBitplane;
  const std::vector<uint8_t> order = plane_order(DType::kBF16, l);
  const size_t at = static_cast<size_t>(std::find(order.begin(), order.end(), id) - order.begin());
  std::regex keep;
  try {
    keep = std::regex(a.get("--tensors", ".*"));
  } catch (const std::regex_error& e) {
    *err = "--tensors: not a regular expression: " + std::string(e.what());
    return false;
  }
  std::vector<std::vector<uint8_t>> planes;
  for (const tb::Bf16Tensor& t : ts) {
    if (!std::regex_search(t.name, keep)) continue;
    for (uint64_t c = 0; c < t.elements(); c += chunk) {
      pack_chunk(DType::kBF16, l, t.bytes.data() + 2 * c, std::min<uint64_t>(chunk, t.elements() - c), planes);
      std::vector<uint8_t>& v = planes[at];
      if (std::all_of(v.begin(), v.end(), [&](uint8_t x) { return x == v[0]; }))
        ++job->const_planes;
      else
        job->frames.push_back(std::move(v));
    }
  }
  if (job->frames.empty()) {
    *err = a.in_path + ": no plane " + p + " to encode (no tensor matches --tensors, or every plane is all-equal)";
    return false;
  }
  job->block = plane_raw_bytes(id, chunk);
  return true;
}

bool load_job(const rtl::EngineArgs& a, Job* job, std::string* err) {
  if (a.has("--plane")) return load_planes(a, job, err);
  bool ok = true;
  const int64_t block = a.get_int("--block", 65536, &ok);
  if (!ok) return false;
  if (block < 1 || block > 65536) {
    *err = "--block must be 1..65536";
    return false;
  }
  job->block = static_cast<size_t>(block);
  job->frames.emplace_back();
  if (!rtl::read_file(a.in_path, &job->frames[0], err)) return false;
  if (job->frames[0].empty() || job->frames[0].size() > 0xFFFFFFFFull) {
    *err = a.in_path + ": " + std::to_string(job->frames[0].size()) + " bytes; a frame holds 1..2^32-1";
    return false;
  }
  return true;
}

// The job through one zstd_encoder build (Model), its JSON fields into r.
template <class Model>
int encode(const rtl::EngineArgs& a, const Job& job, rtl::EngineResult& r) {
  const bool huf = a.has("--huffman");
  const bool hl = a.has("--huffman-literals");
  tb::ZstdEncEnv<Model> env(a.seed, a.fst, a.gaps, a.backpressure);
  const uint64_t before = tb::failure_count();
  uint64_t in_bytes = 0, l1 = 0, l3 = 0;
  for (size_t i = 0; i < job.frames.size(); ++i) {
    const std::vector<uint8_t>& f = job.frames[i];
    if (!env.push_frame(f, huf, std::min(job.block, f.size()), a.in_path + " frame " + std::to_string(i), hl)) {
      r.message = "the golden model rejected the input";
      return 1;
    }
    in_bytes += f.size();
    for (size_t pos = 0; pos < f.size(); pos += job.block) {
      const size_t n = std::min(job.block, f.size() - pos);
      l1 += libzstd_size(f.data() + pos, n, 1);
      l3 += libzstd_size(f.data() + pos, n, 3);
    }
  }
  if (!env.run(64 * in_bytes + 200000 * job.frames.size())) {
    r.message = "simulation did not complete";
    return 1;
  }
  std::vector<uint8_t> out;
  bool lib_ok = true;
  uint64_t kinds[4] = {0, 0, 0, 0}, blocks = 0;
  for (size_t i = 0; i < env.frames().size(); ++i) {
    const tb::ZeFrame& f = env.frames()[i];
    std::vector<uint8_t> dec;
    std::string err;
    if (lib_ok && !(tb::libzstd_decompress(f.bytes, job.frames[i].size(), &dec, &err) && dec == job.frames[i])) {
      lib_ok = false;
      r.message = "libzstd does not decode frame " + std::to_string(i) + " to its input" + (err.empty() ? "" : ": " + err);
    }
    out.insert(out.end(), f.bytes.begin(), f.bytes.end());
    for (uint8_t k : f.kinds) ++kinds[k & 3];
    blocks += f.kinds.size();
  }
  const bool match = env.finish() && tb::failure_count() == before;
  if (!rtl::write_file(a.out_path, out, &r.message)) return 1;
  r.cycles = env.frames().back().out_last - env.frames().front().in_first + 1;
  r.in_bytes = in_bytes;
  r.out_bytes = out.size();
  r.bytes_per_cycle = static_cast<double>(in_bytes) / static_cast<double>(r.cycles);
  r.status = match && lib_ok ? "ok" : "mismatch";
  r.add("frames", static_cast<uint64_t>(env.frames().size()));
  if (a.has("--plane")) r.add("const_planes", job.const_planes);
  r.add("blocks", blocks);
  r.add("raw_blocks", kinds[0]);
  r.add("rle_blocks", kinds[1]);
  r.add("sequence_blocks", kinds[2]);
  r.add("huffman_blocks", kinds[3]);
  r.add("ratio", static_cast<double>(in_bytes) / static_cast<double>(out.size()));
  r.add("libzstd_l1_ratio", static_cast<double>(in_bytes) / static_cast<double>(l1));
  r.add("libzstd_l3_ratio", static_cast<double>(in_bytes) / static_cast<double>(l3));
  r.add("mode", std::string(huf ? "huffman" : "sequences"));
  r.add("hash_bytes", static_cast<uint64_t>(env.params().finder.hash_bytes));
  r.add("huffman_literals", env.params().huffman_literals && hl);
  r.add("input_stalls", env.input_stalls());
  return 0;
}

int run_zstd_encode(const rtl::EngineArgs& a, rtl::EngineResult& r) {
  bool ok = true;
  const int64_t hb = a.get_int("--hash-bytes", 4, &ok);
  if (!ok) return 2;  // get_int printed the error
  if (hb != 4 && hb != 8) {
    r.message = "--hash-bytes must be 4 or 8";
    return 2;
  }
  if (a.has("--huffman-literals") && hb != 8) {
    r.message = "--huffman-literals needs --hash-bytes 8 (the build with Huffman literals)";
    return 2;
  }
  Job job;
  if (!load_job(a, &job, &r.message)) return 2;
  return hb == 8 ? encode<Vzstd_encoder_h8>(a, job, r) : encode<Vzstd_encoder>(a, job, r);
}

}  // namespace

NDP_RTL_ENGINE("zstd-encode",
               "IN OUT [--huffman] [--block N] [--hash-bytes 4|8 [--huffman-literals]] | MODEL OUT --plane expbyte|0..15 "
               "[--huffman] [--input model|fp32|elems] [--chunk N] [--tensors REGEX] [--hash-bytes 4|8 [--huffman-literals]]",
               run_zstd_encode, {"--huffman", "--huffman-literals"});
