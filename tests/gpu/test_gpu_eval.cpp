// The gpu-eval engine against the CPU: the same values for every function, the same run. Skipped with a
// message where no CUDA device exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <span>

#include "../cec_points.hpp"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "degpu/constraints.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;


TEST(GpuEval, EveryFunctionMatchesTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 gen(7);
  for (const auto& info : list_problems()) {
    if (info.name.rfind("cec20", 0) == 0 || info.name.rfind("janssen:", 0) == 0) continue;  // below
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

// Constraints and integrality on gpu-eval (the host driver's rules, the GPU's values): the serial run's
// decisions, the infeasible points not evaluated, every integer coordinate an integer; auto picks the gpu
// engine for linear constraints, gpu-eval for a host function's.
TEST(GpuEval, ConstraintsAndIntegralityAsTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "sphere";
  s.dim = 8;
  const Problem p = make_problem(s)
                        .with_constraints(linear_constraints(std::vector<double>(8, 1.0), 8, {2.0}, {INFINITY}))
                        .with_integrality({1, 1, 0, 0, 0, 0, 0, 0});
  DEConfig de;
  de.np = 40;
  StopCriteria stop;
  stop.max_gens = 300;
  RunOptions cpu, gpu, automatic;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu_eval;
  const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
  EXPECT_EQ(a.evals, b.evals);
  EXPECT_EQ(a.infeasible, b.infeasible);
  EXPECT_GT(b.infeasible, 0);
  EXPECT_NEAR(b.best_f, a.best_f, 1e-9 * (1 + std::fabs(a.best_f)));
  double sum = 0;
  for (double v : b.best_x) sum += v;
  EXPECT_GE(sum, 2.0);
  EXPECT_EQ(b.best_x[0], 0.0);  // integers 0, and the six others sharing the sum of 2: f = 6 (1/3)^2
  EXPECT_EQ(b.best_x[1], 0.0);
  EXPECT_NEAR(b.best_f, 2.0 / 3, 1e-3);
  EXPECT_EQ(resolve_engine(Engine::auto_, p, de), Engine::gpu);  // linear constraints: the gpu engine
  const Problem h = p.with_constraints(constraint_function(1, [](std::span<const double> x, std::span<double> cv) {
    cv[0] = std::max(0.0, x[0] - 1);
  }));
  EXPECT_EQ(resolve_engine(Engine::auto_, h, de), Engine::gpu_eval);  // a host function's: gpu-eval
  // the engines that compute linear constraints in their kernels end there too (their runs against the
  // serial engine's: test_gpu_constraints.cpp)
  for (Engine e : {Engine::gpu, Engine::gpu_fused, Engine::gpu_kernels}) {
    RunOptions o;
    o.engine = e;
    const Result r = minimize(p, de, stop, o);
    EXPECT_EQ(r.evals, a.evals) << engine_name(e);
    EXPECT_GT(r.infeasible, 0) << engine_name(e);
    EXPECT_EQ(r.best_x[0], 0.0) << engine_name(e);
    EXPECT_EQ(r.best_x[1], 0.0) << engine_name(e);
    EXPECT_NEAR(r.best_f, 2.0 / 3, 1e-3) << engine_name(e);
  }
}

TEST(GpuEval, UserObjectivesAreRefused) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p("mine", {0.0}, {1.0}, [](std::span<const double> x) { return x[0]; });
  RunOptions o;
  o.engine = Engine::gpu_eval;
  EXPECT_THROW(minimize(p, DEConfig{}, StopCriteria{}, o), ConfigError);
}

// Every official CEC 2017 / 2014 reference value on the GPU, with the rotations as matrix products (the
// engines' way) and inside each thread (the CPU's code): relative 1e-9 in double, 1e-4 in float, as on
// the CPU (tests/cpu/test_cec.cpp).
TEST(GpuEval, CecReferenceValues) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  int checked = 0, functions = 0;
  for (const std::string suite : {"cec2017", "cec2014"}) {
    std::ifstream in(root + "/" + suite + "/reference_values.txt");
    std::map<std::pair<int, int>, std::vector<std::pair<std::string, double>>> by;
    std::string s, pt;
    int F, D;
    double f;
    while (in >> s >> F >> D >> pt >> f) by[{F, D}].push_back({pt, f});
    const std::string dir = root + "/" + suite + "/input_data";
    for (const auto& [key, refs] : by) {
      const auto [fn, dim] = key;
      // the GPU machine's copy of the data holds the benchmark's functions only
      if (!std::filesystem::exists(dir + "/shift_data_" + std::to_string(fn) + ".txt")) continue;
      functions += dim == 10;
      ProblemSpec spec;
      spec.name = suite + ":f" + std::to_string(fn);
      spec.dim = dim;
      spec.cec_data = dir;
      const Problem p = make_problem(spec);
      const int n = static_cast<int>(refs.size());
      std::vector<double> x(static_cast<std::size_t>(n) * dim), fd(n);
      for (int k = 0; k < n; ++k) {
        const std::vector<double> xk = cec_point(dir, fn, dim, refs[k].first);
        std::copy(xk.begin(), xk.end(), x.begin() + static_cast<std::ptrdiff_t>(k) * dim);
      }
      std::vector<float> xf(x.begin(), x.end()), ff(n);
      for (cuda::CecRotation how : {cuda::CecRotation::product, cuda::CecRotation::per_thread}) {
        const char* way = how == cuda::CecRotation::product ? " product" : " per thread";
        cuda::BatchEvaluator<double>(p, n, how).evaluate(x.data(), n, fd.data());
        cuda::BatchEvaluator<float>(p, n, how).evaluate(xf.data(), n, ff.data());
        for (int k = 0; k < n; ++k) {
          const double ref = refs[k].second;
          EXPECT_LE(std::fabs(fd[k] - ref), 1e-9 * std::fabs(ref)) << spec.name << " D" << dim << " " << refs[k].first << way;
          EXPECT_LE(std::fabs(ff[k] - ref), 1e-4 * std::fabs(ref)) << spec.name << " D" << dim << " " << refs[k].first << way << " (float)";
        }
        checked += how == cuda::CecRotation::product ? n : 0;
      }
    }
  }
  EXPECT_EQ(checked, functions * 4 * 5);
  EXPECT_GE(functions, 9 + 2);  // F1, the janssen functions of both suites
}

