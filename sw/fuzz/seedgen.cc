// ndp_fuzz_seedgen OUTDIR: writes small deterministic seed inputs for the model-reader fuzz targets
// into OUTDIR/<target>/ (scripts/run-fuzz.sh runs it before fuzzing). The inputs come from the same
// synthetic-file writers as the reader tests (sw/io/tests/synth.h).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

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
  return ok ? 0 : 1;
}
