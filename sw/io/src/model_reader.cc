// Format names, detection, file-level read_model, and model-wide helpers.
#include "ndp/model_reader.h"

#include <bit>
#include <cstring>
#include <filesystem>

#include "ndp/convert.h"
#include "ndp/file.h"
#include "reader_util.h"

namespace ndp {

static_assert(std::endian::native == std::endian::little, "the readers assume a little-endian host");

namespace {

constexpr const char* kFormatList =
    "supported: safetensors (u64 header length + JSON), gguf (\"GGUF\" v2/v3), rwkv (ggmf magic), "
    "llama2c (v0 .bin: 7 x int32 header, exact size), gpt2-raw (directory with model.properties)";

struct FormatName {
  ModelFormat f;
  const char* name;
};
constexpr FormatName kNames[] = {{ModelFormat::kAuto, "auto"},       {ModelFormat::kSafetensors, "safetensors"},
                                 {ModelFormat::kGGUF, "gguf"},       {ModelFormat::kLlama2c, "llama2c"},
                                 {ModelFormat::kRwkv, "rwkv"},       {ModelFormat::kGpt2Raw, "gpt2-raw"}};

// Format from the first bytes of a file image (see detect_model_format).
Result<ModelFormat> detect_bytes(const uint8_t* p, size_t n, const std::string& what) {
  uint32_t m32 = 0;
  if (n >= 4) std::memcpy(&m32, p, 4);
  if (n >= 4 && std::memcmp(p, "GGUF", 4) == 0) return ModelFormat::kGGUF;
  if (n >= 4 && m32 == 0x67676d66u) return ModelFormat::kRwkv;
  if (n >= 9) {
    uint64_t hlen;
    std::memcpy(&hlen, p, 8);
    if (hlen <= n - 8 && p[8] == '{') return ModelFormat::kSafetensors;
  }
  if (n >= 4 && m32 == 0x616b3432u) return ModelFormat::kLlama2c;  // parse_llama2c explains the rejection
  Status l = io::llama2c_check(p, n, what);
  if (l.ok()) return ModelFormat::kLlama2c;
  return Status::Error(what + ": unrecognised model format (" + kFormatList + "); as llama2c: " + l.message());
}

}  // namespace

Result<ModelFormat> parse_model_format(const std::string& name) {
  for (const auto& fn : kNames)
    if (name == fn.name) return fn.f;
  return Status::Error("unknown model format \"" + name +
                       "\" (expected auto, safetensors, gguf, llama2c, rwkv or gpt2-raw)");
}

const char* model_format_name(ModelFormat f) {
  for (const auto& fn : kNames)
    if (fn.f == f) return fn.name;
  return "?";
}

Result<ModelFormat> detect_model_format(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (std::filesystem::exists(std::filesystem::path(path) / "model.properties", ec)) return ModelFormat::kGpt2Raw;
    return Status::Error(path + ": directory without model.properties (" + kFormatList + ")");
  }
  std::vector<uint8_t> f;
  NDP_RETURN_IF_ERROR(read_whole_file(path, &f));
  return detect_bytes(f.data(), f.size(), path);
}

Result<Model> read_model(const std::string& path, ModelFormat fmt) {
  std::error_code ec;
  const bool is_dir = std::filesystem::is_directory(path, ec);
  if (fmt == ModelFormat::kGpt2Raw || (fmt == ModelFormat::kAuto && is_dir)) {
    if (!is_dir) return Status::Error(path + ": gpt2-raw needs a directory with model.properties");
    if (fmt == ModelFormat::kAuto) {
      auto d = detect_model_format(path);
      if (!d.ok()) return d.status();
    }
    return read_gpt2_raw(path);
  }
  if (is_dir) return Status::Error(path + ": is a directory, but format " + model_format_name(fmt) + " needs a file");
  std::vector<uint8_t> f;  // read, not mapped: a mapped file that shrinks raises SIGBUS (ndp/file.h)
  NDP_RETURN_IF_ERROR(read_whole_file(path, &f));
  const uint8_t* p = f.data();
  const size_t n = f.size();
  if (fmt == ModelFormat::kAuto) {
    auto d = detect_bytes(p, n, path);
    if (!d.ok()) return d.status();
    fmt = d.value();
  }
  Result<Model> r = Status::Error("unreachable");
  switch (fmt) {
    case ModelFormat::kSafetensors: r = parse_safetensors(p, n, path); break;
    case ModelFormat::kGGUF: r = parse_gguf(p, n, path); break;
    case ModelFormat::kLlama2c: r = parse_llama2c(p, n, path); break;
    case ModelFormat::kRwkv: r = parse_rwkv(p, n, path); break;
    default: return Status::Error(path + ": unsupported format");
  }
  if (r.ok()) r->path = path;
  return r;
}

const Tensor* find_tensor(const Model& m, const std::string& name) {
  for (const Tensor& t : m.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

uint64_t model_elements(const Model& m) {
  uint64_t s = 0;
  for (const Tensor& t : m.tensors) s += t.elements;
  return s;
}

void convert_model_to_bf16(Model& m) {
  for (Tensor& t : m.tensors) {
    if (t.dtype != DType::kFP32 && t.dtype != DType::kFP16) continue;
    const bool f16 = t.dtype == DType::kFP16;
    std::vector<uint8_t> out(static_cast<size_t>(t.elements) * 2);
    for (uint64_t i = 0; i < t.elements; ++i) {
      uint32_t u;
      if (f16) {
        uint16_t h;
        std::memcpy(&h, t.data.data() + 2 * i, 2);
        u = fp16_to_fp32(h);
      } else {
        std::memcpy(&u, t.data.data() + 4 * i, 4);
      }
      uint16_t b = fp32_to_bf16_rne(u);
      std::memcpy(out.data() + 2 * i, &b, 2);
    }
    t.data = std::move(out);
    t.dtype = DType::kBF16;
  }
}

}  // namespace ndp
