// Load a Llama-family model from disk (needs ndp_io; available when NDP_MODEL_HAVE_IO is defined).
#pragma once

#include <memory>
#include <string>

#include "ndp/llama.h"
#include "ndp/model_reader.h"

namespace ndp {

struct LoadedLlama {
  std::unique_ptr<Model> model;  // owns the tensors the weights point into
  LlamaModel llama;
};

// path: a llama2.c checkpoint (.bin), a .safetensors file, or a directory holding one or more
// *.safetensors shards. Safetensors models need config.json in the same directory.
Result<LoadedLlama> load_llama(const std::string& path);

}  // namespace ndp
