// Test/bench helper: loads the real weights of ../shared/data (NDP_DATA_DIR) as BF16 (FP32 -> BF16
// round-to-nearest-even). Returns an empty list and sets *why when the data is absent, so callers
// can GTEST_SKIP() / print a message. Header-only; shared by codec, image tests and the benchmark.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ndp/convert.h"

namespace ndp::testdata {

struct NamedTensor {
  std::string name;
  std::vector<uint64_t> shape;
  std::vector<uint16_t> bf16;
  std::vector<uint32_t> fp32;  // the source FP32 bits (little-endian host values)
};

inline std::string data_dir() { return NDP_DATA_DIR; }

inline bool read_file(const std::string& path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  out->clear();
  uint8_t buf[65536];
  size_t r;
  while ((r = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + r);
  std::fclose(f);
  return true;
}

inline void finish(NamedTensor& t) {
  t.bf16.resize(t.fp32.size());
  for (size_t i = 0; i < t.fp32.size(); ++i) t.bf16[i] = fp32_to_bf16_rne(t.fp32[i]);
}

// GPT-2 attention weights att.{query,key,value,proj}.w of decoder1..6: FP32 big-endian 768x768.
inline std::vector<NamedTensor> load_gpt2_attention(std::string* why) {
  std::vector<NamedTensor> out;
  for (int d = 1; d <= 6; ++d)
    for (const char* m : {"query", "key", "value", "proj"}) {
      const std::string rel = "gpt2-small-attn/decoder" + std::to_string(d) + "/att." + m + ".w.dat";
      std::vector<uint8_t> raw;
      if (!read_file(data_dir() + "/" + rel, &raw) || raw.size() != 768u * 768u * 4u) {
        *why = "real data absent or wrong size: " + data_dir() + "/" + rel;
        return {};
      }
      NamedTensor t{"decoder" + std::to_string(d) + "/att." + m + ".w", {768, 768}, {}, {}};
      t.fp32.resize(raw.size() / 4);
      for (size_t i = 0; i < t.fp32.size(); ++i)
        t.fp32[i] = (uint32_t{raw[4 * i]} << 24) | (uint32_t{raw[4 * i + 1]} << 16) |
                    (uint32_t{raw[4 * i + 2]} << 8) | raw[4 * i + 3];
      finish(t);
      out.push_back(std::move(t));
    }
  return out;
}

// stories260K (llama2.c v0): 7 x int32 header, then FP32 LE tensors in llama2.c order.
inline std::vector<NamedTensor> load_stories260k(std::string* why) {
  const std::string path = data_dir() + "/stories260K/stories260K.bin";
  std::vector<uint8_t> raw;
  if (!read_file(path, &raw) || raw.size() < 28) {
    *why = "real data absent: " + path;
    return {};
  }
  int32_t h[7];
  for (int i = 0; i < 7; ++i)
    h[i] = static_cast<int32_t>(uint32_t{raw[4 * i]} | (uint32_t{raw[4 * i + 1]} << 8) |
                                (uint32_t{raw[4 * i + 2]} << 16) | (uint32_t{raw[4 * i + 3]} << 24));
  const uint64_t D = static_cast<uint64_t>(h[0]), H = static_cast<uint64_t>(h[1]),
                 L = static_cast<uint64_t>(h[2]), NH = static_cast<uint64_t>(h[3]),
                 KVH = static_cast<uint64_t>(h[4]), V = static_cast<uint64_t>(h[5] < 0 ? -h[5] : h[5]),
                 S = static_cast<uint64_t>(h[6]);
  const uint64_t hs = D / NH, KV = KVH * hs;
  std::vector<std::pair<std::string, std::vector<uint64_t>>> spec = {
      {"token_embedding_table", {V, D}}, {"layers.rms_att_weight", {L, D}}, {"layers.wq", {L, D, D}},
      {"layers.wk", {L, KV, D}},         {"layers.wv", {L, KV, D}},        {"layers.wo", {L, D, D}},
      {"layers.rms_ffn_weight", {L, D}}, {"layers.w1", {L, H, D}},         {"layers.w2", {L, D, H}},
      {"layers.w3", {L, H, D}},          {"rms_final_weight", {D}},        {"freq_cis_real", {S, hs / 2}},
      {"freq_cis_imag", {S, hs / 2}}};
  if (h[5] < 0) spec.push_back({"wcls", {V, D}});
  std::vector<NamedTensor> out;
  size_t off = 28;
  for (auto& [name, shape] : spec) {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    if (off + 4 * n > raw.size()) {
      *why = path + ": file shorter than its header implies";
      return {};
    }
    NamedTensor t{name, shape, {}, {}};
    t.fp32.resize(n);
    for (uint64_t i = 0; i < n; ++i, off += 4)
      t.fp32[i] = uint32_t{raw[off]} | (uint32_t{raw[off + 1]} << 8) | (uint32_t{raw[off + 2]} << 16) |
                  (uint32_t{raw[off + 3]} << 24);
    finish(t);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ndp::testdata
