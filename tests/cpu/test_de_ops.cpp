// The DE operators of src/core/de_ops.hpp on hand-checked inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "core/de_ops.hpp"

using namespace degpu;
using namespace degpu::ops;

namespace {
Params params(Mutation m, Crossover c, int D, int np) {
  Params p{};
  p.seed = 77;
  p.D = D;
  p.np = np;
  p.mutation = m;
  p.crossover = c;
  p.repair = Repair::reinit;
  p.dither = Dither::none;
  p.F = {0.5, 0.5};
  p.CR = {0.9, 0.9};
  p.pbest_count = 3;
  return p;
}
}  // namespace

TEST(DeOps, CrossoverThreshold) {
  EXPECT_EQ(crossover_threshold(0.0), 0u);
  EXPECT_EQ(crossover_threshold(1.0), 4294967296ull);
  EXPECT_EQ(crossover_threshold(0.5), 2147483648ull);
  // u < CR  <=>  w < threshold, for words around the boundary
  for (double CR : {0.1, 0.3, 0.7, 0.123456789}) {
    const std::uint64_t t = crossover_threshold(CR);
    for (std::uint64_t w = t - 2; w <= t + 1 && w <= 0xffffffffull; ++w)
      EXPECT_EQ(rng::unit_from_word(static_cast<std::uint32_t>(w)) < CR, w < t) << CR << " " << w;
  }
}

TEST(DeOps, NecLengthSpecialCases) {
  for (std::uint32_t w : {0u, 12345u, 0x80000000u, 0xffffffffu}) {
    EXPECT_EQ(nec_length(0.0, w, 50), 1u);
    EXPECT_EQ(nec_length(1.0, w, 50), 50u);
    const std::uint32_t L = nec_length(0.5, w, 50);
    EXPECT_GE(L, 1u);
    EXPECT_LE(L, 50u);
  }
  // the smallest u with CR close to 1 would give a length far beyond D: capped at D
  EXPECT_EQ(nec_length(0.999999, 0u, 10), 10u);
  // u = 0.75 (word 0xc0000000 - 1/2 ulp): ceil(ln 0.75 / ln 0.5) = 1; u ~ 0.2: ceil(2.32) = 3
  EXPECT_EQ(nec_length(0.5, 0xc0000000u, 100), 1u);
  EXPECT_EQ(nec_length(0.5, static_cast<std::uint32_t>(0.2 * 4294967296.0), 100), 3u);
}

TEST(DeOps, ExpLoopSpecialCases) {
  const rng::Stream s(1, 0, rng::Purpose::crossover, 1, 0);
  EXPECT_EQ(exp_loop_length(s, crossover_threshold(0.0), 30), 1u);
  EXPECT_EQ(exp_loop_length(s, crossover_threshold(1.0), 30), 30u);
  EXPECT_EQ(exp_loop_length(s, crossover_threshold(1.0), 1), 1u);
  // the loop stops at the first draw >= CR: check against the words themselves
  const std::uint64_t t = crossover_threshold(0.6);
  std::uint32_t expect = 1;
  while (expect < 1000 && s.word(4 + (expect - 1)) < t) ++expect;
  EXPECT_EQ(exp_loop_length(s, t, 1000), expect);
}

TEST(DeOps, BinomialCrossover) {
  const Params p = params(Mutation::rand1, Crossover::bin, 37, 10);
  for (double CR : {0.0, 1.0}) {
    for (std::uint32_t g = 1; g < 20; ++g) {
      const rng::Stream s(p.seed, 0, rng::Purpose::crossover, g, 3);
      const CrossoverDraw c = draw_crossover(p, s, CR);
      int crossed = 0, seen = 0;
      bool jrand_crossed = false;
      for_each_bin(s, c, p.D, [&](int j, bool x) {
        EXPECT_EQ(j, seen++);
        crossed += x;
        if (static_cast<std::uint32_t>(j) == c.first) jrand_crossed = x;
      });
      EXPECT_EQ(seen, p.D);
      EXPECT_TRUE(jrand_crossed);
      EXPECT_EQ(crossed, CR == 0.0 ? 1 : p.D);
    }
  }
  // fraction crossed ~ CR (+ the jrand coordinate): 2000 rows of D = 37 at CR = 0.3
  long total = 0;
  for (std::uint32_t i = 0; i < 2000; ++i) {
    const rng::Stream s(p.seed, 0, rng::Purpose::crossover, 5, i);
    const CrossoverDraw c = draw_crossover(p, s, 0.3);
    for_each_bin(s, c, p.D, [&](int, bool x) { total += x; });
  }
  const double expect = 2000 * (1 + 0.3 * 36);
  EXPECT_NEAR(total, expect, 5 * std::sqrt(2000 * 36 * 0.3 * 0.7));
}

