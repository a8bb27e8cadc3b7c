// Load a Llama-family model from disk (needs ndp_io; available when NDP_MODEL_HAVE_IO is defined).
#pragma once

#include <memory>
#include <string>

#include "ndp/llama.h"
#include "ndp/model_reader.h"
#include "ndp/tokenizer.h"

namespace ndp {

struct LoadedLlama {
  std::unique_ptr<Model> model;  // owns the tensors the weights point into
  LlamaModel llama;
  bool has_tokenizer = false;    // the model's own tokenizer was found and understood
  Tokenizer tokenizer;
  std::string tokenizer_error;   // why there is none (for a clear error when text must be tokenized)
};

// path: a llama2.c checkpoint (.bin), a GGUF file (general.architecture "llama"), a .safetensors
// file, or a directory holding one or more *.safetensors shards. Safetensors models need
// config.json in the same directory. The tokenizer comes from the GGUF metadata or from
// tokenizer.json beside the safetensors files; llama2.c checkpoints carry none.
Result<LoadedLlama> load_llama(const std::string& path);

}  // namespace ndp
