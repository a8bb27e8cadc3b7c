// Block codec on real BF16 weight planes (GPT-2 attention, stories260K): bit-exact round trips and
// the exponent-byte Huffman frame against the per-block zeroth-order entropy.
#include <gtest/gtest.h>

#include <cmath>

#include "ndp/block.h"
#include "ndp/huffman_frame.h"
#include "real_data.h"

namespace ndp {
namespace {

// Planes of one BF16 chunk, test-local (independent of ndp_core): sign, exponent byte, mantissa.
void planes_of(const uint16_t* x, size_t n, std::vector<std::pair<uint8_t, std::vector<uint8_t>>>& out) {
  out.clear();
  std::vector<uint8_t> bit((n + 7) / 8);
  auto bitplane = [&](int b) {
    std::fill(bit.begin(), bit.end(), 0);
    for (size_t i = 0; i < n; ++i) bit[i / 8] |= static_cast<uint8_t>(((x[i] >> b) & 1) << (i % 8));
    out.emplace_back(static_cast<uint8_t>(b), bit);
  };
  bitplane(15);
  std::vector<uint8_t> e(n);
  for (size_t i = 0; i < n; ++i) e[i] = static_cast<uint8_t>(x[i] >> 7);
  out.emplace_back(uint8_t{0x40}, e);
  for (int b = 6; b >= 0; --b) bitplane(b);
}

double entropy_bytes(const std::vector<uint8_t>& v) {
  uint32_t h[256] = {0};
  for (uint8_t b : v) h[b]++;
  double bits = 0;
  for (uint32_t c : h)
    if (c) bits -= c * std::log2(static_cast<double>(c) / static_cast<double>(v.size()));
  return bits / 8;
}

void run_set(const std::vector<testdata::NamedTensor>& ts, const char* label) {
  BlockEncoder enc;
  BlockDecoder dec;
  double ent = 0, huf_payload = 0;
  uint64_t raw = 0, stored = 0, blocks = 0, huf_blocks = 0, exp_blocks = 0;
  std::vector<std::pair<uint8_t, std::vector<uint8_t>>> planes;
  std::vector<uint8_t> out, buf;
  for (const auto& t : ts)
    for (size_t c = 0; c < t.bf16.size(); c += 32768) {
      const size_t n = std::min<size_t>(32768, t.bf16.size() - c);
      planes_of(t.bf16.data() + c, n, planes);
      for (const auto& [id, p] : planes) {
        out.clear();
        auto r = enc.encode(p.data(), p.size(), id, c / 32768, CodecPolicy::kAuto, false, out);
        ASSERT_TRUE(r.ok()) << r.status().message();
        buf.assign(p.size(), 0);
        BlockExpect x{id, c / 32768, static_cast<uint32_t>(p.size()), 0, t.name.c_str()};
        Status st = dec.decode(out.data(), out.size(), x, buf.data());
        ASSERT_TRUE(st.ok()) << st.message();
        ASSERT_EQ(buf, p) << t.name;
        raw += p.size();
        stored += out.size();
        ++blocks;
        if (id == 0x40) {
          ++exp_blocks;
          ent += entropy_bytes(p);
          if (r->huffman_frame) {
            ++huf_blocks;
            huf_payload += r->comp_size;
          } else {
            huf_payload += r->comp_size;
          }
        }
      }
    }
  std::printf("%s: %llu blocks, plane bytes %llu -> %llu stored (ratio %.4f); exponent planes: "
              "%llu/%llu Huffman frames, payload %.0f vs entropy %.0f bytes (+%.2f%%)\n",
              label, static_cast<unsigned long long>(blocks), static_cast<unsigned long long>(raw),
              static_cast<unsigned long long>(stored), static_cast<double>(raw) / static_cast<double>(stored),
              static_cast<unsigned long long>(huf_blocks), static_cast<unsigned long long>(exp_blocks),
              huf_payload, ent, 100.0 * (huf_payload / ent - 1));
  EXPECT_GT(huf_blocks * 2, exp_blocks);          // the Huffman frame wins on most exponent planes
  EXPECT_LT(huf_payload, ent * 1.02 + 100.0 * static_cast<double>(exp_blocks));
}

TEST(CodecReal, Gpt2AttentionPlanes) {
  std::string why;
  auto ts = testdata::load_gpt2_attention(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  run_set(ts, "gpt2-attn");
}

TEST(CodecReal, Stories260kPlanes) {
  std::string why;
  auto ts = testdata::load_stories260k(&why);
  if (ts.empty()) GTEST_SKIP() << why;
  run_set(ts, "stories260K");
}

}  // namespace
}  // namespace ndp
