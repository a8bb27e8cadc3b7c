// Model file readers (safetensors, GGUF, llama2.c, rwkv.cpp ggmf, GPT-2 raw big-endian directory).
// Every reader validates sizes and offsets against the file and returns an error naming the file
// and the offset of the first inconsistency ("PATH: offset N: what is wrong"); nothing is read out
// of bounds, and the work is linear in the file size. docs/readers.md describes each format.
//
// Tensor names, shapes and metadata per format (shapes are always outermost first, row-major,
// i.e. the last dimension is contiguous in Tensor::data):
//
// llama2.c v0 checkpoint (all FP32; L = n_layers, D = dim, H = hidden_dim, V = |vocab_size|,
// S = seq_len, hs = D / n_heads, KV = n_kv_heads * hs), in file order:
//   "token_embedding_table"  [V, D]
//   "layers.rms_att_weight"  [L, D]
//   "layers.wq"              [L, D, D]     (out, in: y = W x, PyTorch nn.Linear layout)
//   "layers.wk"              [L, KV, D]
//   "layers.wv"              [L, KV, D]
//   "layers.wo"              [L, D, D]
//   "layers.rms_ffn_weight"  [L, D]
//   "layers.w1"              [L, H, D]     (gate)
//   "layers.w2"              [L, D, H]     (down)
//   "layers.w3"              [L, H, D]     (up)
//   "rms_final_weight"       [D]
//   "freq_cis_real"          [S, hs / 2]
//   "freq_cis_imag"          [S, hs / 2]
//   "wcls"                   [V, D]        only when the classifier is unshared (vocab_size < 0)
//   meta: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size (always positive), seq_len,
//         head_size, kv_dim, shared_classifier (1 = wcls is token_embedding_table, 0 = "wcls" present)
//
// rwkv.cpp ggmf: tensors named by their PyTorch keys ("emb.weight", "blocks.0.att.key.weight", ...),
//   in file order, FP32 or FP16, shape = PyTorch shape (the file stores it reversed; we reverse back).
//   meta: version, n_vocab, n_embed, n_layer, file_dtype (0 = FP32, 1 = FP16).
//
// GGUF v2/v3: tensors named as in the file, in file order, F32/F16/BF16, shape outermost first (the
//   file stores ggml ne[] innermost first; we reverse). meta: every integer or bool metadata value
//   (keys as in the file, e.g. "general.alignment", "llama.block_count"); meta_str: every string
//   metadata value ("general.architecture"). Float and array values are validated and skipped.
//
// safetensors: tensors named as in the header, in data-offset order, F32/F16/BF16, shape as in the
//   header. meta_str: "__metadata__.KEY" for each __metadata__ entry.
//
// GPT-2 raw directory (huplay layout, FP32 big-endian, converted to little-endian): tensor name is
//   the file path relative to the directory without ".dat" ("input/wpe", "decoder1/att.query.w",
//   "output/norm.w"); order input/, decoder1..N, output/, each sorted by name. Matrices are stored
//   [in, out] (Conv1D layout): att.{query,key,value,proj}.w [h, h], mlp.layer1.w [h, 4h],
//   mlp.layer2.w [4h, h], input/wpe [context.size, h], input/wte [token.count, h]; vectors [h]
//   except mlp.layer1.b [4h]. meta: hidden_size, decoder_count, context_size, token_count,
//   head_count (when present in model.properties), decoders_present; meta_str: every property.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ndp/dtype.h"
#include "ndp/status.h"

namespace ndp {

enum class ModelFormat { kAuto, kSafetensors, kGGUF, kLlama2c, kRwkv, kGpt2Raw };

// Most tensors one model file (or GPT-2 directory) may hold. Real checkpoints hold at most a few
// thousand per file; the tools downstream cost a few KiB per tensor (analysis histograms, image
// tables), so a header of millions of empty tensors would otherwise balloon them (docs/readers.md).
constexpr uint64_t kMaxModelTensors = 65536;

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
  // shared_classifier; GGUF: integer key/values; rwkv: n_vocab, n_embed, n_layer). See above.
  std::map<std::string, int64_t> meta;
  // String metadata (GGUF strings, safetensors __metadata__, GPT-2 model.properties).
  std::map<std::string, std::string> meta_str;
  // GGUF only: floating metadata (F32/F64 values), and one-level arrays of strings and of numbers
  // (tokenizer.ggml.tokens / merges, tokenizer.ggml.scores / token_type, ...); nested arrays are
  // validated and skipped.
  std::map<std::string, double> meta_f64;
  std::map<std::string, std::vector<std::string>> meta_str_arrays;
  std::map<std::string, std::vector<double>> meta_num_arrays;
};

// "auto", "safetensors", "gguf", "llama2c", "rwkv", "gpt2-raw". Error on an unknown name.
Result<ModelFormat> parse_model_format(const std::string& name);
const char* model_format_name(ModelFormat f);

// Detect the format of a file or directory: directory with model.properties -> gpt2-raw; "GGUF"
// magic -> gguf; ggmf magic -> rwkv; 8-byte length + '{' -> safetensors; a plausible llama2.c
// header whose implied size equals the file size -> llama2c. Otherwise an error listing the formats.
Result<ModelFormat> detect_model_format(const std::string& path);

// Read a model. kAuto detects with detect_model_format. Files are read into memory (not mapped: a
// mapped file truncated by another process would raise SIGBUS) and parsed in
// one pass; GPT-2 directories read each .dat file once.
Result<Model> read_model(const std::string& path, ModelFormat fmt = ModelFormat::kAuto);

// In-memory readers (used by the fuzzers; `what` names the source in error messages).
Result<Model> parse_safetensors(const uint8_t* p, size_t n, const std::string& what);
Result<Model> parse_gguf(const uint8_t* p, size_t n, const std::string& what);
Result<Model> parse_llama2c(const uint8_t* p, size_t n, const std::string& what);
Result<Model> parse_rwkv(const uint8_t* p, size_t n, const std::string& what);
// GPT-2 raw directory reader (directory with model.properties and *.dat files).
Result<Model> read_gpt2_raw(const std::string& dir);

// Name of a ggml tensor type id ("F32", "Q8_0", "Q4_K", ...), "unknown" for an unassigned id.
const char* ggml_type_name(uint32_t type);

// The tensor called `name`, or nullptr.
const Tensor* find_tensor(const Model& m, const std::string& name);
// Sum of Tensor::elements over all tensors.
uint64_t model_elements(const Model& m);

// Convert every FP32 tensor to BF16 with round-to-nearest-even (and FP16 exactly to FP32 first).
// Other dtypes are left as they are.
void convert_model_to_bf16(Model& m);

}  // namespace ndp