// Generated instances at small and official D, every function, both ways of rotating: the GPU gives the
// CPU's value (the same code; libm's and CUDA's transcendental functions may differ in the last bit, and
// the matrix product sums in T with fused multiply-adds where the CPU sums in double). In float, within
// 3e-4 of the CPU's double value: float sums of 100 products err by ~1e-6 of their terms, and Zakharov
// (F3) raises a cancelling sum of 0.5 i z_i to the fourth power (measured: 1.24e-4 between the GPU's and
// the CPU's float values at one of these points). 130 rows: more than two tiles of the product's 64 rows,
// the last one partial.
TEST(GpuEval, CecGeneratedMatchesTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-100, 100);
  for (const auto& info : list_problems()) {
    if ((info.name.rfind("cec2017", 0) != 0 && info.name.rfind("cec2014", 0) != 0)) continue;
    for (int D : {2, 7, 30, 100}) {
      ProblemSpec s;
      s.name = info.name;
      s.dim = D;
      const Problem p = make_problem(s);
      const int n = 130;
      std::vector<double> x(static_cast<std::size_t>(n) * D), f(n);
      for (double& v : x) v = u(gen);
      std::vector<float> xf(x.begin(), x.end()), ff(n);
      for (cuda::CecRotation how : {cuda::CecRotation::product, cuda::CecRotation::per_thread}) {
        const char* way = how == cuda::CecRotation::product ? " product" : " per thread";
        cuda::BatchEvaluator<double>(p, n, how).evaluate(x.data(), n, f.data());
        cuda::BatchEvaluator<float>(p, n, how).evaluate(xf.data(), n, ff.data());
        for (int k = 0; k < n; ++k) {
          const double ref = p.evaluate<double>(x.data() + static_cast<std::size_t>(k) * D);
          const double ref_f = p.evaluate<double>(std::vector<double>(xf.begin() + static_cast<std::ptrdiff_t>(k) * D,
                                                                      xf.begin() + static_cast<std::ptrdiff_t>(k + 1) * D).data());
          EXPECT_NEAR(f[k], ref, 1e-10 * std::fabs(ref)) << info.name << " D " << D << " row " << k << way;
          EXPECT_NEAR(ff[k], ref_f, 3e-4 * std::fabs(ref_f)) << info.name << " D " << D << " row " << k << way << " (float)";
        }
      }
    }
  }
}

