// Scoreboard fed by the golden model: expected bytes arrive as labelled segments (for example
// "tensor 0 chunk 3 plane 0x40"), the DUT's bytes are compared as they come. The first mismatching
// byte is reported with its segment and offset; finish() reports "N items compared" and fails when
// nothing was compared, when bytes are missing, or when the DUT produced extra bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace ndp::tb {

class ByteScoreboard {
 public:
  explicit ByteScoreboard(std::string name) : name_(std::move(name)) {}

  // Queue the golden model's bytes for one segment.
  void expect(std::string label, std::vector<uint8_t> bytes);
  // Compare DUT bytes against the queued segments (may span segments).
  void actual(const uint8_t* p, size_t n);
  // Bytes still expected in the current segment (0 at a segment boundary).
  size_t left_in_segment() const;
  const std::string& segment_label() const;
  // True while no mismatch has been seen.
  bool ok() const { return mismatches_ == 0 && extra_ == 0; }
  uint64_t compared() const { return compared_; }
  // Final check (reports failures through tb::fail): everything expected arrived, nothing extra,
  // N > 0. Prints "N items compared". Returns true when all of that holds.
  bool finish();
  // Forget everything (after a reset of the DUT).
  void clear();

 private:
  struct Segment {
    std::string label;
    std::vector<uint8_t> bytes;
    size_t pos = 0;
  };
  std::string name_;
  std::deque<Segment> segs_;
  uint64_t compared_ = 0, mismatches_ = 0, extra_ = 0;
};

}  // namespace ndp::tb
