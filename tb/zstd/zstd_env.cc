// Data helpers of the Zstandard decoder bench: decodecorpus vectors, libzstd reference
// compression/decompression, RFC text, real plane blocks (stories260K, BF16 by RNE).
#include "zstd_env.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_decompressBlock, ZSTD_insertBlock, ZSTD_c_useBlockSplitter
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
  ZstdParams p;
  p.level = level;
  p.checksum = checksum;
  return libzstd_compress(src, p);
}

std::vector<uint8_t> libzstd_compress(const std::vector<uint8_t>& src, const ZstdParams& p) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, p.level);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, p.checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, p.checksum ? 1 : 0);
  if (p.window_log != 0) ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, p.window_log);
  if (!p.split_blocks) ZSTD_CCtx_setParameter(c, ZSTD_c_useBlockSplitter, ZSTD_ps_disable);
  if (!p.dict.empty()) ZSTD_CCtx_loadDictionary(c, p.dict.data(), p.dict.size());
  std::vector<uint8_t> out(ZSTD_compressBound(src.size()));
  size_t n = ZSTD_compress2(c, out.data(), out.size(), src.data(), src.size());
  ZSTD_freeCCtx(c);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

namespace {

// Size of the literals section at b (RFC 8878 section 3.1.1.3.1.1), 0 when it does not fit in n.
size_t literals_section_size(const uint8_t* b, size_t n) {
  if (n == 0) return 0;
  const unsigned type = b[0] & 3u, fmt = (b[0] >> 2) & 3u;
  size_t hdr = 0, content = 0;
  if (type < 2) {
    hdr = (fmt == 1) ? 2 : (fmt == 3) ? 3 : 1;
    if (hdr > n) return 0;
    const size_t regen = hdr == 1 ? b[0] >> 3u
                         : hdr == 2 ? (b[0] >> 4u) + (size_t{b[1]} << 4u)
                                    : (b[0] >> 4u) + (size_t{b[1]} << 4u) + (size_t{b[2]} << 12u);
    content = type == 0 ? regen : 1;
  } else {
    hdr = fmt < 2 ? 3 : fmt + 2;
    if (hdr > n) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < hdr; ++i) v |= uint64_t{b[i]} << (8 * i);
    const unsigned w = hdr == 3 ? 10 : hdr == 4 ? 14 : 18;
    content = static_cast<size_t>((v >> (4 + w)) & ((1u << w) - 1));
  }
  return hdr + content <= n ? hdr + content : 0;
}

}  // namespace

bool zstd_frame_window(const std::vector<uint8_t>& frame, uint64_t* window) {
  ZSTD_frameHeader fh;
  if (ZSTD_getFrameHeader(&fh, frame.data(), frame.size()) != 0 || fh.frameType != ZSTD_frame) return false;
  *window = fh.windowSize;
  return true;
}

bool zstd_frame_blocks(const std::vector<uint8_t>& frame, std::vector<ZstdBlock>* blocks) {
  ZSTD_frameHeader fh;
  if (ZSTD_getFrameHeader(&fh, frame.data(), frame.size()) != 0 || fh.frameType != ZSTD_frame) return false;
  blocks->clear();
  for (size_t p = fh.headerSize;;) {
    if (p + 3 > frame.size()) return false;
    const uint32_t bh = frame[p] | (uint32_t{frame[p + 1]} << 8) | (uint32_t{frame[p + 2]} << 16);
    ZstdBlock b;
    b.type = static_cast<uint8_t>((bh >> 1) & 3u);
    b.size = bh >> 3;
    p += 3;
    const size_t len = b.type == 1 ? 1 : b.size;
    if (b.type == 3 || p + len > frame.size()) return false;
    if (b.type == 2) {
      const size_t lits = literals_section_size(&frame[p], b.size);
      if (lits == 0 || lits >= b.size) return false;
      const uint8_t* q = &frame[p + lits];
      const size_t left = b.size - lits;
      b.nseq = q[0] < 128 ? q[0] : q[0] < 255 ? ((q[0] - 128u) << 8) + (left > 1 ? q[1] : 0u)
                                             : (left > 2 ? q[1] + (uint32_t{q[2]} << 8) : 0u) + 0x7F00u;
      b.nseq_3byte = q[0] == 255;
      const size_t h = q[0] < 128 ? 1 : q[0] < 255 ? 2 : 3;
      if (b.nseq != 0 && h < left) b.modes = q[h];
    }
    blocks->push_back(b);
    p += len;
    if (bh & 1u) return true;
  }
}

