// MA-SW-Chains (masw.hpp): its operators' distributions, the Solis-Wets rules, runs that converge, the
// budget, determinism across engines and thread counts, and every bad option.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <span>
#include <vector>

#include "core/masw_ops.hpp"
#include "cpu_test_util.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"

using namespace degpu;

namespace {

Result run_masw(const Problem& p, const MaswConfig& c, long long max_evals, Engine e = Engine::serial, int threads = 0,
                std::uint64_t seed = 1) {
  StopCriteria stop;
  stop.max_evals = max_evals;
  RunOptions o;
  o.engine = e;
  o.threads = threads;
  o.seed = seed;
  return minimize_masw(p, c, stop, o);
}

}  // namespace

// BLX-alpha: uniform on [cmin - alpha I, cmax + alpha I] (mean the parents' midpoint, variance
// (I (1 + 2 alpha))^2 / 12); the interval is cut to the box, and the value uniform on what is left (no mass
// piled on a bound).
TEST(MaswOps, BlxIsUniformOnTheWidenedInterval) {
  const rng::Stream s(5, 0, rng::Purpose::blx, 1, 0);
  const int n = 200000;
  double sum = 0, sq = 0, lo = 1e9, hi = -1e9;
  for (int j = 0; j < n; ++j) {
    const double v = masw::blx(s.unit_pair(static_cast<std::uint64_t>(j)), 3.0, 1.0, 0.5, -100.0, 100.0);
    sum += v, sq += v * v, lo = std::min(lo, v), hi = std::max(hi, v);
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  EXPECT_NEAR(mean, 2.0, 0.01);           // sd of the mean: 1.15 / sqrt(2e5) = 0.0026
  EXPECT_NEAR(var, 16.0 / 12.0, 0.02);    // (2 x 2)^2 / 12
  EXPECT_GE(lo, 0.0);
  EXPECT_LE(hi, 4.0);
  EXPECT_LT(lo, 0.01);
  EXPECT_GT(hi, 3.99);
  EXPECT_EQ(masw::blx(0.0, 3.0, 1.0, 0.5, 0.5, 100.0), 0.5);   // [0, 4] cut to [0.5, 4]
  EXPECT_DOUBLE_EQ(masw::blx(0.5, 3.0, 1.0, 0.5, 0.5, 100.0), 2.25);
  EXPECT_DOUBLE_EQ(masw::blx(0.999, 3.0, 1.0, 0.5, -9.0, 3.5), 0.999 * 3.5);  // [0, 4] cut to [0, 3.5]
  EXPECT_EQ(masw::blx(0.3, 2.0, 2.0, 0.5, -9.0, 9.0), 2.0);    // equal parents: no interval
}

// BGA: a gene is mutated with the given probability; its step is +-sum a_m 2^-m with P(a_m) = 1/16,
// so E|step| = (1/16) sum 2^-m = (1/16)(2 - 2^-15), and both signs are equally likely.
TEST(MaswOps, BgaMutationHasItsDistribution) {
  const int n = 100000, D = 7;
  int mutated = 0, positive = 0, zero = 0;
  double abs_sum = 0;
  std::vector<int> genes(D, 0);
  for (int k = 0; k < n; ++k) {
    const rng::Stream s(9, 0, rng::Purpose::ga, 3, static_cast<std::uint32_t>(k));
    const masw::OffspringDraw d = masw::draw_offspring(s, 60, D, 0.125);
    ASSERT_LT(d.first, 60u);
    ASSERT_LT(d.gene, static_cast<std::uint32_t>(D));
    mutated += d.mutate;
    ++genes[d.gene];
    positive += d.step > 0;
    zero += d.step == 0;
    abs_sum += std::fabs(d.step);
    EXPECT_LE(std::fabs(d.step), 2.0);
  }
  EXPECT_NEAR(mutated / double(n), 0.125, 0.004);  // sd 0.001
  EXPECT_NEAR(abs_sum / n, (2.0 - std::ldexp(1.0, -15)) / 16, 0.004);
  EXPECT_NEAR(zero / double(n), std::pow(15.0 / 16, 16), 0.006);  // no term set: 0.356
  EXPECT_NEAR(positive / double(n - zero), 0.5, 0.01);
  for (int g : genes) EXPECT_NEAR(g / double(n), 1.0 / D, 0.006);
}

// The local search's normals: mean 0, variance 1, the cos and sin halves uncorrelated, and the tail of a
// normal (P(|z| > 2) = 0.0455).
TEST(MaswOps, LocalSearchNormalsAreStandard) {
  const rng::Stream s(3, 2, rng::Purpose::ls, 7, 11);
  const int pairs = 100000;
  double sum = 0, sq = 0, cross = 0;
  int tail = 0;
  for (int p = 0; p < pairs; ++p) {
    double z0, z1;
    masw::normal_pair(s, static_cast<std::uint32_t>(p), z0, z1);
    sum += z0 + z1, sq += z0 * z0 + z1 * z1, cross += z0 * z1;
    tail += (std::fabs(z0) > 2) + (std::fabs(z1) > 2);
    ASSERT_TRUE(std::isfinite(z0) && std::isfinite(z1));
  }
  const double n = 2.0 * pairs;
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sq / n, 1.0, 0.015);
  EXPECT_NEAR(cross / pairs, 0.0, 0.015);
  EXPECT_NEAR(tail / n, 0.0455, 0.003);
}