// Many rows (a fused tile for every SM of any device up to 200 SMs, the last tile partial): the default
// product (the fused kernel for the functions with one rotation) gives the unfused path's values bit for
// bit (the same sums in the same order), and the CPU's at the tiles' edges.
TEST(GpuEval, CecFusedMatchesTheUnfused) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 gen(12);
  std::uniform_real_distribution<double> u(-100, 100);
  const int n = 32 * 200 + 17;
  for (int D : {2, 7, 30, 100}) {
    std::vector<double> x(static_cast<std::size_t>(n) * D), a(n), b(n);
    for (double& v : x) v = u(gen);
    std::vector<float> xf(x.begin(), x.end()), af(n), bf(n);
    for (const auto& info : list_problems()) {
      if ((info.name.rfind("cec2017", 0) != 0 && info.name.rfind("cec2014", 0) != 0)) continue;
      ProblemSpec s;
      s.name = info.name;
      s.dim = D;
      const Problem p = make_problem(s);
      int step = 0;
      try {
        cuda::BatchEvaluator<double>(p, n).evaluate(x.data(), n, a.data());
        ++step;
        cuda::BatchEvaluator<double>(p, n, cuda::CecRotation::unfused).evaluate(x.data(), n, b.data());
        ++step;
        cuda::BatchEvaluator<float>(p, n).evaluate(xf.data(), n, af.data());
        ++step;
        cuda::BatchEvaluator<float>(p, n, cuda::CecRotation::unfused).evaluate(xf.data(), n, bf.data());
      } catch (const Error& e) {
        FAIL() << info.name << " D " << D << " evaluator " << step << ": " << e.what();
      }
      int differ = 0;
      for (int k = 0; k < n; ++k) differ += (a[k] != b[k]) + (af[k] != bf[k]);
      EXPECT_EQ(differ, 0) << info.name << " D " << D;
      for (int k : {0, 31, 32, n - 1}) {
        const double ref = p.evaluate<double>(x.data() + static_cast<std::size_t>(k) * D);
        EXPECT_NEAR(a[k], ref, 1e-10 * std::fabs(ref)) << info.name << " D " << D << " row " << k;
      }
    }
  }
}

// A run on CEC 2017 F1 takes the serial engine's decisions in double on every CUDA engine: the same best x
// bit for bit (the rows depend on the selections only), its value to the rotation's rounding.
TEST(GpuEval, CecRunsMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "cec2017:f1";
  s.dim = 10;
  const Problem p = make_problem(s);
  DEConfig de;
  de.np = 40;
  StopCriteria stop;
  stop.max_gens = 200;
  RunOptions o;
  o.engine = Engine::serial;
  const Result ref = minimize(p, de, stop, o);
  for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu}) {
    o.engine = e;
    const Result r = minimize(p, de, stop, o);
    EXPECT_NEAR(r.best_f, ref.best_f, 1e-12 * std::fabs(ref.best_f)) << engine_name(e);
    EXPECT_EQ(r.best_x, ref.best_x) << engine_name(e);
    EXPECT_EQ(r.evals, ref.evals) << engine_name(e);
  }
}

