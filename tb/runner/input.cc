#include "input.h"

#include "ndp/convert.h"
#include "ndp/model_reader.h"

namespace ndp::rtl {

namespace {
void put_bf16(std::vector<uint8_t>& v, uint64_t i, uint16_t h) {
  v[2 * i] = static_cast<uint8_t>(h);
  v[2 * i + 1] = static_cast<uint8_t>(h >> 8);
}
uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
}  // namespace

bool load_tensors(const EngineArgs& a, const std::string& kind, std::vector<tb::Bf16Tensor>* out,
                  std::string* err) {
  out->clear();
  if (kind == "model") {
    Result<Model> m = read_model(a.in_path);
    if (!m.ok()) {
      *err = m.status().message();
      return false;
    }
    for (const Tensor& t : m->tensors) {
      tb::Bf16Tensor b;
      b.name = t.name;
      if (t.dtype == DType::kBF16) {
        b.bytes = t.data;
      } else if (t.dtype == DType::kFP32) {
        b.bytes.resize(2 * t.elements);
        for (uint64_t i = 0; i < t.elements; ++i) put_bf16(b.bytes, i, fp32_to_bf16_rne(le32(&t.data[4 * i])));
      } else {
        continue;
      }
      if (!b.bytes.empty()) out->push_back(std::move(b));
    }
  } else if (kind == "elems" || kind == "fp32") {
    std::vector<uint8_t> raw;
    if (!read_file(a.in_path, &raw, err)) return false;
    tb::Bf16Tensor b;
    b.name = a.in_path;
    if (kind == "elems") {
      if (raw.size() % 2) {
        *err = a.in_path + ": size " + std::to_string(raw.size()) + " is not a whole number of BF16 elements";
        return false;
      }
      b.bytes = std::move(raw);
    } else {
      if (raw.size() % 4) {
        *err = a.in_path + ": size " + std::to_string(raw.size()) + " is not a whole number of FP32 elements";
        return false;
      }
      b.bytes.resize(raw.size() / 2);
      for (uint64_t i = 0; i < raw.size() / 4; ++i) put_bf16(b.bytes, i, fp32_to_bf16_rne(le32(&raw[4 * i])));
    }
    if (!b.bytes.empty()) out->push_back(std::move(b));
  } else {
    *err = "--input must be elems, fp32 or model (got '" + kind + "')";
    return false;
  }
  if (out->empty()) {
    *err = a.in_path + ": no elements";
    return false;
  }
  if (a.has("--concat") && out->size() > 1) {  // every tensor, back to back, as one stream
    tb::Bf16Tensor all;
    all.name = a.in_path + " (all tensors)";
    for (const tb::Bf16Tensor& t : *out) all.bytes.insert(all.bytes.end(), t.bytes.begin(), t.bytes.end());
    out->assign(1, std::move(all));
  }
  for (const tb::Bf16Tensor& t : *out) {
    if (t.elements() > 0xFFFFFFFFull) {
      *err = a.in_path + ": tensor " + t.name + " has more than 2^32-1 elements";
      return false;
    }
  }
  return true;
}

bool chunk_and_layout(const EngineArgs& a, uint32_t* chunk, bool* expbyte, std::string* err) {
  bool ok = true;
  int64_t c = a.get_int("--chunk", 32768, &ok);
  if (!ok || c < 64 || c > 32768 || c % 64) {
    *err = "--chunk must be a multiple of 64 in [64, 32768] (the RTL model's buffer size)";
    return false;
  }
  *chunk = static_cast<uint32_t>(c);
  std::string l = a.get("--layout", "expbyte");
  if (l != "expbyte" && l != "bitplane") {
    *err = "--layout must be expbyte or bitplane";
    return false;
  }
  *expbyte = (l == "expbyte");
  return true;
}

}  // namespace ndp::rtl