// normal_quad is normal_pair of two pairs (one Philox block), the layout rng.hpp gives.
TEST(MaswOps, NormalQuadIsTwoPairs) {
  const rng::Stream s(8, 1, rng::Purpose::ls, 2, 5);
  for (std::uint32_t q = 0; q < 50; ++q) {
    double z[4], a0, a1, b0, b1;
    masw::normal_quad(s, q, z);
    masw::normal_pair(s, 2 * q, a0, a1);
    masw::normal_pair(s, 2 * q + 1, b0, b1);
    EXPECT_EQ(z[0], a0);
    EXPECT_EQ(z[1], a1);
    EXPECT_EQ(z[2], b0);
    EXPECT_EQ(z[3], b1);
  }
}

TEST(MaswOps, SolisWetsBiasRules) {
  EXPECT_DOUBLE_EQ(masw::bias_after_plus(1.0, 2.0), 0.2 + 0.4 * 3.0);
  EXPECT_DOUBLE_EQ(masw::bias_after_minus(1.0, 2.0), 1.0 - 0.4 * 3.0);
  EXPECT_DOUBLE_EQ(masw::bias_after_failure(-3.0), -1.5);
  EXPECT_EQ(masw::kSwMaxSuccess, 5);
  EXPECT_EQ(masw::kSwMaxFailure, 3);
}

// The algorithm finds the optimum of easy problems and makes progress on Rastrigin.
TEST(Masw, ConvergesOnSphereAndImprovesRastrigin) {
  const Problem sphere = classic("sphere", 20, ShiftSpec{ShiftSpec::Kind::random, 4, {}});
  const Result r = run_masw(sphere, MaswConfig{}, 100000);
  EXPECT_LT(*r.best_error, 1e-6);
  EXPECT_EQ(r.evals, 100000);
  EXPECT_GT(r.ls_applications, 50);
  ASSERT_TRUE(r.phases.has_value());
  EXPECT_GT(r.phases->eval, 0);

  const Problem ras = classic("lastra:rastrigin", 30);
  const Result a = run_masw(ras, MaswConfig{}, 3000);
  const Result b = run_masw(ras, MaswConfig{}, 60000);
  EXPECT_LT(*b.best_error, *a.best_error / 4);
  EXPECT_LT(*b.best_error, 100);  // a random point errs by ~500 at D 30
}