// Every CEC function on the engines that evaluate an individual with a group of lanes (gpu-fused, gpu:
// the group's rotations, then lane 0's body; cec_group.cuh) at D 10, 30 and 37 (a partial pass of the
// lanes' outputs), in both precisions:
//   - the best value each reports is the CPU's value of its best x (double: 1e-10; float: the CPU's double
//     value at the float point within 3e-4, GpuEval.CecGeneratedMatchesTheCpu's bound);
//   - gpu-kernels, gpu-fused and gpu make the same rotations (the same sums in the same order) and run the
//     same body, so in double they take the same decisions: the same best x bit for bit.
TEST(GpuEval, CecOnTheGroupEnginesMatchesTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const auto& info : list_problems()) {
    if ((info.name.rfind("cec2017", 0) != 0 && info.name.rfind("cec2014", 0) != 0)) continue;
    for (int D : {10, 30, 37}) {
      ProblemSpec s;
      s.name = info.name;
      s.dim = D;
      const Problem p = make_problem(s);
      DEConfig de;
      de.np = 24;
      StopCriteria stop;
      stop.max_gens = 15;
      for (Precision prec : {Precision::f64, Precision::f32}) {
        RunOptions o;
        o.precision = prec;
        o.engine = Engine::gpu_kernels;
        const Result k = minimize(p, de, stop, o);
        for (Engine e : {Engine::gpu_fused, Engine::gpu}) {
          o.engine = e;
          const Result r = minimize(p, de, stop, o);
          const std::string what = info.name + " D " + std::to_string(D) + " " + std::string(engine_name(e)) + " " +
                                   std::string(precision_name(prec));
          ASSERT_EQ(r.best_x.size(), static_cast<std::size_t>(D)) << what;
          const double cpu = p.evaluate<double>(r.best_x.data());
          EXPECT_NEAR(r.best_f, cpu, (prec == Precision::f64 ? 1e-10 : 3e-4) * std::fabs(cpu)) << what;
          EXPECT_EQ(r.evals, k.evals) << what;
          if (prec == Precision::f64) EXPECT_EQ(r.best_x, k.best_x) << what;
        }
      }
    }
  }
}

// The gpu engine's resident path keeps a CEC function's rotation matrices in shared memory: all of them,
// one at a time (the next one copied while the groups evaluate a component), or none, reading them through
// L1, as they fit (DEGPU_GPU_CEC_MATRICES caps the choice). Every way makes the same rotations, so the
// same run bit for bit; in double, gpu-kernels' run (the same rotations and bodies); and the plan says
// which way it took.
TEST(GpuEval, CecMatricesInSharedMemoryEveryWay) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "janssen:f10";  // CEC 2017 F26: five components, five matrices
  s.dim = 20;
  const Problem p = make_problem(s);
  DEConfig de;
  de.np = 30;
  StopCriteria stop;
  stop.max_gens = 40;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    RunOptions o;
    o.precision = prec;
    o.engine = Engine::gpu_kernels;
    const Result kernels = minimize(p, de, stop, o);
    o.engine = Engine::gpu;
    std::vector<TrialsResult> runs;
    for (const char* way : {"all", "one", "none"}) {
      EnvOverride env("DEGPU_GPU_CEC_MATRICES", way);
      const std::string text = explain_launch(p, de, stop, o, 3)[3].text;
      const std::string kept = std::string(way) == "all" ? "5 of" : std::string(way) == "one" ? "1 of" : "0 of";
      EXPECT_NE(text.find(kept + " the CEC function's 5 rotation matrices kept in shared memory"), std::string::npos) << way << ": " << text;
      runs.push_back(minimize_trials(p, de, stop, o, 3));
      ASSERT_EQ(runs.back().trials.size(), 3u);
      if (prec == Precision::f64) EXPECT_EQ(runs.back().trials[0].best_x, kernels.best_x) << way;
    }
    for (std::size_t w = 1; w < runs.size(); ++w)
      for (int t = 0; t < 3; ++t) {
        EXPECT_EQ(runs[w].trials[t].best_x, runs[0].trials[t].best_x) << w << " trial " << t << " " << precision_name(prec);
        EXPECT_EQ(runs[w].trials[t].best_f, runs[0].trials[t].best_f) << w << " trial " << t << " " << precision_name(prec);
      }
  }
  EnvOverride bad("DEGPU_GPU_CEC_MATRICES", "some");
  RunOptions o;
  o.engine = Engine::gpu;
  EXPECT_THROW(minimize(p, de, stop, o), ConfigError);
}

