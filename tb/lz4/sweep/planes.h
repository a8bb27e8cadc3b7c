// Real plane blocks for the parameter sweeps (no Verilator harness, no project libraries): the
// stories260K checkpoint read as one FP32 stream after its 28-byte header, and the GPT-2 attention
// weights att.{query,key,value,proj}.w of decoder1..6 (FP32 big-endian), converted to BF16 by
// round-to-nearest-even, cut into chunks of 32768 elements; per chunk the EXPBYTE plane and the 16
// bit-planes (bit 15 = sign). Constant planes (stored CONST, never LZ4) are left out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

struct SweepPlane {
  int plane;  // 0..15 bit-plane, 64 EXPBYTE
  std::vector<uint8_t> bytes;
};

inline std::vector<uint8_t> sweep_read(const std::string& p) {
  std::vector<uint8_t> v;
  FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return v;
  std::fseek(f, 0, SEEK_END);
  const long n = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  v.resize(static_cast<size_t>(n));
  if (std::fread(v.data(), 1, v.size(), f) != v.size()) v.clear();
  std::fclose(f);
  return v;
}

inline uint16_t sweep_bf16(uint32_t u) { return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16); }

// Returns false when the data folder is missing.
inline bool sweep_planes(const std::string& dir, std::vector<SweepPlane>* out) {
  std::vector<std::vector<uint16_t>> tensors;
  const auto st = sweep_read(dir + "/stories260K/stories260K.bin");
  if (st.size() < 32) return false;
  {
    std::vector<uint16_t> t((st.size() - 28) / 4);
    for (size_t i = 0; i < t.size(); ++i) {
      uint32_t u;
      std::memcpy(&u, &st[28 + 4 * i], 4);
      t[i] = sweep_bf16(u);
    }
    tensors.push_back(t);
  }
  for (int l = 1; l <= 6; ++l)
    for (const char* m : {"query", "key", "value", "proj"}) {
      const auto g = sweep_read(dir + "/gpt2-small-attn/decoder" + std::to_string(l) + "/att." + m + ".w.dat");
      if (g.empty()) return false;
      std::vector<uint16_t> t(g.size() / 4);
      for (size_t i = 0; i < t.size(); ++i)
        t[i] = sweep_bf16((uint32_t{g[4 * i]} << 24) | (uint32_t{g[4 * i + 1]} << 16) | (uint32_t{g[4 * i + 2]} << 8) | g[4 * i + 3]);
      tensors.push_back(t);
    }
  for (const auto& t : tensors)
    for (size_t c = 0; c < t.size(); c += 32768) {
      const size_t n = std::min<size_t>(32768, t.size() - c);
      std::vector<SweepPlane> ps;
      ps.push_back({64, std::vector<uint8_t>(n)});
      for (size_t i = 0; i < n; ++i) ps.back().bytes[i] = static_cast<uint8_t>(t[c + i] >> 7);
      for (int b = 15; b >= 0; --b) {
        ps.push_back({b, std::vector<uint8_t>((n + 7) / 8, 0)});
        for (size_t i = 0; i < n; ++i) ps.back().bytes[i / 8] |= static_cast<uint8_t>(((t[c + i] >> b) & 1u) << (i % 8));
      }
      for (auto& p : ps)
        if (!std::all_of(p.bytes.begin(), p.bytes.end(), [&](uint8_t x) { return x == p.bytes[0]; })) out->push_back(std::move(p));
    }
  return true;
}

inline double sweep_pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5))];
}

// Plane class of the sweep tables: 0 EXPBYTE, 1 exponent bit-plane (BF16 bits 7..14), 2 sign/mantissa.
inline int sweep_class(int plane) { return plane == 64 ? 0 : (plane >= 7 && plane <= 14 ? 1 : 2); }

// One reset cycle of a Verilated model (rst_ni low over a rising edge), then rst_ni released.
template <class Model>
void sweep_reset(Model& d) {
  d.rst_ni = 0;
  d.clk_i = 0;
  d.eval();
  d.clk_i = 1;
  d.eval();
  d.rst_ni = 1;
}
