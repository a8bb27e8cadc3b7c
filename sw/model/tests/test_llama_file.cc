// load_llama on real files: a random Hugging Face-style Llama written as a .safetensors file (and as
// two shards in a directory) with its config.json, read back through ndp::read_model, must give the
// naive reference's logits. Also the llama2.c path's errors.
#include <gtest/gtest.h>

#ifdef NDP_MODEL_HAVE_IO
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "naive_llama.h"
#include "ndp/llama_file.h"
#include "random_llama.h"

namespace {

namespace fs = std::filesystem;
using namespace testmodel;

// Write tensors [begin, end) of m as one safetensors file.
void write_safetensors(const fs::path& p, const ndp::Model& m, size_t begin, size_t end) {
  std::string hdr = "{";
  uint64_t off = 0;
  for (size_t i = begin; i < end; ++i) {
    const ndp::Tensor& t = m.tensors[i];
    const char* dt = t.dtype == ndp::DType::kBF16 ? "BF16" : t.dtype == ndp::DType::kFP16 ? "F16" : "F32";
    std::string shape;
    for (uint64_t d : t.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    hdr += (i > begin ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"" + dt + "\",\"shape\":[" + shape +
           "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + t.data.size()) + "]}";
    off += t.data.size();
  }
  hdr += "}";
  while (hdr.size() % 8) hdr += ' ';
  std::ofstream f(p, std::ios::binary);
  const uint64_t n = hdr.size();
  f.write(reinterpret_cast<const char*>(&n), 8);
  f.write(hdr.data(), static_cast<std::streamsize>(hdr.size()));
  for (size_t i = begin; i < end; ++i)
    f.write(reinterpret_cast<const char*>(m.tensors[i].data.data()), static_cast<std::streamsize>(m.tensors[i].data.size()));
}

void expect_matches_reference(const ndp::LlamaModel& lm, const naive::Llama& ref, int seq, int vocab) {
  std::vector<int> toks;
  for (int i = 0; i < seq; ++i) toks.push_back((i * 7 + 3) % vocab);
  const auto want = naive::logits(ref, toks);
  ndp::LlamaRunner run(lm);
  for (int pos = 0; pos < seq; ++pos) {
    auto lg = run.forward(toks[pos], pos);
    ASSERT_TRUE(lg.ok()) << lg.status().message();
    double mx = 0;
    for (double x : want[pos]) mx = std::max(mx, std::fabs(x));
    for (int i = 0; i < vocab; ++i) ASSERT_NEAR((*lg.value())[i], want[pos][i], 1e-4 * (1 + mx)) << pos << " " << i;
  }
}

TEST(LlamaFile, SafetensorsFileAndShardedDirectory) {
  Spec s;
  s.naming = Naming::kHf;
  s.half_rope = true;
  s.wtype = ndp::DType::kBF16;
  s.shared = false;
  Built b = Builder(s, 77).build();
  const fs::path dir = fs::temp_directory_path() / "ndp_llama_file_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "one");
  fs::create_directories(dir / "sharded");
  write_safetensors(dir / "one" / "model.safetensors", b.model, 0, b.model.tensors.size());
  const size_t half = b.model.tensors.size() / 2;
  write_safetensors(dir / "sharded" / "model-00001-of-00002.safetensors", b.model, 0, half);
  write_safetensors(dir / "sharded" / "model-00002-of-00002.safetensors", b.model, half, b.model.tensors.size());
  for (const char* sub : {"one", "sharded"}) {
    std::ofstream(dir / sub / "config.json") << b.config_json;
  }
  for (const fs::path& p : {dir / "one" / "model.safetensors", dir / "one", dir / "sharded"}) {
    SCOPED_TRACE(p.string());
    auto ll = ndp::load_llama(p.string());
    ASSERT_TRUE(ll.ok()) << ll.status().message();
    EXPECT_EQ(ll.value().llama.config.rope_style, ndp::RopeStyle::kHalf);
    expect_matches_reference(ll.value().llama, b.ref, s.seq, s.vocab);
  }
  // Without config.json a safetensors model is refused with a message naming the file.
  fs::remove(dir / "one" / "config.json");
  auto no_cfg = ndp::load_llama((dir / "one" / "model.safetensors").string());
  ASSERT_FALSE(no_cfg.ok());
  EXPECT_NE(no_cfg.status().message().find("config.json"), std::string::npos) << no_cfg.status().message();
  // A directory without safetensors files, and a path that does not exist.
  fs::create_directories(dir / "empty");
  EXPECT_FALSE(ndp::load_llama((dir / "empty").string()).ok());
  EXPECT_FALSE(ndp::load_llama((dir / "missing.bin").string()).ok());
  fs::remove_all(dir);
}

}  // namespace
#else
TEST(LlamaFile, NeedsModelReader) { GTEST_SKIP() << "ndp_io is not built"; }
#endif
