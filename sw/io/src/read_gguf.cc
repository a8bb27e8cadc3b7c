// GGUF v2/v3 (llama.cpp docs/gguf.md): "GGUF", u32 version, u64 tensor_count, u64 kv_count,
// kv_count x {string key, u32 type, value}, tensor_count x {string name, u32 n_dims, u64 ne[n_dims]
// (innermost first), u32 ggml type, u64 offset}, padding to general.alignment (default 32), data.
// Strings are u64 length + bytes. Only F32, F16 and BF16 tensors are accepted. Integer/bool metadata
// goes to Model::meta, strings to meta_str, floats to meta_f64, one-level arrays of strings / numbers
// to meta_str_arrays / meta_num_arrays (the tokenizer); nested arrays are validated and skipped.
#include <unordered_set>

#include "ndp/model_reader.h"
#include "reader_util.h"

namespace ndp {
namespace {

enum GgufType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};
constexpr int kMaxArrayDepth = 8;
constexpr uint32_t kMaxDims = 4;  // GGML_MAX_DIMS

// Byte size of a fixed-size GGUF value type, 0 for string/array/unknown.
uint64_t fixed_size(uint32_t t) {
  switch (t) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    case kU64: case kI64: case kF64: return 8;
    default: return 0;
  }
}

Status read_string(io::Cursor& c, std::string* s, const char* field) {
  uint64_t len;
  NDP_RETURN_IF_ERROR(c.u64(&len, field));
  return c.str(len, s, field);
}

// Skip a value of type t (arrays recursively, bounded depth). Linear in the bytes consumed: every
// element is at least one byte, and array lengths are checked against the bytes left.
Status skip_value(io::Cursor& c, uint32_t t, int depth) {
  if (uint64_t sz = fixed_size(t)) return c.skip(sz, "metadata value");
  if (t == kString) {
    uint64_t len;
    NDP_RETURN_IF_ERROR(c.u64(&len, "string length"));
    return c.skip(len, "string bytes");
  }
  if (t != kArray) return c.error("unknown metadata value type " + std::to_string(t));
  if (depth >= kMaxArrayDepth) return c.error("metadata arrays nested deeper than " + std::to_string(kMaxArrayDepth));
  uint32_t et;
  uint64_t count;
  NDP_RETURN_IF_ERROR(c.u32(&et, "array element type"));
  NDP_RETURN_IF_ERROR(c.u64(&count, "array length"));
  if (uint64_t sz = fixed_size(et)) {
    uint64_t bytes;
    if (!io::mul_ok(count, sz, &bytes)) return c.error("array of " + std::to_string(count) + " elements overflows");
    return c.skip(bytes, "array elements");
  }
  if (et != kString && et != kArray) return c.error("unknown array element type " + std::to_string(et));
  const uint64_t min_elem = et == kString ? 8 : 12;  // length field / (type, count) header
  if (count > c.remaining() / min_elem)
    return c.error("truncated: array of " + std::to_string(count) + " elements cannot fit in the " +
                   std::to_string(c.remaining()) + " bytes left");
  for (uint64_t i = 0; i < count; ++i) NDP_RETURN_IF_ERROR(skip_value(c, et, depth + 1));
  return Status::Ok();
}

