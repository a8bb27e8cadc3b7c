// rtl/common arithmetic cells through tb_arith, against C++ integer arithmetic on random and
// corner operands: pfx_add (sum and the carry out of every bit, W = 64 and an odd W = 21),
// csa_tree (the carry-save pair adds up to the sum of its rows), xxh_cmul (the pair adds up to
// C * (sum of operands) + sum of addends, mod 2^W, for the XXH64 P1 and XXH32 P2 constants),
// pfx_carry (the carry out of a + b, W = 32 and a padded W = 19) and pfx_inc (a 64-bit counter
// plus an 8-bit step). These cells carry the XXH multiplies of lane_xxh32 and zstd_xxh64 and the
// device's counters.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>

#include "Vtb_arith.h"
#include "tb_rng.h"
#include "verilated.h"

namespace ndp::tb {
namespace {

constexpr int kVectors = 200000;

// Operands that reach the carry chains' corners: zero, all ones, one bit, one zero bit, random.
uint64_t operand(Rng& rng, unsigned w) {
  const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
  const uint64_t bit = 1ull << rng.range(0, w - 1);
  switch (rng.range(0, 7)) {
    case 0: return 0;
    case 1: return mask;
    case 2: return bit;
    case 3: return mask & ~bit;
    default: return rng.u64() & mask;
  }
}

// Carry out of every bit of a + b + ci, bit i = carry into bit i + 1.
uint64_t carries(uint64_t a, uint64_t b, bool ci, unsigned w) {
  uint64_t co = 0;
  unsigned c = ci;
  for (unsigned i = 0; i < w; i++) {
    const unsigned s = ((a >> i) & 1) + ((b >> i) & 1) + c;
    c = s >> 1;
    co |= uint64_t{c} << i;
  }
  return co;
}

void put64(VlWide<4>& w, unsigned k, uint64_t v) {
  w[2 * k] = static_cast<uint32_t>(v);
  w[2 * k + 1] = static_cast<uint32_t>(v >> 32);
}

class Arith : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = Rng().seed();   // NDP_SEED or the test's default, printed
    ctx_ = std::make_unique<VerilatedContext>();
    m_ = std::make_unique<Vtb_arith>(ctx_.get());
  }
  uint64_t seed_ = 0;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtb_arith> m_;
};

TEST_F(Arith, PrefixAdderSumAndCarries) {
  Rng rng(seed_);
  for (int n = 0; n < kVectors; n++) {
    const uint64_t a = operand(rng, 64), b = operand(rng, 64);
    const bool ci = rng.chance(0.5);
    const uint32_t a21 = static_cast<uint32_t>(operand(rng, 21));
    const uint32_t b21 = static_cast<uint32_t>(operand(rng, 21));
    const bool ci21 = rng.chance(0.5);
    m_->p64_a_i = a;
    m_->p64_b_i = b;
    m_->p64_ci_i = ci;
    m_->p21_a_i = a21;
    m_->p21_b_i = b21;
    m_->p21_ci_i = ci21;
    m_->eval();
    ASSERT_EQ(m_->p64_sum_o, a + b + ci) << "vector " << n;
    ASSERT_EQ(m_->p64_co_o, carries(a, b, ci, 64)) << "vector " << n;
    ASSERT_EQ(m_->p21_sum_o, (a21 + b21 + ci21) & 0x1fffff) << "vector " << n;
    ASSERT_EQ(m_->p21_co_o, carries(a21, b21, ci21, 21)) << "vector " << n;
  }
}

TEST_F(Arith, CarryTreeGivesTheCarryOut) {
  Rng rng(seed_ + 3);
  for (int n = 0; n < kVectors; n++) {
    const uint32_t a = static_cast<uint32_t>(operand(rng, 32)), b = static_cast<uint32_t>(operand(rng, 32));
    // b = ~a (+ 0 or 1 via a): every propagate set, the longest chains
    const uint32_t a19 = static_cast<uint32_t>(operand(rng, 19));
    const uint32_t b19 = rng.chance(0.25) ? (~a19 & 0x7ffff) : static_cast<uint32_t>(operand(rng, 19));
    m_->c32_a_i = a;
    m_->c32_b_i = rng.chance(0.25) ? ~a + (n & 1) : b;
    m_->c19_a_i = a19;
    m_->c19_b_i = b19;
    m_->eval();
    const uint64_t s32 = uint64_t{m_->c32_a_i} + m_->c32_b_i;
    ASSERT_EQ(m_->c32_co_o, (s32 >> 32) & 1) << "vector " << n;
    ASSERT_EQ(m_->c19_co_o, ((a19 + b19) >> 19) & 1) << "vector " << n;
  }
}

