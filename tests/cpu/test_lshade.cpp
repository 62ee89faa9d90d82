// L-SHADE and jSO (--algorithm lshade, jso) on the host driver's engines: the population really shrinks on
// the authors' schedule (an L-SHADE whose reduction did nothing went unnoticed for years elsewhere: mealpy
// #284), the worst are the ones removed, the terminal value, jSO's stage rules, fixed slot, weighted
// mutation, p-best other than the target and averaged memories, and agreement bit for bit across the CPU
// engines and thread counts. docs/ALGORITHMS.md states each rule and its source.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/driver.hpp"
#include "cpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;
using alg::Reduction;

namespace {

DEConfig family(Algorithm a) {
  DEConfig de;
  de.algorithm = a;
  de.mutation = Mutation::current_to_pbest1;
  de.repair = Repair::midpoint;
  return de;
}

ops::Params params(Algorithm a, int np, long long max_evals) {
  ops::Params p{};
  p.seed = 9;
  p.np = np;
  p.mutation = Mutation::current_to_pbest1;
  p.algorithm = a;
  p.lshade = LShade{};
  p.jso = Jso{};
  p.max_evals = max_evals;
  return p;
}

double round_half_away(double x) { return x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5); }

// The sizes of every generation as the authors' code computes them (lshade.cc: plan_pop_size).
std::vector<int> schedule(int np0, int np_min, long long max_evals) {
  std::vector<int> sizes;
  long long nfes = np0;
  int np = np0;
  while (nfes + np <= max_evals) {  // degpu's stop: no generation past the budget
    sizes.push_back(np);
    nfes += np;
    const double plan = round_half_away((static_cast<double>(np_min) - np0) / static_cast<double>(max_evals) * nfes + np0);
    if (np > plan) np = std::max(static_cast<int>(plan), np_min);
  }
  return sizes;
}

}  // namespace

// Every generation has the schedule's size (seen through the callback, a row per individual), the
// evaluations are their sum, and the population ends near 4 (from round(18 D) = 180 for L-SHADE, round(25
// ln 10 sqrt 10) = 182 for jSO).
TEST(ShadeFamily, PopulationShrinksOnSchedule) {
  const Problem prob = classic("rastrigin", 10, ShiftSpec{ShiftSpec::Kind::random, 4, {}});
  StopCriteria stop;
  stop.max_evals = 30000;
  for (Algorithm a : {Algorithm::lshade, Algorithm::jso}) {
    std::vector<int> seen;
    RunOptions o;
    o.engine = Engine::serial;
    o.observe = [&](const Generation& g) {
      seen.push_back(static_cast<int>(g.values().size()));
      EXPECT_EQ(g.population().size(), g.values().size() * 10);
      return false;
    };
    const Result r = minimize(prob, family(a), stop, o);
    const int np0 = a == Algorithm::lshade ? 180 : 182;
    const std::vector<int> sizes = schedule(np0, 4, 30000);
    // the callback sees each generation's population after its reduction: generation g's size is the
    // schedule's size of generation g + 1
    ASSERT_EQ(seen.size() + 0, sizes.size()) << algorithm_name(a);
    for (std::size_t k = 0; k + 1 < sizes.size(); ++k) ASSERT_EQ(seen[k], sizes[k + 1]) << algorithm_name(a) << " " << k;
    long long evals = np0;
    for (int n : sizes) evals += n;
    EXPECT_EQ(r.evals, evals);
    EXPECT_LE(r.evals, 30000);
    EXPECT_LE(seen.back(), 6);
    EXPECT_GT(seen.front(), 170);
    // the final state the result reports
    EXPECT_EQ(r.final_np, seen.back());
    const double rate = a == Algorithm::lshade ? 2.6 : 1.0;
    EXPECT_GE(r.archive_size, 2);
    EXPECT_LE(r.archive_size, std::floor(r.final_np * rate));
    ASSERT_EQ(r.memory_F.size(), a == Algorithm::lshade ? 6u : 5u);
    ASSERT_EQ(r.memory_CR.size(), r.memory_F.size());
    for (double F : r.memory_F) EXPECT_TRUE(F > 0 && F <= 1) << F;
    if (a == Algorithm::jso) EXPECT_EQ(r.memory_CR.back(), 0.9);
  }
}

