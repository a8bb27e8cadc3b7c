// Tensor access traces for the prefetcher: the order in which a model's weight tensors are used in
// one iteration, their sizes and the compute time of each use. A trace comes from a profiling pass
// over the real forward pass of sw/model (10Cache's dry run, ../shared/papers/10cache.txt 3.2),
// and can be scaled to the shapes of larger models of the same family.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndp/llama.h"
#include "ndp/status.h"

namespace ndp::pf {

enum class Role : uint8_t { kEmbedding, kAttnNorm, kWq, kWk, kWv, kWo, kFfnNorm, kW1, kW3, kW2, kFinalNorm, kClassifier };
const char* role_name(Role r);

struct Tensor {
  std::string name;  // "layers.3.w1", "tok_embeddings"
  Role role = Role::kEmbedding;
  int layer = -1;    // -1 outside the blocks
  uint64_t bytes = 0;
};

struct Use {
  uint32_t tensor = 0;
  double compute_s = 0;  // time the computation that uses the tensor takes once it is present
};

struct AccessTrace {
  std::string model;
  std::vector<Tensor> tensors;
  std::vector<Use> uses;  // one iteration, in order
  uint64_t total_bytes() const;
  double compute_s() const;
};

// Profiling pass: `steps` decode steps of the real model with a WeightObserver. The order is the
// one observed; each use's compute time is the mean measured time from its use to the next
// weight's use (the last one: to the end of the step). Tensor bytes are as stored in the model.
Result<AccessTrace> profile_llama(const LlamaModel& m, int steps);

// Shapes of larger models of the family (the 7B/12B configurations sw/runtime's planner plans).
struct ModelShape {
  std::string name;
  uint32_t dim = 0, hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0;
  uint32_t elem_bytes = 2;  // BF16 weights
};
const std::vector<ModelShape>& known_shapes();  // llama2-7b, qwen2.5-7b, mistral-nemo-12b
Result<ModelShape> find_shape(const std::string& name);

struct ScaleOptions {
  uint64_t tokens = 16384;   // tokens per iteration (micro-batch x sequence)
  double gpu_tflops = 150;   // sustained dense BF16 rate of the GPU
  double min_kernel_s = 5e-6;  // floor per use (a kernel launch, a norm)
  bool backward = true;      // a training iteration: the forward order, then the reverse (2x compute)
};

// The profiled order of one block (its roles, as observed in layer 0), repeated for `shape`'s
// layers between the embedding and the final norm and classifier; sizes from the shape; compute
// time from FLOPs (2 x rows x cols x tokens forward, twice that backward) at gpu_tflops.
Result<AccessTrace> scale_trace(const AccessTrace& profiled, const ModelShape& shape, const ScaleOptions& o);

// The profiled trace as it is, with the backward pass appended (reverse order, twice the time).
AccessTrace with_backward(const AccessTrace& t);

}  // namespace ndp::pf