// The evaluation budget is never exceeded, however the phases split it, and the LS / total ratio holds.
TEST(Masw, BudgetIsExactAndTheRatioHolds) {
  const Problem p = classic("sumsquares", 10);
  for (long long evals : {60LL, 61LL, 579LL, 1080LL, 1081LL, 12345LL}) {
    const Result r = run_masw(p, MaswConfig{}, evals);
    EXPECT_EQ(r.evals, evals) << evals;
    EXPECT_EQ(r.stop_reason, StopReason::max_evals);
  }
  MaswConfig c;
  c.ls_intensity = 100;
  c.ls_ratio = 0.2;  // n_free = 400: per cycle 400 GA evaluations (20 steps of 20) and 100 LS
  const Result r = run_masw(p, c, 60 + 10 * 500);
  EXPECT_EQ(r.generations, 10 * 20);
  EXPECT_EQ(r.ls_applications, 10);
}

// Same seed, same bits: serial and threads at any thread count, and a large D that the threads engine
// splits over coordinates; another seed gives another run.
TEST(Masw, DeterministicOnEveryEngine) {
  const Problem p = classic("lastra:griewank", 40);
  const Result a = run_masw(p, MaswConfig{}, 5000);
  EXPECT_TRUE(same_bits(a, run_masw(p, MaswConfig{}, 5000)));
  EXPECT_TRUE(same_bits(a, run_masw(p, MaswConfig{}, 5000, Engine::threads, 1)));
  EXPECT_TRUE(same_bits(a, run_masw(p, MaswConfig{}, 5000, Engine::threads, 3)));
  EXPECT_FALSE(same_bits(a, run_masw(p, MaswConfig{}, 5000, Engine::serial, 0, 2)));
  const Problem big = classic("lastra:rastrigin", 20000);
  MaswConfig c;
  c.ls_intensity = 40;
  const Result s = run_masw(big, c, 400);
  EXPECT_TRUE(same_bits(s, run_masw(big, c, 400, Engine::threads, 2)));
  EXPECT_GT(s.ls_applications, 0);
}

// The original serial SSGA (one offspring a step) works too, and float runs.
TEST(Masw, OneOffspringAndFloat) {
  const Problem p = classic("sphere", 10);
  MaswConfig c;
  c.offspring = 1;
  EXPECT_LT(*run_masw(p, c, 30000).best_error, 1e-6);
  StopCriteria stop;
  stop.max_evals = 30000;
  RunOptions o;
  o.engine = Engine::serial;
  o.precision = Precision::f32;
  const Result f = minimize_masw(p, MaswConfig{}, stop, o);
  EXPECT_LT(*f.best_error, 1e-3);
}

TEST(Masw, TargetAndTimeStop) {
  const Problem p = classic("sphere", 5);
  StopCriteria stop;
  stop.target_error = 1e-3;
  stop.max_evals = 1000000;
  RunOptions o;
  o.engine = Engine::serial;
  const Result r = minimize_masw(p, MaswConfig{}, stop, o);
  EXPECT_EQ(r.stop_reason, StopReason::target);
  EXPECT_LE(*r.best_error, 1e-3);
  EXPECT_LT(r.evals, 1000000);
}

