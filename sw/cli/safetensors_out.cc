#include "safetensors_out.h"

namespace ndp::cli {
namespace {

const char* st_dtype(DType t) {
  switch (t) {
    case DType::kBF16: return "BF16";
    case DType::kFP16: return "F16";
    case DType::kFP32: return "F32";
    case DType::kINT8: return "I8";
    case DType::kFP8E4M3: return "F8_E4M3";
    case DType::kFP8E5M2: return "F8_E5M2";
    default: return nullptr;
  }
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c < 0x20) {
      static const char* hex = "0123456789abcdef";
      o += "\\u00";
      o += hex[c >> 4];
      o += hex[c & 15];
      continue;
    }
    o += char(c);
  }
  return o + "\"";
}

}  // namespace

Result<std::vector<uint8_t>> to_safetensors(const std::vector<OutTensor>& ts) {
  std::string h = "{";
  uint64_t off = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const char* dt = st_dtype(ts[i].dtype);
    if (!dt)
      return Status::Error("tensor '" + ts[i].name + "' has dtype " + dtype_info(ts[i].dtype).name +
                           ", which safetensors cannot hold (use --raw)");
    h += (i ? "," : "") + json_string(ts[i].name) + ":{\"dtype\":\"" + dt + "\",\"shape\":[";
    for (size_t d = 0; d < ts[i].shape.size(); ++d) h += (d ? "," : "") + std::to_string(ts[i].shape[d]);
    h += "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + ts[i].data.size()) + "]}";
    off += ts[i].data.size();
  }
  h += "}";
  while (h.size() % 8) h += ' ';
  std::vector<uint8_t> out(8);
  for (int b = 0; b < 8; ++b) out[b] = uint8_t(uint64_t(h.size()) >> (8 * b));
  out.insert(out.end(), h.begin(), h.end());
  for (const auto& t : ts) out.insert(out.end(), t.data.begin(), t.data.end());
  return out;
}

}  // namespace ndp::cli
