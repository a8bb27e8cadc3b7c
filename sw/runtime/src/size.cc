// Size parsing and formatting for configs and the CLI.
#include "ndp/runtime/size.h"

#include <cctype>
#include <cstdio>
#include <limits>

namespace ndp::rt {

Result<uint64_t> parse_size(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10)
      return Status::Error("size '" + std::string(text) + "' overflows 64 bits");
    v = v * 10 + d;
    ++i;
  }
  if (i == 0) return Status::Error("size '" + std::string(text) + "' does not start with a number");
  std::string_view suf = s.substr(i);
  while (!suf.empty() && suf.front() == ' ') suf.remove_prefix(1);
  int shift = 0;
  if (!suf.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suf.front()))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': shift = 0; break;
      default: return Status::Error("size '" + std::string(text) + "' has unknown suffix");
    }
    std::string_view rest = suf.substr(1);
    if (shift != 0 && (rest == "iB" || rest == "ib" || rest == "B" || rest == "b")) rest = {};
    if (!rest.empty()) return Status::Error("size '" + std::string(text) + "' has unknown suffix");
  }
  if (shift != 0 && v > (std::numeric_limits<uint64_t>::max() >> shift))
    return Status::Error("size '" + std::string(text) + "' overflows 64 bits");
  return v << shift;
}

std::string format_size(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (v == static_cast<double>(static_cast<uint64_t>(v)))
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", v, kUnits[u]);
  return buf;
}

}  // namespace ndp::rt
