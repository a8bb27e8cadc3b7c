// Status and Result<T>: the explicit error path every fallible function in sw/ uses.
// A Status is ok() or carries one human-readable message that names what failed and where
// (file, offset, block); the CLI prints it as one line on stderr.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace ndp {

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string msg) { return Status(std::move(msg), true); }

  bool ok() const { return !err_; }
  const std::string& message() const { return msg_; }
  // Prefix the message with context ("file.bin: " + msg).
  Status& prepend(const std::string& ctx) {
    if (err_) msg_ = ctx + msg_;
    return *this;
  }

 private:
  Status(std::string m, bool e) : msg_(std::move(m)), err_(e) {}
  std::string msg_;
  bool err_ = false;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T v) : v_(std::move(v)) {}                 // NOLINT(implicit)
  Result(Status s) : v_(std::move(s)) {}            // NOLINT(implicit); must be an error
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }

 private:
  std::variant<T, Status> v_;
};

// `msg` made printable on one line: control bytes (newlines in a tensor name read from a file, for
// instance) become \n, \r, \t or \xNN; other bytes, UTF-8 included, are kept. The CLI prints
// every error through it.
inline std::string one_line(const std::string& msg) {
  static const char kHex[] = "0123456789abcdef";
  std::string o;
  o.reserve(msg.size());
  for (unsigned char c : msg) {
    if (c >= 0x20 && c != 0x7f) o += static_cast<char>(c);
    else if (c == '\n') o += "\\n";
    else if (c == '\r') o += "\\r";
    else if (c == '\t') o += "\\t";
    else o += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }
  return o;
}

#define NDP_RETURN_IF_ERROR(expr)          \
  do {                                     \
    ::ndp::Status _st = (expr);            \
    if (!_st.ok()) return _st;             \
  } while (0)

}  // namespace ndp