TEST(DeOps, Mutations) {
  // rows: xi = 1, xb = 2, xpb = 3, r0..r4 = 10, 20, 40, 80, 160 (every coordinate the same)
  double xi[2] = {1, 1}, xb[2] = {2, 2}, xpb[2] = {3, 3}, r[5][2] = {{10, 10}, {20, 20}, {40, 40}, {80, 80}, {160, 160}};
  MutationRows<double> R{xi, xb, xpb, {r[0], r[1], r[2], r[3], r[4]}};
  const double F = 0.5;
  EXPECT_DOUBLE_EQ(mutate(Mutation::rand1, F, R, 1), 10 + 0.5 * (20 - 40));
  EXPECT_DOUBLE_EQ(mutate(Mutation::rand2, F, R, 1), 10 + 0.5 * (20 - 40) + 0.5 * (80 - 160));
  EXPECT_DOUBLE_EQ(mutate(Mutation::best1, F, R, 1), 2 + 0.5 * (10 - 20));
  EXPECT_DOUBLE_EQ(mutate(Mutation::best2, F, R, 1), 2 + 0.5 * (10 - 20) + 0.5 * (40 - 80));
  EXPECT_DOUBLE_EQ(mutate(Mutation::current_to_best1, F, R, 1), 1 + 0.5 * (2 - 1) + 0.5 * (10 - 20));
  EXPECT_DOUBLE_EQ(mutate(Mutation::current_to_pbest1, F, R, 1), 1 + 0.5 * (3 - 1) + 0.5 * (10 - 20));
  EXPECT_DOUBLE_EQ(mutate(Mutation::rand_to_best1, F, R, 1), 10 + 0.5 * (2 - 10) + 0.5 * (20 - 40));
}

TEST(DeOps, Repairs) {
  const rng::Stream s(1, 0, rng::Purpose::repair, 1, 0);
  // inside the box: untouched by every repair
  for (Repair r : {Repair::reinit, Repair::midpoint, Repair::clip, Repair::reflect}) {
    EXPECT_EQ(repair(r, 0.25, 0.5, 0.0, 1.0, s, 0), 0.25);
    EXPECT_EQ(repair(r, 0.0, 0.5, 0.0, 1.0, s, 0), 0.0);
    EXPECT_EQ(repair(r, 1.0, 0.5, 0.0, 1.0, s, 0), 1.0);
  }
  EXPECT_EQ(repair(Repair::clip, 1.3, 0.5, 0.0, 1.0, s, 0), 1.0);
  EXPECT_EQ(repair(Repair::clip, -7.0, 0.5, 0.0, 1.0, s, 0), 0.0);
  EXPECT_DOUBLE_EQ(repair(Repair::midpoint, 1.3, 0.5, 0.0, 1.0, s, 0), 0.75);
  EXPECT_DOUBLE_EQ(repair(Repair::midpoint, -3.0, 0.5, 0.0, 1.0, s, 0), 0.25);
  EXPECT_DOUBLE_EQ(repair(Repair::reflect, 1.3, 0.5, 0.0, 1.0, s, 0), 0.7);
  EXPECT_DOUBLE_EQ(repair(Repair::reflect, -0.2, 0.5, 0.0, 1.0, s, 0), 0.2);
  EXPECT_DOUBLE_EQ(repair(Repair::reflect, 2.5, 0.5, 0.0, 1.0, s, 0), 0.5);   // folded twice
  EXPECT_DOUBLE_EQ(repair(Repair::reflect, -1.5, 0.5, 0.0, 1.0, s, 0), 0.5);
  EXPECT_DOUBLE_EQ(repair(Repair::reflect, 12.0, 0.5, -5.0, 5.0, s, 0), -2.0);
  // reinit: inside, equal to the pinned draw, different per coordinate
  const double a = repair(Repair::reinit, 3.0, 0.5, -1.0, 2.0, s, 4);
  EXPECT_DOUBLE_EQ(a, -1.0 + s.unit_pair(4) * 3.0);
  EXPECT_NE(a, repair(Repair::reinit, 3.0, 0.5, -1.0, 2.0, s, 5));
  for (int j = 0; j < 1000; ++j) {
    const float v = repair(Repair::reinit, 9.0f, 0.5f, -1.0f, 2.0f, s, j);
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 2.0f);
  }
}

