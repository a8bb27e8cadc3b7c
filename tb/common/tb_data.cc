#include "tb_data.h"

#include <cstdlib>
#include <filesystem>

#include "ndp/convert.h"
#include "ndp/model_reader.h"

namespace ndp::tb {

std::string stories260k_path() {
  const char* env = std::getenv("NDP_DATA_DIR");
  std::string dir = (env && *env) ? env : NDP_TB_DATA_DIR;
  return dir + "/stories260K/stories260K.bin";
}


namespace {
std::string data_dir() {
  const char* env = std::getenv("NDP_DATA_DIR");
  return (env && *env) ? env : NDP_TB_DATA_DIR;
}

// The FP32 tensors of a model file or directory (name filter: all when empty) as BF16 by RNE.
bool load_bf16(const std::string& path, ModelFormat fmt, const std::string& must_contain,
               std::vector<Bf16Tensor>* out, std::string* why) {
  if (!std::filesystem::exists(path)) {
    *why = "real data not found: " + path + " (set NDP_DATA_DIR at configure time)";
    return false;
  }
  Result<Model> m = read_model(path, fmt);
  if (!m.ok()) {
    *why = m.status().message();
    return false;
  }
  out->clear();
  for (const Tensor& t : m->tensors) {
    if (t.dtype != DType::kFP32 || t.name.find(must_contain) == std::string::npos) continue;
    Bf16Tensor b;
    b.name = t.name;
    b.bytes.resize(t.elements * 2);
    for (uint64_t i = 0; i < t.elements; ++i) {
      uint32_t u = static_cast<uint32_t>(t.data[4 * i]) | (static_cast<uint32_t>(t.data[4 * i + 1]) << 8) |
                   (static_cast<uint32_t>(t.data[4 * i + 2]) << 16) |
                   (static_cast<uint32_t>(t.data[4 * i + 3]) << 24);
      uint16_t h = fp32_to_bf16_rne(u);
      b.bytes[2 * i] = static_cast<uint8_t>(h);
      b.bytes[2 * i + 1] = static_cast<uint8_t>(h >> 8);
    }
    out->push_back(std::move(b));
  }
  if (out->empty()) {
    *why = path + ": no FP32 tensors";
    return false;
  }
  return true;
}
}  // namespace

bool load_stories260k_bf16(std::vector<Bf16Tensor>* out, std::string* why) {
  return load_bf16(stories260k_path(), ModelFormat::kLlama2c, "", out, why);
}

bool load_gpt2_attention_bf16(int layers, std::vector<Bf16Tensor>* out, std::string* why) {
  std::vector<Bf16Tensor> all;
  if (!load_bf16(data_dir() + "/gpt2-small-attn", ModelFormat::kGpt2Raw, ".w", &all, why)) return false;
  out->clear();
  for (auto& t : all)
    for (int d = 1; d <= layers; ++d)
      if (t.name.find("decoder" + std::to_string(d) + "/") != std::string::npos && t.elements() == 768u * 768u)
        out->push_back(std::move(t));
  if (out->empty()) *why = "no GPT-2 attention weights under " + data_dir() + "/gpt2-small-attn";
  return !out->empty();
}

}  // namespace ndp::tb
