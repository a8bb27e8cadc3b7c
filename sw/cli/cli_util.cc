#include "cli_util.h"

#include "ndp/quantize.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>

namespace ndp::cli {

Result<Model> load_model_arg(const Args& a) {
  if (a.pos.empty()) return Status::Error("missing model PATH");
  auto fmt = parse_model_format(a.get("--format", "auto"));
  if (!fmt.ok()) return fmt.status();
  auto m = read_model(a.pos[0], fmt.value());
  if (!m.ok()) return m.status();
  if (a.has("--as")) {
    auto target = parse_quantize_target(a.get("--as"));
    if (!target.ok()) return target.status();
    QuantizeOptions q;
    q.target = target.value();
    if (a.has("--group")) {
      char* end = nullptr;
      const std::string g = a.get("--group");
      const long v = std::strtol(g.c_str(), &end, 10);
      if (g.empty() || *end != '\0' || v < 1 || v > 65536)
        return Status::Error("--group must be an integer in 1..65536, got '" + g + "'");
      q.group = static_cast<uint32_t>(v);
    }
    NDP_RETURN_IF_ERROR(quantize_model(m.value(), q));
  }
  if (a.has("--match")) {
    std::regex re;
    try {
      re = std::regex(a.get("--match"), std::regex::extended);
    } catch (const std::regex_error& e) {
      return Status::Error("--match '" + a.get("--match") + "' is not a valid regular expression");
    }
    std::vector<Tensor> keep;
    for (auto& t : m->tensors)
      if (std::regex_search(t.name, re)) keep.push_back(std::move(t));
    m->tensors = std::move(keep);
    if (m->tensors.empty()) return Status::Error(a.pos[0] + ": no tensor name matches --match '" + a.get("--match") + "'");
  }
  if (m->tensors.empty()) return Status::Error(a.pos[0] + ": no tensors found");
  return m;
}

Status write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::Error("cannot open " + path + " for writing: " + std::strerror(errno));
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f.good()) return Status::Error("error writing " + path);
  return Status::Ok();
}

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return Status::Error("cannot open " + path + ": " + std::strerror(errno));
  auto size = f.tellg();
  std::vector<uint8_t> b(static_cast<size_t>(size));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(b.data()), size);
  if (!f.good()) return Status::Error("error reading " + path);
  return b;
}

}  // namespace ndp::cli
