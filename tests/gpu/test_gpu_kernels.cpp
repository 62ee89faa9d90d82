// The all-GPU engines (gpu-kernels, gpu-fused, gpu) against the serial engine: the same random numbers
// and operators, so the same run up to the rounding of the evaluation's sums. Skipped with a message
// where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>

#include "degpu/devices.hpp"
#include "gpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;


class AllGpu : public ::testing::TestWithParam<Engine> {};

TEST_P(AllGpu, EveryStrategyMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Repair repairs[] = {Repair::reinit, Repair::midpoint, Repair::clip, Repair::reflect};
  int k = 0;
  for (const std::string& name : list_strategies()) {
    const Strategy st = parse_strategy(name);
    for (Precision prec : {Precision::f64, Precision::f32}) {
      ProblemSpec s;
      s.name = k % 2 ? "rastrigin" : "sphere";
      s.dim = 37;
      s.shift = ShiftSpec{ShiftSpec::Kind::random, 2, {}};
      const Problem p = make_problem(s);
      DEConfig de;
      de.mutation = st.mutation;
      de.crossover = st.crossover;
      de.np = 40;
      de.repair = repairs[k % 4];
      de.F = {0.4, 0.9};
      de.dither = Dither::individual;
      StopCriteria stop;
      stop.max_gens = 60;
      RunOptions cpu, gpu;
      cpu.engine = Engine::serial;
      cpu.precision = gpu.precision = prec;
      gpu.engine = GetParam();
      const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
      EXPECT_EQ(a.evals, b.evals) << name;
      EXPECT_EQ(a.generations, b.generations) << name;
      EXPECT_EQ(a.stop_reason, b.stop_reason) << name;
      const double tol = prec == Precision::f64 ? 1e-9 : 1e-4;
      EXPECT_NEAR(b.best_f, a.best_f, tol * (1 + std::fabs(a.best_f))) << name << " " << precision_name(prec);
      ASSERT_EQ(a.best_x.size(), b.best_x.size());
      for (std::size_t j = 0; j < a.best_x.size(); ++j)
        EXPECT_NEAR(b.best_x[j], a.best_x[j], tol * (1 + std::fabs(a.best_x[j]))) << name << " coordinate " << j;
    }
    ++k;
  }
}

TEST_P(AllGpu, SolvesSphere30AndStopsAtTheTarget) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "sphere";
  s.dim = 30;
  s.shift = ShiftSpec{ShiftSpec::Kind::random, 3, {}};
  const Problem p = make_problem(s);
  StopCriteria stop;
  stop.max_evals = 300000;
  stop.target_error = 1e-8;
  RunOptions o;
  o.engine = GetParam();
  const Result r = minimize(p, DEConfig{}, stop, o);
  EXPECT_EQ(r.stop_reason, StopReason::target);
  EXPECT_LE(*r.best_error, 1e-8);
  EXPECT_LT(r.evals, 300000);
}

TEST_P(AllGpu, BudgetsTimeAndHistory) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "rastrigin";
  s.dim = 20;
  const Problem p = make_problem(s);
  DEConfig de;
  de.np = 30;
  RunOptions o;
  o.engine = GetParam();
  o.history_every = 7;
  StopCriteria by_evals;
  by_evals.max_evals = 1000;  // 30 + 32 * 30 = 990
  Result r = minimize(p, de, by_evals, o);
  EXPECT_EQ(r.evals, 990);
  EXPECT_EQ(r.generations, 32);
  EXPECT_EQ(r.stop_reason, StopReason::max_evals);
  ASSERT_EQ(r.history.size(), 6u);  // 0, 7, 14, 21, 28 and the last, 32
  EXPECT_EQ(r.history.back().generation, 32);
  EXPECT_EQ(r.history.back().best_f, r.best_f);
  StopCriteria by_gens;
  by_gens.max_gens = 17;
  r = minimize(p, de, by_gens, o);
  EXPECT_EQ(r.generations, 17);
  EXPECT_EQ(r.stop_reason, StopReason::max_gens);
  StopCriteria by_time;
  by_time.max_evals = 1'000'000'000'000LL;
  by_time.max_time_s = 0.3;
  r = minimize(p, de, by_time, o);
  EXPECT_EQ(r.stop_reason, StopReason::max_time);
  EXPECT_GE(r.wall_s, 0.3);
  EXPECT_LT(r.wall_s, 5.0);
}

