// FSE compression of a Huffman weight series (RFC 8878 "FSE compression of Huffman weights"):
// normalised distribution header (FSE Table Description) followed by a 2-state backward bitstream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ndp::codec_internal {

constexpr int kFseWeightsMaxLog = 6;  // accuracy log limit for Huffman weights
constexpr int kFseMinLog = 5;

// Normalise the histogram count[0..max_sym] to a total of 2^log, every present symbol >= 1 (no
// "less than 1" probabilities). Greedy by marginal code-length gain, which is optimal for the ideal
// cost sum(count * log2(2^log / norm)). Contract: 2 <= present symbols <= 2^log.
void fse_normalize(const uint32_t* count, int max_sym, int log, int16_t* norm);

// Append the FSE Table Description of norm[0..max_sym] (total 2^log) to out.
void fse_write_ncount(const int16_t* norm, int max_sym, int log, std::vector<uint8_t>& out);

// Encode w[0..n-1] (n >= 3) as the 2-state FSE bitstream a zstd decoder reads back to exactly n
// symbols, with the table built from norm (RFC 8878 "From normalized distribution to decoding
// tables"). Appends to out.
void fse_encode_two_state(const uint8_t* w, size_t n, const int16_t* norm, int max_sym, int log,
                          std::vector<uint8_t>& out);

// Full weight description body (ncount + bitstream), the smaller over accuracy logs 5 and 6.
// Returns false when the series cannot be FSE coded (fewer than 2 distinct values or n < 3).
bool fse_compress_weights(const uint8_t* w, size_t n, std::vector<uint8_t>& out);

}  // namespace ndp::codec_internal
