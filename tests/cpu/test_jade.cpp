// JADE without archive (--algorithm jade), the first algorithm with a population-level update: the
// fixed order of the population's sums, JADE's draws and learning rule, agreement across the CPU engines,
// and what the adaptation buys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "cpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

ops::Params jade_params(double mu_F, double mu_CR) {
  ops::Params p{};
  p.seed = 21;
  p.np = 100;
  p.algorithm = Algorithm::jade;
  p.jade = Jade{0.1, mu_F, mu_CR};
  return p;
}

// The definition of the order, literally: the stride-doubling tree in place.
double stride_doubling(std::vector<double> x) {
  if (x.empty()) return 0;
  for (std::size_t s = 1; s < x.size(); s *= 2)
    for (std::size_t i = 0; i + s < x.size(); i += 2 * s) x[i] = x[i] + x[i + s];
  return x[0];
}

double cauchy_cdf(double x, double mu, double gamma) { return 0.5 + std::atan((x - mu) / gamma) / M_PI; }

}  // namespace

// tree_sum is the stride-doubling tree for every length, and so is any split at aligned powers of two
// (each block's tree_sum, then the tree over the blocks: the warp's way, cuda/blocks/tree_sum.cuh).
TEST(TreeSum, IsTheStrideDoublingTreeForEveryLengthAndSplit) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  for (std::uint32_t n = 0; n <= 300; ++n) {
    std::vector<double> x(n);
    for (double& v : x) v = u(gen) * std::pow(10.0, static_cast<int>(gen() % 13) - 6);
    const auto at = [&](std::uint32_t k) { return x[k]; };
    const double ref = stride_doubling(x);
    ASSERT_EQ(alg::tree_sum(at, 0, n), ref) << n;
    for (std::uint32_t B : {1u, 2u, 4u, 8u, 32u, 64u}) {
      std::vector<double> blocks;
      for (std::uint32_t b = 0; b < n; b += B) blocks.push_back(alg::tree_sum(at, b, std::min(n, b + B)));
      ASSERT_EQ(stride_doubling(blocks), ref) << n << " " << B;
    }
  }
}

// The order is the tree's, not the left-to-right sum's (which these values tell apart).
TEST(TreeSum, OrderIsNotTheSerialSum) {
  const std::vector<double> x{1e16, 1.0, -1e16, 1.0};
  const double tree = alg::tree_sum([&](std::uint32_t k) { return x[k]; }, 0, 4);
  EXPECT_EQ(tree, (1e16 + 1.0) + (-1e16 + 1.0));
  EXPECT_EQ(tree, 0.0);
  EXPECT_EQ(((x[0] + x[1]) + x[2]) + x[3], 1.0);
}

// JADE's draws: CR ~ N(mu_CR, 0.1) cut to [0, 1], F ~ Cauchy(mu_F, 0.1) given F > 0, 1 where >= 1.
// 100,000 draws with a fixed seed; bounds of about 5 sigma.
TEST(Jade, DrawStatistics) {
  const int n = 100000;
  for (const auto [mu_F, mu_CR] : {std::pair{0.5, 0.5}, std::pair{0.2, 0.95}}) {
    const ops::Params p = jade_params(mu_F, mu_CR);
    const double shared[2] = {mu_F, mu_CR};
    double sumCR = 0, sumCR2 = 0;
    int cr_one = 0, cr_zero = 0, f_one = 0, f_below_mu = 0;
    for (int k = 0; k < n; ++k) {
      const alg::Control c = alg::draw(p, 1u + static_cast<std::uint32_t>(k / 100), static_cast<std::uint32_t>(k % 100), alg::State{}, shared);
      ASSERT_TRUE(c.CR >= 0 && c.CR <= 1) << c.CR;
      ASSERT_TRUE(c.F > 0 && c.F <= 1) << c.F;
      sumCR += c.CR, sumCR2 += c.CR * c.CR;
      cr_one += c.CR == 1.0, cr_zero += c.CR == 0.0;
      f_one += c.F == 1.0, f_below_mu += c.F <= mu_F;
    }
    const auto near_p = [&](int count, double prob, const char* what) {
      EXPECT_NEAR(count / double(n), prob, 5 * std::sqrt(prob * (1 - prob) / n) + 1e-4) << what << " mu_F " << shared[0];
    };
    const double P0 = cauchy_cdf(0, mu_F, 0.1);  // F <= 0: drawn again
    near_p(f_one, (1 - cauchy_cdf(1, mu_F, 0.1)) / (1 - P0), "F = 1");
    near_p(f_below_mu, (0.5 - P0) / (1 - P0), "F <= mu_F");
    const double z1 = (1 - mu_CR) / 0.1;  // P(N(mu, 0.1) >= 1)
    near_p(cr_one, 0.5 * std::erfc(z1 / std::sqrt(2.0)), "CR = 1");
    near_p(cr_zero, 0.5 * std::erfc((mu_CR / 0.1) / std::sqrt(2.0)), "CR = 0");
    if (mu_CR == 0.5) {  // nothing cut at 5 sigma
      EXPECT_NEAR(sumCR / n, 0.5, 5 * 0.1 / std::sqrt(n));
      EXPECT_NEAR(std::sqrt(sumCR2 / n - (sumCR / n) * (sumCR / n)), 0.1, 0.002);
    }
  }
  // a pure function of the run, (g, i) and the means
  const ops::Params p = jade_params(0.5, 0.5);
  const double shared[2] = {0.5, 0.5}, other[2] = {0.6, 0.5};
  const alg::Control a = alg::draw(p, 4, 9, alg::State{}, shared), b = alg::draw(p, 4, 9, alg::State{}, shared);
  EXPECT_EQ(a.F, b.F);
  EXPECT_EQ(a.CR, b.CR);
  EXPECT_NE(alg::draw(p, 4, 10, alg::State{}, shared).CR, a.CR);
  EXPECT_NE(alg::draw(p, 4, 9, alg::State{}, other).F, a.F);
}

