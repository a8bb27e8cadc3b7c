// Quantized bases (FP8 E4M3 per-tensor, INT8/INT4 per-group symmetric) of ndp/quantize.h.
#include "ndp/quantize.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "ndp/convert.h"

namespace ndp {

uint8_t fp32_to_e4m3_sat(float x) {
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x)) return sign | 0x7F;
  const double a = std::fabs(static_cast<double>(x));
  if (a >= 448.0) return sign | 0x7E;  // saturate (Inf included)
  int e = 0;
  (void)std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the leading bit has weight 2^(e-1)
  const int exp = std::max(e - 1, -6);  // subnormals share the quantum of the smallest normal binade
  const double q = std::nearbyint(std::ldexp(a, 3 - exp));  // mantissa quantum 2^(exp-3), ties to even
  if (q == 0) return sign;
  int code = 0;
  if (q < 8) {
    code = static_cast<int>(q);  // subnormal (exp == -6)
  } else if (q >= 16) {
    code = (exp + 1 + 7) << 3;   // rounded up into the next binade: mantissa 0
  } else {
    code = ((exp + 7) << 3) | (static_cast<int>(q) - 8);
  }
  return static_cast<uint8_t>(sign | std::min(code, 0x7E));
}

float e4m3_to_fp32(uint8_t c) {
  const float s = (c & 0x80) ? -1.0f : 1.0f;
  const int e = (c >> 3) & 0xF, m = c & 7;
  if (e == 0xF && m == 7) return std::nanf("");
  if (e == 0) return s * std::ldexp(static_cast<float>(m), -9);
  return s * std::ldexp(static_cast<float>(8 + m), e - 10);
}

uint16_t fp32_to_fp16_rne(float x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7E00;
  const double a = std::fabs(static_cast<double>(x));
  if (a == 0) return sign;
  int e = 0;
  (void)std::frexp(a, &e);
  const int exp = std::max(e - 1, -14);
  const double q = std::nearbyint(std::ldexp(a, 10 - exp));  // 10 mantissa bits, ties to even
  int code = 0;
  if (q < 1024) code = static_cast<int>(q);                 // subnormal
  else if (q >= 2048) code = (exp + 1 + 15) << 10;
  else code = ((exp + 15) << 10) | (static_cast<int>(q) - 1024);
  return static_cast<uint16_t>(sign | std::min(code, 0x7C00));  // overflow -> infinity
}

namespace {

// Element i of a floating tensor as a float (FP32, FP16, BF16; other types are not passed here).
float element(const Tensor& t, uint64_t i) {
  uint32_t u = 0;
  if (t.dtype == DType::kFP32) {
    std::memcpy(&u, t.data.data() + 4 * i, 4);
  } else {
    uint16_t h;
    std::memcpy(&h, t.data.data() + 2 * i, 2);
    u = t.dtype == DType::kFP16 ? fp16_to_fp32(h) : bf16_to_fp32(h);
  }
  return bits_f32(u);
}

bool is_16_or_32_float(DType t) { return t == DType::kFP32 || t == DType::kFP16 || t == DType::kBF16; }

// A Linear layer's weight matrix, the tensors checkpoint tools quantize: floating, its last two
// dimensions > 1, and not an embedding, classifier, norm or positional table by name (the names the
// readers produce: llama2.c, GGUF, safetensors/HF, GPT-2 raw, rwkv.cpp).
bool is_linear_weight(const Tensor& t) {
  if (!is_16_or_32_float(t.dtype) || t.shape.size() < 2 || t.shape[t.shape.size() - 1] < 2 ||
      t.shape[t.shape.size() - 2] < 2)
    return false;
  std::string n = t.name;
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "output.weight" || n == "head.weight") return false;  // GGUF / rwkv classifier
  for (const char* skip : {"norm", "rms", "ln", "freq_cis", "emb", "wte", "wpe", "lm_head", "wcls"})
    if (n.find(skip) != std::string::npos) return false;
  return true;
}