int libzstd_history_decode(const std::vector<uint8_t>& frame, size_t hist, std::vector<uint8_t>* out,
                           std::vector<ZstdBlock>* blocks) {
  out->clear();
  if (!zstd_frame_blocks(frame, blocks)) return 0;
  ZSTD_frameHeader fh;
  ZSTD_getFrameHeader(&fh, frame.data(), frame.size());
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZSTD_decompressBegin(d);
  // Two buffers used in turn, each [history copy | block]: ZSTD_insertBlock(prev, 0) ends the
  // previous prefix, so the next discontinuity leaves libzstd an empty external dictionary and
  // the copy of the last `hist` bytes as the only history.
  const size_t kBlockMax = 131072;
  std::vector<uint8_t> buf[2] = {std::vector<uint8_t>(hist + kBlockMax), std::vector<uint8_t>(hist + kBlockMax)};
  static const uint8_t kStart = 0;
  ZSTD_insertBlock(d, &kStart, 1);
  const void* prev = &kStart;
  int failed = -1;
  size_t p = fh.headerSize + 3;
  for (size_t k = 0; k < blocks->size(); ++k) {
    ZstdBlock& b = (*blocks)[k];
    uint8_t* h = buf[k & 1].data();
    const size_t hh = std::min(hist, out->size());
    std::copy(out->end() - static_cast<std::ptrdiff_t>(hh), out->end(), h);
    ZSTD_insertBlock(d, prev, 0);
    if (hh) ZSTD_insertBlock(d, h, hh);
    if (hh || b.type == 2 || b.size > 0) prev = h;  // a new prefix starts at h
    b.out_begin = out->size();
    size_t got = b.size;
    if (b.size > kBlockMax) {
      failed = static_cast<int>(k);
      break;
    }
    if (b.type == 0) std::copy(&frame[p], &frame[p] + b.size, h + hh);
    if (b.type == 1) std::fill(h + hh, h + hh + b.size, frame[p]);
    if (b.type < 2 && b.size > 0) ZSTD_insertBlock(d, h + hh, b.size);
    if (b.type == 2) got = ZSTD_decompressBlock(d, h + hh, kBlockMax, &frame[p], b.size);
    if (ZSTD_isError(got)) {
      failed = static_cast<int>(k);
      break;
    }
    out->insert(out->end(), h + hh, h + hh + got);
    b.out_end = out->size();
    p += (b.type == 1 ? 1 : b.size) + 3;
  }
  ZSTD_freeDCtx(d);
  return failed;
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

bool libzstd_decompress_stream(const std::vector<uint8_t>& src, size_t cap, std::vector<uint8_t>* out,
                               std::string* err) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  std::vector<uint8_t> chunk(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{src.data(), src.size(), 0};
  out->clear();
  size_t r = 1;
  bool progress = true;
  while (!ZSTD_isError(r) && progress && out->size() <= cap && !(r == 0 && in.pos == in.size)) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    const size_t in0 = in.pos;
    r = ZSTD_decompressStream(d, &o, &in);
    out->insert(out->end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(o.pos));
    progress = in.pos != in0 || o.pos != 0;
  }
  ZSTD_freeDCtx(d);
  const bool ok = !ZSTD_isError(r) && r == 0 && in.pos == in.size && out->size() <= cap;
  if (!ok && err) *err = ZSTD_isError(r) ? ZSTD_getErrorName(r) : out->size() > cap ? "output above cap" : "truncated";
  if (!ok) out->clear();
  return ok;
}

bool load_zstd_golden(const std::string& rel, std::vector<uint8_t>* out, std::string* why) {
  const std::filesystem::path p = std::filesystem::path(data_dir()) / "zstd-golden" / rel;
  if (!std::filesystem::exists(p) || !read_all(p, out)) {
    *why = "real data not found: " + p.string();
    return false;
  }
  return true;
}

std::string zstd_first_diff(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  return "first difference at byte " + std::to_string(i) + " (got " + std::to_string(got.size()) + " bytes, want " +
         std::to_string(want.size()) + ")";
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
