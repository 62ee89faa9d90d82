// The gpu engine's own features: concurrent trials, and each launch path (clusters with shared-memory
// rows, clusters with rows in global memory, the whole-grid path) against the serial engine. Skipped
// with a message where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "gpu_test_util.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

// Sets DEGPU_GPU_PLAN (the engine's launch configuration, for measurements) for one scope.
struct PlanOverride {
  explicit PlanOverride(const char* plan) { setenv("DEGPU_GPU_PLAN", plan, 1); }
  ~PlanOverride() { unsetenv("DEGPU_GPU_PLAN"); }
};

Problem shifted(const std::string& name, int dim) {
  ProblemSpec s;
  s.name = name;
  s.dim = dim;
  s.shift = ShiftSpec{ShiftSpec::Kind::random, 5, {}};
  return make_problem(s);
}

void expect_same_run(const Result& a, const Result& b, double tol, const std::string& what) {
  EXPECT_EQ(a.evals, b.evals) << what;
  EXPECT_EQ(a.stop_reason, b.stop_reason) << what;
  EXPECT_NEAR(b.best_f, a.best_f, tol * (1 + std::fabs(a.best_f))) << what;
  ASSERT_EQ(a.best_x.size(), b.best_x.size()) << what;
  for (std::size_t j = 0; j < a.best_x.size(); ++j)
    EXPECT_NEAR(b.best_x[j], a.best_x[j], tol * (1 + std::fabs(a.best_x[j]))) << what << " coordinate " << j;
}

}  // namespace

TEST(GpuEngine, TrialsRunTogetherAndEachIsTheSingleRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("rosenbrock", 24);
  DEConfig de;
  de.np = 48;
  de.CR = {0.3, 0.3};
  StopCriteria stop;
  stop.max_gens = 200;
  RunOptions o;
  o.engine = Engine::gpu;
  const TrialsResult all = minimize_trials(p, de, stop, o, 9);
  ASSERT_EQ(all.trials.size(), 9u);
  for (int t : {0, 4, 8}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    const Result alone = minimize(p, de, stop, one);
    // the same decisions; the evaluation's sums may be split over another number of lanes (a lone trial
    // takes a warp per individual, a batch 8 lanes), so the last bits may differ
    expect_same_run(alone, all.trials[t], 1e-12, "trial " + std::to_string(t) + " alone");
    one.engine = Engine::serial;
    expect_same_run(minimize(p, de, stop, one), all.trials[t], 1e-9, "trial " + std::to_string(t) + " vs serial");
  }
  EXPECT_NE(all.trials[0].best_f, all.trials[1].best_f);
  for (const Result& r : all.trials) EXPECT_GE(r.best_f, all.trials[all.best].best_f);
}

TEST(GpuEngine, TrialsStopEachAtItsOwnTarget) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("sphere", 10);
  DEConfig de;
  de.np = 30;
  StopCriteria stop;
  stop.max_evals = 200000;
  stop.target_error = 1e-6;
  RunOptions o;
  o.engine = Engine::gpu;
  o.history_every = 5;
  const TrialsResult all = minimize_trials(p, de, stop, o, 5);
  for (std::size_t t = 0; t < all.trials.size(); ++t) {
    const Result& r = all.trials[t];
    EXPECT_EQ(r.stop_reason, StopReason::target) << t;
    EXPECT_LE(*r.best_error, 1e-6) << t;
    EXPECT_EQ(r.history.back().generation, r.generations) << t;
    RunOptions s = o;
    s.engine = Engine::serial;
    s.trial = static_cast<std::uint32_t>(t);
    EXPECT_EQ(minimize(p, de, stop, s).generations, r.generations) << t;
  }
}

// Every path of the launch configuration gives the serial engine's run.
TEST(GpuEngine, EveryLaunchPathMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* plan;
    const char* function;
    int dim, np;
    Mutation mutation;
    Crossover crossover;
  };
  const Case cases[] = {
      {"16,64,8", "rosenbrock", 33, 40, Mutation::rand1, Crossover::bin},         // several CTAs, shared rows
      {"2,64,32", "rastrigin", 70, 50, Mutation::best2, Crossover::exp},         // several rounds per group
      {"4,512,8", "ackley", 3000, 24, Mutation::current_to_pbest1, Crossover::nec},  // rows in global memory
      {"grid,128", "griewank", 45, 300, Mutation::current_to_best1, Crossover::bin},  // the whole grid
      {"grid,64", "schwefel12", 20, 30, Mutation::rand_to_best1, Crossover::bin},     // prefix function
  };
  for (const Case& c : cases) {
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const Problem p = shifted(c.function, c.dim);
      DEConfig de;
      de.np = c.np;
      de.mutation = c.mutation;
      de.crossover = c.crossover;
      de.F = {0.3, 0.9};
      de.dither = Dither::individual;
      de.repair = Repair::reflect;
      StopCriteria stop;
      stop.max_gens = 40;
      RunOptions cpu, gpu;
      cpu.engine = Engine::serial;
      gpu.engine = Engine::gpu;
      cpu.precision = gpu.precision = prec;
      PlanOverride plan(c.plan);
      expect_same_run(minimize(p, de, stop, cpu), minimize(p, de, stop, gpu), prec == Precision::f64 ? 1e-9 : 1e-4,
                      std::string(c.plan) + " " + c.function + " " + std::string(precision_name(prec)));
    }
  }
}

TEST(GpuEngine, ExplainsEachEnginesLaunch) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("rastrigin", 100);
  DEConfig de;
  de.np = 250;
  RunOptions o;
  o.precision = Precision::f32;
  const auto one = explain_launch(p, de, StopCriteria{}, o, 1);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].engine, "gpu-eval");
  EXPECT_EQ(one[3].engine, "gpu");
  EXPECT_NE(one[3].text.find("grid"), std::string::npos) << one[3].text;
  const auto many = explain_launch(p, de, StopCriteria{}, o, 30);
  EXPECT_NE(many[3].text.find("30 clusters"), std::string::npos) << many[3].text;
  de.np = 3;  // below rand/1's minimum: the configuration is checked first
  EXPECT_THROW(explain_launch(p, de, StopCriteria{}, o, 1), ConfigError);
}