// Read one scalar of integer/bool type into *v; *stored = false for other types.
Status read_scalar(io::Cursor& c, uint32_t t, int64_t* v, bool* stored) {
  *stored = true;
  switch (t) {
    case kU8: case kBool: { uint8_t x; NDP_RETURN_IF_ERROR(c.get(&x, "u8 value")); *v = x; return Status::Ok(); }
    case kI8: { int8_t x; NDP_RETURN_IF_ERROR(c.get(&x, "i8 value")); *v = x; return Status::Ok(); }
    case kU16: { uint16_t x; NDP_RETURN_IF_ERROR(c.get(&x, "u16 value")); *v = x; return Status::Ok(); }
    case kI16: { int16_t x; NDP_RETURN_IF_ERROR(c.get(&x, "i16 value")); *v = x; return Status::Ok(); }
    case kU32: { uint32_t x; NDP_RETURN_IF_ERROR(c.get(&x, "u32 value")); *v = x; return Status::Ok(); }
    case kI32: { int32_t x; NDP_RETURN_IF_ERROR(c.get(&x, "i32 value")); *v = x; return Status::Ok(); }
    case kI64: { int64_t x; NDP_RETURN_IF_ERROR(c.get(&x, "i64 value")); *v = x; return Status::Ok(); }
    case kU64: {
      uint64_t x;
      NDP_RETURN_IF_ERROR(c.get(&x, "u64 value"));
      *v = static_cast<int64_t>(x);
      *stored = x <= static_cast<uint64_t>(INT64_MAX);
      return Status::Ok();
    }
    default: *stored = false; return Status::Ok();
  }
}

// One element of a numeric type as a double.
Status read_number(io::Cursor& c, uint32_t t, double* out) {
  if (t == kF32) {
    float f;
    NDP_RETURN_IF_ERROR(c.get(&f, "f32 value"));
    *out = f;
    return Status::Ok();
  }
  if (t == kF64) return c.get(out, "f64 value");
  if (t == kU64) {
    uint64_t x;
    NDP_RETURN_IF_ERROR(c.get(&x, "u64 value"));
    *out = static_cast<double>(x);
    return Status::Ok();
  }
  int64_t v = 0;
  bool stored = false;
  NDP_RETURN_IF_ERROR(read_scalar(c, t, &v, &stored));
  *out = static_cast<double>(v);
  return Status::Ok();
}

// An array value: strings and numbers are kept (one level), nested arrays are skipped.
Status read_array(io::Cursor& c, const std::string& key, Model* m) {
  uint32_t et;
  uint64_t count;
  NDP_RETURN_IF_ERROR(c.u32(&et, "array element type"));
  NDP_RETURN_IF_ERROR(c.u64(&count, "array length"));
  const uint64_t min_elem = fixed_size(et) ? fixed_size(et) : et == kString ? 8 : et == kArray ? 12 : 0;
  if (min_elem == 0) return c.error("unknown array element type " + std::to_string(et));
  if (count > c.remaining() / min_elem)
    return c.error("truncated: array of " + std::to_string(count) + " elements cannot fit in the " +
                   std::to_string(c.remaining()) + " bytes left");
  if (et == kString) {
    std::vector<std::string> v(static_cast<size_t>(count));
    for (auto& s : v) NDP_RETURN_IF_ERROR(read_string(c, &s, "array string"));
    m->meta_str_arrays[key] = std::move(v);
  } else if (et == kArray) {
    for (uint64_t i = 0; i < count; ++i) NDP_RETURN_IF_ERROR(skip_value(c, et, 1));
  } else {
    std::vector<double> v(static_cast<size_t>(count));
    for (auto& x : v) NDP_RETURN_IF_ERROR(read_number(c, et, &x));
    m->meta_num_arrays[key] = std::move(v);
  }
  return Status::Ok();
}

Status read_kv(io::Cursor& c, Model* m, std::unordered_set<std::string>* seen) {
  const size_t at = c.pos();
  std::string key;
  NDP_RETURN_IF_ERROR(read_string(c, &key, "metadata key"));
  if (!seen->insert(key).second) return c.error_at(at, "duplicate metadata key \"" + key + "\"");
  uint32_t t;
  NDP_RETURN_IF_ERROR(c.u32(&t, "metadata value type"));
  if (t == kString) {
    std::string s;
    NDP_RETURN_IF_ERROR(read_string(c, &s, "metadata string value"));
    m->meta_str[key] = std::move(s);
    return Status::Ok();
  }
  if (t == kArray) return read_array(c, key, m);
  if (t == kF32 || t == kF64) return read_number(c, t, &m->meta_f64[key]);
  int64_t v = 0;
  bool stored = false;
  if (fixed_size(t)) NDP_RETURN_IF_ERROR(read_scalar(c, t, &v, &stored));
  else NDP_RETURN_IF_ERROR(skip_value(c, t, 0));
  if (stored) m->meta[key] = v;
  return Status::Ok();
}

