// Model file readers (safetensors, GGUF, llama2.c, rwkv.cpp ggmf, GPT-2 raw big-endian directory).
// Every reader validates sizes and offsets against the file and returns an error naming the file
// and the offset of the first inconsistency; nothing is read out of bounds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ndp/dtype.h"
#include "ndp/status.h"

namespace ndp {

enum class ModelFormat { kAuto, kSafetensors, kGGUF, kLlama2c, kRwkv, kGpt2Raw };

struct Tensor {
  std::string name;
  DType dtype = DType::kFP32;
  std::vector<uint64_t> shape;  // outermost first
  uint64_t elements = 0;
  std::vector<uint8_t> data;    // natural little-endian encoding, dtype_bytes(dtype, elements)
};

struct Model {
  std::string path;
  ModelFormat format = ModelFormat::kAuto;
  std::vector<Tensor> tensors;
  // Format metadata (llama2.c: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len,
  // shared_classifier; GGUF: integer key/values; rwkv: n_vocab, n_embed, n_layer).
  std::map<std::string, int64_t> meta;
};

// "auto", "safetensors", "gguf", "llama2c", "rwkv", "gpt2-raw". Error on an unknown name.
Result<ModelFormat> parse_model_format(const std::string& name);
const char* model_format_name(ModelFormat f);

// Read a model. kAuto detects by magic/extension/directory shape.
Result<Model> read_model(const std::string& path, ModelFormat fmt = ModelFormat::kAuto);

// In-memory readers (used by the fuzzers; `what` names the source in error messages).
Result<Model> parse_safetensors(const uint8_t* p, size_t n, const std::string& what);
Result<Model> parse_gguf(const uint8_t* p, size_t n, const std::string& what);
Result<Model> parse_llama2c(const uint8_t* p, size_t n, const std::string& what);
Result<Model> parse_rwkv(const uint8_t* p, size_t n, const std::string& what);

// Convert every FP32 tensor to BF16 with round-to-nearest-even (and FP16 exactly to FP32 first).
// Other dtypes are left as they are.
void convert_model_to_bf16(Model& m);

}  // namespace ndp