// The gpu engine counts generations, not evaluations: alg::SizeReplay replays the schedule on the host. Its
// generations, evaluations and final sizes are the serial engine's run's (a budget that ends mid-schedule,
// one the generations cap first, jSO's and L-SHADE's plans), its history's evaluations too.
TEST(ShadeFamily, SizeReplayIsTheRunsSchedule) {
  const Problem prob = classic("sphere", 6);
  for (Algorithm a : {Algorithm::lshade, Algorithm::jso})
    for (long long evals : {3000LL, 7777LL})
      for (long long gens : {1000000LL, 17LL}) {
        StopCriteria stop;
        stop.max_evals = evals;
        if (gens < 1000) stop.max_gens = gens;
        RunOptions o;
        o.engine = Engine::serial;
        o.history_every = 3;
        const Result r = minimize(prob, family(a), stop, o);
        const alg::SizeReplay z(params(a, static_cast<int>(r.history.front().evals), evals), gens, evals);  // (generation 0's: NP)
        const std::string what = std::string(algorithm_name(a)) + " " + std::to_string(evals) + " " + std::to_string(gens);
        EXPECT_EQ(z.generations(), r.generations) << what;
        EXPECT_EQ(z.evals(z.generations()), r.evals) << what;
        EXPECT_EQ(z.np(z.generations()), r.final_np) << what;
        for (const HistoryPoint& h : r.history) EXPECT_EQ(z.evals(h.generation), h.evals) << what << " generation " << h.generation;
        if (gens == 17) {
          EXPECT_EQ(r.generations, 17) << what;
        } else {
          EXPECT_LE(r.evals, evals) << what;
          EXPECT_GT(r.evals + r.final_np, evals) << what;  // the next generation would pass the budget
          EXPECT_LE(r.final_np, 6) << what;
        }
      }
  // no budget on evaluations: max_gens alone bounds the replay
  const alg::SizeReplay free(params(Algorithm::lshade, 50, 100000), 5, -1);
  EXPECT_EQ(free.generations(), 5);
  EXPECT_EQ(free.evals(5), 50 * 6);
}

