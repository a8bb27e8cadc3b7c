// Tokenizer::encode: SentencePiece-style (by score or by merge rank, byte fallback) and byte-level
// BPE, both with the same pair-merging core (llama.cpp's and tokenizers' linked symbol list and
// priority queue, best pair first, ties to the leftmost).
#include <queue>

#include "ndp/tokenizer.h"

namespace ndp {
namespace {

const char* const kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// Split UTF-8 into characters (an invalid byte is a character of its own).
std::vector<std::string> utf8_chars(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    if (i + len > s.size()) len = 1;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) len = 1;
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

// GPT-2's byte -> printable character table (bytes_to_unicode), as UTF-8 strings.
const std::array<std::string, 256>& byte_chars() {
  static const std::array<std::string, 256> table = [] {
    std::array<std::string, 256> t;
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cp = printable ? static_cast<uint32_t>(b) : 256u + static_cast<uint32_t>(extra++);
      std::string s;
      if (cp < 0x80) s += static_cast<char>(cp);
      else s += static_cast<char>(0xC0 | (cp >> 6)), s += static_cast<char>(0x80 | (cp & 0x3F));
      t[b] = s;
    }
    return t;
  }();
  return table;
}

struct Candidate {
  double priority;  // higher first
  size_t left, right;
  size_t size;      // bytes of the merged text when queued (stale check)
  bool operator<(const Candidate& o) const {
    return priority != o.priority ? priority < o.priority : left > o.left;  // max-heap, leftmost first on ties
  }
};

// Merge adjacent symbols, best pair first; `priority` returns false for pairs that cannot merge.
template <class Priority>
std::vector<std::string> merge_pairs(std::vector<std::string> sym, Priority priority) {
  const size_t n = sym.size();
  std::vector<long> prev(n), next(n);
  for (size_t i = 0; i < n; ++i) prev[i] = static_cast<long>(i) - 1, next[i] = i + 1 < n ? static_cast<long>(i + 1) : -1;
  std::priority_queue<Candidate> q;
  auto push = [&](long l, long r) {
    double p = 0;
    if (l >= 0 && r >= 0 && priority(sym[l], sym[r], &p)) q.push({p, size_t(l), size_t(r), sym[l].size() + sym[r].size()});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(static_cast<long>(i), static_cast<long>(i + 1));
  while (!q.empty()) {
    const Candidate c = q.top();
    q.pop();
    if (sym[c.left].empty() || sym[c.right].empty() || next[c.left] != static_cast<long>(c.right) ||
        sym[c.left].size() + sym[c.right].size() != c.size)
      continue;  // stale: one side was merged since
    sym[c.left] += sym[c.right];
    sym[c.right].clear();
    next[c.left] = next[c.right];
    if (next[c.right] >= 0) prev[next[c.right]] = static_cast<long>(c.left);
    push(prev[c.left], static_cast<long>(c.left));
    push(static_cast<long>(c.left), next[c.left]);
  }
  std::vector<std::string> out;  // symbol 0 is never merged away: merges keep the left side
  for (long i = n ? 0 : -1; i >= 0; i = next[static_cast<size_t>(i)]) out.push_back(sym[static_cast<size_t>(i)]);
  return out;
}

}  // namespace

namespace {

// SentencePiece-style pieces of one "word" (or the whole text) -> ids, with byte fallback.
Status encode_spm_word(const Tokenizer& t, const std::string& word, size_t at, std::vector<int>& out) {
  auto prio = [&](const std::string& a, const std::string& b, double* p) {
    if (!t.scores.empty()) {
      auto it = t.ids.find(a + b);
      if (it == t.ids.end()) return false;
      *p = t.scores[static_cast<size_t>(it->second)];
      return true;
    }
    auto it = t.merge_rank.find(a + " " + b);
    if (it == t.merge_rank.end()) return false;
    *p = -static_cast<double>(it->second);
    return true;
  };
  for (const std::string& piece : merge_pairs(utf8_chars(word), prio)) {
    auto it = t.ids.find(piece);
    bool bytes = true;  // byte fallback needs a <0xXX> token for every byte of the piece
    for (unsigned char b : piece) bytes = bytes && t.byte_ids[b] >= 0;
    if (it != t.ids.end()) {
      out.push_back(it->second);
    } else if (bytes) {
      for (unsigned char b : piece) out.push_back(t.byte_ids[b]);
    } else if (t.unk >= 0) {
      out.push_back(t.unk);
    } else {
      const auto b = static_cast<unsigned char>(piece[0]);
      return Status::Error("tokenizer: '" + piece + "' near byte " + std::to_string(at) +
                           " is not in the vocabulary and there is neither a byte token <0x" +
                           "0123456789ABCDEF"[b >> 4] + "0123456789ABCDEF"[b & 15] + "> nor an unknown token");
    }
    at += piece.size();
  }
  return Status::Ok();
}

Status encode_spm(const Tokenizer& t, const std::string& text, std::vector<int>& out) {
  std::string s = t.add_space_prefix && !text.empty() ? kSpace : "";
  for (char ch : text) s += ch == ' ' ? std::string(kSpace) : std::string(1, ch);
  if (!t.split_on_space) return encode_spm_word(t, s, 0, out);
  size_t start = 0;  // Metaspace split: every "▁" begins a new word
  for (size_t i = 3; i <= s.size(); ++i)
    if (i == s.size() || s.compare(i, 3, kSpace) == 0) {
      NDP_RETURN_IF_ERROR(encode_spm_word(t, s.substr(start, i - start), start, out));
      start = i;
    }
  return Status::Ok();
}

Status encode_bpe(const Tokenizer& t, const std::string& text, std::vector<int>& out) {
  auto prio = [&](const std::string& a, const std::string& b, double* p) {
    auto it = t.merge_rank.find(a + " " + b);
    if (it == t.merge_rank.end()) return false;
    *p = -static_cast<double>(it->second);
    return true;
  };
  size_t at = 0;
  for (const std::string& piece : pretokenize(t.pre, text)) {
    std::vector<std::string> sym;
    for (unsigned char b : piece) sym.push_back(byte_chars()[b]);
    for (const std::string& m : merge_pairs(std::move(sym), prio)) {
      auto it = t.ids.find(m);
      if (it == t.ids.end())
        return Status::Error("tokenizer: byte-level piece '" + m + "' near byte " + std::to_string(at) +
                             " is not in the vocabulary");
      out.push_back(it->second);
    }
    at += piece.size();
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<int>> Tokenizer::encode(const std::string& text) const {
  std::vector<int> out;
  if (add_bos && bos >= 0) out.push_back(bos);
  NDP_RETURN_IF_ERROR(kind == TokenizerKind::kSentencePiece ? encode_spm(*this, text, out) : encode_bpe(*this, text, out));
  return out;
}

}  // namespace ndp
