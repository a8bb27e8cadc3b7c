#include "ndp/model_load.h"

#include <cstdlib>
#include <regex>

#include "ndp/quantize.h"

namespace ndp {

namespace {

Status quantize(Model& m, const ModelLoadOptions& o) {
  auto target = parse_quantize_target(o.as);
  if (!target.ok()) return target.status();
  QuantizeOptions q;
  q.target = target.value();
  if (!o.group.empty()) {
    char* end = nullptr;
    const long v = std::strtol(o.group.c_str(), &end, 10);
    if (*end != '\0' || v < 1 || v > 65536)
      return Status::Error("--group must be an integer in 1..65536, got '" + o.group + "'");
    q.group = static_cast<uint32_t>(v);
  }
  return quantize_model(m, q);
}

}  // namespace

Result<Model> load_model(const std::string& path, const ModelLoadOptions& o) {
  auto fmt = parse_model_format(o.format);
  if (!fmt.ok()) return fmt.status();
  auto m = read_model(path, fmt.value());
  if (!m.ok()) return m.status();
  if (!o.as.empty()) NDP_RETURN_IF_ERROR(quantize(m.value(), o));
  if (!o.match.empty()) {
    std::regex re;
    try {
      re = std::regex(o.match, std::regex::extended);
    } catch (const std::regex_error&) {
      return Status::Error("--match '" + o.match + "' is not a valid regular expression");
    }
    std::vector<Tensor> keep;
    for (auto& t : m->tensors)
      if (std::regex_search(t.name, re)) keep.push_back(std::move(t));
    m->tensors = std::move(keep);
    if (m->tensors.empty()) return Status::Error(path + ": no tensor name matches --match '" + o.match + "'");
  }
  if (m->tensors.empty()) return Status::Error(path + ": no tensors found");
  return m;
}

}  // namespace ndp