// The resident path's CEC evaluation in every shape: a CTA of 33 individuals (a round of the groups, some
// of them evaluating copies), of 65 (more individuals than groups: a second round, one group with an
// individual of its own beside groups with copies of it), each with windows of draws of 8 and 1 (other
// shared-memory layouts; DEGPU_GPU_WINDOW, which rejects a window that is not a power of two). The
// groups fold the same terms in the same order, so every shape makes the same run bit for bit, in float
// too; in double, gpu-kernels' run. The functions: a composition of five bodies (one- and two-value
// folds; its distances a lane each on the resident path, cf_cal's three-value fold on gpu-kernels), one of hybrids, CEC 2017 F7 (its own rotations) and CEC 2014 F22
// (Katsuura's double terms, a product).
TEST(GpuEval, CecResidentInEveryShape) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const char* name : {"janssen:f10", "cec2017:f30", "cec2017:f7", "janssen:f07"}) {
    ProblemSpec s;
    s.name = name;
    s.dim = 100;
    const Problem p = make_problem(s);
    DEConfig de;
    de.np = 130;
    StopCriteria stop;
    stop.max_gens = 6;
    for (Precision prec : {Precision::f32, Precision::f64}) {
      RunOptions o;
      o.precision = prec;
      o.engine = Engine::gpu;
      std::vector<Result> runs;
      for (const char* plan : {"resident,4,0,8", "resident,2,0,8"}) {
        for (const char* window : {"8", "1"}) {
          EnvOverride env("DEGPU_GPU_PLAN", plan), win("DEGPU_GPU_WINDOW", window);
          const std::string what = std::string(name) + " " + plan + " window " + window + " " + std::string(precision_name(prec));
          try {
            runs.push_back(minimize(p, de, stop, o));
          } catch (const ConfigError& e) {  // double at 65 a CTA may not fit
            EXPECT_EQ(prec, Precision::f64) << what << ": " << e.what();
            continue;
          }
          EXPECT_EQ(runs.back().best_x, runs.front().best_x) << what;
          EXPECT_EQ(runs.back().best_f, runs.front().best_f) << what;
        }
      }
      ASSERT_GE(runs.size(), 2u) << name;
      if (prec == Precision::f64) {
        o.engine = Engine::gpu_kernels;
        EXPECT_EQ(minimize(p, de, stop, o).best_x, runs.front().best_x) << name;
      }
    }
  }
  EnvOverride bad("DEGPU_GPU_WINDOW", "3");
  ProblemSpec s;
  s.name = "janssen:f10";
  s.dim = 10;
  RunOptions o;
  o.engine = Engine::gpu;
  DEConfig de;
  StopCriteria stop;
  stop.max_gens = 2;
  EXPECT_THROW(minimize(make_problem(s), de, stop, o), ConfigError);
}

// The gpu engine runs several trials of a CEC function side by side (each with its own scratch): each is
// the trial run alone.
TEST(GpuEval, CecTrialsRunTogether) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "janssen:f10";
  s.dim = 20;
  const Problem p = make_problem(s);
  DEConfig de;
  de.np = 30;
  StopCriteria stop;
  stop.max_gens = 50;
  RunOptions o;
  o.engine = Engine::gpu;
  const TrialsResult all = minimize_trials(p, de, stop, o, 6);
  ASSERT_EQ(all.trials.size(), 6u);
  for (int t : {0, 5}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    const Result alone = minimize(p, de, stop, one);
    EXPECT_EQ(alone.best_x, all.trials[t].best_x) << t;
    EXPECT_EQ(alone.best_f, all.trials[t].best_f) << t;
  }
  EXPECT_NE(all.trials[0].best_x, all.trials[1].best_x);
}

