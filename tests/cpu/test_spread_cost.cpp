// The gpu engine's cost model for one trial (cuda/engines/gpu/spread_cost.hpp): which of the spread path
// and the resident plan it estimates faster at the shapes the planner makes on an H200 (132 SMs: the
// resident plan a cluster of at most 16 CTAs, the spread plan ceil(NP / 132) individuals a CTA of 256
// threads), each term's sign, and its text. Host code: it runs here, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "cuda/engines/gpu/spread_cost.hpp"

using degpu::cuda::gpu_engine::spread_cost;
using degpu::cuda::gpu_engine::SpreadCost;
using degpu::cuda::gpu_engine::SpreadCostInputs;

namespace {

// make_plan's shapes for one trial on 132 SMs: the resident cluster ceil(NP G / 256) CTAs (at most 16), G 32
// lanes above D 32, else 8; the spread plan's ceil(NP / 132) individuals a CTA of 256 threads (more where
// the groups need them); a CEC function's few trials' generation at 4 individuals a CTA or fewer.
SpreadCostInputs shapes(int D, int np, int components) {
  const auto cdiv = [](int a, int b) { return (a + b - 1) / b; };
  SpreadCostInputs in;
  in.D = D;
  in.res_group = cdiv(D, 4) > 8 ? 32 : 8;
  const int cluster = std::min(16, cdiv(np * in.res_group, 256));
  in.res_individuals = cdiv(np, cluster);
  in.res_threads = std::min(512, cdiv(in.res_individuals * in.res_group, 32) * 32);
  in.spread_individuals = cdiv(np, cdiv(np, cdiv(np, 132)));
  in.spread_threads = std::max(256, in.spread_individuals * 32);
  in.components = components;
  in.few = 4;
  return in;
}

TEST(SpreadCost, ChoosesAsMeasuredOnTheH200) {
  // (the engine's us a generation, resident against spread, docs/PERFORMANCE.md)
  EXPECT_TRUE(spread_cost(shapes(100, 250, 1)).spread_pays());    // janssen:f01 10.0 against 9.3
  EXPECT_FALSE(spread_cost(shapes(50, 250, 1)).spread_pays());    // 7.4 against 7.6
  EXPECT_FALSE(spread_cost(shapes(10, 250, 1)).spread_pays());    // 4.8 against 5.8
  EXPECT_FALSE(spread_cost(shapes(100, 100, 1)).spread_pays());   // 8.0 against 9.2
  EXPECT_TRUE(spread_cost(shapes(100, 1000, 1)).spread_pays());   // 30.8 against 10.1
  EXPECT_TRUE(spread_cost(shapes(30, 1000, 1)).spread_pays());    // 9.2 against 7.2
  for (int D : {10, 30, 50, 100})
    for (int components : {3, 4, 5}) EXPECT_TRUE(spread_cost(shapes(D, 250, components)).spread_pays()) << D << " " << components;
  // janssen:f10 at D 100: 48.5 against 23.1 (estimated 28.7 + the individuals' 11.0 shorter)
  EXPECT_NEAR(spread_cost(shapes(100, 250, 5)).delta(), -37.5, 0.5);
}

TEST(SpreadCost, DoubleWeighsTheResidentCTAsIndividualsMore) {
  // measured in double (docs/PERFORMANCE.md): the spread path the faster at every shape, e.g. janssen:f01 at
  // D 10 7.9 against 7.2 us, D 50 14.6 against 11.0, NP 100 D 100 16.1 against 13.9
  const auto f64 = [](SpreadCostInputs in) {
    in.value_bytes = 8;
    return spread_cost(in);
  };
  for (int D : {10, 30, 50, 100})
    for (int components : {1, 3, 4, 5}) EXPECT_TRUE(f64(shapes(D, 250, components)).spread_pays()) << D << " " << components;
  for (int D : {30, 100})
    for (int np : {100, 1000}) EXPECT_TRUE(f64(shapes(D, np, 1)).spread_pays()) << D << " " << np;
  // only the individuals' term differs from float's
  const SpreadCost a = spread_cost(shapes(50, 250, 1)), b = f64(shapes(50, 250, 1));
  EXPECT_FALSE(a.spread_pays());
  EXPECT_DOUBLE_EQ(b.individuals, a.individuals * SpreadCost::kIndividualF64Us / SpreadCost::kIndividualUs);
  EXPECT_DOUBLE_EQ(b.grid, a.grid);
  EXPECT_DOUBLE_EQ(b.terms, a.terms);
  EXPECT_DOUBLE_EQ(b.components + b.rounds, a.components + a.rounds);
}

TEST(SpreadCost, EachTermHasItsSign) {
  const SpreadCost few = spread_cost(shapes(30, 250, 5));  // resident: 32 a CTA, 8 lanes; spread: 2 a CTA
  EXPECT_DOUBLE_EQ(few.grid, SpreadCost::kGridUs);
  EXPECT_DOUBLE_EQ(few.terms, SpreadCost::kTermRoundUs * 3);  // ceil(30 / 8) - ceil(30 / 32) rounds
  EXPECT_EQ(few.more_individuals, 30);
  EXPECT_EQ(few.more_components, 4);
  EXPECT_EQ(few.more_rounds, 0);
  EXPECT_DOUBLE_EQ(few.components, 4 * (SpreadCost::kComponentUs + SpreadCost::kComponentPerDUs * 30));
  EXPECT_DOUBLE_EQ(few.delta(), few.grid - few.terms - few.individuals - few.components - few.rounds);
  // beyond the few trials a CTA the spread path makes the components one after another too, in fewer rounds
  const SpreadCost many = spread_cost(shapes(100, 1000, 5));  // resident: 63 a CTA in 4 rounds; spread: 8 in 1
  EXPECT_EQ(many.more_components, 0);
  EXPECT_EQ(many.more_rounds, 3);
  EXPECT_DOUBLE_EQ(many.rounds, 3 * 5 * (SpreadCost::kComponentUs + SpreadCost::kComponentPerDUs * 100));
  EXPECT_DOUBLE_EQ(many.terms, 0.0);  // 32 lanes on both
}

TEST(SpreadCost, GrowsWithWhatTheResidentPlanDoesOneAfterAnother) {
  double last = spread_cost(shapes(100, 250, 1)).delta();
  for (int components = 2; components <= 6; ++components) {
    const double d = spread_cost(shapes(100, 250, components)).delta();
    EXPECT_LT(d, last) << components;
    last = d;
  }
  // the same individuals a CTA on both: only the grid barrier is left
  SpreadCostInputs same = shapes(100, 250, 1);
  same.res_individuals = same.spread_individuals;
  same.res_threads = same.spread_threads;
  EXPECT_DOUBLE_EQ(spread_cost(same).delta(), SpreadCost::kGridUs);
}

TEST(SpreadCost, DegenerateShapesDoNotDivideByZero) {
  SpreadCostInputs in;  // all zero
  const SpreadCost c = spread_cost(in);
  EXPECT_DOUBLE_EQ(c.delta(), SpreadCost::kGridUs);
  in.D = 100;
  in.res_individuals = 5;
  in.spread_individuals = 1;
  const SpreadCost d = spread_cost(in);  // no threads, no groups given: one group of one
  EXPECT_TRUE(std::isfinite(d.delta()));
}

TEST(SpreadCost, TextGivesTheEstimateAndItsTerms) {
  const std::string shorter = spread_cost(shapes(100, 250, 5)).text();
  EXPECT_NE(shorter.find("~37.5 us shorter"), std::string::npos) << shorter;
  EXPECT_NE(shorter.find("4 more component(s) one after another -28.0"), std::string::npos) << shorter;
  const std::string longer = spread_cost(shapes(10, 250, 1)).text();
  EXPECT_NE(longer.find("us longer"), std::string::npos) << longer;
  EXPECT_NE(longer.find("grid barrier and L2 reads +1.5"), std::string::npos) << longer;
  EXPECT_EQ(longer.find("-0.0"), std::string::npos) << longer;  // a term of nothing is 0.0
}

}  // namespace
