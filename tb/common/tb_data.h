// Real weights for the RTL benches: the llama2.c stories260K checkpoint from the shared data
// folder, read with ndp_io and converted FP32 -> BF16 by round-to-nearest-even
// (ndp::fp32_to_bf16_rne). Tests GTEST_SKIP() when the folder is absent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ndp::tb {

struct Bf16Tensor {
  std::string name;
  std::vector<uint8_t> bytes;  // little-endian BF16 words
  uint64_t elements() const { return bytes.size() / 2; }
};

// Path of stories260K.bin under $NDP_DATA_DIR (environment) or the configured data folder.
std::string stories260k_path();
// Every tensor of the checkpoint as BF16. Returns false (and sets *why) when the file is missing
// or unreadable.
bool load_stories260k_bf16(std::vector<Bf16Tensor>* out, std::string* why);
// The GPT-2 attention weights att.{query,key,value,proj}.w (768 x 768) of decoders 1..layers as
// BF16 (FP32 -> BF16 by round-to-nearest-even). False (and *why) when the data is absent.
bool load_gpt2_attention_bf16(int layers, std::vector<Bf16Tensor>* out, std::string* why);

}  // namespace ndp::tb
