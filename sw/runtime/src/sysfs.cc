// sysfs/procfs readers used by topology discovery and the mempolicy probes.
#include "sysfs.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ndp::rt::detail {

Result<std::string> read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::optional<uint64_t> read_u64(const std::string& path) {
  auto t = read_text(path);
  if (!t.ok()) return std::nullopt;
  const std::string& s = t.value();
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (end == s.c_str() || errno != 0) return std::nullopt;
  while (*end == '\n' || *end == ' ') ++end;
  if (*end != '\0') return std::nullopt;
  return v;
}

Result<std::vector<int>> parse_cpulist(const std::string& text) {
  std::vector<int> out;
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.empty()) return out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    char* end = nullptr;
    long a = std::strtol(tok.c_str(), &end, 10);
    long b = a;
    if (end == tok.c_str() || a < 0) return Status::Error("cpulist '" + s + "': bad entry '" + tok + "'");
    if (*end == '-') {
      const char* p = end + 1;
      b = std::strtol(p, &end, 10);
      if (end == p || b < a) return Status::Error("cpulist '" + s + "': bad range '" + tok + "'");
    }
    if (*end != '\0') return Status::Error("cpulist '" + s + "': bad entry '" + tok + "'");
    if (b > kMaxCpuId) return Status::Error("cpulist '" + s + "': cpu id above " + std::to_string(kMaxCpuId));
    if (!out.empty() && a <= out.back())
      return Status::Error("cpulist '" + s + "': entries not ascending ('" + tok + "')");
    for (long c = a; c <= b; ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

std::optional<uint64_t> meminfo_bytes(const std::string& text, const std::string& key) {
  std::stringstream ss(text);
  std::string line;
  const std::string k = key + ":";
  while (std::getline(ss, line)) {
    auto pos = line.find(k);
    if (pos == std::string::npos) continue;
    const char* p = line.c_str() + pos + k.size();
    char* end = nullptr;
    unsigned long long kb = std::strtoull(p, &end, 10);
    if (end == p) return std::nullopt;
    return static_cast<uint64_t>(kb) * 1024;
  }
  return std::nullopt;
}

std::vector<int> list_numbered(const std::string& dir, const std::string& prefix) {
  std::vector<int> ids;
  DIR* d = opendir(dir.c_str());
  if (!d) return ids;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0) continue;
    std::string num = n.substr(prefix.size());
    if (num.find_first_not_of("0123456789") != std::string::npos) continue;
    ids.push_back(std::atoi(num.c_str()));
  }
  closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace ndp::rt::detail