TEST(DeOps, NanOrdering) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(better(1.0, nan));
  EXPECT_TRUE(better(inf, nan));
  EXPECT_FALSE(better(nan, inf));
  EXPECT_FALSE(better(nan, nan));
  EXPECT_FALSE(better(1.0, 1.0));
  EXPECT_TRUE(no_worse(1.0, 1.0));
  EXPECT_TRUE(no_worse(inf, nan));
  EXPECT_FALSE(no_worse(nan, 1e308));
  EXPECT_TRUE(no_worse(nan, nan));
}

TEST(DeOps, DitherDraws) {
  Params p = params(Mutation::rand1, Crossover::bin, 10, 20);
  double F, CR;
  draw_f_cr(p, 3, 4, F, CR);
  EXPECT_EQ(F, 0.5);
  EXPECT_EQ(CR, 0.9);
  p.F = {0.4, 0.9};
  p.CR = {0.1, 0.2};
  p.dither = Dither::generation;
  double F0, CR0;
  draw_f_cr(p, 3, 0, F0, CR0);
  std::set<double> gens;
  for (std::uint32_t i = 0; i < 20; ++i) {
    draw_f_cr(p, 3, i, F, CR);
    EXPECT_EQ(F, F0);
    EXPECT_EQ(CR, CR0);
  }
  for (std::uint32_t g = 1; g < 50; ++g) {
    draw_f_cr(p, g, 0, F, CR);
    EXPECT_GE(F, 0.4);
    EXPECT_LT(F, 0.9);
    EXPECT_GE(CR, 0.1);
    EXPECT_LT(CR, 0.2);
    gens.insert(F);
  }
  EXPECT_GT(gens.size(), 40u);
  p.dither = Dither::individual;
  std::set<double> inds;
  for (std::uint32_t i = 0; i < 20; ++i) {
    draw_f_cr(p, 3, i, F, CR);
    inds.insert(F);
  }
  EXPECT_EQ(inds.size(), 20u);
}

TEST(DeOps, Donors) {
  for (Mutation m : {Mutation::rand1, Mutation::rand2, Mutation::best1, Mutation::best2, Mutation::current_to_best1,
                     Mutation::current_to_pbest1, Mutation::rand_to_best1}) {
    const Params p = params(m, Crossover::bin, 5, min_np(m));
    for (std::uint32_t g = 1; g < 30; ++g)
      for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(p.np); ++i) {
        const Donors d = draw_donors(p, g, i);
        std::set<std::uint32_t> s(d.r, d.r + donors_needed(m));
        EXPECT_EQ(s.size(), static_cast<std::size_t>(donors_needed(m)));
        EXPECT_EQ(s.count(i), 0u);
        EXPECT_LT(*s.rbegin(), static_cast<std::uint32_t>(p.np));
        EXPECT_LT(d.pbest_rank, 3u);
      }
  }
}

TEST(DeOps, CrossoverMaskIsTheCyclicRun) {
  for (Crossover cx : {Crossover::exp, Crossover::nec}) {
    for (int D : {1, 2, 7, 64}) {
      Params p = params(Mutation::rand1, cx, D, 10);
      for (double CR : {0.0, 0.5, 0.9, 1.0}) {
        for (std::uint32_t i = 0; i < 50; ++i) {
          const rng::Stream cs(p.seed, 0, rng::Purpose::crossover, 3, i);
          const CrossoverDraw c = draw_crossover(p, cs, CR);
          std::vector<std::uint8_t> m(D, 7);
          crossover_mask(p, cs, c, m.data());
          for (int j = 0; j < D; ++j) {
            const std::uint32_t offset = (static_cast<std::uint32_t>(j) + D - c.first) % D;
            EXPECT_EQ(m[j], offset < c.length ? 1 : 0) << "D " << D << " j " << j;
          }
        }
      }
    }
  }
}
