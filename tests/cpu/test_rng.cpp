// The counter layout of rng.hpp is part of the results: these tests pin it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include <Random123/philox.h>

#include "degpu/rng.hpp"

using namespace degpu::rng;

namespace {
r123::Philox4x32::ctr_type philox(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3,
                                  std::uint32_t k0, std::uint32_t k1) {
  r123::Philox4x32 g;
  return g({{c0, c1, c2, c3}}, {{k0, k1}});
}
}  // namespace

TEST(Rng, PhiloxKnownAnswers) {
  // Random123's known-answer vectors for Philox4x32-10.
  auto a = philox(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(a.v[0], 0x6627e8d5u);
  EXPECT_EQ(a.v[1], 0xe169c58du);
  EXPECT_EQ(a.v[2], 0xbc57ac4cu);
  EXPECT_EQ(a.v[3], 0x9b00dbd8u);
  auto b = philox(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff);
  EXPECT_EQ(b.v[0], 0x408f276du);
  EXPECT_EQ(b.v[1], 0x41c83b0eu);
  EXPECT_EQ(b.v[2], 0xa20bc7c6u);
  EXPECT_EQ(b.v[3], 0x6d5451fdu);
  auto c = philox(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0);
  EXPECT_EQ(c.v[0], 0xd16cfe09u);
  EXPECT_EQ(c.v[1], 0x94fdccebu);
  EXPECT_EQ(c.v[2], 0x5001e420u);
  EXPECT_EQ(c.v[3], 0x24126ea1u);
}

TEST(Rng, CounterLayout) {
  // key = {seed lo, seed hi}; counter = {block, individual, generation, purpose << 24 | trial}
  const std::uint64_t seed = 0x0123456789abcdefULL;
  const Stream s(seed, 7, Purpose::crossover, 11, 13);
  for (std::uint32_t blk : {0u, 1u, 5u, 1000u}) {
    const auto want = philox(blk, 13, 11, (3u << 24) | 7u, 0x89abcdefu, 0x01234567u);
    const Block got = s.block(blk);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(got.w[k], want.v[k]) << "block " << blk << " word " << k;
  }
  for (std::uint64_t k = 0; k < 40; ++k) EXPECT_EQ(s.word(k), s.block(static_cast<std::uint32_t>(k >> 2)).w[k & 3]);
}

TEST(Rng, BlocksInLockStepEqualSingleBlocks) {
  const Stream s(0xfeedfacecafebeefULL, 3, Purpose::repair, 123456, 789);
  Block four[4], seven[7];
  s.blocks<4>(1000, four);
  s.blocks<7>(0xfffffffdu, seven);  // the block counter wraps
  for (int n = 0; n < 4; ++n)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(four[n].w[k], s.block(1000 + n).w[k]);
  for (int n = 0; n < 7; ++n)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(seven[n].w[k], s.block(0xfffffffdu + static_cast<std::uint32_t>(n)).w[k]);
}

TEST(Rng, PinnedValues) {
  // Changing any of these changes every result degpu has ever printed for a seed.
  const Stream init(1, 0, Purpose::init, 0, 0);
  EXPECT_EQ(static_cast<int>(Purpose::init), 1);
  EXPECT_EQ(static_cast<int>(Purpose::donors), 2);
  EXPECT_EQ(static_cast<int>(Purpose::crossover), 3);
  EXPECT_EQ(static_cast<int>(Purpose::dither), 4);
  EXPECT_EQ(static_cast<int>(Purpose::repair), 5);
  EXPECT_EQ(static_cast<int>(Purpose::shift), 6);
  const auto want = philox(0, 0, 0, 1u << 24, 1, 0);
  EXPECT_EQ(init.word(0), want.v[0]);
  EXPECT_DOUBLE_EQ(init.unit_pair(0), unit53(want.v[0], want.v[1]));
  EXPECT_DOUBLE_EQ(init.unit_pair(1), unit53(want.v[2], want.v[3]));
}

TEST(Rng, StreamsDifferByEveryField) {
  const Stream base(5, 1, Purpose::donors, 2, 3);
  const std::uint32_t w = base.word(0);
  EXPECT_NE(Stream(6, 1, Purpose::donors, 2, 3).word(0), w);
  EXPECT_NE(Stream(5 + (1ULL << 32), 1, Purpose::donors, 2, 3).word(0), w);
  EXPECT_NE(Stream(5, 2, Purpose::donors, 2, 3).word(0), w);
  EXPECT_NE(Stream(5, 1, Purpose::init, 2, 3).word(0), w);
  EXPECT_NE(Stream(5, 1, Purpose::donors, 3, 3).word(0), w);
  EXPECT_NE(Stream(5, 1, Purpose::donors, 2, 4).word(0), w);
}

TEST(Rng, UnitConversions) {
  EXPECT_EQ(unit_from_word(0), 0.0);
  EXPECT_LT(unit_from_word(0xffffffffu), 1.0);
  EXPECT_GT(open_unit_from_word(0), 0.0);
  EXPECT_LT(open_unit_from_word(0xffffffffu), 1.0);
  EXPECT_EQ(unit53(0, 0), 0.0);
  EXPECT_LT(unit53(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(uniform_below(0, 10), 0u);
  EXPECT_EQ(uniform_below(0xffffffffu, 10), 9u);
  EXPECT_EQ(uniform_below(0x80000000u, 10), 5u);
}

TEST(Rng, Unit53IsUniform) {
  // Mean and variance of 200000 draws: 1/2 and 1/12 within 5 standard errors.
  const Stream s(42, 0, Purpose::init, 0, 0);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int k = 0; k < n; ++k) {
    const double u = s.unit_pair(k);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
}

TEST(Rng, DistinctIndicesAreDistinctAndExcludeSelf) {
  for (std::uint32_t n : {4u, 6u, 7u, 50u}) {
    for (std::uint32_t i = 0; i < n; ++i) {
      for (std::uint32_t g = 0; g < 50; ++g) {
        const int count = n >= 6 ? 5 : 3;
        const Stream s(9, 0, Purpose::donors, g, i);
        std::uint32_t out[5];
        distinct_indices(s, n, i, count, out);
        std::set<std::uint32_t> seen(out, out + count);
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(count));
        EXPECT_EQ(seen.count(i), 0u);
        for (int m = 0; m < count; ++m) EXPECT_LT(out[m], n);
      }
    }
  }
}

TEST(Rng, DistinctIndicesAreUniform) {
  // n = 4 excluding 1, three draws: every ordered triple of {0, 2, 3} equally likely (6 cells),
  // chi-square with 5 degrees of freedom below 20.5 (p = 0.001).
  std::map<std::vector<std::uint32_t>, int> counts;
  const int trials = 60000;
  for (int t = 0; t < trials; ++t) {
    const Stream s(3, 0, Purpose::donors, static_cast<std::uint32_t>(t), 1);
    std::uint32_t out[3];
    distinct_indices(s, 4, 1, 3, out);
    counts[{out[0], out[1], out[2]}]++;
  }
  ASSERT_EQ(counts.size(), 6u);
  double chi2 = 0;
  const double expect = trials / 6.0;
  for (const auto& [k, c] : counts) chi2 += (c - expect) * (c - expect) / expect;
  EXPECT_LT(chi2, 20.5);
  // A larger population: the first donor is uniform over the 49 others (48 d.o.f., p = 0.001: 84.0).
  std::vector<int> first(50, 0);
  for (int t = 0; t < 49000; ++t) {
    const Stream s(4, 0, Purpose::donors, static_cast<std::uint32_t>(t), 10);
    std::uint32_t out[2];
    distinct_indices(s, 50, 10, 2, out);
    first[out[0]]++;
  }
  EXPECT_EQ(first[10], 0);
  chi2 = 0;
  for (int k = 0; k < 50; ++k)
    if (k != 10) chi2 += (first[k] - 1000.0) * (first[k] - 1000.0) / 1000.0;
  EXPECT_LT(chi2, 84.0);
}
