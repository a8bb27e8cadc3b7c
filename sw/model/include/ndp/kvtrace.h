// KV trace files: the KV cache of a real model run, as a serving system stores it (docs/kv.md).
//
// Layout (all integers little-endian):
//   64-byte header
//     0-3   magic "NKVT"          4-5   version = 1          6 dtype code (1 = bf16)   7 reserved 0
//     8-11  n_layers              12-15 n_kv_heads           16-19 head_dim (C)
//     20-23 n_tokens (T)          24-27 n_heads (query)      28-31 model dim
//     32-39 sampler seed          40-43 XXH32 (seed 0) of the whole file, this field read as 0
//     44-45 model name length L   46-47 rope style (0 interleaved, 1 half)   48-63 reserved 0
//   L bytes of model name (UTF-8, no terminator)
//   T x u32 token ids (the token fed at each position)
//   KV payload: for layer l, for kind (0 = K after RoPE, 1 = V), for KV head h: T x C elements,
//   token-major ([t][c]), each in the trace dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ndp/checked.h"
#include "ndp/dtype.h"
#include "ndp/status.h"

namespace ndp {

constexpr size_t kKvTraceHeaderBytes = 64;
// Largest payload a trace may hold (elements; 16 GiB of 16-bit words): readers and writers reject more.
constexpr uint64_t kKvTraceMaxElems = uint64_t{1} << 33;

struct KvTrace {
  DType dtype = DType::kBF16;
  uint32_t n_layers = 0, n_kv_heads = 0, head_dim = 0, n_tokens = 0;
  uint32_t n_heads = 0, dim = 0;
  uint64_t seed = 0;
  uint16_t rope_style = 0;
  std::string model_name;
  std::vector<uint32_t> tokens;   // n_tokens
  std::vector<uint16_t> kv;       // n_layers * 2 * n_kv_heads * n_tokens * head_dim

  // Number of (layer, kind, head) streams and elements per stream (each fits in 64 bits).
  uint64_t streams() const { return uint64_t{n_layers} * 2 * n_kv_heads; }
  uint64_t stream_elems() const { return uint64_t{n_tokens} * head_dim; }
  // Elements of the whole payload, streams() x stream_elems(), into *n; false when the product
  // overflows 64 bits (any 32-bit header fields can make it).
  bool payload_elems(uint64_t* n) const { return mul_ok(streams(), stream_elems(), n); }
  // First element of stream (layer, kind, head): T x C token-major. Precondition: check_kv_trace(*this)
  // is ok and layer < n_layers, kind < 2, head < n_kv_heads (then the stream lies inside kv).
  const uint16_t* stream(uint32_t layer, uint32_t kind, uint32_t head) const {
    return kv.data() + ((uint64_t{layer} * 2 + kind) * n_kv_heads + head) * stream_elems();
  }
  uint16_t* stream(uint32_t layer, uint32_t kind, uint32_t head) {
    return kv.data() + ((uint64_t{layer} * 2 + kind) * n_kv_heads + head) * stream_elems();
  }
};

// Size checks shared by reader and writer (non-zero geometry, kv/tokens sizes consistent, 16-bit
// dtype). Error names the field.
Status check_kv_trace(const KvTrace& t);

// Serialize / write. Errors name the path.
Result<std::vector<uint8_t>> serialize_kv_trace(const KvTrace& t);
Status write_kv_trace(const std::string& path, const KvTrace& t);

// Parse / read. Every size is checked against the input before it is used; errors name `what` and
// the byte offset of the first inconsistency. Never reads out of bounds.
Result<KvTrace> parse_kv_trace(const uint8_t* p, size_t n, const std::string& what);
Result<KvTrace> read_kv_trace(const std::string& path);

}  // namespace ndp
