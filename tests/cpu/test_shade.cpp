// SHADE (--algorithm shade) on the host driver's engines: each draw (the memory slot, the trial's p, F and
// CR from the slot's means), the memories' update, the archive (its capacity, r2 drawn uniformly from the
// population and the archive, the insertion rule), agreement bit for bit across the CPU engines and thread
// counts, the run with its adaptation off equal to DE/current-to-pbest/1, and what the adaptation buys.
// docs/ALGORITHMS.md states each rule and its source.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/driver.hpp"
#include "cpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

ops::Params shade_params(int np, int H) {
  ops::Params p{};
  p.seed = 17;
  p.np = np;
  p.mutation = Mutation::current_to_pbest1;
  p.algorithm = Algorithm::shade;
  p.shade = Shade{};
  p.shade.H = H;
  p.pbest_lo = 2.0 / np;
  p.pbest_hi = 0.2;
  p.pbest_count = static_cast<int>(std::floor(0.2 * np + 0.5));
  return p;
}

// Pearson's statistic of counts against equal expected counts.
double chi2_uniform(const std::vector<long>& counts) {
  long n = 0;
  for (long c : counts) n += c;
  const double e = static_cast<double>(n) / counts.size();
  double x = 0;
  for (long c : counts) x += (c - e) * (c - e) / e;
  return x;
}

DEConfig shade_config(int np) {
  DEConfig de;
  de.algorithm = Algorithm::shade;
  de.mutation = Mutation::current_to_pbest1;
  de.repair = Repair::midpoint;
  de.np = np;
  return de;
}

}  // namespace

// The memory slot is uniform over the H slots (chi-square, 9 degrees of freedom: 99.9% quantile 27.9),
// and a trial's F and CR come from its slot's means: with slots far apart, every CR lies near its slot's
// M_CR and the mean of each slot's draws is its M_CR within 5 standard errors.
TEST(Shade, SlotAndMeansDraws) {
  const int H = 10, n = 200000;
  ops::Params p = shade_params(100, H);
  std::vector<double> shared = alg::initial_shared(p);
  ASSERT_EQ(shared.size(), static_cast<std::size_t>(alg::Shade::kShared));
  EXPECT_EQ(shared[0], 0.0);
  for (int r = 0; r < H; ++r) {
    EXPECT_EQ(alg::Shade::M_F(shared.data(), r), 0.5);
    alg::Shade::M_CR(shared.data(), r) = 0.05 + 0.1 * r;
    alg::Shade::M_F(shared.data(), r) = 0.1 + 0.08 * r;
  }
  std::vector<long> count(H);
  std::vector<double> sum_cr(H), f_below(H);
  for (int k = 0; k < n; ++k) {
    const auto g = 1u + static_cast<std::uint32_t>(k / 100), i = static_cast<std::uint32_t>(k % 100);
    const int r = alg::Shade::slot(p, g, i, H);
    ASSERT_TRUE(r >= 0 && r < H);
    ++count[r];
    const alg::Control c = alg::draw(p, g, i, alg::State{}, shared.data());
    ASSERT_TRUE(c.F > 0 && c.F <= 1);
    ASSERT_TRUE(c.CR >= 0 && c.CR <= 1);
    ASSERT_LT(std::fabs(c.CR - alg::Shade::M_CR(shared.data(), r)), 0.6) << r;  // 6 sigma
    sum_cr[r] += c.CR;
    f_below[r] += c.F <= alg::Shade::M_F(shared.data(), r);
  }
  EXPECT_LT(chi2_uniform(count), 27.9);
  for (int r = 0; r < H; ++r) {
    // F <= M_F[r] with the probability of the Cauchy drawn again at or below 0
    const double mf = alg::Shade::M_F(shared.data(), r), P0 = 0.5 + std::atan((0 - mf) / 0.1) / M_PI;
    const double q = (0.5 - P0) / (1 - P0);
    EXPECT_NEAR(f_below[r] / count[r], q, 5 * std::sqrt(q * (1 - q) / count[r])) << r;
    // the mean of CR where its normal is cut at 0 or 1 with probability below 3e-4 (M_CR 0.35 .. 0.65)
    const double mu = alg::Shade::M_CR(shared.data(), r);
    if (mu > 0.3 && mu < 0.7) EXPECT_NEAR(sum_cr[r] / count[r], mu, 5 * 0.1 / std::sqrt(count[r])) << r;
  }
  // the slot is a pure function of the run and (g, i), and so is each draw
  EXPECT_EQ(alg::Shade::slot(p, 3, 4, H), alg::Shade::slot(p, 3, 4, H));
  const alg::Control a = alg::draw(p, 3, 4, alg::State{}, shared.data()), b = alg::draw(p, 3, 4, alg::State{}, shared.data());
  EXPECT_EQ(a.F, b.F);
  EXPECT_EQ(a.CR, b.CR);
}

