// ndp_fuzz_seedgen OUTDIR: writes small deterministic seed inputs for the model-reader fuzz targets
// into OUTDIR/<target>/ (scripts/run-fuzz.sh runs it before fuzzing). The inputs come from the same
// synthetic-file writers as the reader tests (sw/io/tests/synth.h); the GPT-2 raw directories are
// written in fuzz_read_gpt2raw's encoding (gpt2raw_archive.h). The JSON targets' seeds are files
// under sw/fuzz/seeds/ and the runtime's examples (run-fuzz.sh adds them).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gpt2raw_archive.h"
#ifdef NDP_SEEDGEN_IMAGE
#include "ndp/image.h"
#endif
#include "synth.h"

namespace {

namespace fs = std::filesystem;
using ndp::synth::Llama2cConfig;

bool put(const fs::path& dir, const std::string& name, const std::vector<uint8_t>& b) {
  fs::create_directories(dir);
  if (ndp::synth::write_file((dir / name).string(), b)) return true;
  std::fprintf(stderr, "seedgen: cannot write %s\n", (dir / name).c_str());
  return false;
}

#ifdef NDP_SEEDGEN_IMAGE
// Small device images for fuzz_image_read: weights of three layouts/codecs and a KV stream, so the
// fuzzer starts from inputs that reach the index, block and region paths.
bool image_seeds(const fs::path& dir) {
  std::vector<uint8_t> w(2 * 3000);
  for (size_t i = 0; i < w.size(); i += 2) {
    w[i] = static_cast<uint8_t>(i * 37);
    w[i + 1] = static_cast<uint8_t>(0x3C + (i / 2) % 3);
  }
  std::vector<uint8_t> i4(65);
  for (size_t i = 0; i < i4.size(); ++i) i4[i] = static_cast<uint8_t>(i * 11);
  std::vector<uint16_t> kv(5 * 2 * 16);
  for (size_t i = 0; i < kv.size(); ++i) kv[i] = static_cast<uint16_t>(0x3C00 + (i * 37) % 700);
  ndp::ImageWriter a, b;
  bool ok = a.add_tensor("w", ndp::DType::kBF16, {3000}, w.data(), w.size(), {1024}).ok();
  ok &= a.add_tensor("q", ndp::DType::kINT4, {129}, i4.data(), i4.size(), {64}).ok();
  ok &= a.add_kv_stream("kv", ndp::DType::kFP16, {3, 16, 2}, kv.data(), 5).ok();
  ok &= b.add_tensor("w", ndp::DType::kBF16, {3000}, w.data(), w.size(),
                     {512, ndp::Layout::kBitplane, ndp::CodecPolicy::kZstd}).ok();
  auto ia = a.finish(), ib = b.finish();
  return ok && ia.ok() && ib.ok() && put(dir, "mixed", ia.value()) && put(dir, "bitplane_zstd", ib.value());
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  namespace s = ndp::synth;
  const fs::path out = argv[1];
  bool ok = true;
  const fs::path st = out / "fuzz_read_safetensors";
  ok &= put(st, "tiny", s::tiny_safetensors());
  ok &= put(st, "scalar_i8", s::safetensors_file({{"x", "F32", {}, s::f32_ramp(1, 1, 0)}, {"q", "I8", {2}, {1, 2}}}));
  ok &= put(st, "empty", s::safetensors_file({}, {{"k", "v"}}));
  const fs::path gg = out / "fuzz_read_gguf";
  ok &= put(gg, "v3", s::tiny_gguf(3));
  ok &= put(gg, "v2_align64", s::tiny_gguf(2, false, 64));
  ok &= put(gg, "v3_q8", s::tiny_gguf(3, true));
  const fs::path ll = out / "fuzz_read_llama2c";
  ok &= put(ll, "default", s::llama2c_file(Llama2cConfig{}));
  Llama2cConfig small{4, 4, 1, 2, 1, -3, 2};
  ok &= put(ll, "small_unshared", s::llama2c_file(small));
  const fs::path rw = out / "fuzz_read_rwkv";
  ok &= put(rw, "tiny", s::tiny_rwkv());
  ok &= put(rw, "fp32", s::rwkv_file(100, 2, 2, 1, 0,
                                     {{"emb.weight", 0, {2, 2}, s::f32_ramp(4, 0, 1)},
                                      {"blocks.0.ln1.weight", 0, {2}, s::f32_ramp(2, 1, 1)},
                                      {"head.weight", 0, {2, 2}, s::f32_ramp(4, 0, 1)}}));
  // GPT-2 raw: h = 2, one decoder, every table shape; one with a decoder folder beyond decoder.count.
  const fs::path gp = out / "fuzz_read_gpt2raw";
  const std::string props = "# tiny\nhidden.size = 2\ndecoder.count = 1\ncontext.size = 3\ntoken.count = 2\n";
  auto floats = [](size_t n) { return s::f32_ramp(n, 0.5f, 0.25f); };  // content only; byte order is the test's
  using ndp::fuzz::encode_gpt2_archive;
  ok &= put(gp, "full", encode_gpt2_archive(props, {{0, floats(6)}, {1, floats(4)}, {2, floats(2)}, {3, floats(2)},
                                                    {4, floats(4)}, {5, floats(2)}, {6, floats(16)}, {7, floats(8)},
                                                    {8, floats(2)}, {14, floats(3)}, {15, floats(1)}}));
  ok &= put(gp, "two_decoders", encode_gpt2_archive("hidden.size=2\ndecoder.count=2\n", {{4, floats(4)}, {9, floats(4)},
                                                                                          {10, floats(5)}}));
  ok &= put(gp, "bad_folder", encode_gpt2_archive(props, {{4, floats(4)}, {12, floats(1)}}));
#ifdef NDP_SEEDGEN_IMAGE
  ok &= image_seeds(out / "fuzz_image_read");
#endif
  return ok ? 0 : 1;
}
