// Engine registry of the ndp-rtl runner. An engine file defines
//   static int run_foo(const ndp::rtl::EngineArgs& a, ndp::rtl::EngineResult& r);
//   NDP_RTL_ENGINE("foo", "usage line", run_foo);
// and is picked up by tb/runner/CMakeLists.txt (engines/*.cc). The runner prints the engine's
// result as the last line of stdout: one JSON object with cycles, in_bytes, out_bytes,
// bytes_per_cycle, status and any extra fields the engine adds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ndp::rtl {

struct EngineArgs {
  std::string in_path, out_path;
  std::map<std::string, std::string> opt;  // --key value; flags map to ""
  bool has(const std::string& k) const { return opt.count(k) != 0; }
  std::string get(const std::string& k, const std::string& def = "") const;
  // Numeric options; on a malformed value *ok is set to false and an error is printed.
  int64_t get_int(const std::string& k, int64_t def, bool* ok) const;
  double get_double(const std::string& k, double def, bool* ok) const;
  // Common knobs: --seed (default: NDP_SEED or a fixed one), --gaps P, --backpressure P, --fst PATH.
  uint64_t seed = 0;
  double gaps = 0.0, backpressure = 0.0;
  std::string fst;
};

struct EngineResult {
  uint64_t cycles = 0, in_bytes = 0, out_bytes = 0;
  double bytes_per_cycle = 0.0;
  std::string status = "error";  // "ok", "mismatch" (RTL differs from the golden model), "error"
  std::string message;           // error text (also printed on stderr)
  std::vector<std::pair<std::string, std::string>> extra;  // more JSON fields (values pre-encoded)
  void add(const std::string& k, double v);
  void add(const std::string& k, uint64_t v);
  void add(const std::string& k, bool v);                // JSON true / false
  void add(const std::string& k, const std::string& v);  // JSON string
};

using EngineFn = std::function<int(const EngineArgs&, EngineResult&)>;
struct Engine {
  std::string usage;
  EngineFn fn;
  std::vector<std::string> flags;  // options without a value
};
std::map<std::string, Engine>& engines();

struct EngineRegistrar {
  EngineRegistrar(const char* name, const char* usage, EngineFn fn, std::vector<std::string> flags = {}) {
    engines()[name] = Engine{usage, std::move(fn), std::move(flags)};
  }
};

// Read/write a whole file; false with *err set on failure.
bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* err);
bool write_file(const std::string& path, const std::vector<uint8_t>& data, std::string* err);

}  // namespace ndp::rtl

#define NDP_RTL_CONCAT2(a, b) a##b
#define NDP_RTL_CONCAT(a, b) NDP_RTL_CONCAT2(a, b)
#define NDP_RTL_ENGINE(name, usage, fn, ...) \
  static ::ndp::rtl::EngineRegistrar NDP_RTL_CONCAT(ndp_rtl_engine_, __LINE__)(name, usage, fn, ##__VA_ARGS__)