// Each trial's p is uniform in [2/NP, 0.2], so the number of the best its p-best is drawn from,
// round(p NP), is uniform-ish over 2 .. 0.2 NP (the two end counts take half a step each), and the p-best
// rank below it.
TEST(Shade, PerTrialP) {
  const int np = 100, n = 100000;
  const ops::Params p = shade_params(np, 6);
  std::vector<long> counts(p.pbest_count + 1);
  for (int k = 0; k < n; ++k) {
    const auto g = 1u + static_cast<std::uint32_t>(k / np), i = static_cast<std::uint32_t>(k % np);
    const ops::Stream s(p.seed, p.trial, ops::Purpose::donors, g, i);
    const std::uint32_t c = ops::pbest_count_of(p, s.block(1));
    ASSERT_TRUE(c >= 2 && c <= 20u) << c;
    ++counts[c];
    ASSERT_LT(ops::draw_donors(p, g, i).pbest_rank, c);
  }
  // p NP uniform in [2, 20]: counts 3 .. 19 each take 1/18 of the draws, 2 and 20 half that
  for (int c = 3; c <= 19; ++c) EXPECT_NEAR(counts[c] / double(n), 1.0 / 18, 5 * std::sqrt((1.0 / 18) / n)) << c;
  EXPECT_NEAR(counts[2] / double(n), 1.0 / 36, 5 * std::sqrt((1.0 / 36) / n));
  EXPECT_NEAR(counts[20] / double(n), 1.0 / 36, 5 * std::sqrt((1.0 / 36) / n));
  // a fixed p (p_min = p_max) draws nothing: every trial takes pbest_count
  ops::Params fixed = p;
  fixed.pbest_lo = fixed.pbest_hi = 0.1;
  fixed.pbest_count = 10;
  const ops::Stream s(p.seed, p.trial, ops::Purpose::donors, 1, 0);
  EXPECT_EQ(ops::pbest_count_of(fixed, s.block(1)), 10u);
}

// The update through the concept: successes only (strictly better, of finite weight), weighted by
// Delta f; M_F[k] the weighted Lehmer mean, M_CR[k] the weighted arithmetic mean; k moves on, round robin;
// a generation without a success changes nothing.
TEST(Shade, MemoryUpdate) {
  const ops::Params p = shade_params(6, 2);
  const std::size_t n = 6;
  std::vector<double> sums(alg::Shade::kSums * n, -7.0);
  const auto put = [&](std::size_t i, double F, double CR, double f_parent, double f_trial) {
    alg::contribute(p, alg::Control{F, CR}, f_parent, f_trial, f_trial <= f_parent, alg::Sums{sums.data() + i, n});
  };
  put(0, 0.4, 0.2, 3.0, 1.0);       // success, weight 2
  put(1, 0.9, 0.9, 1.0, 2.0);       // failure
  put(2, 0.8, 0.6, 5.0, 4.5);       // success, weight 0.5
  put(3, 0.7, 0.1, 2.0, 2.0);       // tie: taken, not a success
  put(4, 0.3, 0.3, 1.0, NAN);       // NaN trial
  put(5, 0.6, 0.7, INFINITY, 1.0);  // infinite weight: replaces its parent, joins no set
  double totals[alg::kMaxSums];
  alg::sum_contributions(p, sums.data(), n, totals);
  EXPECT_EQ(totals[0], 2.0);
  std::vector<double> shared = alg::initial_shared(p);
  alg::end_generation(p, 1, shared.data(), totals);
  const double wF = 2 * 0.4 + 0.5 * 0.8, wF2 = 2 * 0.4 * 0.4 + 0.5 * 0.8 * 0.8;
  EXPECT_DOUBLE_EQ(alg::Shade::M_F(shared.data(), 0), wF2 / wF);
  EXPECT_DOUBLE_EQ(alg::Shade::M_CR(shared.data(), 0), (2 * 0.2 + 0.5 * 0.6) / 2.5);
  EXPECT_EQ(alg::Shade::M_F(shared.data(), 1), 0.5);  // the other slot untouched
  EXPECT_EQ(shared[0], 1.0);
  const std::vector<double> before = shared;
  std::fill(totals, totals + alg::Shade::kSums, 0.0);
  alg::end_generation(p, 2, shared.data(), totals);
  EXPECT_EQ(shared, before);
  totals[0] = 1, totals[1] = 1, totals[2] = 0.3, totals[3] = 0.09, totals[4] = 0.8;
  alg::end_generation(p, 3, shared.data(), totals);  // slot 1, then k wraps to 0 (H = 2)
  EXPECT_DOUBLE_EQ(alg::Shade::M_F(shared.data(), 1), 0.3);
  EXPECT_DOUBLE_EQ(alg::Shade::M_CR(shared.data(), 1), 0.8);
  EXPECT_EQ(shared[0], 0.0);
}

