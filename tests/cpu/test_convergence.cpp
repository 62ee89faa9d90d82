// The convergence test (StopCriteria::convergence: scipy's tol and atol), the observer (RunOptions::observe)
// and the kept population (RunOptions::keep_population) on the CPU engines: what they compute, that every
// engine stops at the same generation, and bad values (tests/gpu/test_convergence_gpu.cpp: the CUDA engines).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <limits>
#include <vector>

#include "cpu_test_util.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

// numpy's std (divisor n) and mean, summed in index order: the tree's sum may differ in the last bits only.
void naive(const std::vector<double>& f, double& mean, double& sd) {
  double s = 0;
  for (double v : f) s += v;
  mean = s / static_cast<double>(f.size());
  double q = 0;
  for (double v : f) q += (v - mean) * (v - mean);
  sd = std::sqrt(q / static_cast<double>(f.size()));
}

// 100 + |x|^2: values that converge relative to their mean (sphere's, near 0, need not)
Problem offset_sphere(int D) {
  return Problem("offset-sphere", std::vector<double>(D, -5.0), std::vector<double>(D, 5.0),
                 [](std::span<const double> x) {
                   double s = 100;
                   for (double v : x) s += v * v;
                   return s;
                 },
                 100.0);
}

StopCriteria converge(double tol, double atol, long long max_gens = 100000) {
  StopCriteria s;
  s.max_gens = max_gens;
  s.convergence = Convergence{tol, atol};
  return s;
}

}  // namespace

TEST(Convergence, SpreadIsTheMeanAndStdAndSeesNonFiniteValues) {
  const std::vector<double> f{1, 2, 3, 4, 5, 6, 7};
  const Spread s = spread_of(f.data(), f.size());
  EXPECT_DOUBLE_EQ(s.mean, 4.0);
  EXPECT_DOUBLE_EQ(s.std, 2.0);
  EXPECT_TRUE(s.finite);
  EXPECT_TRUE(converged(Convergence{0.5, 0}, s));    // 2 <= 0.5 * 4
  EXPECT_FALSE(converged(Convergence{0.49, 0}, s));  // 2 > 1.96
  EXPECT_TRUE(converged(Convergence{0, 2.0}, s));    // atol alone
  EXPECT_FALSE(converged(Convergence{0, 1.99}, s));
  const std::vector<double> same(5, -3.0);
  EXPECT_TRUE(converged(Convergence{0, 0}, spread_of(same.data(), same.size())));  // std 0 <= 0
  for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    std::vector<double> g = same;
    g[2] = bad;
    const Spread t = spread_of(g.data(), g.size());
    EXPECT_FALSE(t.finite);
    EXPECT_FALSE(converged(Convergence{1e300, 1e300}, t));  // never with a value that is not finite
  }
}

TEST(Convergence, StopsAtTheFirstGenerationThatPassesOnEveryCpuEngine) {
  const Problem p = offset_sphere(6);
  DEConfig de = with_strategy("best/1/bin");
  de.np = 30;
  RunOptions o;
  o.seed = 11;
  o.engine = Engine::serial;
  o.keep_population = true;
  // the generation at which the test first passes, found by observing every generation of a long run
  long long first = -1;
  o.observe = [&](const Generation& g) {
    std::vector<double> f = g.values();
    double mean = 0, sd = 0;
    naive(f, mean, sd);
    if (first < 0 && sd <= 1e-3 * std::fabs(mean)) first = g.generation;
    return false;
  };
  const Result all = minimize(p, de, gens(400), o);
  ASSERT_EQ(all.stop_reason, StopReason::max_gens);
  ASSERT_GT(first, 1);
  o.observe = nullptr;
  const Result a = minimize(p, de, converge(1e-3, 0), o);
  EXPECT_EQ(a.stop_reason, StopReason::converged);
  EXPECT_EQ(a.generations, first);
  EXPECT_EQ(a.evals, 30 * (first + 1));
  // the kept population is the last generation's, and passes the test
  ASSERT_EQ(a.population.size(), 30u * 6u);
  ASSERT_EQ(a.population_f.size(), 30u);
  const Spread s = spread_of(a.population_f.data(), a.population_f.size());
  EXPECT_LE(s.std, 1e-3 * std::fabs(s.mean));
  bool best_in = false;
  for (int i = 0; i < 30; ++i) {
    EXPECT_DOUBLE_EQ(p.evaluate<double>(a.population.data() + i * 6), a.population_f[i]);
    best_in = best_in || (a.population_f[i] == a.best_f && std::equal(a.best_x.begin(), a.best_x.end(), a.population.begin() + i * 6));
  }
  EXPECT_TRUE(best_in);
  for (Engine e : {Engine::threads, Engine::matrix}) {
    o.engine = e;
    o.threads = 2;
    const Result b = minimize(p, de, converge(1e-3, 0), o);
    EXPECT_TRUE(same_bits(a, b)) << engine_name(e);
    EXPECT_EQ(a.population, b.population) << engine_name(e);
  }
  // atol alone: the values' std below an absolute level
  o.engine = Engine::serial;
  o.threads = 0;
  const Result c = minimize(p, de, converge(0, 1e-6, 5000), o);
  EXPECT_EQ(c.stop_reason, StopReason::converged);
  const Spread cs = spread_of(c.population_f.data(), c.population_f.size());
  EXPECT_LE(cs.std, 1e-6);
}