// The reduction removes the worst, the first of equals first, keeps the others in order with their rows;
// the archive, cut to a smaller capacity, keeps its first members.
TEST(ShadeFamily, ReductionRemovesTheWorst) {
  driver::Population<double> P;
  P.D = 1;
  P.np = 6;
  P.buffer[0] = {0, -1, 2, -3, 4, 5};
  P.buffer[1] = {-0.0, 1, -2, 3, -4, -5};
  P.side = {0, 1, 0, 1, 0, 0};  // individual i's row is i in both cases
  P.f = {3, 9, 1, 9, 5, 2};
  P.ftrial.assign(6, 0);
  P.arc_cap = 5;
  P.arc_count = 5;
  P.archive.assign(5, 7);
  P.reduce(3);
  P.resize_archive(2);
  ASSERT_EQ(P.np, 3);
  EXPECT_EQ(P.f, (std::vector<double>{3, 1, 2}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(P.row(i)[0], (std::vector<double>{0, 2, 5})[i]) << i;
  EXPECT_EQ(P.arc_cap, 2);
  EXPECT_EQ(P.arc_count, 2);
  // equals: the first go first
  P.f = {7, 7, 7};
  P.reduce(1);
  P.resize_archive(0);
  EXPECT_EQ(P.row(0)[0], 5);
  EXPECT_EQ(P.arc_count, 0);
}

// The sizes in L-SHADE's population state: at the start NP, p NP and 2.6 NP; after a generation the
// evaluations counted, the plan applied, the archive floor(NP 2.6) and the p-best count at least 2.
TEST(ShadeFamily, ScheduleWords) {
  const ops::Params p = params(Algorithm::lshade, 100, 1000);
  std::vector<double> s = alg::initial_shared(p);
  ASSERT_EQ(s.size(), static_cast<std::size_t>(Reduction::kWords));
  EXPECT_EQ(s[Reduction::kNfes], 100);
  EXPECT_EQ(s[Reduction::kNp], 100);
  EXPECT_EQ(s[Reduction::kPbest], 11);
  EXPECT_EQ(s[Reduction::kArc], 260);
  alg::Sizes z = alg::sizes(p, s.data());
  EXPECT_EQ(z.np, 100);
  double totals[alg::kMaxSums] = {};
  alg::end_generation(p, 1, s.data(), totals);  // no success: the memories stay, the plan goes on
  EXPECT_EQ(s[Reduction::kNfes], 200);
  // plan = round((4 - 100) / 1000 x 200 + 100) = round(80.8) = 81
  EXPECT_EQ(s[Reduction::kNp], 81);
  EXPECT_EQ(s[Reduction::kArc], std::floor(81 * 2.6));
  EXPECT_EQ(s[Reduction::kPbest], 9);  // round(8.91)
  z = alg::sizes(p, s.data());
  EXPECT_EQ(z.np, 81);
  EXPECT_EQ(z.pbest_count, 9);
  EXPECT_EQ(z.archive, 210);
  for (int g = 2; g < 40; ++g) alg::end_generation(p, g, s.data(), totals);
  EXPECT_EQ(s[Reduction::kNp], 4);  // never below the final size
  EXPECT_EQ(s[Reduction::kPbest], 2);
  // no reduction: the same sizes, from p
  const ops::Params d = params(Algorithm::de, 30, 1000);
  z = alg::sizes(d, nullptr);
  EXPECT_EQ(z.np, 30);
  EXPECT_FALSE(alg::reduces(d));
  EXPECT_TRUE(alg::reduces(p));
}

// L-SHADE's update: weighted Lehmer means of F and CR; the terminal value -1 where every successful CR was
// 0, and a trial drawing that slot takes CR = 0; the code overwrites the slot at its next update.
TEST(ShadeFamily, LShadeTerminalValue) {
  ops::Params p = params(Algorithm::lshade, 20, 100000);
  p.lshade.H = 2;
  std::vector<double> s = alg::initial_shared(p);
  const std::size_t n = 3;
  std::vector<double> sums(6 * n);
  const auto put = [&](std::size_t i, double F, double CR, double fp, double ft) {
    alg::contribute(p, alg::Control{F, CR}, fp, ft, ft <= fp, alg::Sums{sums.data() + i, n});
  };
  put(0, 0.4, 0.0, 3, 1);
  put(1, 0.6, 0.0, 2, 1.5);
  put(2, 0.9, 0.8, 1, 2);  // failure
  double totals[alg::kMaxSums];
  alg::sum_contributions(p, sums.data(), n, totals);
  alg::end_generation(p, 1, s.data(), totals);
  EXPECT_EQ(alg::Shade::M_CR(s.data(), 0), -1.0);
  EXPECT_DOUBLE_EQ(alg::Shade::M_F(s.data(), 0), (2 * 0.16 + 0.5 * 0.36) / (2 * 0.4 + 0.5 * 0.6));
  int drawn = 0;
  for (std::uint32_t i = 0; i < 200; ++i)
    if (alg::Shade::slot(p, 5, i, 2) == 0) {
      EXPECT_EQ(alg::draw(p, 5, i, alg::State{}, s.data()).CR, 0.0);
      ++drawn;
    }
  EXPECT_GT(drawn, 50);
  // slot 1 next, then slot 0 again: a success with CR 0.5 replaces the terminal value
  std::fill(sums.begin(), sums.end(), 0.0);
  put(0, 0.5, 0.5, 2, 1);
  alg::sum_contributions(p, sums.data(), n, totals);
  alg::end_generation(p, 2, s.data(), totals);
  alg::end_generation(p, 3, s.data(), totals);
  EXPECT_DOUBLE_EQ(alg::Shade::M_CR(s.data(), 0), 0.5);
}

// jSO's draws by the budget spent: CR >= 0.7 below a quarter, >= 0.6 below a half, F <= 0.7 below 0.6;
// slot H - 1 draws around 0.9 whatever it holds; F_w by stage; the p-best other than the target below half.
TEST(ShadeFamily, JsoStageRules) {
  const long long max = 100000;
  const ops::Params p = params(Algorithm::jso, 50, max);
  std::vector<double> s = alg::initial_shared(p);
  EXPECT_EQ(alg::Shade::M_F(s.data(), 0), 0.3);
  EXPECT_EQ(alg::Shade::M_CR(s.data(), 0), 0.8);
  EXPECT_EQ(s[Reduction::kPbest], 13);  // round(50 x 0.25)
  for (int r = 0; r < 5; ++r) alg::Shade::M_CR(s.data(), r) = alg::Shade::M_F(s.data(), r) = 0.1;  // slot 4 ignores its own
  struct Stage {
    double spent, cr_floor, f_cap, fw;
    bool excludes;
  };
  for (const Stage st : {Stage{0.1, 0.7, 0.7, 0.7, true}, Stage{0.3, 0.6, 0.7, 0.8, true}, Stage{0.55, 0, 0.7, 1.2, false},
                         Stage{0.9, 0, 1, 1.2, false}}) {
    s[Reduction::kNfes] = st.spent * max;
    double last_cr = 0;
    int last = 0, f_above = 0;
    for (std::uint32_t k = 0; k < 20000; ++k) {
      const std::uint32_t g = 1 + k / 50, i = k % 50;
      const alg::Control c = alg::draw(p, g, i, alg::State{}, s.data());
      ASSERT_GE(c.CR, st.cr_floor) << st.spent;
      ASSERT_LE(c.F, st.f_cap) << st.spent;
      f_above += c.F > 0.7;
      if (alg::Shade::slot(p, g, i, 5) == 4) last_cr += c.CR, ++last;
    }
    if (st.spent > 0.6) EXPECT_GT(f_above, 1000);
    if (st.spent > 0.5) EXPECT_NEAR(last_cr / last, 0.9 - 0.1 * 0.083, 0.01);  // N(0.9, 0.1) cut at 1
    EXPECT_DOUBLE_EQ(alg::pbest_factor(p, s.data(), 0.5), 0.5 * st.fw) << st.spent;
    EXPECT_EQ(alg::pbest_excludes_self(p, s.data()), st.excludes) << st.spent;
  }
  EXPECT_EQ(alg::pbest_factor(params(Algorithm::lshade, 50, max), s.data(), 0.5), 0.5);
}

// jSO's update averages the new means with the slot's old ones; after a reduction p = 0.25 (1 - nfes / 2 max).
TEST(ShadeFamily, JsoAveragedMemoryAndFallingP) {
  const ops::Params p = params(Algorithm::jso, 100, 10000);
  std::vector<double> s = alg::initial_shared(p);
  double totals[alg::kMaxSums] = {1, 2, 2 * 0.5, 2 * 0.25, 2 * 0.4, 2 * 0.16};  // one success: F 0.5, CR 0.4
  alg::end_generation(p, 1, s.data(), totals);
  EXPECT_DOUBLE_EQ(alg::Shade::M_F(s.data(), 0), (0.5 + 0.3) / 2);
  EXPECT_DOUBLE_EQ(alg::Shade::M_CR(s.data(), 0), (0.4 + 0.8) / 2);
  EXPECT_EQ(s[0], 1);
  // nfes 200: plan round(-96 / 10000 x 200 + 100) = 98; p = 0.25 (1 - 0.01) = 0.2475, round(98 x 0.2475) = 24
  EXPECT_EQ(s[Reduction::kNp], 98);
  EXPECT_EQ(s[Reduction::kPbest], 24);
  EXPECT_EQ(s[Reduction::kArc], 98);
}

// The p-best rank other than the target's: never that rank, uniform over the others (chi-square, 11
// degrees of freedom: 99.9% quantile 31.3).
TEST(ShadeFamily, PbestOtherThanTheTarget) {
  ops::Params p = params(Algorithm::jso, 100, 1000);
  p.pbest_count = 12;
  std::vector<long> count(12);
  for (std::uint32_t g = 1; g <= 60000; ++g) {
    const std::uint32_t r = ops::rank_other_than(p, g, 3, 5);
    ASSERT_LT(r, 12u);
    ASSERT_NE(r, 5u);
    ++count[r];
  }
  std::vector<long> others;
  for (int k = 0; k < 12; ++k)
    if (k != 5) others.push_back(count[k]);
  long n = 0;
  for (long c : others) n += c;
  double x = 0;
  for (long c : others) x += (c - n / 11.0) * (c - n / 11.0) / (n / 11.0);
  EXPECT_LT(x, 31.3);
  p.pbest_count = 1;
  EXPECT_EQ(ops::rank_other_than(p, 1, 3, 0), 0u);
}

// serial, threads (1 to 3) and matrix run L-SHADE and jSO to the same bits in both precisions; each differs
// from SHADE's run.
TEST(ShadeFamily, EnginesAgreeBitForBit) {
  const Problem prob = classic("rastrigin", 8, ShiftSpec{ShiftSpec::Kind::random, 5, {}});
  StopCriteria stop;
  stop.max_evals = 12000;
  for (Algorithm a : {Algorithm::lshade, Algorithm::jso})
    for (Precision prec : {Precision::f64, Precision::f32}) {
      RunOptions o;
      o.precision = prec;
      o.seed = 11;
      o.engine = Engine::serial;
      o.keep_population = true;
      const DEConfig de = family(a);
      const Result ref = minimize(prob, de, stop, o);
      EXPECT_LE(ref.population_f.size(), 6u) << algorithm_name(a);
      for (Engine e : {Engine::threads, Engine::matrix})
        for (int threads : {1, 2, 3}) {
          o.engine = e;
          o.threads = threads;
          const Result r = minimize(prob, de, stop, o);
          EXPECT_TRUE(same_bits(r, ref)) << algorithm_name(a) << " " << engine_name(e) << " " << threads;
          EXPECT_EQ(r.population, ref.population);
        }
      o.engine = Engine::serial;
      o.threads = 0;
      DEConfig shade = de;
      shade.algorithm = Algorithm::shade;
      shade.np = 40;
      EXPECT_FALSE(same_bits(minimize(prob, shade, stop, o), ref));
    }
}

TEST(ShadeFamily, BadConfigurations) {
  const Problem prob = classic("sphere", 5);
  RunOptions o;
  o.engine = Engine::serial;
  const auto refused = [&](const DEConfig& c, const StopCriteria& stop, const std::string& what) {
    try {
      minimize(prob, c, stop, o);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  StopCriteria evals;
  evals.max_evals = 2000;
  for (Algorithm a : {Algorithm::lshade, Algorithm::jso}) {
    const std::string name(algorithm_name(a));
    const DEConfig de = family(a);
    EXPECT_NO_THROW(minimize(prob, de, evals, o));
    refused(de, gens(10), "max_gens 10: algorithm " + name + " plans its population's reduction over the evaluations");
    DEConfig c = de;
    c.np = 3;
    refused(c, evals, "np 3: algorithm " + name + " starts from at least its final size 4");
    c = de;
    c.mutation = Mutation::rand1;
    refused(c, evals, "mutates with current-to-pbest/1 (algorithm " + name + ")");
    // auto takes the engine it takes for DE (the gpu engine where there is a device: every path runs it)
    EXPECT_EQ(resolve_engine(Engine::auto_, prob, de), resolve_engine(Engine::auto_, prob, DEConfig{})) << name;
  }
  DEConfig c = family(Algorithm::lshade);
  c.lshade.H = 0;
  refused(c, evals, "algorithm lshade: the memory size H 0 must be in [1, 100]");
  c = family(Algorithm::lshade);
  c.lshade.np_min = 3;
  refused(c, evals, "the final population size must be at least 4");
  c = family(Algorithm::jso);
  c.jso.H = 1;
  refused(c, evals, "algorithm jso: the memory size H 1 must be in [2, 100] (its last slot is fixed)");
  c = family(Algorithm::jso);
  c.jso.p_max = 0;
  refused(c, evals, "algorithm jso: p_max must be in (0, 1]");
  c = family(Algorithm::lshade);
  c.lshade.M_CR = 1.5;
  refused(c, evals, "algorithm lshade: the initial M_F must be in (0, 1] and M_CR in [0, 1]");
  c = family(Algorithm::lshade);
  c.lshade.p = 0;
  refused(c, evals, "algorithm lshade: p must be in (0, 1]");
  c = family(Algorithm::jso);
  c.jso.archive = -1;
  refused(c, evals, "algorithm jso: the archive rate must be in [0, 100]");
  // the default sizes: round(18 D), round(25 ln(D) sqrt(D))
  EXPECT_EQ(resolve(classic("sphere", 10), family(Algorithm::lshade), evals).de.np, 180);
  EXPECT_EQ(resolve(classic("sphere", 30), family(Algorithm::jso), evals).de.np, 466);
  EXPECT_EQ(resolve(classic("sphere", 1), family(Algorithm::jso), evals).de.np, 4);
}
