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

bool load_stories260k_bf16(std::vector<Bf16Tensor>* out, std::string* why) {
  const std::string path = stories260k_path();
  if (!std::filesystem::exists(path)) {
    *why = "real data not found: " + path + " (set NDP_DATA_DIR at configure time)";
    return false;
  }
  Result<Model> m = read_model(path, ModelFormat::kLlama2c);
  if (!m.ok()) {
    *why = m.status().message();
    return false;
  }
  out->clear();
  for (const Tensor& t : m->tensors) {
    if (t.dtype != DType::kFP32) continue;
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

}  // namespace ndp::tb
