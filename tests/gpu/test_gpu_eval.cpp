// The gpu-eval engine against the CPU: the same values for every function, the same run. Skipped with a
// message where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda/batch_evaluator.hpp"
#include "degpu/devices.hpp"
#include "gpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;


TEST(GpuEval, EveryFunctionMatchesTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 gen(7);
  for (const auto& info : list_problems()) {
    for (int D : {1, 2, 7, 100, 1000}) {
      if (info.name.rfind("rosenbrock", 0) == 0 && D < 2) continue;
      ProblemSpec s;
      s.name = info.name;
      s.dim = D;
      s.shift = ShiftSpec{ShiftSpec::Kind::random, 3, {}};
      const Problem p = make_problem(s);
      const int n = 67;
      std::uniform_real_distribution<double> u(info.lower, info.upper);
      std::vector<double> x(static_cast<std::size_t>(n) * D), f(n);
      for (double& v : x) v = u(gen);
      std::vector<float> xf(x.begin(), x.end()), ff(n);
      cuda::BatchEvaluator<double> gd(p, n);
      cuda::BatchEvaluator<float> gf(p, n);
      gd.evaluate(x.data(), n, f.data());
      gf.evaluate(xf.data(), n, ff.data());
      for (int k = 0; k < n; ++k) {
        const double ref = p.evaluate<double>(x.data() + static_cast<std::size_t>(k) * D);
        const double reff = p.evaluate<float>(xf.data() + static_cast<std::size_t>(k) * D);
        EXPECT_NEAR(f[k], ref, 1e-11 * (1 + std::fabs(ref))) << info.name << " D " << D << " row " << k;
        EXPECT_NEAR(ff[k], reff, 1e-5 * (1 + std::fabs(reff))) << info.name << " D " << D << " row " << k;
      }
    }
  }
}

TEST(GpuEval, RunMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "sphere";
  s.dim = 30;
  s.shift = ShiftSpec{ShiftSpec::Kind::random, 1, {}};
  const Problem p = make_problem(s);
  DEConfig de;
  de.np = 64;
  StopCriteria stop;
  stop.max_gens = 300;
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu_eval;
  const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
  EXPECT_EQ(a.evals, b.evals);
  EXPECT_NEAR(b.best_f, a.best_f, 1e-9 * (1 + std::fabs(a.best_f)));
}

TEST(GpuEval, UserObjectivesAreRefused) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p("mine", {0.0}, {1.0}, [](std::span<const double> x) { return x[0]; });
  RunOptions o;
  o.engine = Engine::gpu_eval;
  EXPECT_THROW(minimize(p, DEConfig{}, StopCriteria{}, o), ConfigError);
}
