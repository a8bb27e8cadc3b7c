// libFuzzer target: the GPT-2 raw directory reader (read_gpt2_raw) on a directory written from the
// input (encoding in gpt2raw_archive.h). Oracle: an error is one line naming the directory or a file
// in it; a success holds exactly the .dat files of input/, output/ and decoder1..N, each tensor named
// after its path, FP32, with the file's big-endian floats byte-swapped, a shape whose product is the
// file's float count, and hidden_size / decoder_count as the properties give them.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gpt2raw_archive.h"
#include "ndp/model_reader.h"

namespace {

namespace fs = std::filesystem;

void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_read_gpt2raw: %s\n", why.c_str());
  std::abort();
}

// Per-process directory, on tmpfs when there is one (file system calls dominate each execution).
const fs::path& work_dir() {
  static const fs::path d = [] {
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    return base / ("ndp_fuzz_gpt2raw_" + std::to_string(getpid()));
  }();
  return d;
}

void write(const fs::path& p, const void* data, size_t n) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

// The tensor the reader must produce for `rel`, or false when the file must be skipped.
bool expected_name(const std::string& rel, std::string* name) {
  if (rel.size() < 4 || rel.compare(rel.size() - 4, 4, ".dat") != 0) return false;
  const std::string folder = rel.substr(0, rel.find('/'));
  if (folder != "input" && folder != "output" && folder.rfind("decoder", 0) != 0) return false;
  *name = rel.substr(0, rel.size() - 4);
  return true;
}

void check_model(const ndp::Model& m, const ndp::fuzz::Gpt2Archive& a) {
  size_t expected = 0;
  for (const auto& [rel, content] : a.files) {
    std::string name;
    if (!expected_name(rel, &name)) continue;
    ++expected;
    const ndp::Tensor* t = ndp::find_tensor(m, name);
    if (!t) fail("no tensor for " + rel);
    if (t->dtype != ndp::DType::kFP32 || t->data.size() != content.size() || 4 * t->elements != content.size())
      fail("tensor " + name + " has the wrong type or size");
    uint64_t e = 1;
    for (uint64_t d : t->shape) e *= d;
    if (e != t->elements) fail("tensor " + name + ": shape product differs from the element count");
    for (size_t i = 0; i < content.size(); ++i)
      if (t->data[i] != content[i - i % 4 + 3 - i % 4]) fail("tensor " + name + ": bytes not swapped from the file");
  }
  if (m.tensors.size() != expected) fail("tensor count differs from the .dat files");
  if (m.meta.at("hidden_size") <= 0 || m.meta.at("decoder_count") <= 0) fail("bad meta");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ndp::fuzz::Gpt2Archive a = ndp::fuzz::decode_gpt2_archive(data, size);
  const fs::path& dir = work_dir();
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  write(dir / "model.properties", a.properties.data(), a.properties.size());
  for (const auto& [rel, content] : a.files) write(dir / rel, content.data(), content.size());
  auto r = ndp::read_gpt2_raw(dir.string());
  if (!r.ok()) {
    const std::string& msg = r.status().message();
    if (msg.rfind(dir.string(), 0) != 0 || msg.find('\n') != std::string::npos) fail("malformed error: " + msg);
  } else {
    check_model(r.value(), a);
  }
  fs::remove_all(dir, ec);
  return 0;
}
