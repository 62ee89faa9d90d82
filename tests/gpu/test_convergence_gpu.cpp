// The convergence test (StopCriteria::convergence), the observer and the kept population on the CUDA engines
// that loop on the host (gpu-eval, gpu-kernels, gpu-fused): the serial engine's run, stopped at the same
// generation; and the gpu engine's refusal, by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

TEST(ConvergenceGpu, HostLoopedEnginesStopWhereTheSerialEngineStops) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec spec;
  spec.name = "sphere";
  spec.dim = 10;
  spec.bias = 100.0;  // values that converge relative to their mean
  const Problem p = make_problem(spec);
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
  ProblemSpec spec;
  spec.name = "rastrigin";
  spec.dim = 8;
  const Problem p = make_problem(spec);
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
  // the gpu engine runs its generations inside one kernel: each refused, naming what it refuses
  RunOptions g;
  g.engine = Engine::gpu;
  StopCriteria conv = stop;
  conv.convergence = Convergence{};
  try {
    minimize(p, de, conv, g);
    FAIL() << "the gpu engine took a convergence test";
  } catch (const ConfigError& x) {
    EXPECT_EQ(x.parameter(), "engine");
    EXPECT_NE(std::string(x.what()).find("tol"), std::string::npos) << x.what();
  }
  g.observe = [](const Generation&) { return false; };
  EXPECT_THROW(minimize(p, de, stop, g), ConfigError);
}
