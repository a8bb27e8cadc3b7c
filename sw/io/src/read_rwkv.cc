// rwkv.cpp "ggmf" file (rwkv.cpp docs/FILE_FORMAT.md): 24-byte header <IIiiii> (magic 0x67676d66,
// version 100/101, n_vocab, n_embed, n_layer, data_type), then until EOF per tensor <iii> (n_dims,
// key_len, data_type), n_dims x int32 dims (reversed PyTorch order), key bytes, raw data.
#include <unordered_set>

#include "ndp/model_reader.h"
#include "reader_util.h"

namespace ndp {
namespace {

constexpr uint32_t kMagic = 0x67676d66u;
constexpr int32_t kMaxDims = 4;

const char* rwkv_type_name(int32_t t) {
  static const char* kNames[] = {"FP32", "FP16",   "Q4_0", "Q4_1", "Q4_1_O", "Q4_2", "Q4_3", "Q5_0", "Q5_1",
                                 "Q8_0", "Q8_1", "Q2_K", "Q3_K", "Q4_K",   "Q5_K", "Q6_K", "Q8_K"};
  return t >= 0 && t < static_cast<int32_t>(sizeof(kNames) / sizeof(kNames[0])) ? kNames[t] : "unknown";
}

Status read_header(io::Cursor& c, Model* m) {
  uint32_t magic, version;
  int32_t f[4];
  NDP_RETURN_IF_ERROR(c.u32(&magic, "rwkv magic"));
  if (magic != kMagic) return c.error_at(0, "not an rwkv.cpp file (magic is not 0x67676d66 \"ggmf\")");
  NDP_RETURN_IF_ERROR(c.u32(&version, "rwkv version"));
  if (version != 100 && version != 101)
    return c.error_at(4, "rwkv.cpp file version " + std::to_string(version) + " is not supported (100 or 101)");
  static const char* kField[] = {"n_vocab", "n_embed", "n_layer", "data_type"};
  for (int i = 0; i < 4; ++i) {
    NDP_RETURN_IF_ERROR(c.i32(&f[i], kField[i]));
    if (i < 3 && f[i] <= 0)
      return c.error_at(8 + 4 * i, std::string(kField[i]) + " " + std::to_string(f[i]) + " must be positive");
  }
  if (std::string(rwkv_type_name(f[3])) == "unknown")
    return c.error_at(20, "unknown file data type " + std::to_string(f[3]));
  m->meta = {{"version", version}, {"n_vocab", f[0]}, {"n_embed", f[1]}, {"n_layer", f[2]}, {"file_dtype", f[3]}};
  return Status::Ok();
}

Status read_tensor(io::Cursor& c, Model* m, std::unordered_set<std::string>* seen) {
  const size_t at = c.pos();
  int32_t nd, key_len, type;
  NDP_RETURN_IF_ERROR(c.i32(&nd, "tensor n_dims"));
  NDP_RETURN_IF_ERROR(c.i32(&key_len, "tensor key length"));
  NDP_RETURN_IF_ERROR(c.i32(&type, "tensor data type"));
  if (nd < 1 || nd > kMaxDims) return c.error_at(at, "tensor n_dims " + std::to_string(nd) + " is not in 1..4");
  if (key_len <= 0) return c.error_at(at + 4, "tensor key length " + std::to_string(key_len) + " must be positive");
  std::vector<uint64_t> shape(nd);
  for (int32_t i = nd - 1; i >= 0; --i) {  // stored innermost first
    int32_t d;
    NDP_RETURN_IF_ERROR(c.i32(&d, "tensor dimension"));
    if (d <= 0) return c.error_at(c.pos() - 4, "tensor dimension " + std::to_string(d) + " must be positive");
    shape[i] = static_cast<uint64_t>(d);
  }
  std::string key;
  NDP_RETURN_IF_ERROR(c.str(static_cast<uint64_t>(key_len), &key, "tensor key"));
  if (!seen->insert(key).second) return c.error_at(at, "duplicate tensor '" + key + "'");
  DType dt;
  if (type == 0) dt = DType::kFP32;
  else if (type == 1) dt = DType::kFP16;
  else
    return c.error_at(at + 8, "tensor '" + key + "': data type " + rwkv_type_name(type) + " (" + std::to_string(type) +
                                  ") is not supported (supported: FP32, FP16; quantized tensors are rejected)");
  uint64_t e, bytes;
  if (!io::shape_elements(shape, &e) || !io::mul_ok(e, dtype_bytes(dt, 1), &bytes))
    return c.error_at(at, "tensor '" + key + "': shape " + io::shape_str(shape) + " overflows");
  NDP_RETURN_IF_ERROR(c.need(bytes, ("data of tensor '" + key + "'").c_str()));
  m->tensors.push_back(io::make_tensor(std::move(key), dt, std::move(shape), e, c.here(), bytes));
  return c.skip(bytes, "tensor data");
}

// The file is read until EOF, so a cut at a tensor boundary is only visible from what is missing:
// rwkv.cpp needs emb.weight and head.weight (it is written last) as [n_vocab, n_embed], and
// blocks 0..n_layer-1.
Status check_complete(const io::Cursor& c, const Model& m) {
  const uint64_t V = m.meta.at("n_vocab"), E = m.meta.at("n_embed"), L = m.meta.at("n_layer");
  for (const char* name : {"emb.weight", "head.weight"}) {
    const Tensor* t = find_tensor(m, name);
    if (!t)
      return c.error(std::string("truncated or incomplete: tensor '") + name +
                     "' missing (rwkv.cpp needs emb.weight and head.weight)");
    if (t->shape != std::vector<uint64_t>{V, E})
      return c.error(std::string("tensor '") + name + "' has shape " + io::shape_str(t->shape) +
                     ", header says [n_vocab, n_embed] = " + io::shape_str({V, E}));
  }
  std::unordered_set<uint64_t> blocks;  // n_layer comes from the header: do not size anything by it
  for (const Tensor& t : m.tensors) {
    if (t.name.rfind("blocks.", 0) != 0) continue;
    uint64_t k = 0;
    size_t i = 7;
    for (; i < t.name.size() && t.name[i] >= '0' && t.name[i] <= '9' && k <= L; ++i) k = k * 10 + (t.name[i] - '0');
    if (i == 7 || k >= L)
      return c.error("tensor '" + t.name + "' is outside blocks 0.." + std::to_string(L - 1) + " (n_layer " +
                     std::to_string(L) + ")");
    blocks.insert(k);
  }
  if (blocks.size() != L)  // all indices are < L, so fewer than L distinct means a block is missing
    return c.error("truncated or incomplete: tensors for " + std::to_string(blocks.size()) + " of n_layer " +
                   std::to_string(L) + " blocks");
  return Status::Ok();
}

}  // namespace

Result<Model> parse_rwkv(const uint8_t* p, size_t n, const std::string& what) {
  io::Cursor c(p, n, what);
  Model m;
  m.format = ModelFormat::kRwkv;
  NDP_RETURN_IF_ERROR(read_header(c, &m));
  std::unordered_set<std::string> seen;
  while (c.remaining() > 0) {
    if (m.tensors.size() == kMaxModelTensors)
      return c.error("more than " + std::to_string(kMaxModelTensors) + " tensors");
    NDP_RETURN_IF_ERROR(read_tensor(c, &m, &seen));
  }
  if (m.tensors.empty()) return c.error("rwkv.cpp file holds no tensors");
  NDP_RETURN_IF_ERROR(check_complete(c, m));
  return m;
}

}  // namespace ndp