TEST(Masw, BadOptionsAreRefused) {
  const Problem p = classic("sphere", 5);
  StopCriteria stop;
  RunOptions o;
  o.engine = Engine::serial;
  auto bad = [&](auto edit) {
    MaswConfig c;
    edit(c);
    return c;
  };
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.np = 3; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.alpha = 0; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.alpha = -1; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.alpha = NAN; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.ls_intensity = 0; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.ls_ratio = 0; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.ls_ratio = 1; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.nam = 0; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.offspring = 0; }), stop, o), ConfigError);
  EXPECT_THROW(minimize_masw(p, bad([](MaswConfig& c) { c.mutation_rate = 1.5; }), stop, o), ConfigError);
  try {
    minimize_masw(p, bad([](MaswConfig& c) { c.ls_ratio = 1.5; }), stop, o);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "ls_ratio 1.5: must be in (0, 1)");
  }
  RunOptions g = o;
  g.engine = Engine::gpu_eval;  // not one of its engines
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, stop, g), ConfigError);
  g.engine = Engine::gpu;
  try {  // rosenbrock's terms read a neighbour: not on the GPU engine
    minimize_masw(classic("rosenbrock", 5), MaswConfig{}, stop, g);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("engine gpu: rosenbrock's terms read a neighbouring coordinate"), std::string::npos)
        << e.what();
  }
  if (!cuda_compiled()) EXPECT_THROW(minimize_masw(p, MaswConfig{}, stop, g), NotCompiled);
  MaswConfig wide;
  wide.offspring = 30000;  // x nam 3: over a grid's 65535
  EXPECT_THROW(minimize_masw(p, wide, stop, g), ConfigError);
  StopCriteria few;
  few.max_evals = 10;  // below the population
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, few, o), ConfigError);
  MaswConfig four;
  four.np = 4;
  four.nam = 4;  // candidates other than the first parent: at most np - 1
  EXPECT_THROW(minimize_masw(p, four, stop, o), ConfigError);
  four.nam = 3;
  StopCriteria s2;
  s2.max_evals = 200;
  EXPECT_NO_THROW(minimize_masw(p, four, s2, o));
  StopCriteria t;
  t.max_time_s = 0;
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, t, o), ConfigError);
  StopCriteria gens;
  gens.max_gens = -1;
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, gens, o), ConfigError);
  const Problem mine("mine", {-1, -1}, {1, 1}, [](std::span<const double> x) { return x[0] * x[0] + x[1] * x[1]; });
  StopCriteria target;
  target.target_error = 1e-3;  // no known optimum
  EXPECT_THROW(minimize_masw(mine, MaswConfig{}, target, o), ConfigError);
  EXPECT_THROW(minimize_masw(mine, MaswConfig{}, stop, g), ConfigError);  // a user objective on the GPU engine
  EXPECT_EQ(resolve_masw_engine(Engine::auto_, mine), Engine::threads);
  EXPECT_EQ(resolve_masw_engine(Engine::auto_, classic("rosenbrock", 5)), Engine::threads);
  EXPECT_EQ(resolve_masw_engine(Engine::serial, p), Engine::serial);
  ProblemSpec cs;  // CEC 2010: on the GPU engine where one can run, as the built-ins
  cs.name = "cec2010:f2";
  cs.dim = 100;
  const Problem cec = make_problem(cs);
  EXPECT_EQ(resolve_masw_engine(Engine::auto_, cec), resolve_engine(Engine::auto_) == Engine::gpu ? Engine::gpu : Engine::threads);
  if (!cuda_compiled()) EXPECT_THROW(minimize_masw(cec, MaswConfig{}, stop, g), NotCompiled);
  RunOptions th = o;
  th.engine = Engine::threads;
  th.threads = -2;
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, stop, th), ConfigError);
}

TEST(Masw, TrialsAreLoneRunsAndTheBestIsChosen) {
  const Problem p = classic("rastrigin", 30);
  StopCriteria stop;
  stop.max_evals = 3000;
  RunOptions o;
  o.engine = Engine::serial;
  o.trial = 5;
  const TrialsResult tr = minimize_masw_trials(p, MaswConfig{}, stop, o, 3);
  ASSERT_EQ(tr.trials.size(), 3u);
  for (int t = 0; t < 3; ++t) {
    RunOptions one = o;
    one.trial = 5 + t;
    EXPECT_EQ(tr.trials[t].best_f, minimize_masw(p, MaswConfig{}, stop, one).best_f) << t;
  }
  for (const Result& r : tr.trials) EXPECT_LE(tr.trials[tr.best].best_f, r.best_f);
  EXPECT_NE(tr.trials[0].best_f, tr.trials[1].best_f);
  EXPECT_THROW(minimize_masw_trials(p, MaswConfig{}, stop, o, 0), ConfigError);
  RunOptions last = o;
  last.trial = rng::kMaxTrials - 1;
  EXPECT_THROW(minimize_masw_trials(p, MaswConfig{}, stop, last, 2), ConfigError);
}
