// JADE (--algorithm jade), the algorithm with a population-level update, on every CUDA engine: the serial
// engine's run to the evaluation's rounding. The same draws need the same means after every generation,
// so each engine must sum the selections' contributions in the host driver's order (core/algorithms/
// tree_sum.hpp): gpu-kernels and gpu-fused in a kernel after the selection, the gpu engine in every CTA
// after the generation's barrier, from the cluster's shared memory (resident path) or global memory
// (grid and wide paths).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

DEConfig jade_config(int np, Crossover x) {
  DEConfig jade;
  jade.algorithm = Algorithm::jade;
  jade.mutation = Mutation::current_to_pbest1;
  jade.crossover = x;
  jade.np = np;
  jade.p = 0.1;
  return jade;
}

}  // namespace

// A plain and a CEC function, binomial and exponential crossover, NP 37 (the warp's sum over blocks of
// two); every engine and every path of the gpu engine (the resident path on one cluster of 4 CTAs: the
// sums gathered across the cluster).
TEST(JadeGpu, RunsMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : {"rastrigin", "cec2017:f5"}) {
    for (Crossover x : {Crossover::bin, Crossover::exp}) {
      ProblemSpec spec;
      spec.name = name;
      spec.dim = 20;
      const Problem p = make_problem(spec);
      const DEConfig jade = jade_config(37, x);
      StopCriteria stop;
      stop.max_gens = 150;
      RunOptions o;
      o.engine = Engine::serial;
      o.precision = Precision::f64;
      const Result ref = minimize(p, jade, stop, o);
      DEConfig de = jade;
      de.algorithm = Algorithm::de;
      EXPECT_NE(minimize(p, de, stop, o).best_f, ref.best_f) << name;
      struct Run {
        Engine e;
        const char* plan;
      };
      const bool terms = std::string(name) == "rastrigin";  // the wide path takes functions of terms
      for (const Run& run : {Run{Engine::gpu_eval, ""}, Run{Engine::gpu_kernels, ""}, Run{Engine::gpu_fused, ""},
                             Run{Engine::gpu, ""}, Run{Engine::gpu, "resident,4,0,8"}, Run{Engine::gpu, "grid,64"},
                             Run{Engine::gpu, terms ? "wide,2,64" : "grid,128"}}) {
        const PlanOverride plan(run.plan);
        o.engine = run.e;
        const std::string what = std::string(name) + " " + std::string(crossover_name(x)) + " " +
                                 std::string(engine_name(run.e)) + " " + run.plan;
        expect_same_run(ref, minimize(p, jade, stop, o), 1e-9, what);
      }
    }
  }
}

// A population above 1024 (the warp's blocks hold 64 contributions) and one of 5 (most lanes empty).
TEST(JadeGpu, LargeAndSmallPopulations) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec spec;
  spec.name = "ackley";
  spec.dim = 12;
  const Problem p = make_problem(spec);
  for (int np : {1500, 5}) {
    const DEConfig jade = jade_config(np, Crossover::bin);
    StopCriteria stop;
    stop.max_gens = np > 100 ? 25 : 200;
    RunOptions o;
    o.engine = Engine::serial;
    o.precision = Precision::f64;
    const Result ref = minimize(p, jade, stop, o);
    for (Engine e : {Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu}) {
      o.engine = e;
      expect_same_run(ref, minimize(p, jade, stop, o), 1e-9, "np " + std::to_string(np) + " " + std::string(engine_name(e)));
    }
  }
}

// JADE's trials side by side on the gpu engine (a cluster per trial, each with its own means): each is the
// same trial run alone.
TEST(JadeGpu, TrialsRunTogether) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec spec;
  spec.name = "cec2017:f5";
  spec.dim = 30;
  const Problem p = make_problem(spec);
  const DEConfig jade = jade_config(40, Crossover::bin);
  StopCriteria stop;
  stop.max_gens = 100;
  RunOptions o;
  o.engine = Engine::gpu;
  o.precision = Precision::f64;
  const TrialsResult all = minimize_trials(p, jade, stop, o, 5);
  ASSERT_EQ(all.trials.size(), 5u);
  for (int t : {0, 3}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    const Result r = minimize(p, jade, stop, one);
    expect_same_run(r, all.trials[t], 1e-9, "trial " + std::to_string(t) + " in the batch");
    one.engine = Engine::serial;
    expect_same_run(minimize(p, jade, stop, one), r, 1e-9, "trial " + std::to_string(t));
  }
}
