// Input loading shared by the ndp-rtl engines: the element tensors a run works on.
//   --input elems  IN is raw BF16 little-endian elements (one tensor; default)
//   --input fp32   IN is raw FP32 little-endian, converted by ndp::fp32_to_bf16_rne (one tensor)
//   --input model  IN is a model file ndp_io reads (llama2.c, safetensors, GGUF, ...); every FP32
//                  tensor becomes one BF16 tensor (RNE), BF16 tensors are taken as they are;
//                  --concat joins them into one stream (e.g. for steady-state rates)
#pragma once

#include <string>
#include <vector>

#include "engine.h"
#include "tb_data.h"

namespace ndp::rtl {

bool load_tensors(const EngineArgs& a, const std::string& kind, std::vector<tb::Bf16Tensor>* out,
                  std::string* err);
// --chunk (default 32768: multiple of 64, 64..32768) and --layout (expbyte|bitplane, default expbyte).
bool chunk_and_layout(const EngineArgs& a, uint32_t* chunk, bool* expbyte, std::string* err);

}  // namespace ndp::rtl