struct Info {
  std::string name;
  std::vector<uint64_t> shape;  // outermost first
  DType dtype;
  uint64_t elements, offset, bytes;
  size_t at;  // file offset of the tensor info
};

Status read_info(io::Cursor& c, Info* ti) {
  ti->at = c.pos();
  NDP_RETURN_IF_ERROR(read_string(c, &ti->name, "tensor name"));
  uint32_t nd, type;
  NDP_RETURN_IF_ERROR(c.u32(&nd, "tensor n_dims"));
  if (nd > kMaxDims)
    return c.error_at(ti->at, "tensor '" + ti->name + "': n_dims " + std::to_string(nd) + " exceeds " +
                                  std::to_string(kMaxDims));
  std::vector<uint64_t> ne(nd);
  for (uint32_t i = 0; i < nd; ++i) {
    NDP_RETURN_IF_ERROR(c.u64(&ne[i], "tensor dimension"));
    if (ne[i] > static_cast<uint64_t>(INT64_MAX))
      return c.error_at(ti->at, "tensor '" + ti->name + "': dimension " + std::to_string(ne[i]) + " is negative");
  }
  ti->shape.assign(ne.rbegin(), ne.rend());
  NDP_RETURN_IF_ERROR(c.u32(&type, "tensor ggml type"));
  NDP_RETURN_IF_ERROR(c.u64(&ti->offset, "tensor data offset"));
  if (type == 0) ti->dtype = DType::kFP32;
  else if (type == 1) ti->dtype = DType::kFP16;
  else if (type == 30) ti->dtype = DType::kBF16;
  else
    return c.error_at(ti->at, "tensor '" + ti->name + "': ggml type " + ggml_type_name(type) + " (" +
                                  std::to_string(type) + ") is not supported (supported: F32, F16, BF16; " +
                                  "quantized tensors cannot be stored as bit-planes losslessly)");
  if (!io::shape_elements(ti->shape, &ti->elements) ||
      !io::mul_ok(ti->elements, dtype_bytes(ti->dtype, 1), &ti->bytes))
    return c.error_at(ti->at, "tensor '" + ti->name + "': shape " + io::shape_str(ti->shape) + " overflows");
  return Status::Ok();
}

Status alignment_of(const Model& m, io::Cursor& c, uint64_t* align) {
  *align = 32;
  auto it = m.meta.find("general.alignment");
  if (it == m.meta.end()) return Status::Ok();
  int64_t a = it->second;
  if (a <= 0 || a > (1 << 30) || (a & (a - 1)) != 0)
    return c.error_at(16, "general.alignment " + std::to_string(a) + " is not a power of two <= 2^30");
  *align = static_cast<uint64_t>(a);
  return Status::Ok();
}

}  // namespace

const char* ggml_type_name(uint32_t type) {
  static const char* kNames[] = {
      "F32",     "F16",    "Q4_0",    "Q4_1",  "Q4_2(removed)", "Q4_3(removed)", "Q5_0",  "Q5_1",
      "Q8_0",    "Q8_1",   "Q2_K",    "Q3_K",  "Q4_K",          "Q5_K",          "Q6_K",  "Q8_K",
      "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL",        "IQ3_S",         "IQ2_S", "IQ4_XS",
      "I8",      "I16",    "I32",     "I64",   "F64",           "IQ1_M",         "BF16",  "Q4_0_4_4",
      "Q4_0_4_8", "Q4_0_8_8", "TQ1_0", "TQ2_0", "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4"};
  return type < sizeof(kNames) / sizeof(kNames[0]) ? kNames[type] : "unknown";
}

