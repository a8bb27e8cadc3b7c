#include "synth.h"

#include <cstdio>
#include <cstring>

namespace ndp::synth {

std::vector<uint8_t> f32_ramp(uint64_t n, float base, float step) {
  Bytes b;
  for (uint64_t i = 0; i < n; ++i) b.f32(base + static_cast<float>(i) * step);
  return b.b;
}

std::vector<uint8_t> f16_ramp(uint64_t n) {  // value i = 1 + (i % 16) / 16, exact in FP16
  Bytes b;
  for (uint64_t i = 0; i < n; ++i) b.u16(static_cast<uint16_t>(0x3C00 + 64 * (i % 16)));
  return b.b;
}

std::vector<uint8_t> bf16_ramp(uint64_t n, float base, float step) {
  Bytes b;
  for (uint64_t i = 0; i < n; ++i) {
    float f = base + static_cast<float>(i) * step;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    b.u16(static_cast<uint16_t>(u >> 16));
  }
  return b.b;
}

namespace {
std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}
}  // namespace

std::vector<uint8_t> safetensors_file(const std::vector<StTensor>& ts, const std::map<std::string, std::string>& md) {
  std::string h = "{";
  bool first = true;
  if (!md.empty()) {
    h += "\"__metadata__\":{";
    for (auto it = md.begin(); it != md.end(); ++it)
      h += (it == md.begin() ? "" : ",") + ("\"" + json_escape(it->first) + "\":\"" + json_escape(it->second) + "\"");
    h += "}";
    first = false;
  }
  uint64_t off = 0;
  for (const StTensor& t : ts) {
    h += first ? "" : ",";
    first = false;
    h += "\"" + json_escape(t.name) + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) h += (i ? "," : "") + std::to_string(t.shape[i]);
    h += "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + t.data.size()) + "]}";
    off += t.data.size();
  }
  h += "}";
  while (h.size() % 8) h += ' ';
  Bytes b;
  b.u64(h.size());
  b.str(h);
  for (const StTensor& t : ts) b.raw(t.data.data(), t.data.size());
  return b.b;
}

std::vector<uint8_t> tiny_safetensors() {
  return safetensors_file({{"a.weight", "F32", {2, 3}, f32_ramp(6, -1.0f, 0.5f)},
                           {"b\xc3\xa9", "F16", {4}, f16_ramp(4)},
                           {"c", "BF16", {2, 2}, bf16_ramp(4, 2.0f, 0.25f)}},
                          {{"format", "pt"}, {"note", "quote \" backslash \\ tab \t"}});
}

void GgufWriter::key(const std::string& k, uint32_t type) {
  ++n_kv_;
  kv_.u64(k.size());
  kv_.str(k);
  kv_.u32(type);
}
void GgufWriter::kv_u8(const std::string& k, uint8_t v) { key(k, 0); kv_.u8(v); }
void GgufWriter::kv_i32(const std::string& k, int32_t v) { key(k, 5); kv_.i32(v); }
void GgufWriter::kv_u32(const std::string& k, uint32_t v) { key(k, 4); kv_.u32(v); }
void GgufWriter::kv_u64(const std::string& k, uint64_t v) { key(k, 10); kv_.u64(v); }
void GgufWriter::kv_bool(const std::string& k, bool v) { key(k, 7); kv_.u8(v ? 1 : 0); }
void GgufWriter::kv_f32(const std::string& k, float v) { key(k, 6); kv_.f32(v); }
void GgufWriter::kv_f64(const std::string& k, double v) { key(k, 12); kv_.raw(&v, 8); }
void GgufWriter::kv_string(const std::string& k, const std::string& v) {
  key(k, 8);
  kv_.u64(v.size());
  kv_.str(v);
}
void GgufWriter::kv_array_strings(const std::string& k, const std::vector<std::string>& v) {
  key(k, 9);
  kv_.u32(8);
  kv_.u64(v.size());
  for (const auto& s : v) {
    kv_.u64(s.size());
    kv_.str(s);
  }
}
void GgufWriter::kv_array_i32(const std::string& k, const std::vector<int32_t>& v) {
  key(k, 9);
  kv_.u32(5);
  kv_.u64(v.size());
  for (int32_t x : v) kv_.i32(x);
}
void GgufWriter::kv_array_f32(const std::string& k, const std::vector<float>& v) {
  key(k, 9);
  kv_.u32(6);
  kv_.u64(v.size());
  for (float x : v) kv_.f32(x);
}
void GgufWriter::kv_array_nested(const std::string& k) {
  key(k, 9);
  kv_.u32(9);
  kv_.u64(2);
  kv_.u32(2);  // [1, 2] as u16
  kv_.u64(2);
  kv_.u16(1);
  kv_.u16(2);
  kv_.u32(2);  // [3]
  kv_.u64(1);
  kv_.u16(3);
}
void GgufWriter::tensor(const std::string& name, uint32_t type, const std::vector<uint64_t>& ne,
                        const std::vector<uint8_t>& data) {
  tensors_.push_back({name, type, ne, data});
}