Tensor quantize_fp8(const Tensor& t, Tensor& scale) {
  float amax = 0;
  for (uint64_t i = 0; i < t.elements; ++i) {
    const float v = std::fabs(element(t, i));
    if (std::isfinite(v)) amax = std::max(amax, v);
  }
  const float s = amax > 0 ? amax / 448.0f : 1.0f;
  Tensor q{t.name, DType::kFP8E4M3, t.shape, t.elements, std::vector<uint8_t>(t.elements)};
  for (uint64_t i = 0; i < t.elements; ++i) q.data[i] = fp32_to_e4m3_sat(element(t, i) / s);
  scale = Tensor{t.name + "_scale", DType::kFP32, {}, 1, std::vector<uint8_t>(4)};
  std::memcpy(scale.data.data(), &s, 4);
  return q;
}

Tensor quantize_int(const Tensor& t, DType target, uint32_t group, Tensor& scale) {
  const int qmax = target == DType::kINT8 ? 127 : 7;
  const uint64_t row = t.shape.back() ? t.shape.back() : 1, rows = t.elements / row;
  const uint64_t groups = (row + group - 1) / group;
  Tensor q{t.name, target, t.shape, t.elements, std::vector<uint8_t>(dtype_bytes(target, t.elements), 0)};
  scale = Tensor{t.name + "_scale", DType::kFP16, {rows, groups}, rows * groups,
                 std::vector<uint8_t>(2 * rows * groups)};
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t g = 0; g < groups; ++g) {
      const uint64_t first = r * row + g * group, n = std::min<uint64_t>(group, row - g * group);
      float amax = 0;
      for (uint64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(element(t, first + i)));
      const uint16_t s16 = fp32_to_fp16_rne(amax / static_cast<float>(qmax));
      std::memcpy(scale.data.data() + 2 * (r * groups + g), &s16, 2);
      const float s = bits_f32(fp16_to_fp32(s16));  // quantize with the scale the checkpoint stores
      for (uint64_t i = 0; i < n; ++i) {
        const float x = s > 0 ? element(t, first + i) / s : 0.0f;
        const int v = static_cast<int>(std::clamp<double>(std::nearbyint(std::isnan(x) ? 0.0 : x), -qmax, qmax));
        const uint64_t k = first + i;
        if (target == DType::kINT8) q.data[k] = static_cast<uint8_t>(static_cast<int8_t>(v));
        else q.data[k / 2] |= static_cast<uint8_t>((v & 0xF) << (4 * (k & 1)));
      }
    }
  return q;
}

}  // namespace

Result<DType> parse_quantize_target(const std::string& name) {
  if (name == "bf16") return DType::kBF16;
  if (name == "fp8-e4m3") return DType::kFP8E4M3;
  if (name == "int8") return DType::kINT8;
  if (name == "int4") return DType::kINT4;
  return Status::Error("--as supports bf16, fp8-e4m3, int8 and int4, got '" + name + "'");
}

Status quantize_model(Model& m, const QuantizeOptions& o) {
  if (o.target != DType::kBF16 && o.target != DType::kFP8E4M3 && o.target != DType::kINT8 && o.target != DType::kINT4)
    return Status::Error(std::string("quantize: unsupported target ") + dtype_info(o.target).name);
  if (o.group == 0) return Status::Error("quantize: group size must be >= 1");
  std::vector<Tensor> out;
  for (Tensor& t : m.tensors) {
    if (o.target != DType::kBF16 && is_linear_weight(t)) {
      Tensor scale;
      out.push_back(o.target == DType::kFP8E4M3 ? quantize_fp8(t, scale) : quantize_int(t, o.target, o.group, scale));
      out.push_back(std::move(scale));  // FP32 / FP16 as stored: not converted below
      continue;
    }
    // Norms, biases (and everything for the BF16 target): BF16, as the tools leave them.
    Model one;
    one.tensors.push_back(std::move(t));
    convert_model_to_bf16(one);
    out.push_back(std::move(one.tensors[0]));
  }
  m.tensors = std::move(out);
  return Status::Ok();
}

}  // namespace ndp
