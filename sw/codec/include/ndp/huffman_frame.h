// Literals-only Huffman Zstandard frame writer (docs/spec.md section 4.3): a standard RFC 8878 frame
// whose single compressed block holds a Compressed_Literals_Block and zero sequences. Any zstd
// decoder (ZSTD_decompress) reads it; a hardware lane needs only the literals path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ndp {

constexpr int kHuffMaxBits = 11;  // RFC 8878 limit on Huffman code length

// Optimal length-limited prefix code (package-merge) for the byte histogram hist[0..255].
// lengths[0..255] receives each symbol's code length (0 for absent symbols). The code is complete
// (Kraft sum exactly 1). Returns the longest length, or 0 when fewer than 2 symbols are present or
// 2^max_bits < number of symbols (lengths all zero then). Deterministic: ties broken by symbol.
int huffman_code_lengths(const uint32_t* hist, int max_bits, uint8_t* lengths);

struct HuffFrameInfo {
  int streams = 0;           // 1 or 4
  bool fse_tree = false;     // tree description FSE-compressed (largest symbol > 128) vs direct
  size_t tree_bytes = 0;     // Huffman_Tree_Description size including its header byte
  int max_bits = 0;          // longest code length
  size_t frame_bytes = 0;
};

// Append the literals-only Huffman frame of src[0..n-1] to out and return true. Returns false and
// leaves out unchanged when no such frame exists: n == 0 or n > 131072, fewer than 2 distinct byte
// values, an FSE weight description longer than 127 bytes (or weights that FSE cannot code), a
// single-stream literals size over 1023 bytes, or a block larger than n (the frame's block size
// limit is its window, which for a single-segment frame is the content size).
// Layout: 1 stream when n < 1024, else 4 streams with a jump table; FCS field of 1, 2 or 4 bytes.
bool write_huffman_frame(const uint8_t* src, size_t n, std::vector<uint8_t>& out,
                         HuffFrameInfo* info = nullptr);

// The Literals_Section of that frame alone (Literals_Section_Header, tree description, jump table,
// streams), appended to out: the Compressed_Literals_Block of src[0..n-1] with the same code and
// layout rules (also used for the literals of a block with sequences, sw/codec zstd_hw_model).
// False, with out unchanged, when it does not exist (the conditions above except the block-size
// rule, which belongs to the frame). info->frame_bytes is then the section's size.
bool huffman_literals_section(const uint8_t* src, size_t n, std::vector<uint8_t>& out,
                              HuffFrameInfo* info = nullptr);

}  // namespace ndp
