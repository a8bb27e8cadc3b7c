// Literals-only Huffman ZSTD frame (docs/spec.md 4.3; RFC 8878 sections "Literals Section",
// "Huffman Tree Description", "Huffman-coded Streams").
#include "ndp/huffman_frame.h"

#include <bit>
#include <cstring>

#include "fse_weights.h"

namespace ndp {
namespace {

constexpr uint32_t kZstdMagic = 0xFD2FB528u;
constexpr size_t kMaxFrameContent = 131072;  // one block: Block_Maximum_Size <= 128 KiB

void put_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Canonical codes as zstd assigns them: longest codes first, numerically smallest, in symbol order
// within a length.
void canonical_codes(const uint8_t* len, int max_bits, uint16_t* code) {
  uint32_t per_len[kHuffMaxBits + 2] = {0}, next[kHuffMaxBits + 2] = {0};
  for (int s = 0; s < 256; ++s) per_len[len[s]]++;
  uint32_t min = 0;
  for (int l = max_bits; l > 0; --l) {
    next[l] = min;
    min = (min + per_len[l]) >> 1;
  }
  for (int s = 0; s < 256; ++s) code[s] = len[s] ? static_cast<uint16_t>(next[len[s]]++) : 0;
}

// Huffman_Tree_Description: header byte then the weights of symbols 0..max_sym-1 (the last
// present symbol's weight is implied). Direct 4-bit form when max_sym <= 128, else FSE.
bool write_tree(const uint8_t* len, int max_bits, int max_sym, std::vector<uint8_t>& out,
                bool* fse) {
  uint8_t w[256];
  for (int s = 0; s < max_sym; ++s)
    w[s] = len[s] ? static_cast<uint8_t>(max_bits + 1 - len[s]) : 0;
  const size_t nw = static_cast<size_t>(max_sym);
  if (max_sym <= 128) {
    *fse = false;
    out.push_back(static_cast<uint8_t>(127 + nw));
    for (size_t i = 0; i < nw; i += 2)
      out.push_back(static_cast<uint8_t>((w[i] << 4) | (i + 1 < nw ? w[i + 1] : 0)));
    return true;
  }
  *fse = true;
  std::vector<uint8_t> body;
  if (!codec_internal::fse_compress_weights(w, nw, body) || body.size() > 127) return false;
  out.push_back(static_cast<uint8_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return true;
}

// One Huffman-coded stream: symbols encoded last to first so the decoder reads them in order, closed
// by the end-mark 1 bit. Four codes (<= 44 bits) are gathered in a 64-bit accumulator per store.
void write_stream(const uint8_t* src, size_t n, const uint8_t* len, const uint16_t* code,
                  std::vector<uint8_t>& out) {
  static_assert(std::endian::native == std::endian::little, "the stream store assumes little-endian");
  const size_t at = out.size();
  out.resize(at + n * kHuffMaxBits / 8 + 16);
  uint8_t* p = out.data() + at;
  uint64_t acc = 0;
  int nb = 0;
  auto put = [&](uint8_t s) {
    acc |= static_cast<uint64_t>(code[s]) << nb;
    nb += len[s];
  };
  auto flush = [&] {
    std::memcpy(p, &acc, 8);
    p += nb >> 3;
    acc >>= nb & ~7;
    nb &= 7;
  };
  size_t i = n;
  for (; i >= 4; i -= 4) {
    put(src[i - 1]);
    put(src[i - 2]);
    put(src[i - 3]);
    put(src[i - 4]);
    flush();
  }
  while (i > 0) put(src[--i]);
  acc |= uint64_t{1} << nb;  // end mark
  nb += 1;
  std::memcpy(p, &acc, 8);
  p += (nb + 7) >> 3;
  out.resize(static_cast<size_t>(p - out.data()));
}

}  // namespace

bool huffman_literals_section(const uint8_t* src, size_t n, std::vector<uint8_t>& block, HuffFrameInfo* info) {
  if (n == 0 || n > kMaxFrameContent) return false;
  uint32_t hist[256] = {0};
  for (size_t i = 0; i < n; ++i) hist[src[i]]++;
  uint8_t len[256];
  const int max_bits = huffman_code_lengths(hist, kHuffMaxBits, len);
  if (max_bits == 0) return false;
  int max_sym = 255;
  while (!hist[max_sym]) --max_sym;
  uint16_t code[256];
  canonical_codes(len, max_bits, code);

  // Literals content: tree description, [jump table], streams.
  std::vector<uint8_t> lit;
  lit.reserve(n);
  bool fse = false;
  if (!write_tree(len, max_bits, max_sym, lit, &fse)) return false;
  const size_t tree_bytes = lit.size();
  const bool four = n >= 1024;
  if (!four) {
    write_stream(src, n, len, code, lit);
  } else {
    const size_t seg = (n + 3) / 4;
    const size_t jump_at = lit.size();
    lit.resize(lit.size() + 6);
    size_t sizes[3];
    for (int k = 0; k < 4; ++k) {
      const size_t begin = seg * static_cast<size_t>(k);
      const size_t end = k == 3 ? n : begin + seg;
      const size_t before = lit.size();
      write_stream(src + begin, end - begin, len, code, lit);
      if (k < 3) sizes[k] = lit.size() - before;
    }
    for (int k = 0; k < 3; ++k) {
      if (sizes[k] > 0xFFFF) return false;
      lit[jump_at + 2 * static_cast<size_t>(k)] = static_cast<uint8_t>(sizes[k]);
      lit[jump_at + 2 * static_cast<size_t>(k) + 1] = static_cast<uint8_t>(sizes[k] >> 8);
    }
  }
  // Literals_Section_Header: type 2 (Compressed_Literals_Block), Size_Format, sizes.
  const uint64_t regen = n, csize = lit.size();
  const size_t at = block.size();
  if (!four) {
    if (csize > 1023) return false;
    put_le(block, 2u | (0u << 2) | (regen << 4) | (csize << 14), 3);
  } else if (regen <= 16383 && csize <= 16383) {
    put_le(block, 2u | (2u << 2) | (regen << 4) | (csize << 18), 4);
  } else if (csize <= 262143) {
    put_le(block, 2u | (3u << 2) | (regen << 4) | (csize << 22), 5);
  } else {
    return false;
  }
  block.insert(block.end(), lit.begin(), lit.end());
  if (info) {
    info->streams = four ? 4 : 1;
    info->fse_tree = fse;
    info->tree_bytes = tree_bytes;
    info->max_bits = max_bits;
    info->frame_bytes = block.size() - at;
  }
  return true;
}

bool write_huffman_frame(const uint8_t* src, size_t n, std::vector<uint8_t>& out,
                         HuffFrameInfo* info) {
  std::vector<uint8_t> block;
  if (!huffman_literals_section(src, n, block, info)) return false;
  block.push_back(0);  // Sequences_Section_Header: Number_of_Sequences = 0
  if (block.size() > n) return false;  // Block_Size must not exceed the window (= content size)

  const size_t start = out.size();
  put_le(out, kZstdMagic, 4);
  if (n <= 255) {  // Single_Segment_flag, FCS 1 byte
    out.push_back(0x20);
    put_le(out, n, 1);
  } else if (n <= 65791) {  // FCS 2 bytes, value - 256
    out.push_back(0x60);
    put_le(out, n - 256, 2);
  } else {
    out.push_back(0xA0);
    put_le(out, n, 4);
  }
  put_le(out, 1u | (2u << 1) | (static_cast<uint32_t>(block.size()) << 3), 3);  // last, compressed
  out.insert(out.end(), block.begin(), block.end());
  if (info) info->frame_bytes = out.size() - start;
  return true;
}

}  // namespace ndp
