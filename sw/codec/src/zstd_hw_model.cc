// Transaction-level model of rtl/zstd/zstd_encoder.sv: block kinds, the sequences block (repeat
// offsets, length/offset codes, predefined-FSE sequence bitstream, raw or Huffman literals) and the
// frame around the blocks. docs/zstd.md ("Encoder") describes the hardware that it mirrors.
#include "ndp/zstd_hw_model.h"

#include <array>
#include <cstring>
#include <string>

#include "bit_writer.h"
#include "ndp/huffman_frame.h"

namespace ndp {
namespace {

using codec_internal::BitWriter;

constexpr uint32_t kZstdMagic = 0xFD2FB528u;
constexpr uint8_t kPlaneExpByte = 0x40;

void put_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

int highbit(uint32_t v) { return 31 - __builtin_clz(v); }

// RFC 8878 "Literals length codes" / "Match length codes": baseline and extra bits per code.
constexpr std::array<uint32_t, 36> kLlBase = {0,  1,  2,  3,  4,   5,   6,   7,    8,    9,    10,   11,
                                              12, 13, 14, 15, 16,  18,  20,  22,   24,   28,   32,   40,
                                              48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
constexpr std::array<uint8_t, 36> kLlBits = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  1,  1,
                                             1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
constexpr std::array<uint32_t, 53> kMlBase = {
    3,  4,  5,  6,  7,  8,  9,  10, 11, 12,  13,  14,  15,  16,   17,   18,   19,   20,
    21, 22, 23, 24, 25, 26, 27, 28, 29, 30,  31,  32,  33,  34,   35,   37,   39,   41,
    43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
constexpr std::array<uint8_t, 53> kMlBits = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,
                                             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1,  1,  1,
                                             2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

// Default distributions (RFC 8878 "Default Distributions"); -1 = "less than 1".
constexpr int16_t kLlNorm[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2,
                                 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
constexpr int16_t kMlNorm[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
constexpr int16_t kOfNorm[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1,
                                 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

// Encoder view of an FSE table: the decoding table's positions of each symbol in ascending order.
// Encoding symbol s towards decoder state t (the state that decodes the symbol after it): with
// c = max(norm[s], 1) and x = t + 2^AL, the state is the (ns - c)-th position of s where
// ns = x >> nb lies in [c, 2c), and the nb low bits of x are written. This is find_state() of
// fse_weights.cc in closed form; the RTL computes it the same way (zstd_enc_seqenc.sv).
struct FseEnc {
  int log = 0;
  std::vector<int> cnt;                 // max(norm, 1)
  std::vector<std::vector<int>> pos;    // ascending table positions per symbol
};

FseEnc build_enc(const int16_t* norm, int nsym, int log) {
  FseEnc e;
  e.log = log;
  const int size = 1 << log, mask = size - 1, step = (size >> 1) + (size >> 3) + 3;
  std::vector<int> sym(static_cast<size_t>(size), -1);
  int high = size - 1;
  for (int s = 0; s < nsym; ++s)
    if (norm[s] == -1) sym[static_cast<size_t>(high--)] = s;
  int p = 0;
  for (int s = 0; s < nsym; ++s)
    for (int i = 0; i < norm[s]; ++i) {
      sym[static_cast<size_t>(p)] = s;
      do p = (p + step) & mask;
      while (p > high);
    }
  e.cnt.resize(static_cast<size_t>(nsym));
  e.pos.resize(static_cast<size_t>(nsym));
  for (int s = 0; s < nsym; ++s) e.cnt[static_cast<size_t>(s)] = norm[s] < 1 ? 1 : norm[s];
  for (int u = 0; u < size; ++u) e.pos[static_cast<size_t>(sym[static_cast<size_t>(u)])].push_back(u);
  return e;
}

const FseEnc& ll_table() {
  static const FseEnc t = build_enc(kLlNorm, 36, 6);
  return t;
}
const FseEnc& ml_table() {
  static const FseEnc t = build_enc(kMlNorm, 53, 6);
  return t;
}
const FseEnc& of_table() {
  static const FseEnc t = build_enc(kOfNorm, 29, 5);
  return t;
}

// One FSE transition: from decoder state *st (of the following symbol) to the state of s; writes
// the nb bits the decoder reads between the two.
void fse_step(const FseEnc& e, int s, int* st, BitWriter& bw) {
  const int c = e.cnt[static_cast<size_t>(s)];
  const uint32_t x = static_cast<uint32_t>(*st) + (1u << e.log);
  const int k = e.log - highbit(static_cast<uint32_t>(c));
  const int nb = static_cast<int>(x >> k) >= c ? k : k - 1;
  const int ns = static_cast<int>(x >> nb);
  bw.add(x & ((1u << nb) - 1), nb);
  *st = e.pos[static_cast<size_t>(s)][static_cast<size_t>(ns - c)];
}

// One sequence as coded: codes and extra-bit values.
struct SeqCode {
  uint8_t llc = 0, mlc = 0, ofc = 0;
  uint32_t llx = 0, mlx = 0, ofx = 0;
};

template <size_t N>
uint8_t code_of(const std::array<uint32_t, N>& base, uint32_t v) {
  size_t c = 0;
  while (c + 1 < N && base[c + 1] <= v) ++c;
  return static_cast<uint8_t>(c);
}

// Offset value with repeat codes (RFC 8878 "Repeat offsets") and the history update a decoder
// applies. Candidates in order: ll > 0: rep1, rep2, rep3; ll == 0: rep2, rep3, rep1 - 1.
uint32_t offset_value(uint32_t ll, uint32_t off, ZstdRepHistory& h) {
  uint32_t* r = h.rep;
  if (ll > 0) {
    if (off == r[0]) return 1;
    if (off == r[1]) {
      r[1] = r[0];
      r[0] = off;
      return 2;
    }
    if (off == r[2]) {
      r[2] = r[1];
      r[1] = r[0];
      r[0] = off;
      return 3;
    }
  } else {
    if (off == r[1]) {
      r[1] = r[0];
      r[0] = off;
      return 1;
    }
    if (off == r[2]) {
      r[2] = r[1];
      r[1] = r[0];
      r[0] = off;
      return 2;
    }
    if (off == r[0] - 1) {
      r[2] = r[1];
      r[1] = r[0];
      r[0] = off;
      return 3;
    }
  }
  r[2] = r[1];
  r[1] = r[0];
  r[0] = off;
  return off + 3;
}

SeqCode code_seq(uint32_t ll, uint32_t ml, uint32_t ov) {
  SeqCode c;
  c.llc = code_of(kLlBase, ll);
  c.llx = ll - kLlBase[c.llc];
  c.mlc = code_of(kMlBase, ml);
  c.mlx = ml - kMlBase[c.mlc];
  c.ofc = static_cast<uint8_t>(highbit(ov));
  c.ofx = ov - (1u << c.ofc);
  return c;
}

// Sequences section bitstream (RFC 8878 "Decoding Sequences", written as libzstd writes it: the
// last sequence first, its states chosen as the lowest table position of its codes).
void write_seq_stream(const std::vector<SeqCode>& s, std::vector<uint8_t>& out) {
  const FseEnc &ll = ll_table(), &ml = ml_table(), &of = of_table();
  BitWriter bw(out);
  const SeqCode& z = s.back();
  int sll = ll.pos[z.llc][0], sml = ml.pos[z.mlc][0], sof = of.pos[z.ofc][0];
  bw.add(z.llx, kLlBits[z.llc]);
  bw.add(z.mlx, kMlBits[z.mlc]);
  bw.add(z.ofx, z.ofc);
  for (size_t i = s.size() - 1; i-- > 0;) {
    const SeqCode& c = s[i];
    fse_step(of, c.ofc, &sof, bw);
    fse_step(ml, c.mlc, &sml, bw);
    fse_step(ll, c.llc, &sll, bw);
    bw.add(c.llx, kLlBits[c.llc]);
    bw.add(c.mlx, kMlBits[c.mlc]);
    bw.add(c.ofx, c.ofc);
  }
  bw.add(static_cast<uint32_t>(sml), ml.log);
  bw.add(static_cast<uint32_t>(sof), of.log);
  bw.add(static_cast<uint32_t>(sll), ll.log);
  bw.close_backward();
}

void raw_literals_header(size_t n, std::vector<uint8_t>& out) {
  if (n <= 31) {
    out.push_back(static_cast<uint8_t>(n << 3));
  } else if (n <= 4095) {
    put_le(out, (1u << 2) | (n << 4), 2);
  } else {
    put_le(out, (3u << 2) | (n << 4), 3);
  }
}

void sequences_header(size_t nseq, std::vector<uint8_t>& out) {
  if (nseq < 128) {
    out.push_back(static_cast<uint8_t>(nseq));
  } else if (nseq < 0x7F00) {
    out.push_back(static_cast<uint8_t>((nseq >> 8) + 0x80));
    out.push_back(static_cast<uint8_t>(nseq));
  } else {
    out.push_back(0xFF);
    put_le(out, nseq - 0x7F00, 2);
  }
}

void block_header(bool last, ZstdHwKind k, size_t size, std::vector<uint8_t>& out) {
  const uint32_t type = k == ZstdHwKind::kRaw ? 0u : (k == ZstdHwKind::kRle ? 1u : 2u);
  put_le(out, (last ? 1u : 0u) | (type << 1) | (static_cast<uint32_t>(size) << 3), 3);
}

// Content of the sequences block (literals section + sequences section) into body; rep updated.
Status sequences_body(const uint8_t* src, size_t n, ZstdRepHistory& rep, const ZstdHwParams& p,
                      std::vector<uint8_t>& body, ZstdHwBlockInfo& info) {
  auto seqs = lz4_hw_sequences(src, n, p.finder);
  if (!seqs.ok()) return seqs.status();
  std::vector<uint8_t> lits;
  std::vector<SeqCode> codes;
  for (const Lz4HwSeq& s : seqs.value()) {
    lits.insert(lits.end(), src + s.lit_start, src + s.lit_start + s.ll);
    if (s.ml == 0) break;  // the final literals-only record
    codes.push_back(code_seq(s.ll, s.ml, offset_value(s.ll, s.off, rep)));
  }
  info.sequences = static_cast<uint32_t>(codes.size());
  info.literals = static_cast<uint32_t>(lits.size());
  std::vector<uint8_t> huf;
  HuffFrameInfo hi;
  const bool huf_ok = p.huffman_literals && huffman_literals_section(lits.data(), lits.size(), huf, &hi);
  size_t raw_hdr = lits.size() <= 31 ? 1 : (lits.size() <= 4095 ? 2 : 3);
  if (huf_ok && huf.size() < raw_hdr + lits.size()) {
    body = std::move(huf);
    info.huffman_lits = true;
  } else {
    raw_literals_header(lits.size(), body);
    body.insert(body.end(), lits.begin(), lits.end());
  }
  sequences_header(codes.size(), body);
  if (!codes.empty()) {
    body.push_back(0x00);  // Symbol_Compression_Modes: predefined LL, OF, ML
    write_seq_stream(codes, body);
  }
  return Status::Ok();
}

bool all_equal(const uint8_t* p, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (p[i] != p[0]) return false;
  return true;
}

}  // namespace

const char* zstd_hw_kind_name(ZstdHwKind k) {
  switch (k) {
    case ZstdHwKind::kRaw: return "raw";
    case ZstdHwKind::kRle: return "rle";
    case ZstdHwKind::kSequences: return "sequences";
    case ZstdHwKind::kHuffman: return "huffman";
  }
  return "?";
}

void zstd_hw_frame_header(uint64_t total, std::vector<uint8_t>& out) {
  put_le(out, kZstdMagic, 4);
  if (total <= 255) {
    out.push_back(0x20);
    put_le(out, total, 1);
  } else if (total <= 65791) {
    out.push_back(0x60);
    put_le(out, total - 256, 2);
  } else {
    out.push_back(0xA0);
    put_le(out, total, 4);
  }
}

namespace {

// The Huffman-mode candidate: the spec 4.3 block (header and content) or, when it does not exist, a
// Raw_Block.
void huffman_block(const uint8_t* src, size_t n, bool last, std::vector<uint8_t>& blk, ZstdHwBlockInfo& bi) {
  std::vector<uint8_t> frame;
  if (write_huffman_frame(src, n, frame)) {
    // the spec 4.3 frame: its block (header and content) follows the frame header
    const size_t fhd = 4 + 1 + (n <= 255 ? 1 : (n <= 65791 ? 2 : 4));
    bi.kind = ZstdHwKind::kHuffman;
    frame[fhd] = static_cast<uint8_t>((frame[fhd] & ~1u) | (last ? 1u : 0u));
    blk.assign(frame.begin() + static_cast<long>(fhd), frame.end());
  } else {  // no Huffman block: stored raw
    bi.kind = ZstdHwKind::kRaw;
    block_header(last, bi.kind, n, blk);
    blk.insert(blk.end(), src, src + n);
  }
}

// The sequences-mode candidate: a sequences block when smaller than the content (r: the history
// after it), else a Raw_Block (r unchanged).
Status sequences_block(const uint8_t* src, size_t n, bool last, ZstdRepHistory& r, const ZstdHwParams& p,
                       std::vector<uint8_t>& blk, ZstdHwBlockInfo& bi) {
  ZstdRepHistory after = r;
  std::vector<uint8_t> body;
  NDP_RETURN_IF_ERROR(sequences_body(src, n, after, p, body, bi));
  if (body.size() < n) {
    bi.kind = ZstdHwKind::kSequences;
    r = after;
    block_header(last, bi.kind, body.size(), blk);
    blk.insert(blk.end(), body.begin(), body.end());
  } else {
    bi.kind = ZstdHwKind::kRaw;
    block_header(last, bi.kind, n, blk);
    blk.insert(blk.end(), src, src + n);
  }
  return Status::Ok();
}

}  // namespace

Status zstd_hw_block(const uint8_t* src, size_t n, bool huffman, bool last, ZstdRepHistory& rep,
                     std::vector<uint8_t>& out, ZstdHwBlockInfo* info, const ZstdHwParams& p) {
  if (n == 0 || n > kMaxPlaneBytes)
    return Status::Error("zstd hw encoder: block of " + std::to_string(n) + " bytes outside 1..65536");
  ZstdHwBlockInfo bi;
  bi.raw_size = static_cast<uint32_t>(n);
  std::vector<uint8_t> blk;
  if (all_equal(src, n)) {
    bi.kind = ZstdHwKind::kRle;
    block_header(last, bi.kind, n, blk);
    blk.push_back(src[0]);
  } else if (huffman && p.huffman_literals) {
    // both candidates, the smaller written (the Huffman block on ties)
    huffman_block(src, n, last, blk, bi);
    ZstdRepHistory r = rep;
    std::vector<uint8_t> seq;
    ZstdHwBlockInfo si;
    si.raw_size = bi.raw_size;
    NDP_RETURN_IF_ERROR(sequences_block(src, n, last, r, p, seq, si));
    if (seq.size() < blk.size()) {
      blk = std::move(seq);
      bi = si;
      rep = r;
    }
  } else if (huffman) {
    huffman_block(src, n, last, blk, bi);
  } else {
    NDP_RETURN_IF_ERROR(sequences_block(src, n, last, rep, p, blk, bi));
  }
  out.insert(out.end(), blk.begin(), blk.end());
  bi.bytes = static_cast<uint32_t>(blk.size());
  if (info) *info = bi;
  return Status::Ok();
}

Status zstd_hw_frame(const uint8_t* src, size_t n, bool huffman, size_t block_bytes, std::vector<uint8_t>& out,
                     std::vector<ZstdHwBlockInfo>* infos, const ZstdHwParams& p) {
  if (n == 0 || n > 0xFFFFFFFFull) return Status::Error("zstd hw frame: content of " + std::to_string(n) + " bytes");
  if (block_bytes == 0 || block_bytes > kMaxPlaneBytes)
    return Status::Error("zstd hw frame: block size " + std::to_string(block_bytes) + " outside 1..65536");
  const size_t at = out.size();
  zstd_hw_frame_header(n, out);
  ZstdRepHistory rep;
  for (size_t pos = 0; pos < n; pos += block_bytes) {
    const size_t len = std::min(block_bytes, n - pos);
    ZstdHwBlockInfo bi;
    Status st = zstd_hw_block(src + pos, len, huffman, pos + len == n, rep, out, &bi, p);
    if (!st.ok()) {
      out.resize(at);
      return st;
    }
    if (infos) infos->push_back(bi);
  }
  return Status::Ok();
}

Result<BlockInfo> encode_block_lane(const uint8_t* plane, size_t n, uint8_t plane_id, uint64_t block_id,
                                    CodecPolicy policy, bool guard, std::vector<uint8_t>& out,
                                    const LaneHwParams& p) {
  const std::string w = "hw encode block " + std::to_string(block_id);
  if (n == 0 || n > kMaxPlaneBytes)
    return Status::Error(w + ": plane size " + std::to_string(n) + " outside 1..65536");
  if (!plane_id_defined(plane_id)) return Status::Error(w + ": undefined plane id " + std::to_string(plane_id));
  BlockHeader h;
  h.block_id = static_cast<uint16_t>(block_id);
  h.plane_id = plane_id;
  h.guard = guard;
  h.raw_size = static_cast<uint32_t>(n);
  h.checksum = block_checksum(plane, n);
  h.codec = Codec::kRaw;
  BlockInfo info;
  std::vector<uint8_t> lz4, zstd;
  if (all_equal(plane, n)) {
    h.codec = Codec::kConst;
    zstd.push_back(plane[0]);
  } else {
    const auto bursts = [](size_t b) { return (b + kBurstBytes - 1) / kBurstBytes; };
    bool lz4_pays = false, zstd_pays = false, huf = false;
    if (policy == CodecPolicy::kAuto || policy == CodecPolicy::kLz4) {
      NDP_RETURN_IF_ERROR(lz4_hw_compress(plane, n, lz4, p.lz4));
      lz4_pays = bursts(lz4.size()) < bursts(n);
    }
    if (policy == CodecPolicy::kAuto || policy == CodecPolicy::kZstd) {
      std::vector<ZstdHwBlockInfo> bi;
      const bool exp = plane_id == kPlaneExpByte;
      ZstdHwParams zp = p.zstd;
      zp.huffman_literals = zp.huffman_literals && exp;  // in_hl_i: EXPBYTE planes
      NDP_RETURN_IF_ERROR(zstd_hw_frame(plane, n, exp, n, zstd, &bi, zp));
      zstd_pays = bursts(zstd.size()) < bursts(n);
      huf = bi[0].kind == ZstdHwKind::kHuffman;
    }
    if (zstd_pays && (!lz4_pays || zstd.size() < lz4.size())) {
      h.codec = Codec::kZstd;
      info.huffman_frame = huf;
    } else if (lz4_pays) {
      h.codec = Codec::kLz4;
      zstd.swap(lz4);
    } else {
      zstd.assign(plane, plane + n);
    }
  }
  h.comp_size = static_cast<uint32_t>(zstd.size());
  const size_t at = out.size();
  out.resize(at + kBlockHeaderBytes);
  serialize_block_header(h, out.data() + at);
  out.insert(out.end(), zstd.begin(), zstd.end());
  info.codec = h.codec;
  info.raw_size = h.raw_size;
  info.comp_size = h.comp_size;
  return info;
}

}  // namespace ndp
