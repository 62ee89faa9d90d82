// MA-SW-Chains' GPU engine (src/cuda/masw_gpu.cuh) against the serial engine: the same draws, decisions
// and budget; values that differ only by the order of the sums' additions (and the device's log, cos and
// sin, within an ulp), so short runs end at the same point. Also its stops, its determinism and its
// out-of-memory message. Skipped with a message where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/problem.hpp"

using namespace degpu;

namespace {

Problem lastra(const std::string& name, int dim, bool shifted = true) {
  ProblemSpec s;
  s.name = name;
  s.dim = dim;
  if (shifted) s.shift = ShiftSpec{ShiftSpec::Kind::random, 11, {}};
  return make_problem(s);
}

Result run(const Problem& p, Engine e, long long evals, Precision prec = Precision::f64, std::uint64_t seed = 3) {
  StopCriteria stop;
  stop.max_evals = evals;
  RunOptions o;
  o.engine = e;
  o.seed = seed;
  o.precision = prec;
  return minimize_masw(p, MaswConfig{}, stop, o);
}

}  // namespace

TEST(GpuMasw, AgreesWithTheSerialEngine) {
  if (!have_device()) GTEST_SKIP();
  // D not a multiple of 4 (the rows' pad), a product (griewank), a prefix sum (schwefel12), position
  // weights (discus, sumsquares), a finish of the sum (salomon); several blocks per vector at D 20,000.
  const struct {
    const char* name;
    int dim;
    long long evals;
  } cases[] = {{"lastra:rastrigin", 1001, 20000}, {"lastra:griewank", 37, 20000}, {"lastra:schwefel12", 301, 20000},
               {"lastra:salomon", 500, 20000},    {"lastra:discus", 123, 20000},  {"lastra:sumsquares", 64, 20000},
               {"sphere", 20000, 6000},            {"katsuura", 10, 3000}};
  for (const auto& c : cases) {
    const Problem p = lastra(c.name, c.dim, std::string(c.name) != "katsuura");
    const Result cpu = run(p, Engine::serial, c.evals), gpu = run(p, Engine::gpu, c.evals);
    const std::string what = std::string(c.name) + " D " + std::to_string(c.dim);
    EXPECT_EQ(gpu.evals, cpu.evals) << what;
    EXPECT_EQ(gpu.generations, cpu.generations) << what;
    EXPECT_EQ(gpu.ls_applications, cpu.ls_applications) << what;
    EXPECT_NEAR(gpu.best_f, cpu.best_f, 1e-9 * (1 + std::fabs(cpu.best_f))) << what;
    ASSERT_EQ(gpu.best_x.size(), cpu.best_x.size()) << what;
    double worst = 0;
    for (std::size_t j = 0; j < cpu.best_x.size(); ++j) worst = std::fmax(worst, std::fabs(gpu.best_x[j] - cpu.best_x[j]));
    EXPECT_LE(worst, 1e-9) << what;
    ASSERT_TRUE(gpu.phases.has_value());
    EXPECT_GT(gpu.phases->ga + gpu.phases->ls, 0) << what;
  }
}

TEST(GpuMasw, Cec2010AgreesWithTheSerialEngine) {
  if (!have_device()) GTEST_SKIP();
  // All 20 functions at D 1030 (F9-F18 leave variables out; D not a multiple of 4), one block per vector;
  // six of them at D 20,000, five blocks (groups and the rest split over the blocks; F19's two passes).
  const auto check = [](int fn, int dim, long long evals) {
    ProblemSpec s;
    s.name = "cec2010:f" + std::to_string(fn);
    s.dim = dim;
    s.shift = ShiftSpec{ShiftSpec::Kind::random, 5, {}};  // the generator's seed 5
    const Problem p = make_problem(s);
    const Result cpu = run(p, Engine::serial, evals), gpu = run(p, Engine::gpu, evals);
    const std::string what = s.name + " D " + std::to_string(dim);
    EXPECT_EQ(gpu.evals, cpu.evals) << what;
    EXPECT_EQ(gpu.ls_applications, cpu.ls_applications) << what;
    EXPECT_NEAR(gpu.best_f, cpu.best_f, 1e-9 * std::fabs(cpu.best_f)) << what;
    ASSERT_EQ(gpu.best_x.size(), cpu.best_x.size()) << what;
    double worst = 0;
    for (std::size_t j = 0; j < cpu.best_x.size(); ++j) worst = std::fmax(worst, std::fabs(gpu.best_x[j] - cpu.best_x[j]));
    EXPECT_LE(worst, 1e-9) << what;
  };
  for (int fn = 1; fn <= 20; ++fn) check(fn, 1030, 3000);
  for (int fn : {4, 11, 13, 17, 19, 20}) check(fn, 20000, 1500);
}

TEST(GpuMasw, FloatFollowsTheSerialEngine) {
  if (!have_device()) GTEST_SKIP();
  const Problem p = lastra("lastra:rastrigin", 1000);
  const Result cpu = run(p, Engine::serial, 20000, Precision::f32), gpu = run(p, Engine::gpu, 20000, Precision::f32);
  EXPECT_EQ(gpu.evals, cpu.evals);
  // float values tie more often than double ones, so the runs may part; they must still do as well
  EXPECT_NEAR(gpu.best_f, cpu.best_f, 0.05 * std::fabs(cpu.best_f - -330.0));
  const Result start = run(p, Engine::gpu, 60, Precision::f32);
  EXPECT_LT(gpu.best_f, start.best_f - 0.5 * (start.best_f - -330.0));
}

TEST(GpuMasw, DeterministicAndStops) {
  if (!have_device()) GTEST_SKIP();
  const Problem p = lastra("lastra:rastrigin", 5000);
  const Result a = run(p, Engine::gpu, 7777), b = run(p, Engine::gpu, 7777);
  EXPECT_EQ(a.evals, 7777);
  EXPECT_EQ(a.best_f, b.best_f);
  EXPECT_EQ(a.best_x, b.best_x);
  const Result other = run(p, Engine::gpu, 7777, Precision::f64, 4);
  EXPECT_NE(other.best_f, a.best_f);

  const Problem s = lastra("sphere", 100);
  StopCriteria stop;
  stop.target_error = 1e-6;
  stop.max_evals = 2000000;
  RunOptions o;
  o.engine = Engine::gpu;
  const Result t = minimize_masw(s, MaswConfig{}, stop, o);
  EXPECT_EQ(t.stop_reason, StopReason::target);
  ASSERT_TRUE(t.best_error.has_value());
  EXPECT_LE(*t.best_error, 1e-6);
  EXPECT_LT(t.evals, 2000000);
}

TEST(GpuMasw, OutOfMemorySaysTheBytes) {
  if (!have_device()) GTEST_SKIP();
  const Problem p = lastra("sphere", 200000, false);
  MaswConfig c;
  c.np = 65535;  // ~210 GB of rows
  StopCriteria stop;
  RunOptions o;
  o.engine = Engine::gpu;
  try {
    minimize_masw(p, c, stop, o);
    FAIL() << "no error";
  } catch (const CudaError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of GPU memory"), std::string::npos) << m;
    EXPECT_NE(m.find("bytes needed"), std::string::npos) << m;
    EXPECT_NE(m.find("available"), std::string::npos) << m;
    EXPECT_NE(m.find("smaller np, offspring or dim"), std::string::npos) << m;  // (what() names the parameters)
  }
}
