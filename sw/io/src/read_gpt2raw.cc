// GPT-2 raw directory (huplay demo-gpt-java layout): model.properties ("key = value" lines) plus one
// headerless FP32 big-endian file per tensor under input/, decoderN/ and output/.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>

#include "ndp/model_reader.h"
#include "reader_util.h"

namespace ndp {
namespace {

namespace fs = std::filesystem;

struct Props {
  std::map<std::string, std::string> kv;
  std::string path;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Result<Props> read_properties(const std::string& path) {
  std::error_code ec;
  uint64_t size = fs::file_size(path, ec);
  if (ec) return Status::Error(path + ": cannot stat: " + ec.message());
  if (size > (1u << 20)) return io::reader_error(path, 0, "model.properties is larger than 1 MiB");
  std::vector<uint8_t> buf;
  NDP_RETURN_IF_ERROR(io::read_file_exact(path, size, &buf));
  Props p;
  p.path = path;
  std::string text(buf.begin(), buf.end());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = trim(text.substr(pos, nl - pos));
    if (!line.empty() && line[0] != '#' && line[0] != '!') {
      size_t eq = line.find('=');
      if (eq == std::string::npos) return io::reader_error(path, pos, "expected \"key = value\"");
      p.kv[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    pos = nl + 1;
  }
  return p;
}

// Positive integer property; nullopt when absent; error when present but not a positive integer.
Status int_prop(const Props& p, const char* key, bool required, std::optional<uint64_t>* out) {
  auto it = p.kv.find(key);
  if (it == p.kv.end()) {
    if (required) return io::reader_error(p.path, 0, std::string("missing property \"") + key + "\"");
    return Status::Ok();
  }
  uint64_t v = 0;
  const std::string& s = it->second;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v == 0 || v > (1u << 24))
    return io::reader_error(p.path, 0, std::string("property \"") + key + "\" = \"" + s +
                                           "\" is not a positive integer <= 2^24");
  *out = v;
  return Status::Ok();
}

struct Dims {
  uint64_t h;
  std::optional<uint64_t> ctx, tokens;
};

// Expected shape of `base` (file name without .dat) in folder kind `kind`; nullopt for names
// outside the table (read as a 1-D vector). Error when the shape needs a missing property.
Status expected_shape(const std::string& file, const std::string& kind, const std::string& base, const Dims& d,
                      std::optional<std::vector<uint64_t>>* out) {
  const uint64_t h = d.h;
  if (kind == "decoder") {
    for (const char* m : {"query", "key", "value", "proj"}) {
      if (base == std::string("att.") + m + ".w") *out = std::vector<uint64_t>{h, h};
      if (base == std::string("att.") + m + ".b") *out = std::vector<uint64_t>{h};
    }
    if (base == "att.norm.w" || base == "att.norm.b" || base == "mlp.norm.w" || base == "mlp.norm.b" ||
        base == "mlp.layer2.b")
      *out = std::vector<uint64_t>{h};
    if (base == "mlp.layer1.w") *out = std::vector<uint64_t>{h, 4 * h};
    if (base == "mlp.layer1.b") *out = std::vector<uint64_t>{4 * h};
    if (base == "mlp.layer2.w") *out = std::vector<uint64_t>{4 * h, h};
  } else if (kind == "input" && (base == "wpe" || base == "wte")) {
    const auto& rows = base == "wpe" ? d.ctx : d.tokens;
    if (!rows)
      return io::reader_error(file, 0, std::string("model.properties lacks \"") +
                                           (base == "wpe" ? "context.size" : "token.count") + "\" needed for its shape");
    *out = std::vector<uint64_t>{*rows, h};
  } else if (kind == "output" && (base == "norm.w" || base == "norm.b")) {
    *out = std::vector<uint64_t>{h};
  }
  return Status::Ok();
}

Status read_dat(const fs::path& file, const std::string& name, const std::string& kind, const Dims& d, Model* m) {
  const std::string fname = file.string();
  if (m->tensors.size() == kMaxModelTensors)
    return io::reader_error(fname, 0, "more than " + std::to_string(kMaxModelTensors) + " tensors in the directory");
  std::string base = file.filename().string();
  base.resize(base.size() - 4);  // ".dat"
  std::error_code ec;
  const uint64_t size = fs::file_size(file, ec);
  if (ec) return Status::Error(fname + ": cannot stat: " + ec.message());
  if (size % 4) return io::reader_error(fname, size - size % 4, "size " + std::to_string(size) + " is not a multiple of 4");
  std::optional<std::vector<uint64_t>> shape;
  NDP_RETURN_IF_ERROR(expected_shape(fname, kind, base, d, &shape));
  if (!shape) shape = std::vector<uint64_t>{size / 4};
  uint64_t e = 1;
  for (uint64_t x : *shape) e *= x;  // properties are <= 2^24 and shapes have <= 2 dims: no overflow
  if (e * 4 != size)
    return io::reader_error(fname, std::min(size, e * 4),
                            "size " + std::to_string(size) + " bytes (" + std::to_string(size / 4) +
                                " floats) does not match the expected shape " + io::shape_str(*shape) + " (" +
                                std::to_string(e) + " floats)");
  Tensor t;
  t.name = name;
  t.dtype = DType::kFP32;
  t.shape = std::move(*shape);
  t.elements = e;
  NDP_RETURN_IF_ERROR(io::read_file_exact(fname, size, &t.data));
  for (size_t i = 0; i + 4 <= t.data.size(); i += 4) {  // big-endian -> little-endian
    std::swap(t.data[i], t.data[i + 3]);
    std::swap(t.data[i + 1], t.data[i + 2]);
  }
  m->tensors.push_back(std::move(t));
  return Status::Ok();
}

// The sorted .dat files of one folder.
Result<std::vector<fs::path>> dat_files(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {  // no exceptions
    std::error_code ec2;
    const fs::path& p = it->path();
    if (p.extension() == ".dat" && it->is_regular_file(ec2)) out.push_back(p);
  }
  if (ec) return Status::Error(dir.string() + ": cannot list: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<Model> read_gpt2_raw(const std::string& dir) {
  auto props = read_properties((fs::path(dir) / "model.properties").string());
  if (!props.ok()) return props.status();
  const Props& p = props.value();
  std::optional<uint64_t> h, nd;
  Dims d{};
  NDP_RETURN_IF_ERROR(int_prop(p, "hidden.size", true, &h));
  NDP_RETURN_IF_ERROR(int_prop(p, "decoder.count", true, &nd));
  NDP_RETURN_IF_ERROR(int_prop(p, "context.size", false, &d.ctx));
  NDP_RETURN_IF_ERROR(int_prop(p, "token.count", false, &d.tokens));
  d.h = *h;

  // (folder kind, decoder number, path): input first, decoders in numeric order, output last.
  std::vector<std::tuple<int, uint64_t, fs::path, std::string>> folders;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {  // no exceptions
    const fs::directory_entry& e = *it;
    std::error_code ec2;
    if (!e.is_directory(ec2)) continue;
    std::string n = e.path().filename().string();
    if (n == "input") folders.emplace_back(0, 0, e.path(), "input");
    else if (n == "output") folders.emplace_back(2, 0, e.path(), "output");
    else if (n.rfind("decoder", 0) == 0) {
      uint64_t k = 0;
      auto r = std::from_chars(n.data() + 7, n.data() + n.size(), k);
      if (r.ec != std::errc() || r.ptr != n.data() + n.size() || k == 0 || k > *nd)
        return io::reader_error(e.path().string(), 0, "decoder folder outside decoder1..decoder" +
                                                          std::to_string(*nd) + " (decoder.count)");
      folders.emplace_back(1, k, e.path(), "decoder");
    }
  }
  if (ec) return Status::Error(dir + ": cannot list: " + ec.message());
  std::sort(folders.begin(), folders.end());

  Model m;
  m.path = dir;
  m.format = ModelFormat::kGpt2Raw;
  m.meta_str = p.kv;
  m.meta["hidden_size"] = static_cast<int64_t>(*h);
  m.meta["decoder_count"] = static_cast<int64_t>(*nd);
  if (d.ctx) m.meta["context_size"] = static_cast<int64_t>(*d.ctx);
  if (d.tokens) m.meta["token_count"] = static_cast<int64_t>(*d.tokens);
  std::optional<uint64_t> heads;
  NDP_RETURN_IF_ERROR(int_prop(p, "attention.head.count", false, &heads));
  if (heads) m.meta["head_count"] = static_cast<int64_t>(*heads);
  int64_t decoders = 0;
  for (const auto& [order, k, path, kind] : folders) {
    decoders += kind == "decoder";
    auto files = dat_files(path);
    if (!files.ok()) return files.status();
    const std::string prefix = path.filename().string() + "/";
    for (const fs::path& f : files.value()) {
      std::string stem = f.filename().string();
      NDP_RETURN_IF_ERROR(read_dat(f, prefix + stem.substr(0, stem.size() - 4), kind, d, &m));
    }
  }
  m.meta["decoders_present"] = decoders;
  if (m.tensors.empty()) return io::reader_error(dir, 0, "no .dat tensor files under input/, decoderN/ or output/");
  return m;
}

}  // namespace ndp
