// Internal helpers shared by the model readers: a bounds-checked little-endian cursor over an
// in-memory file image, overflow-checked arithmetic, and the "WHAT: offset N: message" error format.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "ndp/checked.h"
#include "ndp/model_reader.h"
#include "ndp/status.h"

namespace ndp::io {

// The one error format of every reader: "WHAT: offset N: MSG".
inline Status reader_error(const std::string& what, uint64_t off, const std::string& msg) {
  return Status::Error(what + ": offset " + std::to_string(off) + ": " + msg);
}

// a*b and a+b into *r; false on uint64 overflow (ndp/checked.h).
using ndp::add_ok;
using ndp::mul_ok;

// Element count of a shape; false on overflow.
inline bool shape_elements(const std::vector<uint64_t>& shape, uint64_t* n) {
  uint64_t e = 1;
  for (uint64_t d : shape)
    if (!mul_ok(e, d, &e)) return false;
  *n = e;
  return true;
}

std::string shape_str(const std::vector<uint64_t>& shape);

// A read cursor that never reads past `n` bytes. Every getter returns an error naming the field and
// the offset where it was expected when fewer bytes remain than it needs.
class Cursor {
 public:
  Cursor(const uint8_t* p, size_t n, const std::string& what) : p_(p), n_(n), what_(what) {}

  size_t pos() const { return pos_; }
  size_t size() const { return n_; }
  size_t remaining() const { return n_ - pos_; }
  const uint8_t* here() const { return p_ + pos_; }
  const std::string& what() const { return what_; }

  Status error(const std::string& msg) const { return reader_error(what_, pos_, msg); }
  Status error_at(uint64_t off, const std::string& msg) const { return reader_error(what_, off, msg); }

  // Error unless `k` more bytes are available for `field`.
  Status need(uint64_t k, const char* field) const {
    if (k <= remaining()) return Status::Ok();
    return error(std::string("truncated: ") + field + " needs " + std::to_string(k) + " bytes, " +
                 std::to_string(remaining()) + " left in the " + std::to_string(n_) + "-byte file");
  }
  Status skip(uint64_t k, const char* field) {
    NDP_RETURN_IF_ERROR(need(k, field));
    pos_ += static_cast<size_t>(k);
    return Status::Ok();
  }
  Status seek(uint64_t off, const char* field) {
    if (off > n_)
      return error_at(off, std::string(field) + " starts beyond the end of the " + std::to_string(n_) +
                               "-byte file");
    pos_ = static_cast<size_t>(off);
    return Status::Ok();
  }

  template <typename T>
  Status get(T* v, const char* field) {
    NDP_RETURN_IF_ERROR(need(sizeof(T), field));
    std::memcpy(v, p_ + pos_, sizeof(T));  // little-endian host (checked in model_reader.cc)
    pos_ += sizeof(T);
    return Status::Ok();
  }
  Status u32(uint32_t* v, const char* f) { return get(v, f); }
  Status i32(int32_t* v, const char* f) { return get(v, f); }
  Status u64(uint64_t* v, const char* f) { return get(v, f); }

  // `len` raw bytes as a string.
  Status str(uint64_t len, std::string* s, const char* field) {
    NDP_RETURN_IF_ERROR(need(len, field));
    s->assign(reinterpret_cast<const char*>(p_ + pos_), static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return Status::Ok();
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
  std::string what_;
};

// Copy `bytes` bytes starting at p into a new tensor (shape outermost first).
Tensor make_tensor(std::string name, DType dt, std::vector<uint64_t> shape, uint64_t elements,
                   const uint8_t* p, uint64_t bytes);

// Check that the [begin, end) byte ranges of a set of tensors do not overlap. `ranges` holds
// (begin, end, index into names); it is sorted in place. Reports the later tensor of the first
// overlapping pair at its begin offset plus `base`.
struct ByteRange {
  uint64_t begin, end;
  size_t index;
};
Status check_no_overlap(std::vector<ByteRange>& ranges, const std::vector<std::string>& names,
                        const std::string& what, uint64_t base);

}  // namespace ndp::io

namespace ndp::io {

// Read exactly `n` bytes of `path` into *out (one read); error if the file is shorter.
Status read_file_exact(const std::string& path, uint64_t n, std::vector<uint8_t>* out);

}  // namespace ndp::io

namespace ndp::io {
// Validate a llama2.c v0 header and the exact file size it implies, without copying any data.
Status llama2c_check(const uint8_t* p, size_t n, const std::string& what);
}  // namespace ndp::io