std::vector<uint8_t> GgufWriter::build(uint64_t alignment) const {
  Bytes b;
  b.str("GGUF");
  b.u32(version_);
  b.u64(tensors_.size());
  b.u64(n_kv_);
  b.raw(kv_.b.data(), kv_.b.size());
  uint64_t off = 0;
  std::vector<uint64_t> offs;
  for (const T& t : tensors_) {
    b.u64(t.name.size());
    b.str(t.name);
    b.u32(static_cast<uint32_t>(t.ne.size()));
    for (uint64_t d : t.ne) b.u64(d);
    b.u32(t.type);
    b.u64(off);
    offs.push_back(off);
    off = (off + t.data.size() + alignment - 1) / alignment * alignment;
  }
  while (b.b.size() % alignment) b.u8(0);
  const size_t data_start = b.b.size();
  for (size_t i = 0; i < tensors_.size(); ++i) {
    b.b.resize(data_start + offs[i], 0);
    b.raw(tensors_[i].data.data(), tensors_[i].data.size());
  }
  return b.b;
}

std::vector<uint8_t> tiny_gguf(uint32_t version, bool with_q8, uint64_t alignment) {
  GgufWriter w(version);
  w.kv_string("general.architecture", "llama");
  w.kv_u32("general.quantization_version", 2);
  if (alignment != 32) w.kv_u32("general.alignment", static_cast<uint32_t>(alignment));
  w.kv_u32("llama.block_count", 1);
  w.kv_u64("llama.context_length", 16);
  w.kv_i32("test.negative", -7);
  w.kv_bool("test.flag", true);
  w.kv_u8("test.byte", 200);
  w.kv_f32("llama.rope.freq_base", 10000.0f);
  w.kv_f64("test.double", 0.125);
  w.kv_array_strings("tokenizer.ggml.tokens", {"<s>", "</s>", "hello", ""});
  w.kv_array_i32("tokenizer.ggml.token_type", {1, 3, 1, 1});
  w.kv_array_nested("test.nested");
  w.tensor("tok_embd", 0, {4, 3}, f32_ramp(12, 0.0f, 0.25f));
  w.tensor("norm", 1, {4}, f16_ramp(4));
  w.tensor("proj", 30, {2, 2, 2}, bf16_ramp(8, -2.0f, 0.5f));
  if (with_q8) {
    std::vector<uint8_t> block(34, 0x11);  // one Q8_0 block: fp16 scale + 32 int8
    w.tensor("blk.0.ffn_q8", 8, {32}, block);
  }
  return w.build(alignment);
}

std::vector<uint8_t> llama2c_file(const Llama2cConfig& c) {
  Bytes b;
  for (int32_t v : {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len}) b.i32(v);
  const uint64_t D = c.dim, H = c.hidden_dim, L = c.n_layers, S = c.seq_len;
  const uint64_t V = c.vocab_size < 0 ? -static_cast<int64_t>(c.vocab_size) : c.vocab_size;
  const uint64_t hs = D / c.n_heads, KV = hs * c.n_kv_heads;
  uint64_t n = V * D + L * D + L * D * D + 2 * L * KV * D + L * D * D + L * D + 3 * L * H * D + D + S * hs;
  if (c.vocab_size < 0) n += V * D;
  for (uint64_t i = 0; i < n; ++i) b.f32(static_cast<float>(i));
  return b.b;
}

std::vector<uint8_t> rwkv_file(uint32_t version, int32_t n_vocab, int32_t n_embed, int32_t n_layer, int32_t dtype,
                               const std::vector<RwkvTensor>& ts) {
  Bytes b;
  b.u32(0x67676d66u);
  b.u32(version);
  b.i32(n_vocab);
  b.i32(n_embed);
  b.i32(n_layer);
  b.i32(dtype);
  for (const RwkvTensor& t : ts) {
    b.i32(static_cast<int32_t>(t.shape.size()));
    b.i32(static_cast<int32_t>(t.name.size()));
    b.i32(t.type);
    for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) b.i32(*it);
    b.str(t.name);
    b.raw(t.data.data(), t.data.size());
  }
  return b.b;
}

std::vector<uint8_t> tiny_rwkv() {
  return rwkv_file(101, 5, 4, 1, 1,
                   {{"emb.weight", 1, {5, 4}, f16_ramp(20)},
                    {"blocks.0.ln1.weight", 0, {4}, f32_ramp(4, 1.0f, 0.5f)},
                    {"head.weight", 1, {5, 4}, f16_ramp(20)}});
}

bool write_file(const std::string& path, const std::vector<uint8_t>& data) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = data.empty() || std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace ndp::synth