TEST_F(Arith, CounterStepAddsSmallAmounts) {
  Rng rng(seed_ + 4);
  for (int n = 0; n < kVectors; n++) {
    // counters just below a carry into every upper bit, and random ones
    uint64_t a = operand(rng, 64);
    if (rng.chance(0.5)) a = ~0ull >> rng.range(0, 63) & (rng.chance(0.5) ? ~0ull : ~0xFFull);
    const uint8_t b = static_cast<uint8_t>(rng.chance(0.5) ? rng.range(0, 2) * (rng.chance(0.5) ? 64 : 1) : rng.u32());
    m_->i64_a_i = a;
    m_->i64_b_i = b;
    m_->eval();
    ASSERT_EQ(m_->i64_sum_o, a + b) << "vector " << n << ": " << a << " + " << unsigned{b};
  }
}

// kVectors random row sets of `n` 32-bit rows into `rows` (a csa_tree's input words); the tree's
// carry-save pair, read by `pair` after eval, must add up to the rows' sum.
template <typename Rows, typename Pair>
void expect_tree_adds(Vtb_arith& m, Rng& rng, Rows& rows, unsigned n, Pair pair) {
  for (int v = 0; v < kVectors; v++) {
    uint32_t want = 0;
    for (unsigned k = 0; k < n; k++) {
      const uint32_t r = static_cast<uint32_t>(operand(rng, 32));
      rows[k] = r;
      want += r;
    }
    m.eval();
    ASSERT_EQ(pair(), want) << "vector " << v;
  }
}

TEST_F(Arith, CarrySaveTreeAddsItsRows) {
  Rng rng(seed_ + 1);
  expect_tree_adds(*m_, rng, m_->t32_rows_i, 7,
                   [&] { return static_cast<uint32_t>(m_->t32_sum_o + m_->t32_carry_o); });
}

// 25 rows with staggered arrivals: the tree orders its adders by arrival, the pair still adds up
TEST_F(Arith, CarrySaveTreeWithArrivalsAddsItsRows) {
  Rng rng(seed_ + 5);
  expect_tree_adds(*m_, rng, m_->t25_rows_i, 25,
                   [&] { return static_cast<uint32_t>(m_->t25_sum_o + m_->t25_carry_o); });
}

TEST_F(Arith, ConstantMultiplyXxhPrimes) {
  Rng rng(seed_ + 2);
  constexpr uint64_t kP1x64 = 0x9E3779B185EBCA87ull;
  constexpr uint32_t kP2x32 = 0x85EBCA77u;
  for (int n = 0; n < kVectors; n++) {
    const uint64_t x0 = operand(rng, 64), x1 = operand(rng, 64);
    const uint64_t a0 = operand(rng, 64), a1 = operand(rng, 64);
    put64(m_->m64_x_i, 0, x0);
    put64(m_->m64_x_i, 1, x1);
    put64(m_->m64_a_i, 0, a0);
    put64(m_->m64_a_i, 1, a1);
    const uint32_t x = static_cast<uint32_t>(operand(rng, 32));
    const uint32_t a = static_cast<uint32_t>(operand(rng, 32));
    m_->m32_x_i = x;
    m_->m32_a_i = a;
    m_->eval();
    ASSERT_EQ(m_->m64_sum_o + m_->m64_carry_o, kP1x64 * (x0 + x1) + a0 + a1) << "vector " << n;
    ASSERT_EQ(static_cast<uint32_t>(m_->m32_sum_o + m_->m32_carry_o), kP2x32 * x + a)
        << "vector " << n;
  }
  std::printf("%d vectors compared per cell\n", kVectors);
}

}  // namespace
}  // namespace ndp::tb
