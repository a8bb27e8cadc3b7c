// load_llama: read a checkpoint with ndp::read_model and map it with llama_from_model.
#include "ndp/llama_file.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "ndp/file.h"

namespace ndp {
namespace {

namespace fs = std::filesystem;

Result<std::string> read_text(const fs::path& p) { return read_text_file(p.string()); }  // <= 16 MiB

// All *.safetensors files of a directory, merged into one Model (sorted by name).
Result<Model> read_safetensors_dir(const fs::path& dir) {
  std::vector<fs::path> shards;
  std::error_code ec;
  // increment(ec), not ++: a range-for throws filesystem_error when the listing fails mid-way.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".safetensors") shards.push_back(it->path());
  if (ec) return Status::Error(dir.string() + ": " + ec.message());
  if (shards.empty()) return Status::Error(dir.string() + ": no .safetensors files in the directory");
  std::sort(shards.begin(), shards.end());
  Model merged;
  merged.path = dir.string();
  merged.format = ModelFormat::kSafetensors;
  for (const auto& s : shards) {
    auto m = read_model(s.string(), ModelFormat::kSafetensors);
    if (!m.ok()) return m.status();
    for (auto& t : m.value().tensors) merged.tensors.push_back(std::move(t));
  }
  return merged;
}

}  // namespace

Result<LoadedLlama> load_llama(const std::string& path) {
  std::error_code ec;
  const bool is_dir = fs::is_directory(path, ec);
  LoadedLlama out;
  out.model = std::make_unique<Model>();
  if (is_dir) {
    auto m = read_safetensors_dir(path);
    if (!m.ok()) return m.status();
    *out.model = std::move(m.value());
  } else {
    auto m = read_model(path);
    if (!m.ok()) return m.status();
    *out.model = std::move(m.value());
  }
  std::string cfg;
  if (out.model->format == ModelFormat::kSafetensors) {
    const fs::path dir = is_dir ? fs::path(path) : fs::path(path).parent_path();
    auto text = read_text(dir / "config.json");
    if (!text.ok()) return Status::Error(path + ": safetensors model without a readable config.json: " +
                                         text.status().message());
    cfg = std::move(text.value());
  } else if (out.model->format != ModelFormat::kLlama2c) {
    return Status::Error(path + ": " + model_format_name(out.model->format) +
                         " is not a Llama-family format (llama2.c or safetensors)");
  }
  auto lm = llama_from_model(*out.model, cfg);
  if (!lm.ok()) return lm.status();
  out.llama = std::move(lm.value());
  return out;
}

}  // namespace ndp
