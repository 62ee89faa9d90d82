// The convergence test (StopCriteria::convergence) and the kept population on every CUDA engine and every
// path of the gpu engine (resident, grid, wide; a CEC function's resident generation; trials side by side):
// the serial engine's run, stopped at the same generation. The observer on the engines that loop on the host,
// and the gpu engine's refusal of it, by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

// A built-in problem with f* = bias (0: the function's own), so that its values converge relative to their mean.
Problem built_in(const char* name, int dim, double bias = 0) {
  ProblemSpec spec;
  spec.name = name;
  spec.dim = dim;
  if (bias != 0) spec.bias = bias;
  return make_problem(spec);
}

}  // namespace

TEST(ConvergenceGpu, HostLoopedEnginesStopWhereTheSerialEngineStops) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = built_in("sphere", 10, 100.0);
  for (const char* strategy : {"best/1/bin", "current-to-pbest/1/exp"}) {
    const Strategy st = parse_strategy(strategy);
    DEConfig de;
    de.mutation = st.mutation;
    de.crossover = st.crossover;
    de.np = 40;
    StopCriteria stop;
    stop.max_gens = 5000;
    stop.convergence = Convergence{1e-4, 0};
    RunOptions o;
    o.engine = Engine::serial;
    o.keep_population = true;
    const Result ref = minimize(p, de, stop, o);
    ASSERT_EQ(ref.stop_reason, StopReason::converged) << strategy;
    for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused}) {
      o.engine = e;
      const Result r = minimize(p, de, stop, o);
      const std::string what = std::string(strategy) + " on " + std::string(engine_name(e));
      expect_same_run(ref, r, 1e-12, what);
      ASSERT_EQ(r.population.size(), ref.population.size()) << what;
      ASSERT_EQ(r.population_f.size(), ref.population_f.size()) << what;
      for (std::size_t k = 0; k < r.population_f.size(); ++k)
        EXPECT_NEAR(r.population_f[k], ref.population_f[k], 1e-12 * ref.population_f[k]) << what << " individual " << k;
    }
  }
}

TEST(ConvergenceGpu, TheObserverSeesTheDevicesPopulationAndStopsIt) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = built_in("rastrigin", 8);
  DEConfig de;
  de.np = 32;
  StopCriteria stop;
  stop.max_gens = 100;
  for (Engine e : {Engine::gpu_kernels, Engine::gpu_fused}) {
    RunOptions o;
    o.engine = e;
    long long calls = 0;
    o.observe = [&](const Generation& g) {
      ++calls;
      const std::vector<double> f = g.values(), x = g.population();
      EXPECT_EQ(f.size(), 32u);
      EXPECT_EQ(x.size(), 32u * 8u);
      EXPECT_DOUBLE_EQ(*std::min_element(f.begin(), f.end()), g.best_f);
      return g.generation == 9;
    };
    const Result r = minimize(p, de, stop, o);
    EXPECT_EQ(r.stop_reason, StopReason::callback) << engine_name(e);
    EXPECT_EQ(r.generations, 9) << engine_name(e);
    EXPECT_EQ(calls, 9) << engine_name(e);
  }
  // the gpu engine runs its generations inside one kernel: an observer is refused, naming it
  RunOptions g;
  g.engine = Engine::gpu;
  g.observe = [](const Generation&) { return false; };
  try {
    minimize(p, de, stop, g);
    FAIL() << "the gpu engine took an observer";
  } catch (const ConfigError& x) {
    EXPECT_EQ(x.parameter(), "engine");
    EXPECT_NE(std::string(x.what()).find("callback"), std::string::npos) << x.what();
  }
}

// An interrupt (degpu/interrupt.hpp) on the CUDA engines that loop on the host: the run ends after the
// generation where it came, with what a run of that many generations gives.
TEST(ConvergenceGpu, AnInterruptStopsTheHostLoopedEnginesAtTheGenerationsEnd) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = built_in("rastrigin", 8);
  for (Algorithm a : {Algorithm::de, Algorithm::jso})
    for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused}) {
      DEConfig de;
      de.np = 32;
      de.algorithm = a;
      if (a == Algorithm::jso) de.mutation = Mutation::current_to_pbest1;
      StopCriteria stop;
      stop.max_evals = 32 * 300;
      RunOptions o;
      o.engine = e;
      o.observe = [](const Generation& g) {
        if (g.generation == 6) request_interrupt(2);
        return false;
      };
      const Result r = minimize(p, de, stop, o);
      clear_interrupt();
      EXPECT_EQ(r.stop_reason, StopReason::interrupted) << engine_name(e);
      EXPECT_EQ(r.generations, 6) << engine_name(e);
      RunOptions plain = o;
      plain.observe = {};
      stop.max_gens = 6;
      const Result ref = minimize(p, de, stop, plain);
      EXPECT_EQ(ref.best_f, r.best_f) << engine_name(e);
      EXPECT_EQ(ref.best_x, r.best_x) << engine_name(e);
      EXPECT_EQ(ref.evals, r.evals) << engine_name(e);
    }
}

