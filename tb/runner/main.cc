// ndp-rtl ENGINE IN OUT [options]: push a file through the Verilator model of an engine, write the
// result, and print as the last line one JSON object (cycles, in_bytes, out_bytes,
// bytes_per_cycle, status, ...). Exit status 0 only when status is "ok".
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "engine.h"
#include "tb_rng.h"

namespace ndp::rtl {

std::map<std::string, Engine>& engines() {
  static std::map<std::string, Engine> m;
  return m;
}

std::string EngineArgs::get(const std::string& k, const std::string& def) const {
  auto it = opt.find(k);
  return it == opt.end() ? def : it->second;
}

int64_t EngineArgs::get_int(const std::string& k, int64_t def, bool* ok) const {
  auto it = opt.find(k);
  if (it == opt.end()) return def;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(it->second.c_str(), &end, 0);
  if (errno || end == it->second.c_str() || *end) {
    std::fprintf(stderr, "ndp-rtl: %s: not an integer: '%s'\n", k.c_str(), it->second.c_str());
    *ok = false;
    return def;
  }
  return v;
}

double EngineArgs::get_double(const std::string& k, double def, bool* ok) const {
  auto it = opt.find(k);
  if (it == opt.end()) return def;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end || !std::isfinite(v)) {
    std::fprintf(stderr, "ndp-rtl: %s: not a number: '%s'\n", k.c_str(), it->second.c_str());
    *ok = false;
    return def;
  }
  return v;
}

void EngineResult::add(const std::string& k, double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4f", v);
  extra.emplace_back(k, b);
}
void EngineResult::add(const std::string& k, uint64_t v) { extra.emplace_back(k, std::to_string(v)); }
void EngineResult::add(const std::string& k, bool v) { extra.emplace_back(k, v ? "true" : "false"); }
void EngineResult::add(const std::string& k, const std::string& v) {
  std::string s = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) s += c;
  }
  extra.emplace_back(k, s + "\"");
}

bool read_file(const std::string& path, std::vector<uint8_t>* out, std::string* err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *err = path + ": cannot open for reading";
    return false;
  }
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (f.bad()) {
    *err = path + ": read error";
    return false;
  }
  return true;
}

bool write_file(const std::string& path, const std::vector<uint8_t>& data, std::string* err) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    *err = path + ": cannot open for writing";
    return false;
  }
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!f) {
    *err = path + ": write error";
    return false;
  }
  return true;
}

}  // namespace ndp::rtl

namespace {

void usage() {
  std::fprintf(stderr, "usage: ndp-rtl ENGINE IN OUT [options]   (or ENGINE IN -o OUT [options])\n"
                       "common options: --seed N --gaps P --backpressure P --fst FILE.fst\n"
                       "engines:\n");
  for (auto& [name, e] : ndp::rtl::engines()) std::fprintf(stderr, "  %s %s\n", name.c_str(), e.usage.c_str());
}

void print_json(const ndp::rtl::EngineResult& r) {
  std::printf("{\"cycles\": %" PRIu64 ", \"in_bytes\": %" PRIu64 ", \"out_bytes\": %" PRIu64
              ", \"bytes_per_cycle\": %.4f, \"status\": \"%s\"",
              r.cycles, r.in_bytes, r.out_bytes, r.bytes_per_cycle, r.status.c_str());
  for (auto& [k, v] : r.extra) std::printf(", \"%s\": %s", k.c_str(), v.c_str());
  std::printf("}\n");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ndp::rtl;
  if (argc < 3) {
    usage();
    return 2;
  }
  auto it = engines().find(argv[1]);
  if (it == engines().end()) {
    std::fprintf(stderr, "ndp-rtl: unknown engine '%s'\n", argv[1]);
    usage();
    return 2;
  }
  EngineArgs a;
  a.in_path = argv[2];
  int first_opt = 3;
  if (argc > 3 && argv[3][0] != '-') {
    a.out_path = argv[3];
    first_opt = 4;
  }
  const std::vector<std::string>& flags = it->second.flags;
  for (int i = first_opt; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "-o" && i + 1 < argc) {
      a.out_path = argv[++i];
      continue;
    }
    if (k.rfind("--", 0) != 0) {
      std::fprintf(stderr, "ndp-rtl: unexpected argument '%s'\n", k.c_str());
      return 2;
    }
    bool is_flag = std::find(flags.begin(), flags.end(), k) != flags.end();
    if (is_flag) {
      a.opt[k] = "";
    } else if (i + 1 < argc) {
      a.opt[k] = argv[++i];
    } else {
      std::fprintf(stderr, "ndp-rtl: %s needs a value\n", k.c_str());
      return 2;
    }
  }
  bool ok = true;
  if (a.out_path.empty()) {
    std::fprintf(stderr, "ndp-rtl: missing OUT (or -o OUT)\n");
    return 2;
  }
  a.seed = a.has("--seed") ? static_cast<uint64_t>(a.get_int("--seed", 0, &ok)) : ndp::tb::test_seed();
  a.gaps = a.get_double("--gaps", 0.0, &ok);
  a.backpressure = a.get_double("--backpressure", 0.0, &ok);
  a.fst = a.get("--fst");
  if (ok && (a.gaps < 0 || a.gaps >= 1 || a.backpressure < 0 || a.backpressure >= 1)) {
    std::fprintf(stderr, "ndp-rtl: --gaps and --backpressure are probabilities in [0, 1)\n");
    ok = false;
  }
  EngineResult r;
  int rc = 2;
  if (ok) {
    rc = it->second.fn(a, r);
    if (!r.message.empty()) std::fprintf(stderr, "ndp-rtl %s: %s\n", argv[1], r.message.c_str());
  } else {
    r.message = "bad options";
  }
  r.add("engine", std::string(argv[1]));
  r.add("seed", a.seed);
  print_json(r);
  return (rc == 0 && r.status == "ok") ? 0 : (rc ? rc : 1);
}
