// jDE (Brest et al. 2006, --algorithm jde): the self-adaptation's draws, agreement across the CPU
// engines, its reduction to DE when nothing adapts, and what it solves that fixed parameters do not.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <utility>

#include "core/algorithms/jde.hpp"
#include "cpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

ops::Params jde_params(double tau1, double tau2) {
  ops::Params p{};
  p.seed = 11;
  p.np = 100;
  p.algorithm = Algorithm::jde;
  p.jde = Jde{tau1, tau2, 0.1, 0.9};
  return p;
}

// F and CR of trial (g, i) from an individual's Fi and CRi
std::pair<double, double> draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, double Fi, double CRi) {
  const alg::Control c = alg::Jde::draw_from(p, g, i, Fi, CRi);
  return {c.F, c.CR};
}

}  // namespace

// The update rule of Brest et al.: F redrawn with probability tau1, uniform in [F_l, F_l + F_u); CR redrawn
// with probability tau2, uniform in [0, 1); the two events independent. 200,000 draws, bounds of 5 sigma.
TEST(Jde, UpdateRuleStatistics) {
  const ops::Params p = jde_params(0.1, 0.1);
  const int n = 200000;
  int newF = 0, newCR = 0, both = 0;
  double sumF = 0, sumCR = 0, minF = 10, maxF = -10;
  for (int k = 0; k < n; ++k) {
    double F, CR;
    std::tie(F, CR) = draw(p, 1u + static_cast<std::uint32_t>(k / 100), static_cast<std::uint32_t>(k % 100), -1.0, -1.0);
    const bool f = F != -1.0, c = CR != -1.0;
    newF += f, newCR += c, both += f && c;
    if (f) sumF += F, minF = std::min(minF, F), maxF = std::max(maxF, F);
    if (c) {
      sumCR += CR;
      EXPECT_TRUE(CR >= 0 && CR < 1) << CR;
    }
  }
  const double sd = std::sqrt(0.1 * 0.9 / n);
  EXPECT_NEAR(newF / double(n), 0.1, 5 * sd);
  EXPECT_NEAR(newCR / double(n), 0.1, 5 * sd);
  EXPECT_NEAR(both / double(n), 0.01, 5 * std::sqrt(0.01 * 0.99 / n));
  EXPECT_GE(minF, 0.1);
  EXPECT_LT(maxF, 1.0);
  // uniform means: F 0.55 (sd of the mean 0.26 / sqrt(20000) = 0.0018), CR 0.5 (0.29 / sqrt(20000))
  EXPECT_NEAR(sumF / newF, 0.55, 0.01);
  EXPECT_NEAR(sumCR / newCR, 0.5, 0.01);
  // the same counters give the same draws; tau 0 never redraws, tau 1 always does
  double F1, CR1, F2, CR2;
  std::tie(F1, CR1) = draw(p, 5, 7, 0.5, 0.9);
  std::tie(F2, CR2) = draw(p, 5, 7, 0.5, 0.9);
  EXPECT_EQ(F1, F2);
  EXPECT_EQ(CR1, CR2);
  std::tie(F1, CR1) = draw(jde_params(0, 0), 5, 7, 0.5, 0.9);
  EXPECT_EQ(F1, 0.5);
  EXPECT_EQ(CR1, 0.9);
  std::tie(F1, CR1) = draw(jde_params(1, 1), 5, 7, 0.5, 0.9);
  EXPECT_NE(F1, 0.5);
  EXPECT_NE(CR1, 0.9);
}

// Every CPU engine runs jDE to the same bits, in both precisions; with tau1 = tau2 = 0 jDE is DE with the
// initial F and CR; with the default taus it is not.
TEST(Jde, EnginesAgreeAndNoAdaptationIsDe) {
  const Problem prob = classic("griewank", 20, ShiftSpec{ShiftSpec::Kind::random, 5, {}});
  StopCriteria stop;
  stop.max_gens = 60;
  DEConfig de;
  de.np = 40;
  de.F = {0.6, 0.6};
  de.CR = {0.7, 0.7};
  DEConfig jde = de;
  jde.algorithm = Algorithm::jde;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    RunOptions o;
    o.precision = prec;
    o.seed = 3;
    o.engine = Engine::serial;
    const Result ref = minimize(prob, jde, stop, o);
    for (Engine e : {Engine::threads, Engine::matrix}) {
      o.engine = e;
      o.threads = 3;
      EXPECT_TRUE(same_bits(minimize(prob, jde, stop, o), ref)) << engine_name(e);
    }
    o.engine = Engine::serial;
    o.threads = 0;
    EXPECT_FALSE(same_bits(minimize(prob, de, stop, o), ref));
    DEConfig frozen = jde;
    frozen.jde.tau1 = frozen.jde.tau2 = 0;
    EXPECT_TRUE(same_bits(minimize(prob, frozen, stop, o), minimize(prob, de, stop, o)));
  }
}

// Rastrigin D 10 with F 0.5, CR 0.9 (the initial values): DE often stalls on a local minimum and is slow
// where it does not; jDE adapts CR down and reaches the target in every one of 5 seeded trials, in under
// half DE's evaluations.
TEST(Jde, SolvesWhatFixedParametersDoNot) {
  const Problem prob = classic("rastrigin", 10, ShiftSpec{ShiftSpec::Kind::random, 1, {}});
  StopCriteria stop;
  stop.max_evals = 100000;
  stop.target_error = 1e-8;
  DEConfig de;
  DEConfig jde;
  jde.algorithm = Algorithm::jde;
  RunOptions o;
  o.engine = Engine::threads;
  const TrialsResult a = minimize_trials(prob, jde, stop, o, 5), b = minimize_trials(prob, de, stop, o, 5);
  int jde_hits = 0, de_hits = 0;
  long long jde_evals = 0, de_evals = 0;
  for (const Result& r : a.trials) jde_hits += r.stop_reason == StopReason::target, jde_evals += r.evals;
  for (const Result& r : b.trials) de_hits += r.stop_reason == StopReason::target, de_evals += r.evals;
  EXPECT_EQ(jde_hits, 5);
  EXPECT_LT(de_hits, 5);
  EXPECT_LT(2 * jde_evals, de_evals);  // measured: ~21,000 a trial against DE's 63,000 and more
}

TEST(Jde, BadConfigurations) {
  const Problem prob = classic("sphere", 5);
  StopCriteria stop;
  stop.max_gens = 5;
  DEConfig jde;
  jde.algorithm = Algorithm::jde;
  RunOptions o;
  o.engine = Engine::serial;
  DEConfig c = jde;
  c.F = {0.3, 0.9};
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  c = jde;
  c.dither = Dither::individual;
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  c = jde;
  c.jde.tau1 = 1.5;
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  c = jde;
  c.jde.F_l = 0;
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  o.engine = Engine::auto_;  // auto runs it where it runs DE
  EXPECT_EQ(resolve_engine(Engine::auto_, prob, jde), resolve_engine(Engine::auto_));
  EXPECT_NO_THROW(minimize(prob, jde, stop, o));
  EXPECT_THROW(parse_algorithm("shade2"), ConfigError);
  EXPECT_EQ(algorithm_name(parse_algorithm("jde")), "jde");
}
