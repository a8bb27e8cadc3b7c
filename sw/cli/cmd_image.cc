// ndp pack / unpack / read / verify: build device images and read them back.
#include <chrono>
#include <cstdio>

#include "cli_util.h"
#include "ndp/image.h"
#include "safetensors_out.h"

namespace ndp::cli {
namespace {

double secs_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Result<TensorOptions> tensor_options(const Args& a) {
  TensorOptions o;
  std::string codec = a.get("--codec", "auto");
  if (!codec_policy_from_name(codec.c_str(), &o.policy))
    return Status::Error("unknown --codec '" + codec + "' (auto, lz4, zstd or raw)");
  auto block = a.int_opt("--block", 4096, 8, 65536);
  if (!block.ok()) return block.status();
  if (*block % 8)
    return Status::Error("--block must be a multiple of 8 in [8, 65536], got " + std::to_string(*block));
  o.chunk_elems = static_cast<uint32_t>(*block * 8);
  std::string layout = a.get("--layout", "expbyte");
  if (layout == "bitplane") o.layout = Layout::kBitplane;
  else if (layout != "expbyte") return Status::Error("unknown --layout '" + layout + "' (expbyte or bitplane)");
  return o;
}

int cmd_pack(const Args& a) {
  if (!a.has("-o")) return fail(a, "missing -o IMAGE");
  auto t0 = std::chrono::steady_clock::now();
  auto m = load_model_arg(a);
  if (!m.ok()) return fail(a, m.status().message());
  auto to = tensor_options(a);
  if (!to.ok()) return fail(a, to.status().message());
  auto max_bytes = a.get_int("--max-bytes", 0, 0, INT64_MAX);  // e.g. the device DRAM size; 0 = none
  if (!max_bytes) return 1;
  ImageWriter w;
  w.set_max_image_bytes(static_cast<uint64_t>(*max_bytes));
  uint64_t raw = 0;
  for (const auto& t : m->tensors) {
    Status s = w.add_tensor(t.name, t.dtype, t.shape, t.data.data(), t.data.size(), to.value());
    if (!s.ok()) return fail(a, "tensor '" + t.name + "': " + s.message());
    raw += t.data.size();
  }
  Status s = w.write_file(a.get("-o"));
  if (!s.ok()) return fail(a, s.message());
  std::printf("packed %zu tensors, %llu raw bytes -> %llu image bytes (ratio %.4f) in %.2f s: %s\n",
              m->tensors.size(), (unsigned long long)raw, (unsigned long long)w.image_bytes(),
              double(raw) / double(w.image_bytes()), secs_since(t0), a.get("-o").c_str());
  return 0;
}

Result<std::unique_ptr<ImageReader>> open_image(const Args& a) {
  if (a.pos.empty()) return Status::Error("missing IMAGE");
  return ImageReader::open_file(a.pos[0]);
}

int cmd_unpack(const Args& a) {
  if (!a.has("-o")) return fail(a, "missing -o FILE");
  auto img = open_image(a);
  if (!img.ok()) return fail(a, img.status().message());
  auto& r = *img.value();
  std::vector<OutTensor> out;
  std::vector<uint8_t> raw;
  for (size_t i = 0; i < r.tensors().size(); ++i) {
    const auto& ti = r.tensors()[i];
    OutTensor t{ti.name, ti.dtype, ti.shape, {}};
    Status s = r.read_tensor(i, t.data);
    if (!s.ok()) return fail(a, s.message());
    if (a.has("--raw")) raw.insert(raw.end(), t.data.begin(), t.data.end());
    out.push_back(std::move(t));
  }
  if (!a.has("--raw")) {
    auto st = to_safetensors(out);
    if (!st.ok()) return fail(a, st.status().message());
    raw = std::move(st.value());
  }
  Status s = write_file(a.get("-o"), raw);
  if (!s.ok()) return fail(a, s.message());
  std::printf("unpacked %zu tensors to %s (%s, %zu bytes)\n", out.size(), a.get("-o").c_str(),
              a.has("--raw") ? "raw" : "safetensors", raw.size());
  return 0;
}

int cmd_read(const Args& a) {
  if (!a.has("-o")) return fail(a, "missing -o FILE");
  if (!a.has("--region")) return fail(a, "missing --region FORMAT");
  auto guard = a.get_int("--guard", 0, 0, 2);
  if (!guard) return 1;
  auto img = open_image(a);
  if (!img.ok()) return fail(a, img.status().message());
  auto& r = *img.value();
  std::vector<size_t> which;
  if (a.has("--tensor")) {
    auto f = r.find(a.get("--tensor"));
    if (!f.ok()) return fail(a, f.status().message());
    which.push_back(f.value());
  } else {
    for (size_t i = 0; i < r.tensors().size(); ++i) which.push_back(i);
  }
  std::vector<uint8_t> out, part;
  ReadStats total;
  uint64_t full_stored = 0;
  for (size_t i : which) {
    const auto& ti = r.tensors()[i];
    auto reg = parse_region(a.get("--region"), ti.dtype, static_cast<int>(*guard));
    if (!reg.ok()) return fail(a, "tensor '" + ti.name + "': " + reg.status().message());
    ReadStats st;
    Status s = r.read_region(i, reg.value(), part, &st);
    if (!s.ok()) return fail(a, s.message());
    out.insert(out.end(), part.begin(), part.end());
    total.fetched_bytes += st.fetched_bytes;
    total.blocks += st.blocks;
    full_stored += ti.stored_bytes;
  }
  Status s = write_file(a.get("-o"), out);
  if (!s.ok()) return fail(a, s.message());
  std::printf("region %s (g=%lld): %zu tensors, %zu output bytes, fetched %llu of %llu stored bytes (%.1f%%) in %llu blocks\n",
              a.get("--region").c_str(), (long long)*guard, which.size(), out.size(),
              (unsigned long long)total.fetched_bytes, (unsigned long long)full_stored,
              full_stored ? 100.0 * double(total.fetched_bytes) / double(full_stored) : 0.0,
              (unsigned long long)total.blocks);
  return 0;
}

int cmd_verify(const Args& a) {
  auto img = open_image(a);
  if (!img.ok()) return fail(a, img.status().message());
  auto bad = img.value()->verify();
  for (const auto& b : bad)
    std::fprintf(stderr, "bad block: tensor '%s' chunk %llu plane 0x%02x at offset %llu: %s\n",
                 one_line(b.tensor).c_str(), (unsigned long long)b.chunk, b.plane_id, (unsigned long long)b.offset,
                 one_line(b.message).c_str());
  if (!bad.empty()) return fail(a, std::to_string(bad.size()) + " bad block(s) in " + a.pos[0]);
  uint64_t blocks = 0;
  for (const auto& t : img.value()->tensors()) blocks += t.chunks * t.plane_ids.size();
  std::printf("%s: OK, %zu tensors, %llu blocks verified\n", a.pos[0].c_str(), img.value()->tensors().size(),
              (unsigned long long)blocks);
  return 0;
}

}  // namespace

NDP_COMMAND("pack",
            "pack PATH -o IMAGE [--format F] [--as bf16|fp8-e4m3|int8|int4] [--group G] [--match REGEX] [--codec auto|lz4|zstd|raw] [--block BYTES] "
            "[--layout expbyte|bitplane] [--max-bytes N]",
            cmd_pack);
NDP_COMMAND("unpack", "unpack IMAGE -o FILE [--raw]   (safetensors output unless --raw)", cmd_unpack, {"--raw"});
NDP_COMMAND("read", "read IMAGE --region FORMAT [--guard G] [--tensor NAME] -o FILE", cmd_read);
NDP_COMMAND("verify", "verify IMAGE   (non-zero exit on any bad block)", cmd_verify);

}  // namespace ndp::cli