INSTANTIATE_TEST_SUITE_P(Engines, AllGpu, ::testing::Values(Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu),
                         [](const auto& info) {
                           return info.param == Engine::gpu ? "gpu" : info.param == Engine::gpu_fused ? "gpu_fused" : "gpu_kernels";
                         });

// jDE on every CUDA engine: the serial engine's run (the same draws, the same adaptation of each
// individual's F and CR), to the evaluation's rounding, on a plain and a CEC function, with binomial and
// NEC crossover (whose run length depends on the adapted CR); the gpu engine on each of its paths. A run
// with adaptation differs from DE's (the arrays are used).
TEST(JdeGpu, RunsMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : {"rastrigin", "cec2017:f5"}) {
    for (Crossover x : {Crossover::bin, Crossover::nec}) {
      ProblemSpec s;
      s.name = name;
      s.dim = 20;
      const Problem p = make_problem(s);
      DEConfig jde;
      jde.algorithm = Algorithm::jde;
      jde.crossover = x;
      jde.np = 30;
      jde.F = {0.5, 0.5};
      jde.CR = {0.9, 0.9};
      StopCriteria stop;
      stop.max_gens = 150;
      RunOptions o;
      o.engine = Engine::serial;
      o.precision = Precision::f64;
      const Result ref = minimize(p, jde, stop, o);
      DEConfig de = jde;
      de.algorithm = Algorithm::de;
      const Result plain = minimize(p, de, stop, o);
      EXPECT_NE(plain.best_f, ref.best_f) << name;
      struct Run {
        Engine e;
        const char* plan;
      };
      for (const Run& run : {Run{Engine::gpu_eval, ""}, Run{Engine::gpu_kernels, ""}, Run{Engine::gpu_fused, ""},
                             Run{Engine::gpu, ""}, Run{Engine::gpu, "resident,4,0,8"}, Run{Engine::gpu, "grid,64"}}) {
        const PlanOverride plan(run.plan);
        o.engine = run.e;
        const std::string what = std::string(name) + " " + std::string(crossover_name(x)) + " " +
                                 std::string(engine_name(run.e)) + " " + run.plan;
        const Result r = minimize(p, jde, stop, o);
        EXPECT_EQ(r.evals, ref.evals) << what;
        EXPECT_NEAR(r.best_f, ref.best_f, 1e-9 * (1 + std::fabs(ref.best_f))) << what;
        ASSERT_EQ(r.best_x.size(), ref.best_x.size());
        for (std::size_t j = 0; j < r.best_x.size(); ++j)
          EXPECT_NEAR(r.best_x[j], ref.best_x[j], 1e-9 * (1 + std::fabs(ref.best_x[j]))) << what << " x" << j;
      }
    }
  }
}

// jDE's trials side by side on the gpu engine (a cluster per trial): each is the same trial run alone.
TEST(JdeGpu, TrialsRunTogether) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "cec2017:f5";
  s.dim = 30;
  const Problem p = make_problem(s);
  DEConfig jde;
  jde.algorithm = Algorithm::jde;
  jde.np = 40;
  StopCriteria stop;
  stop.max_gens = 100;
  RunOptions o;
  o.engine = Engine::gpu;
  o.precision = Precision::f64;
  const TrialsResult all = minimize_trials(p, jde, stop, o, 5);
  ASSERT_EQ(all.trials.size(), 5u);
  for (int t : {0, 3}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    const Result r = minimize(p, jde, stop, one);
    EXPECT_NEAR(all.trials[t].best_f, r.best_f, 1e-9 * (1 + std::fabs(r.best_f))) << t;
    EXPECT_EQ(all.trials[t].best_x, r.best_x) << t;
  }
}