// The archive's capacity is round(rate NP), none below 2; r2 comes from the population and the archive
// together, uniformly over every index but i and r1 (chi-square over 40 + 30 - 2 = 68 cells, 67 degrees of
// freedom: 99.9% quantile 111.1), r1 from the population alone.
TEST(Shade, ArchiveCapacityAndUniformDonor) {
  ops::Params p = shade_params(40, 6);
  EXPECT_EQ(alg::archive_capacity(p), 40);
  p.shade.archive = 2.6;
  EXPECT_EQ(alg::archive_capacity(p), 104);
  p.shade.archive = 0.03;  // round(1.2) = 1: none
  EXPECT_EQ(alg::archive_capacity(p), 0);
  p.shade.archive = 0;
  EXPECT_EQ(alg::archive_capacity(p), 0);
  ops::Params de = p;
  de.algorithm = Algorithm::de;
  EXPECT_EQ(alg::archive_capacity(de), 0);

  const std::uint32_t archive = 30, i = 7;
  std::vector<long> r2(40 + archive);
  for (std::uint32_t g = 1; g <= 70000; ++g) {
    const ops::Donors d = ops::draw_donors(p, g, i, archive);
    ASSERT_LT(d.r[0], 40u);
    ASSERT_NE(d.r[0], i);
    ASSERT_LT(d.r[1], 40u + archive);
    ASSERT_NE(d.r[1], i);
    ASSERT_NE(d.r[1], d.r[0]);
    ++r2[d.r[1]];
  }
  EXPECT_EQ(r2[i], 0);
  std::vector<long> cells;
  for (std::uint32_t k = 0; k < r2.size(); ++k)
    if (k != i) cells.push_back(r2[k]);
  // r1's cell is not excluded in every draw, so the cells other than i are uniform up to r1's exclusion,
  // which is itself uniform: still one count per cell on average
  EXPECT_LT(chi2_uniform(cells), 111.1);
  // without an archive the donors are the same as before archives existed
  const ops::Donors a = ops::draw_donors(p, 5, 3), b = ops::draw_donors(p, 5, 3, 0);
  EXPECT_EQ(a.r[0], b.r[0]);
  EXPECT_EQ(a.r[1], b.r[1]);
}

