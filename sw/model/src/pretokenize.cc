// Byte-level BPE pre-tokenizers: GPT-2's and Llama 3's regular expressions, matched by hand with the
// alternation semantics of the regex engines (at each position the first alternative that matches
// wins, each one greedy with the backtracking the pattern allows). \p{L} and \p{N} come from the
// generated Unicode tables, \s is the Unicode White_Space property.
#include <algorithm>

#include "ndp/tokenizer.h"
#include "unicode_classes.h"

namespace ndp {
namespace {

template <size_t N>
bool in_ranges(const unicode::CodeRange (&r)[N], uint32_t cp) {
  auto it = std::upper_bound(r, r + N, cp, [](uint32_t v, const unicode::CodeRange& x) { return v < x.first; });
  return it != r && cp <= (it - 1)->last;
}

bool is_letter(uint32_t c) { return c < 0x80 ? ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') : in_ranges(unicode::kLetters, c); }
bool is_number(uint32_t c) { return c < 0x80 ? (c >= '0' && c <= '9') : in_ranges(unicode::kNumbers, c); }
bool is_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
bool is_other(uint32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); }
bool is_newline(uint32_t c) { return c == '\r' || c == '\n'; }

// UTF-8 decode (an invalid byte decodes as itself, U+0080..U+00FF range, one byte long).
void decode(const std::string& s, std::vector<uint32_t>& cp, std::vector<size_t>& off) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    uint32_t c = b;
    bool ok = len > 0 && i + len <= s.size();
    if (ok && len > 1) {
      c = b & (0x7F >> len);
      for (int k = 1; k < len && ok; ++k) {
        const auto x = static_cast<unsigned char>(s[i + k]);
        ok = (x & 0xC0) == 0x80;
        c = (c << 6) | (x & 0x3F);
      }
    }
    off.push_back(i);
    cp.push_back(ok ? c : b);
    i += ok ? static_cast<size_t>(len) : 1;
  }
  off.push_back(s.size());
}

using Cps = std::vector<uint32_t>;

// 's 't 're 've 'm 'll 'd at i (case-insensitive if asked); 0 if none.
size_t contraction(const Cps& c, size_t i, bool ci) {
  if (c[i] != '\'') return 0;
  for (const char* suf : {"s", "t", "re", "ve", "m", "ll", "d"}) {
    size_t k = 0;
    for (; suf[k]; ++k) {
      if (i + 1 + k >= c.size()) break;
      uint32_t x = c[i + 1 + k];
      if (ci && x < 0x80) x |= 0x20;
      if (x != static_cast<uint32_t>(suf[k])) break;
    }
    if (!suf[k]) return i + 1 + k;
  }
  return 0;
}

// " ?X+" for a class X: end of the match or 0.
template <class Pred>
size_t opt_space_run(const Cps& c, size_t i, Pred x) {
  size_t j = i;
  if (c[j] == ' ' && j + 1 < c.size() && x(c[j + 1])) ++j;
  if (!x(c[j])) return 0;
  while (j < c.size() && x(c[j])) ++j;
  return j;
}

// \s+(?!\S) then \s+: the whitespace run, less its last character when a non-space follows it
// and the run is longer than one.
size_t space_tail(const Cps& c, size_t i) {
  if (!is_space(c[i])) return 0;
  size_t k = i;
  while (k < c.size() && is_space(c[k])) ++k;
  if (k == c.size() || k - i == 1) return k;
  return k - 1;
}

size_t match_gpt2(const Cps& c, size_t i) {
  if (size_t e = contraction(c, i, false)) return e;
  if (size_t e = opt_space_run(c, i, is_letter)) return e;
  if (size_t e = opt_space_run(c, i, is_number)) return e;
  if (size_t e = opt_space_run(c, i, is_other)) return e;
  if (size_t e = space_tail(c, i)) return e;
  return i + 1;  // unreachable: every character is space, letter, number or other
}

size_t match_llama3(const Cps& c, size_t i) {
  const size_t n = c.size();
  if (size_t e = contraction(c, i, true)) return e;
  size_t j = i;  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (!is_newline(c[j]) && !is_letter(c[j]) && !is_number(c[j]) && j + 1 < n && is_letter(c[j + 1])) ++j;
  if (is_letter(c[j])) {
    while (j < n && is_letter(c[j])) ++j;
    return j;
  }
  if (is_number(c[i])) {  // \p{N}{1,3}
    j = i;
    while (j < n && j - i < 3 && is_number(c[j])) ++j;
    return j;
  }
  if (size_t e = opt_space_run(c, i, is_other)) {  //  ?[^\s\p{L}\p{N}]+[\r\n]*
    while (e < n && is_newline(c[e])) ++e;
    return e;
  }
  if (is_space(c[i])) {  // \s*[\r\n]+: up to the last newline of the whitespace run
    size_t k = i, last_nl = n;
    for (; k < n && is_space(c[k]); ++k)
      if (is_newline(c[k])) last_nl = k;
    if (last_nl != n) return last_nl + 1;
  }
  if (size_t e = space_tail(c, i)) return e;
  return i + 1;
}

}  // namespace

std::vector<std::string> pretokenize(PreTokenizer p, const std::string& text) {
  if (p == PreTokenizer::kNone) return text.empty() ? std::vector<std::string>{} : std::vector<std::string>{text};
  Cps cp;
  std::vector<size_t> off;
  decode(text, cp, off);
  std::vector<std::string> out;
  for (size_t i = 0; i < cp.size();) {
    const size_t e = p == PreTokenizer::kGpt2 ? match_gpt2(cp, i) : match_llama3(cp, i);
    out.push_back(text.substr(off[i], off[e] - off[i]));
    i = e;
  }
  return out;
}

}  // namespace ndp
