// The gpu-kernels engine against the serial engine: the same random numbers and operators, so the same
// run up to the rounding of the evaluation's sums. Skipped with a message where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {
bool have_device() {
  std::string why;
  if (!list_devices(&why).empty()) return true;
  std::printf("[  SKIPPED ] no CUDA device: %s\n", why.c_str());
  return false;
}
}  // namespace

TEST(GpuKernels, EveryStrategyMatchesTheSerialEngine) {
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
      gpu.engine = Engine::gpu_kernels;
      const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
      EXPECT_EQ(a.evals, b.evals) << name;
      const double tol = prec == Precision::f64 ? 1e-9 : 1e-4;
      EXPECT_NEAR(b.best_f, a.best_f, tol * (1 + std::fabs(a.best_f))) << name << " " << precision_name(prec);
      ASSERT_EQ(a.best_x.size(), b.best_x.size());
      for (std::size_t j = 0; j < a.best_x.size(); ++j)
        EXPECT_NEAR(b.best_x[j], a.best_x[j], tol * (1 + std::fabs(a.best_x[j]))) << name << " coordinate " << j;
    }
    ++k;
  }
}

TEST(GpuKernels, SolvesSphere30AndStopsAtTheTarget) {
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
  o.engine = Engine::gpu_kernels;
  const Result r = minimize(p, DEConfig{}, stop, o);
  EXPECT_EQ(r.stop_reason, StopReason::target);
  EXPECT_LE(*r.best_error, 1e-8);
}