// The insertion rule: parents are appended while there is room, then each replaces the member drawn from
// its own counters (uniformly: chi-square over 5 cells, 99.9% quantile 18.5); the same parent in the same
// generation always lands in the same place.
TEST(Shade, ArchiveInsertion) {
  driver::Population<double> P;
  P.D = 2;
  P.np = 4;
  P.buffer[0] = {0, 0, 1, 1, 2, 2, 3, 3};
  P.buffer[1].assign(8, -1);
  P.side.assign(4, 0);
  P.arc_cap = 5;
  P.archive.assign(10, -9);
  const ops::Params p = shade_params(4, 2);
  P.archive_parent(p, 1, 2);
  P.archive_parent(p, 1, 0);
  EXPECT_EQ(P.arc_count, 2);
  EXPECT_EQ(P.archive[0], 2);
  EXPECT_EQ(P.archive[2], 0);
  EXPECT_EQ(P.archive[4], -9);
  for (int k = 0; k < 3; ++k) P.archive_parent(p, 2, 3);
  EXPECT_EQ(P.arc_count, 5);
  std::vector<long> where(5);
  for (std::uint32_t g = 3; g < 50003; ++g) {
    std::fill(P.archive.begin(), P.archive.end(), -9);
    P.archive_parent(p, g, 1);
    EXPECT_EQ(P.arc_count, 5);
    int at = -1;
    for (int k = 0; k < 5; ++k)
      if (P.archive[2 * k] == 1) at = k;
    ASSERT_GE(at, 0);
    ++where[at];
    if (g == 3) {
      std::fill(P.archive.begin(), P.archive.end(), -9);
      P.archive_parent(p, 3, 1);
      EXPECT_EQ(P.archive[2 * at], 1);
    }
  }
  EXPECT_LT(chi2_uniform(where), 18.5);
}

// serial, threads (1 to 3 threads) and matrix run SHADE (its archive on) to the same bits in both
// precisions, as a trial of a batch too; the run differs from JADE's, and from SHADE's without its archive.
TEST(Shade, EnginesAgreeBitForBit) {
  const Problem prob = classic("rastrigin", 20, ShiftSpec{ShiftSpec::Kind::random, 5, {}});
  StopCriteria stop;
  stop.max_gens = 120;  // the archive fills (NP 40) and then replaces
  const DEConfig shade = shade_config(40);
  for (Precision prec : {Precision::f64, Precision::f32}) {
    RunOptions o;
    o.precision = prec;
    o.seed = 3;
    o.engine = Engine::serial;
    const Result ref = minimize(prob, shade, stop, o);
    for (Engine e : {Engine::threads, Engine::matrix})
      for (int threads : {1, 2, 3}) {
        o.engine = e;
        o.threads = threads;
        EXPECT_TRUE(same_bits(minimize(prob, shade, stop, o), ref)) << engine_name(e) << " " << threads;
      }
    o.engine = Engine::serial;
    o.threads = 0;
    DEConfig jade = shade;
    jade.algorithm = Algorithm::jade;
    EXPECT_FALSE(same_bits(minimize(prob, jade, stop, o), ref));
    DEConfig no_archive = shade;
    no_archive.shade.archive = 0;
    EXPECT_FALSE(same_bits(minimize(prob, no_archive, stop, o), ref));
    RunOptions batch = o;
    const TrialsResult all = minimize_trials(prob, shade, stop, batch, 3);
    o.trial = 2;
    EXPECT_TRUE(same_bits(all.trials[2], minimize(prob, shade, stop, o)));
  }
}

// JADE's optional archive (off by default): on, every CPU engine runs it to the same bits, and the run
// differs from JADE's without it; its r2 draws reach the archive (the archive holds parents by the end).
TEST(Shade, JadeOptionalArchive) {
  const Problem prob = classic("ackley", 12, ShiftSpec{ShiftSpec::Kind::random, 6, {}});
  DEConfig jade;
  jade.algorithm = Algorithm::jade;
  jade.mutation = Mutation::current_to_pbest1;
  jade.np = 30;
  jade.p = 0.05;
  DEConfig archived = jade;
  archived.jade.archive = 1;
  RunOptions o;
  o.engine = Engine::serial;
  const Result ref = minimize(prob, archived, gens(100), o);
  EXPECT_EQ(ref.archive_size, 30);
  EXPECT_EQ(ref.memory_F.size(), 1u);
  EXPECT_FALSE(same_bits(minimize(prob, jade, gens(100), o), ref));
  EXPECT_EQ(minimize(prob, jade, gens(100), o).archive_size, 0);
  for (Engine e : {Engine::threads, Engine::matrix}) {
    o.engine = e;
    o.threads = 2;
    EXPECT_TRUE(same_bits(minimize(prob, archived, gens(100), o), ref)) << engine_name(e);
  }
}