// The gpu engine's test is made by every CTA from the population's values (the cluster's shared memory on
// the resident path, global memory on the grid and wide paths), in the host's order: the serial run's
// generation, and its last population kept.
TEST(ConvergenceGpu, EveryPathOfTheGpuEngineStopsWhereTheSerialEngineStops) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* problem;
    int dim, np;
    double bias, CR;
    const char* strategy;
  };
  // problems whose population converges (on rastrigin the individuals stay in different basins)
  for (const Case& c : {Case{"sphere", 10, 40, 100.0, 0.2, "best/1/bin"}, Case{"elliptic", 12, 70, 50.0, 0.5, "current-to-pbest/1/exp"},
                        Case{"cec2017:f3", 10, 37, 0.0, 0.9, "rand/1/bin"}}) {
    const Problem p = built_in(c.problem, c.dim, c.bias);
    const Strategy st = parse_strategy(c.strategy);
    DEConfig de;
    de.mutation = st.mutation;
    de.crossover = st.crossover;
    de.np = c.np;
    de.CR = Range{c.CR, c.CR};
    StopCriteria stop;
    stop.max_gens = 3000;
    stop.convergence = Convergence{1e-3, 1e-9};
    RunOptions o;
    o.engine = Engine::serial;
    o.keep_population = true;
    const Result ref = minimize(p, de, stop, o);
    ASSERT_EQ(ref.stop_reason, StopReason::converged) << c.problem;
    const bool terms = std::string(c.problem) != "cec2017:f3";  // the wide path takes functions of terms
    for (const char* plan : {"", "resident,4,0,8", "grid,64", terms ? "wide,2,64" : "grid,128"}) {
      const PlanOverride po(plan);
      o.engine = Engine::gpu;
      const Result r = minimize(p, de, stop, o);
      const std::string what = std::string(c.problem) + " gpu " + plan;
      expect_same_run(ref, r, 1e-9, what);
      ASSERT_EQ(r.population.size(), ref.population.size()) << what;
      ASSERT_EQ(r.population_f.size(), ref.population_f.size()) << what;
      for (std::size_t k = 0; k < r.population_f.size(); ++k)
        EXPECT_NEAR(r.population_f[k], ref.population_f[k], 1e-9 * (1 + std::fabs(ref.population_f[k]))) << what << " " << k;
      for (std::size_t k = 0; k < r.population.size(); ++k)
        EXPECT_NEAR(r.population[k], ref.population[k], 1e-9 * (1 + std::fabs(ref.population[k]))) << what << " x " << k;
    }
  }
}

// Trials side by side (a cluster each): each stops at its own generation, the one it stops at alone.
TEST(ConvergenceGpu, TrialsSideBySideEachStopAtTheirOwnGeneration) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = built_in("sphere", 8, 10.0);
  DEConfig de;
  de.np = 32;
  StopCriteria stop;
  stop.max_gens = 5000;
  stop.convergence = Convergence{1e-4, 0};
  RunOptions o;
  o.engine = Engine::gpu;
  o.keep_population = true;
  const TrialsResult all = minimize_trials(p, de, stop, o, 6);
  std::vector<long long> gens;
  for (int t = 0; t < 6; ++t) {
    RunOptions alone = o;
    alone.engine = Engine::serial;
    alone.trial = static_cast<std::uint32_t>(t);
    const Result ref = minimize(p, de, stop, alone);
    EXPECT_EQ(ref.stop_reason, StopReason::converged);
    expect_same_run(ref, all.trials[t], 1e-9, "trial " + std::to_string(t));
    EXPECT_EQ(all.trials[t].population_f.size(), 32u);
    gens.push_back(ref.generations);
  }
  EXPECT_NE(*std::min_element(gens.begin(), gens.end()), *std::max_element(gens.begin(), gens.end()));
}
