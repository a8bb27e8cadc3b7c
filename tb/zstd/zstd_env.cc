// Data helpers of the Zstandard decoder bench: decodecorpus vectors, libzstd reference
// compression/decompression, RFC text, real plane blocks (stories260K, BF16 by RNE).
#include "zstd_env.h"

#include <zstd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ndp/planes.h"
#include "tb_data.h"

namespace ndp::tb {
namespace {

std::string data_dir() {
  const char* env = std::getenv("NDP_DATA_DIR");
  return (env && *env) ? env : NDP_TB_DATA_DIR;
}

bool read_all(const std::filesystem::path& p, std::vector<uint8_t>* out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

bool load_decodecorpus(const std::string& set, std::vector<ZstdVector>* out, std::string* why) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(data_dir()) / "zstd-decodecorpus" / set;
  if (!fs::exists(dir / "frames")) {
    *why = "real data not found: " + (dir / "frames").string();
    return false;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir / "frames"))
    if (e.path().extension() == ".zst") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  out->clear();
  for (const fs::path& f : files) {
    ZstdVector v;
    v.name = set + "/" + f.stem().string();
    if (!read_all(f, &v.frame) || !read_all(dir / "orig" / f.stem(), &v.orig)) {
      *why = "cannot read " + f.string() + " or its original";
      return false;
    }
    out->push_back(std::move(v));
  }
  if (out->empty()) *why = "no frames in " + (dir / "frames").string();
  return !out->empty();
}

std::vector<uint8_t> libzstd_compress(const std::vector<uint8_t>& src, int level, bool checksum) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, checksum ? 1 : 0);
  std::vector<uint8_t> out(ZSTD_compressBound(src.size()));
  size_t n = ZSTD_compress2(c, out.data(), out.size(), src.data(), src.size());
  ZSTD_freeCCtx(c);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

bool libzstd_decompress(const std::vector<uint8_t>& src, size_t cap, std::vector<uint8_t>* out, std::string* err) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  out->assign(cap, 0);
  size_t n = ZSTD_decompressDCtx(d, out->data(), cap, src.data(), src.size());
  ZSTD_freeDCtx(d);
  if (ZSTD_isError(n)) {
    if (err) *err = ZSTD_getErrorName(n);
    out->clear();
    return false;
  }
  out->resize(n);
  return true;
}

bool load_reference_text(std::vector<uint8_t>* out, std::string* why) {
  const std::filesystem::path p = std::filesystem::path(data_dir()) / ".." / "reference" / "zstd_compression_format.md";
  if (!read_all(p, out) || out->empty()) {
    *why = "reference text not found: " + p.string();
    return false;
  }
  return true;
}

bool load_plane_blocks(size_t block, std::vector<ZstdVector>* out, std::string* why) {
  std::vector<Bf16Tensor> ts;
  if (!load_stories260k_bf16(&ts, why)) return false;
  out->clear();
  for (const Bf16Tensor& t : ts) {
    const uint64_t n = t.elements();
    for (uint64_t c = 0; c + block <= n; c += block) {
      std::vector<std::vector<uint8_t>> planes;
      pack_chunk(DType::kBF16, Layout::kExpByte, t.bytes.data() + 2 * c, block, planes);
      const std::vector<uint8_t> ids = plane_order(DType::kBF16, Layout::kExpByte);
      for (size_t i = 0; i < ids.size(); ++i) {
        ZstdVector v;
        v.name = "stories260K/" + t.name + " @" + std::to_string(c) + " plane " + std::to_string(ids[i]);
        v.orig = std::move(planes[i]);
        out->push_back(std::move(v));
      }
    }
  }
  if (out->empty()) *why = "no plane blocks of " + std::to_string(block) + " elements";
  return !out->empty();
}

void save_vector(const std::string& path, const std::vector<uint8_t>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
}

const char* zstd_err_name(uint8_t code) {
  static const char* const kNames[] = {"none",       "magic",     "truncated", "frame_header", "history",
                                       "block_type", "block_size", "literals", "huffman",      "fse",
                                       "sequences",  "offset",    "output",    "checksum",     "no_table",
                                       "content_size"};
  return code < sizeof(kNames) / sizeof(kNames[0]) ? kNames[code] : "unknown";
}

}  // namespace ndp::tb