Result<Model> parse_gguf(const uint8_t* p, size_t n, const std::string& what) {
  io::Cursor c(p, n, what);
  uint32_t magic, version;
  NDP_RETURN_IF_ERROR(c.u32(&magic, "GGUF magic"));
  if (magic != 0x46554747u) return c.error_at(0, "not a GGUF file (magic is not \"GGUF\")");
  NDP_RETURN_IF_ERROR(c.u32(&version, "GGUF version"));
  if (version != 2 && version != 3)
    return c.error_at(4, "GGUF version " + std::to_string(version) + " is not supported (only 2 and 3" +
                             (version > 0xFFFF ? "; big-endian GGUF files are not supported)" : ")"));
  uint64_t n_tensors, n_kv;
  NDP_RETURN_IF_ERROR(c.u64(&n_tensors, "tensor count"));
  NDP_RETURN_IF_ERROR(c.u64(&n_kv, "metadata count"));
  Model m;
  m.format = ModelFormat::kGGUF;
  m.meta["gguf.version"] = version;
  std::unordered_set<std::string> seen;
  for (uint64_t i = 0; i < n_kv; ++i) NDP_RETURN_IF_ERROR(read_kv(c, &m, &seen));  // ends at EOF if n_kv lies
  uint64_t align;
  NDP_RETURN_IF_ERROR(alignment_of(m, c, &align));

  if (n_tensors > kMaxModelTensors)
    return c.error_at(8, "tensor count " + std::to_string(n_tensors) + " exceeds " + std::to_string(kMaxModelTensors));
  if (n_tensors > c.remaining() / 24)  // every tensor info is at least 24 bytes
    return c.error("truncated: " + std::to_string(n_tensors) + " tensor infos cannot fit in the " +
                   std::to_string(c.remaining()) + " bytes left");
  std::vector<Info> infos(static_cast<size_t>(n_tensors));
  std::unordered_set<std::string> names_seen;
  for (Info& ti : infos) {
    NDP_RETURN_IF_ERROR(read_info(c, &ti));
    if (!names_seen.insert(ti.name).second) return c.error_at(ti.at, "duplicate tensor name '" + ti.name + "'");
    if (ti.offset % align)
      return c.error_at(ti.at, "tensor '" + ti.name + "': data offset " + std::to_string(ti.offset) +
                                   " is not a multiple of the alignment " + std::to_string(align));
  }
  const uint64_t data_start = (c.pos() + align - 1) / align * align;  // pos < 2^63, align <= 2^30
  if (data_start > n && !infos.empty())
    return c.error_at(c.pos(), "truncated: tensor data section starts at " + std::to_string(data_start) +
                                   ", beyond the " + std::to_string(n) + "-byte file");
  const uint64_t data_size = data_start <= n ? n - data_start : 0;
  std::vector<io::ByteRange> ranges;
  std::vector<std::string> names;
  for (size_t i = 0; i < infos.size(); ++i) {
    const Info& ti = infos[i];
    uint64_t end;
    if (!io::add_ok(ti.offset, ti.bytes, &end) || end > data_size)
      return c.error_at(ti.at, "tensor '" + ti.name + "': data [" + std::to_string(ti.offset) + ", +" +
                                   std::to_string(ti.bytes) + ") is beyond the " + std::to_string(data_size) +
                                   "-byte data section at offset " + std::to_string(data_start));
    ranges.push_back({ti.offset, end, i});
    names.push_back(ti.name);
  }
  NDP_RETURN_IF_ERROR(io::check_no_overlap(ranges, names, what, data_start));
  m.tensors.reserve(infos.size());
  for (Info& ti : infos)
    m.tensors.push_back(io::make_tensor(std::move(ti.name), ti.dtype, std::move(ti.shape), ti.elements,
                                        p + data_start + ti.offset, ti.bytes));
  return m;
}

}  // namespace ndp
