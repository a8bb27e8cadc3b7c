#include "tb_scoreboard.h"

#include <cstdio>

#include "tb_report.h"

namespace ndp::tb {

void ByteScoreboard::expect(std::string label, std::vector<uint8_t> bytes) {
  if (bytes.empty()) return;
  segs_.push_back(Segment{std::move(label), std::move(bytes), 0});
}

void ByteScoreboard::actual(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    while (!segs_.empty() && segs_.front().pos == segs_.front().bytes.size()) segs_.pop_front();
    if (segs_.empty()) {
      if (extra_++ == 0) fail(name_ + ": DUT produced bytes beyond the expected stream");
      continue;
    }
    Segment& s = segs_.front();
    uint8_t want = s.bytes[s.pos];
    if (p[i] != want && mismatches_++ == 0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "expected 0x%02x got 0x%02x", want, p[i]);
      fail(name_ + ": first mismatch at " + s.label + " byte " + std::to_string(s.pos) + ": " + buf +
           " (after " + std::to_string(compared_) + " matching bytes)");
    }
    ++s.pos;
    ++compared_;
  }
}

size_t ByteScoreboard::left_in_segment() const {
  for (const Segment& s : segs_) {
    if (s.pos < s.bytes.size()) return s.bytes.size() - s.pos;
  }
  return 0;
}

const std::string& ByteScoreboard::segment_label() const {
  static const std::string kNone = "(end of stream)";
  for (const Segment& s : segs_) {
    if (s.pos < s.bytes.size()) return s.label;
  }
  return kNone;
}

bool ByteScoreboard::finish() {
  size_t missing = 0;
  std::string first;
  for (const Segment& s : segs_) {
    if (s.pos < s.bytes.size() && first.empty()) first = s.label;
    missing += s.bytes.size() - s.pos;
  }
  std::fprintf(stderr, "[scoreboard] %s: %llu items compared, %llu mismatches\n", name_.c_str(),
               static_cast<unsigned long long>(compared_), static_cast<unsigned long long>(mismatches_));
  if (missing) fail(name_ + ": " + std::to_string(missing) + " expected bytes never arrived (from " + first + ")");
  if (compared_ == 0) fail(name_ + ": 0 items compared");
  if (mismatches_) fail(name_ + ": " + std::to_string(mismatches_) + " mismatching bytes");
  return missing == 0 && compared_ > 0 && mismatches_ == 0 && extra_ == 0;
}

void ByteScoreboard::clear() {
  segs_.clear();
  compared_ = mismatches_ = extra_ = 0;
}

}  // namespace ndp::tb
