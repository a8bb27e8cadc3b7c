// The input encoding of fuzz_read_gpt2raw (a GPT-2 raw directory as one byte string), shared with
// the seed generator:
//   u16 LE n, n bytes of model.properties text,
//   then records until the input ends: u8 slot, u16 LE len, len bytes of file content,
//   written to kPaths[slot % kPathCount] (a later record for the same path replaces the earlier).
// The path table mixes files the reader must read (input/, output/, decoder1..2/ .dat files),
// files it must ignore (.txt, folders it does not know) and folders it must reject (decoder0,
// decoder9 when decoder.count is smaller, decoderx).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ndp::fuzz {

inline constexpr const char* kPaths[] = {
    "input/wpe.dat",           "input/wte.dat",           "output/norm.w.dat",     "output/norm.b.dat",
    "decoder1/att.query.w.dat", "decoder1/att.query.b.dat", "decoder1/mlp.layer1.w.dat",
    "decoder1/mlp.layer1.b.dat", "decoder1/att.norm.w.dat", "decoder2/att.key.w.dat", "decoder2/extra.dat",
    "decoder0/x.dat",          "decoder9/x.dat",          "decoderx/x.dat",        "misc/x.dat",
    "input/notes.txt"};
inline constexpr size_t kPathCount = sizeof(kPaths) / sizeof(kPaths[0]);

struct Gpt2Archive {
  std::string properties;
  std::map<std::string, std::vector<uint8_t>> files;  // relative path -> content
};

// Decode; a trailing partial record is ignored.
inline Gpt2Archive decode_gpt2_archive(const uint8_t* p, size_t n) {
  Gpt2Archive a;
  if (n < 2) return a;
  size_t len = p[0] | (size_t{p[1]} << 8), pos = 2;
  if (len > n - pos) len = n - pos;
  a.properties.assign(reinterpret_cast<const char*>(p + pos), len);
  pos += len;
  while (n - pos >= 3) {
    const size_t slot = p[pos] % kPathCount, flen = p[pos + 1] | (size_t{p[pos + 2]} << 8);
    pos += 3;
    const size_t take = flen < n - pos ? flen : n - pos;
    a.files[kPaths[slot]].assign(p + pos, p + pos + take);
    pos += take;
  }
  return a;
}

inline void put_u16(std::vector<uint8_t>& o, size_t v) {
  o.push_back(static_cast<uint8_t>(v & 0xFF));
  o.push_back(static_cast<uint8_t>((v >> 8) & 0xFF));
}

// Encode (paths must be in kPaths).
inline std::vector<uint8_t> encode_gpt2_archive(const std::string& props,
                                                const std::vector<std::pair<size_t, std::vector<uint8_t>>>& files) {
  std::vector<uint8_t> o;
  put_u16(o, props.size());
  o.insert(o.end(), props.begin(), props.end());
  for (const auto& [slot, content] : files) {
    o.push_back(static_cast<uint8_t>(slot));
    put_u16(o, content.size());
    o.insert(o.end(), content.begin(), content.end());
  }
  return o;
}

}  // namespace ndp::fuzz