// Every CEC 2010 function on every DE engine of the GPU (its kernel function, cec2010_device.cuh: a group of
// lanes rotates a row's groups, lane 0 sums the value in the CPU's order, in double): in double the serial
// engine's run (its best x bit for bit, the evaluations; the values differ at most by the device's cos and
// exp); in float a value the CPU gives its best x. D 130: F9-F18 leave variables out, F9-F13's rest starts
// mid-group. Generated instances (seed 5).
TEST(GpuEval, Cec2010OnEveryEngineMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (int fn = 1; fn <= 20; ++fn) {
    ProblemSpec s;
    s.name = "cec2010:f" + std::to_string(fn);
    s.dim = 130;
    s.shift = ShiftSpec{ShiftSpec::Kind::random, 5, {}};
    const Problem p = make_problem(s);
    DEConfig de;
    de.np = 24;
    StopCriteria stop;
    stop.max_gens = 15;
    for (Precision prec : {Precision::f64, Precision::f32}) {
      RunOptions o;
      o.precision = prec;
      o.engine = Engine::serial;
      const Result ref = minimize(p, de, stop, o);
      for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu}) {
        o.engine = e;
        const Result r = minimize(p, de, stop, o);
        const std::string what = s.name + " " + std::string(engine_name(e)) + " " + std::string(precision_name(prec));
        ASSERT_EQ(r.best_x.size(), 130u) << what;
        EXPECT_EQ(r.evals, ref.evals) << what;
        const double cpu = p.evaluate<double>(r.best_x.data());
        EXPECT_NEAR(r.best_f, cpu, (prec == Precision::f64 ? 1e-13 : 1e-6) * std::fabs(cpu)) << what;
        if (prec == Precision::f64) EXPECT_EQ(r.best_x, ref.best_x) << what;
      }
    }
  }
  // devices --explain: gpu-eval and gpu-kernels evaluate a row by a warp
  ProblemSpec s;
  s.name = "cec2010:f14";
  s.dim = 1000;
  const auto ex = explain_launch(make_problem(s), DEConfig{}, StopCriteria{}, RunOptions{}, 1);
  ASSERT_EQ(ex.size(), 4u);
  EXPECT_NE(ex[0].text.find("evaluated by one warp each"), std::string::npos) << ex[0].text;
  EXPECT_NE(ex[1].text.find("evaluation one warp per individual"), std::string::npos) << ex[1].text;
}

// An archipelago on gpu-eval (its islands one after another through one evaluator, the largest island's
// rows at most): the serial engine's run, each island's too.
TEST(GpuEval, IslandsMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec s;
  s.name = "sphere";
  s.dim = 20;
  s.shift = ShiftSpec{ShiftSpec::Kind::random, 1, {}};
  const Problem p = make_problem(s);
  DEConfig small, large;
  small.np = 24;
  large.np = 48;
  StopCriteria stop;
  stop.max_gens = 120;
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu_eval;
  for (RunOptions* o : {&cpu, &gpu}) {
    o->archipelago.islands = 3;
    o->archipelago.interval = 10;
    o->archipelago.migrants = 2;
    o->archipelago.configs = {small, large, small};
  }
  const Result a = minimize(p, DEConfig{}, stop, cpu), b = minimize(p, DEConfig{}, stop, gpu);
  EXPECT_EQ(a.evals, b.evals);
  EXPECT_NEAR(b.best_f, a.best_f, 1e-9 * (1 + std::fabs(a.best_f)));
  ASSERT_EQ(b.islands.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.islands[k].best_f, a.islands[k].best_f, 1e-9 * (1 + std::fabs(a.islands[k].best_f)));
}

// set_cuda_device (one GPU a process under mpirun): the last device runs as device 0 does (the same
// decisions); one past the last is a CudaError naming it when the engine starts.
TEST(GpuEval, TheProcessesDeviceIsTheOneUsed) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int count = cuda_device_count();
  ASSERT_GE(count, 1);
  ASSERT_EQ(cuda_device(), 0);
  const Problem p = make_problem(ProblemSpec{"rastrigin", 10});
  StopCriteria stop;
  stop.max_gens = 30;
  RunOptions o;
  o.engine = Engine::gpu_eval;
  const Result first = minimize(p, DEConfig{}, stop, o);
  struct Back {
    ~Back() { set_cuda_device(0); }
  } back;
  set_cuda_device(count - 1);
  const Result last = minimize(p, DEConfig{}, stop, o);
  EXPECT_EQ(last.evals, first.evals);
  EXPECT_NEAR(last.best_f, first.best_f, 1e-9 * (1 + std::fabs(first.best_f)));
  set_cuda_device(count);
  try {
    minimize(p, DEConfig{}, stop, o);
    ADD_FAILURE() << "no CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA device " + std::to_string(count) + ": this machine has " + std::to_string(count)),
              std::string::npos)
        << e.what();
  }
}
