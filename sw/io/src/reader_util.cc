#include "reader_util.h"

#include <algorithm>

namespace ndp::io {

std::string shape_str(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Tensor make_tensor(std::string name, DType dt, std::vector<uint64_t> shape, uint64_t elements,
                   const uint8_t* p, uint64_t bytes) {
  Tensor t;
  t.name = std::move(name);
  t.dtype = dt;
  t.shape = std::move(shape);
  t.elements = elements;
  t.data.assign(p, p + bytes);
  return t;
}

Status check_no_overlap(std::vector<ByteRange>& ranges, const std::vector<std::string>& names,
                        const std::string& what, uint64_t base) {
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  size_t far = 0;  // the range seen so far that reaches furthest
  for (size_t i = 1; i < ranges.size(); ++i) {
    const ByteRange& a = ranges[far];
    const ByteRange& b = ranges[i];
    if (b.begin < a.end && b.begin != b.end)
      return reader_error(what, base + b.begin,
                          "tensor '" + names[b.index] + "' data [" + std::to_string(b.begin) + ", " +
                              std::to_string(b.end) + ") overlaps tensor '" + names[a.index] + "' [" +
                              std::to_string(a.begin) + ", " + std::to_string(a.end) + ")");
    if (b.end > a.end) far = i;
  }
  return Status::Ok();
}

}  // namespace ndp::io
