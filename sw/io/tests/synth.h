// Writers for small synthetic model files in each supported format. The reader tests build their
// synthetic inputs with these, and the fuzz seed generator (sw/fuzz/fuzz_seeds.cc) writes them as
// seed corpora. They write the formats from their public descriptions, independently of the readers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ndp::synth {

// Little-endian byte sink.
struct Bytes {
  std::vector<uint8_t> b;
  void u8(uint8_t v) { b.push_back(v); }
  void u16(uint16_t v) { raw(&v, 2); }
  void u32(uint32_t v) { raw(&v, 4); }
  void i32(int32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void f32(float v) { raw(&v, 4); }
  void raw(const void* p, size_t n) {
    const uint8_t* q = static_cast<const uint8_t*>(p);
    b.insert(b.end(), q, q + n);
  }
  void str(const std::string& s) { raw(s.data(), s.size()); }
};

// Deterministic FP32 payloads: value i is base + i * step.
std::vector<uint8_t> f32_ramp(uint64_t n, float base, float step);
// FP16 / BF16 payloads made from the same ramp (FP16 by exact small values, BF16 by truncation).
std::vector<uint8_t> f16_ramp(uint64_t n);
std::vector<uint8_t> bf16_ramp(uint64_t n, float base, float step);

// ---- safetensors ----
struct StTensor {
  std::string name;   // written JSON-escaped
  std::string dtype;  // "F32", "F16", "BF16", "I8", ...
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;
};
// Tensors are laid out back to back in the given order; the header is padded with spaces to a
// multiple of 8 bytes, as the reference writer does.
std::vector<uint8_t> safetensors_file(const std::vector<StTensor>& ts,
                                      const std::map<std::string, std::string>& metadata = {});
// A small valid file: "a.weight" F32 [2,3], "b\u00e9" F16 [4], "c" BF16 [2,2], plus __metadata__.
std::vector<uint8_t> tiny_safetensors();

// ---- GGUF ----
class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}
  void kv_u8(const std::string& k, uint8_t v);
  void kv_i32(const std::string& k, int32_t v);
  void kv_u32(const std::string& k, uint32_t v);
  void kv_u64(const std::string& k, uint64_t v);
  void kv_bool(const std::string& k, bool v);
  void kv_f32(const std::string& k, float v);
  void kv_f64(const std::string& k, double v);
  void kv_string(const std::string& k, const std::string& v);
  void kv_array_strings(const std::string& k, const std::vector<std::string>& v);
  void kv_array_i32(const std::string& k, const std::vector<int32_t>& v);
  void kv_array_f32(const std::string& k, const std::vector<float>& v);
  void kv_array_nested(const std::string& k);  // [[1, 2], [3]] as arrays of u16
  // ne is innermost first, as GGUF stores it; data is the raw payload.
  void tensor(const std::string& name, uint32_t ggml_type, const std::vector<uint64_t>& ne,
              const std::vector<uint8_t>& data);
  std::vector<uint8_t> build(uint64_t alignment = 32) const;

 private:
  void key(const std::string& k, uint32_t type);
  struct T {
    std::string name;
    uint32_t type;
    std::vector<uint64_t> ne;
    std::vector<uint8_t> data;
  };
  uint32_t version_;
  uint64_t n_kv_ = 0;
  Bytes kv_;
  std::vector<T> tensors_;
};
// A small valid GGUF v3 model with F32 "tok_embd" (ne {4,3}), F16 "norm" (ne {4}), BF16 "proj"
// (ne {2,2,2}) and metadata of many types (strings, arrays of strings, nested arrays, floats);
// with_q8 adds a Q8_0 tensor "blk.0.ffn_q8" (one 34-byte block) that the reader must reject.
std::vector<uint8_t> tiny_gguf(uint32_t version = 3, bool with_q8 = false, uint64_t alignment = 32);

// ---- llama2.c ----
struct Llama2cConfig {
  int32_t dim = 8, hidden_dim = 12, n_layers = 2, n_heads = 2, n_kv_heads = 1, vocab_size = 10, seq_len = 4;
};
// Header then every float of the body set to its index (0, 1, 2, ...) so tests can check ordering.
std::vector<uint8_t> llama2c_file(const Llama2cConfig& c);

// ---- rwkv.cpp ggmf ----
struct RwkvTensor {
  std::string name;
  int32_t type;                  // 0 FP32, 1 FP16, 9 Q8_0, ...
  std::vector<int32_t> shape;    // PyTorch order (written reversed)
  std::vector<uint8_t> data;
};
std::vector<uint8_t> rwkv_file(uint32_t version, int32_t n_vocab, int32_t n_embed, int32_t n_layer, int32_t dtype,
                               const std::vector<RwkvTensor>& ts);
// A small valid rwkv file: emb.weight FP16 [5,4], blocks.0.ln1.weight FP32 [4], head.weight FP16 [5,4].
std::vector<uint8_t> tiny_rwkv();

// Write bytes to a file; false on error.
bool write_file(const std::string& path, const std::vector<uint8_t>& data);

}  // namespace ndp::synth