// The learning rule through the concept: contributions (successes only: a tie replaces its parent but is no
// success), summed in the fixed order, the means moved by c towards mean(S_CR) and the Lehmer mean of S_F.
TEST(Jade, LearningRule) {
  const ops::Params p = jade_params(0.5, 0.5);
  const std::size_t n = 5;
  std::vector<double> sums(4 * n, -7.0);
  const auto put = [&](std::size_t i, double F, double CR, double f_parent, double f_trial) {
    alg::contribute(p, alg::Control{F, CR}, f_parent, f_trial, f_trial <= f_parent, alg::Sums{sums.data() + i, n});
  };
  put(0, 0.4, 0.2, 3.0, 1.0);   // success
  put(1, 0.9, 0.9, 1.0, 2.0);   // failure
  put(2, 0.8, 0.6, 5.0, 4.5);   // success
  put(3, 0.7, 0.1, 2.0, 2.0);   // tie: taken, not a success
  put(4, 0.3, 0.3, 1.0, NAN);   // NaN trial
  double totals[alg::kMaxSums];
  alg::sum_contributions(p, sums.data(), n, totals);
  EXPECT_EQ(totals[0], 2.0);
  std::vector<double> shared = alg::initial_shared(p);
  ASSERT_EQ(shared, (std::vector<double>{0.5, 0.5}));
  alg::end_generation(p, 1, shared.data(), totals);
  EXPECT_DOUBLE_EQ(shared[0], 0.9 * 0.5 + 0.1 * (0.4 * 0.4 + 0.8 * 0.8) / (0.4 + 0.8));
  EXPECT_DOUBLE_EQ(shared[1], 0.9 * 0.5 + 0.1 * (0.2 + 0.6) / 2);
  // a generation without a success leaves the means
  const std::vector<double> before = shared;
  std::fill(totals, totals + 4, 0.0);
  alg::end_generation(p, 2, shared.data(), totals);
  EXPECT_EQ(shared, before);
}

// Every CPU engine runs JADE to the same bits, in both precisions, alone and as a trial of a batch; its run
// differs from DE's with the same strategy.
TEST(Jade, EnginesAgree) {
  const Problem prob = classic("rastrigin", 20, ShiftSpec{ShiftSpec::Kind::random, 5, {}});
  StopCriteria stop;
  stop.max_gens = 80;
  DEConfig jade;
  jade.algorithm = Algorithm::jade;
  jade.mutation = Mutation::current_to_pbest1;
  jade.np = 40;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    RunOptions o;
    o.precision = prec;
    o.seed = 3;
    o.engine = Engine::serial;
    const Result ref = minimize(prob, jade, stop, o);
    for (Engine e : {Engine::threads, Engine::matrix}) {
      o.engine = e;
      o.threads = 3;
      EXPECT_TRUE(same_bits(minimize(prob, jade, stop, o), ref)) << engine_name(e);
    }
    o.engine = Engine::serial;
    o.threads = 0;
    DEConfig de = jade;
    de.algorithm = Algorithm::de;
    EXPECT_FALSE(same_bits(minimize(prob, de, stop, o), ref));
    RunOptions batch = o;
    batch.trial = 0;
    const TrialsResult all = minimize_trials(prob, jade, stop, batch, 3);
    o.trial = 2;
    EXPECT_TRUE(same_bits(all.trials[2], minimize(prob, jade, stop, o)));
  }
}

// Zhang and Sanderson's f1 and f5 (sphere, Rosenbrock) at D 30, NP 100: JADE reaches 1e-8 on the sphere in
// every one of 3 seeded trials, in fewer evaluations than DE with the same strategy and its fixed F 0.5,
// CR 0.9, and gets further on Rosenbrock in the same budget.
TEST(Jade, AdaptationBeatsFixedParameters) {
  DEConfig jade;
  jade.algorithm = Algorithm::jade;
  jade.mutation = Mutation::current_to_pbest1;
  jade.np = 100;
  jade.p = 0.05;
  DEConfig de = jade;
  de.algorithm = Algorithm::de;
  expect_adaptation_pays(jade, de);
}

TEST(Jade, BadConfigurations) {
  const Problem prob = classic("sphere", 5);
  StopCriteria stop;
  stop.max_gens = 5;
  DEConfig jade;
  jade.algorithm = Algorithm::jade;
  jade.mutation = Mutation::current_to_pbest1;
  RunOptions o;
  o.engine = Engine::serial;
  EXPECT_NO_THROW(minimize(prob, jade, stop, o));
  DEConfig c = jade;
  c.mutation = Mutation::rand1;
  try {
    minimize(prob, c, stop, o);
    FAIL() << "rand/1 accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "strategy rand/1/bin: JADE mutates with current-to-pbest/1 (algorithm jade); use current-to-pbest/1/bin");
  }
  c = jade;
  c.F = {0.3, 0.9};
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  c = jade;
  c.dither = Dither::individual;
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  for (double bad : {0.0, 1.5, static_cast<double>(NAN)}) {
    c = jade;
    c.jade.c = bad;
    EXPECT_THROW(minimize(prob, c, stop, o), ConfigError) << bad;
  }
  c = jade;
  c.jade.mu_F = 0;
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  c = jade;
  c.jade.mu_CR = -0.1;
  EXPECT_THROW(minimize(prob, c, stop, o), ConfigError);
  EXPECT_EQ(algorithm_name(parse_algorithm("jade")), "jade");
}