// With its adaptation off (one slot, no spread, p fixed, no archive) and means of 0.5, whose weighted
// means are exactly 0.5 again, SHADE is DE/current-to-pbest/1 with F = CR = 0.5 bit for bit (p NP = 5
// individuals both ways: DE's ceil(0.1 x 50), SHADE's round).
TEST(Shade, AdaptationOffIsCurrentToPbest) {
  const Problem prob = classic("rosenbrock", 10, ShiftSpec{ShiftSpec::Kind::random, 2, {}});
  DEConfig shade = shade_config(50);
  shade.shade.H = 1;
  shade.shade.sigma_F = shade.shade.sigma_CR = 0;
  shade.shade.p_min = shade.shade.p_max = 0.1;
  shade.shade.archive = 0;
  DEConfig de = shade;
  de.algorithm = Algorithm::de;
  de.F = {0.5, 0.5};
  de.CR = {0.5, 0.5};
  de.p = 0.1;
  RunOptions o;
  o.engine = Engine::serial;
  o.keep_population = true;
  const Result a = minimize(prob, shade, gens(200), o), b = minimize(prob, de, gens(200), o);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_EQ(a.population, b.population);
  // any one of the switches back on changes the run
  DEConfig on = shade;
  on.shade.sigma_F = 0.1;
  EXPECT_FALSE(same_bits(minimize(prob, on, gens(200), o), b));
  on = shade;
  on.shade.archive = 1;
  EXPECT_FALSE(same_bits(minimize(prob, on, gens(200), o), b));
  on = shade;
  on.shade.p_min = 0.04;
  EXPECT_FALSE(same_bits(minimize(prob, on, gens(200), o), b));
}

// The adaptation pays (NP 100) against DE/current-to-pbest/1/bin with F 0.5, CR 0.9 (cpu_test_util.hpp).
TEST(Shade, AdaptationBeatsFixedParameters) {
  const DEConfig shade = shade_config(100);
  DEConfig de = shade;
  de.algorithm = Algorithm::de;
  expect_adaptation_pays(shade, de);
}

TEST(Shade, BadConfigurations) {
  const Problem prob = classic("sphere", 5);
  const StopCriteria stop = gens(5);
  const DEConfig shade = shade_config(20);
  RunOptions o;
  o.engine = Engine::serial;
  EXPECT_NO_THROW(minimize(prob, shade, stop, o));
  const auto refused = [&](const DEConfig& c, const std::string& what) {
    try {
      minimize(prob, c, stop, o);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  DEConfig c = shade;
  c.mutation = Mutation::rand1;
  refused(c, "strategy rand/1/bin: SHADE mutates with current-to-pbest/1 (algorithm shade); use current-to-pbest/1/bin");
  c = shade;
  c.F = {0.3, 0.9};
  refused(c, "SHADE draws every trial's F and CR itself");
  for (int H : {0, kShadeMaxH + 1}) {
    c = shade;
    c.shade.H = H;
    refused(c, "algorithm shade: the memory size H " + std::to_string(H) + " must be in [1, 100]");
  }
  c = shade;
  c.shade.M_F = 0;
  refused(c, "the initial M_F must be in (0, 1]");
  c = shade;
  c.shade.sigma_CR = -1;
  refused(c, "sigma_F and sigma_CR must be finite and >= 0");
  c = shade;
  c.shade.p_min = 0.3;  // above p_max 0.2
  refused(c, "p_min <= p_max");
  c = shade;
  c.shade.archive = NAN;
  refused(c, "the archive rate must be in [0, 100]");
  c = shade;
  c.algorithm = Algorithm::jade;
  c.jade.archive = -1;
  refused(c, "algorithm jade: the archive rate");
  // which algorithms shrink the population (the gpu engine's kernels of kind 2: registry.hpp)
  c = shade;
  c.algorithm = Algorithm::jade;
  c.jade.archive = 1;
  EXPECT_FALSE(alg::reduces(c));
  c.algorithm = Algorithm::lshade;
  EXPECT_TRUE(alg::reduces(c));
  c.algorithm = Algorithm::jso;
  EXPECT_TRUE(alg::reduces(c));
}