TEST(Convergence, TheOtherCriteriaComeFirstWhereTheyHoldAndGenerationZeroIsNeverTested) {
  const Problem p = offset_sphere(4);
  DEConfig de;
  de.np = 20;
  RunOptions o;
  o.engine = Engine::serial;
  // every population "converges" under a huge atol: the first test is after generation 1
  const Result a = minimize(p, de, converge(0, 1e300), o);
  EXPECT_EQ(a.stop_reason, StopReason::converged);
  EXPECT_EQ(a.generations, 1);
  // max_gens 1 and the test both hold at generation 1: converged is named (scipy's order)
  const Result b = minimize(p, de, converge(0, 1e300, 1), o);
  EXPECT_EQ(b.stop_reason, StopReason::converged);
  // a target reached first wins
  StopCriteria t = converge(0, 1e300);
  t.target_error = 1e300;
  EXPECT_EQ(minimize(p, de, t, o).stop_reason, StopReason::target);
}

TEST(Observer, SeesEveryGenerationAndStopsTheRun) {
  const Problem p = classic("rastrigin", 5);
  DEConfig de;
  de.np = 24;
  RunOptions o;
  o.engine = Engine::serial;
  o.seed = 3;
  std::vector<long long> seen;
  std::vector<double> best;
  o.observe = [&](const Generation& g) {
    seen.push_back(g.generation);
    EXPECT_EQ(g.evals, 24 * (g.generation + 1));
    const std::vector<double> x = g.best_x(), pop = g.population(), f = g.values();
    EXPECT_EQ(x.size(), 5u);
    EXPECT_EQ(pop.size(), 24u * 5u);
    EXPECT_EQ(f.size(), 24u);
    EXPECT_DOUBLE_EQ(p.evaluate<double>(x.data()), g.best_f);
    EXPECT_DOUBLE_EQ(*std::min_element(f.begin(), f.end()), g.best_f);
    best.push_back(g.best_f);
    return g.generation == 7;
  };
  const Result r = minimize(p, de, gens(50), o);
  EXPECT_EQ(r.stop_reason, StopReason::callback);
  EXPECT_EQ(r.generations, 7);
  EXPECT_EQ(seen, (std::vector<long long>{1, 2, 3, 4, 5, 6, 7}));
  for (std::size_t k = 1; k < best.size(); ++k) EXPECT_LE(best[k], best[k - 1]);
  // the observer's stop wins over a criterion met at the same generation; it sees the last generation
  seen.clear();
  o.observe = [&](const Generation& g) {
    seen.push_back(g.generation);
    return g.generation == 4;
  };
  const Result s = minimize(p, de, gens(4), o);
  EXPECT_EQ(s.stop_reason, StopReason::callback);
  EXPECT_EQ(seen.back(), 4);
  // observing changes nothing: the same run as without an observer
  o.observe = [](const Generation& g) { return g.values().empty(); };
  const Result with = minimize(p, de, gens(30), o);
  o.observe = nullptr;
  EXPECT_TRUE(same_bits(with, minimize(p, de, gens(30), o)));
}

TEST(Convergence, BadValuesAndTheEnginesThatRefuse) {
  const Problem p = classic("sphere", 4);
  DEConfig de;
  RunOptions o;
  o.engine = Engine::serial;
  for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    try {
      minimize(p, de, converge(bad, 0), o);
      FAIL() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "tol") << e.what();
    }
    try {
      minimize(p, de, converge(0.01, bad), o);
      FAIL() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "atol") << e.what();
    }
  }
  // the gpu engine runs its generations inside one kernel: an observer is refused by name (checked before
  // any device is looked for)
  if (!cuda_compiled()) return;
  RunOptions w = o;
  w.engine = Engine::gpu;
  w.observe = [](const Generation&) { return false; };
  try {
    minimize(p, de, gens(3), w);
    FAIL() << "the gpu engine took an observer";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "engine") << e.what();
  }
}
