#include "cli_util.h"

#include "ndp/model_load.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace ndp::cli {

Result<Model> load_model_arg(const Args& a) {
  if (a.pos.empty()) return Status::Error("missing model PATH");
  ModelLoadOptions o;
  o.format = a.get("--format", "auto");
  if (a.has("--as")) {
    o.as = a.get("--as");
    if (a.has("--group")) {
      o.group = a.get("--group");
      if (o.group.empty()) return Status::Error("--group must be an integer in 1..65536, got ''");
    }
  }
  o.match = a.get("--match");  // an empty expression matches every name
  return load_model(a.pos[0], o);
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
