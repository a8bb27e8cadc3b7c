// safetensors: u64 LE header length N, N bytes of JSON (an object of tensor entries plus an optional
// "__metadata__" object of strings), then the data section. Tensor entry:
//   "name": {"dtype": "F32", "shape": [d0, d1, ...], "data_offsets": [begin, end]}
// with offsets relative to the start of the data section.
#include <cstring>

#include "json.h"
#include "ndp/model_reader.h"
#include "reader_util.h"

namespace ndp {
namespace {

using io::JsonValue;
using io::reader_error;

constexpr uint64_t kMaxHeader = 100u << 20;  // the limit the reference implementation enforces
// Values one top-level member (a tensor entry or __metadata__) may hold. An entry has 6 plus its
// dimensions; the header is parsed member by member, so the JSON trees never cost more than this
// many values (~128 bytes each) at a time, whatever the header (docs/readers.md, "Bounds").
constexpr uint64_t kMaxMemberValues = 65536;

struct Entry {
  std::string name;
  DType dtype;
  std::vector<uint64_t> shape;
  uint64_t elements, begin, end;
};

// safetensors dtype string -> DType; error naming the tensor for anything but F32/F16/BF16.
Status map_dtype(const std::string& what, const std::string& name, const JsonValue& v, DType* dt) {
  if (v.kind != JsonValue::Kind::kString)
    return reader_error(what, v.pos, "tensor '" + name + "': \"dtype\" must be a string");
  if (v.s == "F32") *dt = DType::kFP32;
  else if (v.s == "F16") *dt = DType::kFP16;
  else if (v.s == "BF16") *dt = DType::kBF16;
  else {
    static const char* kKnown[] = {"BOOL", "U8",  "I8",  "I16", "U16", "I32", "U32", "I64", "U64",
                                   "F64",  "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2",
                                   "C64"};
    bool known = false;
    for (const char* k : kKnown) known |= v.s == k;
    return reader_error(what, v.pos,
                        "tensor '" + name + "': " + (known ? "dtype " : "unknown dtype ") + v.s +
                            " is not supported (supported: F32, F16, BF16)");
  }
  return Status::Ok();
}

// Array of non-negative integers; `count` >= 0 requires exactly that many elements.
Status int_array(const std::string& what, const std::string& name, const char* field, const JsonValue& v,
                 int count, std::vector<uint64_t>* out) {
  auto bad = [&](uint64_t pos, const std::string& m) {
    return reader_error(what, pos, "tensor '" + name + "': \"" + field + "\" " + m);
  };
  if (v.kind != JsonValue::Kind::kArray) return bad(v.pos, "must be an array");
  if (count >= 0 && v.arr.size() != static_cast<size_t>(count))
    return bad(v.pos, "must have " + std::to_string(count) + " elements, has " + std::to_string(v.arr.size()));
  for (const JsonValue& e : v.arr) {
    if (e.kind != JsonValue::Kind::kInt || e.i < 0) return bad(e.pos, "must hold non-negative integers");
    out->push_back(static_cast<uint64_t>(e.i));
  }
  return Status::Ok();
}

Status parse_entry(const std::string& what, const std::string& name, const JsonValue& v, uint64_t data_size,
                   Entry* e) {
  if (v.kind != JsonValue::Kind::kObject)
    return reader_error(what, v.pos, "tensor '" + name + "': entry must be an object");
  const JsonValue *dtype = nullptr, *shape = nullptr, *offs = nullptr;
  for (size_t i = 0; i < v.keys.size(); ++i) {
    const std::string& k = v.keys[i];
    const JsonValue& val = v.vals[i];
    if (k == "dtype") dtype = &val;
    else if (k == "shape") shape = &val;
    else if (k == "data_offsets") offs = &val;
    else return reader_error(what, val.pos, "tensor '" + name + "': unexpected key \"" + k + "\"");
  }
  if (!dtype || !shape || !offs)
    return reader_error(what, v.pos, "tensor '" + name + "': entry needs \"dtype\", \"shape\" and \"data_offsets\"");
  e->name = name;
  NDP_RETURN_IF_ERROR(map_dtype(what, name, *dtype, &e->dtype));
  NDP_RETURN_IF_ERROR(int_array(what, name, "shape", *shape, -1, &e->shape));
  std::vector<uint64_t> o;
  NDP_RETURN_IF_ERROR(int_array(what, name, "data_offsets", *offs, 2, &o));
  e->begin = o[0];
  e->end = o[1];
  uint64_t bytes = 0;
  if (!io::shape_elements(e->shape, &e->elements) || !io::mul_ok(e->elements, dtype_bytes(e->dtype, 1), &bytes))
    return reader_error(what, shape->pos, "tensor '" + name + "': shape " + io::shape_str(e->shape) + " overflows");
  if (e->begin > e->end)
    return reader_error(what, offs->pos, "tensor '" + name + "': data_offsets begin " + std::to_string(e->begin) +
                                             " is after end " + std::to_string(e->end));
  if (e->end > data_size)
    return reader_error(what, offs->pos, "tensor '" + name + "': data_offsets end " + std::to_string(e->end) +
                                             " is beyond the " + std::to_string(data_size) + "-byte data section");
  if (e->end - e->begin != bytes)
    return reader_error(what, offs->pos, "tensor '" + name + "': data_offsets span " +
                                             std::to_string(e->end - e->begin) + " bytes but shape " +
                                             io::shape_str(e->shape) + " x " + dtype->s + " needs " +
                                             std::to_string(bytes));
  return Status::Ok();
}

Status parse_metadata(const std::string& what, const JsonValue& v, Model* m) {
  if (v.kind != JsonValue::Kind::kObject)
    return reader_error(what, v.pos, "\"__metadata__\" must be an object of strings");
  for (size_t i = 0; i < v.keys.size(); ++i) {
    const std::string& k = v.keys[i];
    const JsonValue& val = v.vals[i];
    if (val.kind != JsonValue::Kind::kString)
      return reader_error(what, val.pos, "\"__metadata__\" value of \"" + k + "\" must be a string, not " +
                                             io::json_kind_name(val.kind));
    m->meta_str["__metadata__." + k] = val.s;
  }
  return Status::Ok();
}

}  // namespace

Result<Model> parse_safetensors(const uint8_t* p, size_t n, const std::string& what) {
  io::Cursor c(p, n, what);
  uint64_t hlen;
  NDP_RETURN_IF_ERROR(c.u64(&hlen, "the 8-byte header length"));
  if (hlen > kMaxHeader) return c.error_at(0, "header length " + std::to_string(hlen) + " exceeds the 100 MiB limit");
  if (hlen > c.remaining())
    return c.error_at(0, "header length " + std::to_string(hlen) + " exceeds the " + std::to_string(c.remaining()) +
                             " bytes after it");
  if (hlen < 2 || p[8] != '{') return c.error_at(8, "header does not start with '{'");
  const uint64_t data_start = 8 + hlen, data_size = n - data_start;
  Model m;
  m.format = ModelFormat::kSafetensors;
  std::vector<Entry> entries;
  Status st = io::parse_json_object(
      reinterpret_cast<const char*>(p + 8), static_cast<size_t>(hlen), what, 8, {kMaxMemberValues},
      [&](std::string& k, JsonValue& v) {
        if (k == "__metadata__") return parse_metadata(what, v, &m);
        if (entries.size() == kMaxModelTensors)
          return reader_error(what, v.pos, "more than " + std::to_string(kMaxModelTensors) + " tensors");
        entries.emplace_back();
        return parse_entry(what, k, v, data_size, &entries.back());
      });
  NDP_RETURN_IF_ERROR(st);
  std::vector<io::ByteRange> ranges;
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    ranges.push_back({entries[i].begin, entries[i].end, i});
    names.push_back(entries[i].name);
  }
  NDP_RETURN_IF_ERROR(io::check_no_overlap(ranges, names, what, data_start));
  m.tensors.reserve(entries.size());
  for (const io::ByteRange& r : ranges) {  // data-offset order
    Entry& e = entries[r.index];
    m.tensors.push_back(io::make_tensor(std::move(e.name), e.dtype, std::move(e.shape), e.elements,
                                        p + data_start + e.begin, e.end - e.begin));
  }
  return m;
}

}  // namespace ndp
