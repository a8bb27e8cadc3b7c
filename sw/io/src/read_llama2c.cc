// llama2.c legacy (v0) checkpoint: 7 x int32 header, then FP32 tensors in run.c order.
#include <algorithm>
#include <cstring>

#include "ndp/model_reader.h"
#include "reader_util.h"

namespace ndp {
namespace {

struct Header {
  int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
};

struct Part {
  const char* name;
  std::vector<uint64_t> shape;
};

// Validate the header fields; the message names the first implausible field.
Status check_header(const Header& h, const std::string& what) {
  auto bad = [&](uint64_t off, const std::string& m) { return io::reader_error(what, off, "llama2.c header: " + m); };
  if (h.dim <= 0) return bad(0, "dim " + std::to_string(h.dim) + " must be positive");
  if (h.hidden_dim <= 0) return bad(4, "hidden_dim " + std::to_string(h.hidden_dim) + " must be positive");
  if (h.n_layers <= 0) return bad(8, "n_layers " + std::to_string(h.n_layers) + " must be positive");
  if (h.n_heads <= 0 || h.dim % h.n_heads != 0)
    return bad(12, "n_heads " + std::to_string(h.n_heads) + " must be positive and divide dim " + std::to_string(h.dim));
  if ((h.dim / h.n_heads) % 2 != 0)
    return bad(12, "head size " + std::to_string(h.dim / h.n_heads) + " must be even (rotary pairs)");
  if (h.n_kv_heads <= 0 || h.n_kv_heads > h.n_heads || h.n_heads % h.n_kv_heads != 0)
    return bad(16, "n_kv_heads " + std::to_string(h.n_kv_heads) + " must be positive and divide n_heads " +
                       std::to_string(h.n_heads));
  if (h.vocab_size == 0 || h.vocab_size == INT32_MIN)
    return bad(20, "vocab_size " + std::to_string(h.vocab_size) + " is invalid");
  if (h.seq_len <= 0) return bad(24, "seq_len " + std::to_string(h.seq_len) + " must be positive");
  return Status::Ok();
}

// The tensors the header implies, in file order.
std::vector<Part> layout(const Header& h) {
  const uint64_t L = h.n_layers, D = h.dim, H = h.hidden_dim, S = h.seq_len;
  const uint64_t V = h.vocab_size < 0 ? -static_cast<int64_t>(h.vocab_size) : h.vocab_size;
  const uint64_t hs = D / h.n_heads, KV = hs * h.n_kv_heads;
  std::vector<Part> parts = {
      {"token_embedding_table", {V, D}}, {"layers.rms_att_weight", {L, D}}, {"layers.wq", {L, D, D}},
      {"layers.wk", {L, KV, D}},         {"layers.wv", {L, KV, D}},         {"layers.wo", {L, D, D}},
      {"layers.rms_ffn_weight", {L, D}}, {"layers.w1", {L, H, D}},          {"layers.w2", {L, D, H}},
      {"layers.w3", {L, H, D}},          {"rms_final_weight", {D}},         {"freq_cis_real", {S, hs / 2}},
      {"freq_cis_imag", {S, hs / 2}},
  };
  if (h.vocab_size < 0) parts.push_back({"wcls", {V, D}});
  return parts;
}

// Header, layout and exact file size; fills *h and *parts.
Status check_all(const uint8_t* p, size_t n, const std::string& what, Header* hp, std::vector<Part>* parts) {
  io::Cursor c(p, n, what);
  uint32_t magic;
  if (n >= 4 && (std::memcpy(&magic, p, 4), magic == 0x616b3432u))
    return c.error_at(0, "llama2.c version 1/2 export (magic \"ak42\") is not supported; only the legacy v0 format");
  NDP_RETURN_IF_ERROR(c.need(28, "the 7 x int32 llama2.c header"));
  Header& h = *hp;
  std::memcpy(&h, p, 28);
  NDP_RETURN_IF_ERROR(check_header(h, what));
  *parts = layout(h);
  uint64_t total = 28;  // bytes the header implies; int32 fields can make products overflow: check
  for (const Part& part : *parts) {
    uint64_t e, b;
    if (!io::shape_elements(part.shape, &e) || !io::mul_ok(e, 4, &b) || !io::add_ok(total, b, &total))
      return c.error_at(0, "llama2.c header implies a size that overflows 64 bits");
  }
  if (total != n)
    return c.error_at(std::min<uint64_t>(total, n),
                      "file size " + std::to_string(n) + " does not match the " + std::to_string(total) +
                          " bytes implied by the llama2.c header (dim " + std::to_string(h.dim) + ", hidden_dim " +
                          std::to_string(h.hidden_dim) + ", n_layers " + std::to_string(h.n_layers) + ", n_heads " +
                          std::to_string(h.n_heads) + ", n_kv_heads " + std::to_string(h.n_kv_heads) +
                          ", vocab_size " + std::to_string(h.vocab_size) + ", seq_len " + std::to_string(h.seq_len) + ")");
  return Status::Ok();
}

}  // namespace

namespace io {

Status llama2c_check(const uint8_t* p, size_t n, const std::string& what) {
  Header h;
  std::vector<Part> parts;
  return check_all(p, n, what, &h, &parts);
}

}  // namespace io

Result<Model> parse_llama2c(const uint8_t* p, size_t n, const std::string& what) {
  Header h;
  std::vector<Part> parts;
  NDP_RETURN_IF_ERROR(check_all(p, n, what, &h, &parts));
  io::Cursor c(p, n, what);
  NDP_RETURN_IF_ERROR(c.skip(28, "the llama2.c header"));
  Model m;
  m.format = ModelFormat::kLlama2c;
  m.meta = {{"dim", h.dim},
            {"hidden_dim", h.hidden_dim},
            {"n_layers", h.n_layers},
            {"n_heads", h.n_heads},
            {"n_kv_heads", h.n_kv_heads},
            {"vocab_size", h.vocab_size < 0 ? -static_cast<int64_t>(h.vocab_size) : h.vocab_size},
            {"seq_len", h.seq_len},
            {"head_size", h.dim / h.n_heads},
            {"kv_dim", static_cast<int64_t>(h.dim / h.n_heads) * h.n_kv_heads},
            {"shared_classifier", h.vocab_size > 0 ? 1 : 0}};
  m.tensors.reserve(parts.size());
  for (Part& part : parts) {
    uint64_t e = 0;
    if (!io::shape_elements(part.shape, &e)) e = UINT64_MAX / 4;  // cannot happen after check_all
    NDP_RETURN_IF_ERROR(c.need(e * 4, part.name));  // guaranteed by the size check; kept as a guard
    m.tensors.push_back(io::make_tensor(part.name, DType::kFP32, std::move(part.shape), e, c.here(), e * 4));
    NDP_RETURN_IF_ERROR(c.skip(e * 4, part.name));
  }
  return m;
}

}  // namespace ndp
