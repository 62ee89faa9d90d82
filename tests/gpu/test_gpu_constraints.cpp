// Constraints and integrality on the gpu-kernels engine (constraints.hpp): gpu-eval's run bit for bit (the
// host driver's decisions on the same GPU values) and the serial engine's to the evaluation's rounding, for
// linear constraints (their violations on the device), a host function's constraints and integrality, with DE and JADE, both precisions and
// current-to-pbest; infeasible points not evaluated and counted as the CPU counts them; a population none
// of whose points is feasible; integer coordinates kept integer. Linear constraints and integrality on
// gpu-fused and on the gpu engine's paths. Skipped with a message where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Problem sphere(int D, double lo, double hi) {
  ProblemSpec s;
  s.name = "sphere";
  s.dim = D;
  s.bounds = std::pair<double, double>{lo, hi};
  return make_problem(s);
}

// x_0^2 + x_1^2 >= 1 (outside the unit disc), a host function: a model no kernel could run
std::shared_ptr<const ConstraintModel> outside_disc() {
  return constraint_function(1, [](std::span<const double> x, std::span<double> cv) {
    cv[0] = std::max(0.0, 1.0 - (x[0] * x[0] + x[1] * x[1]));
  });
}

void expect_serial_run(const Problem& p, const DEConfig& de, const StopCriteria& stop, Precision prec,
                       const std::string& what) {
  RunOptions cpu, gpu, eval;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu_kernels;
  eval.engine = Engine::gpu_eval;
  cpu.precision = gpu.precision = eval.precision = prec;
  cpu.keep_population = gpu.keep_population = eval.keep_population = true;
  const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
  // gpu-eval: the host driver's decisions on the same GPU values, so the same bits
  const Result e = minimize(p, de, stop, eval);
  EXPECT_EQ(e.population, b.population) << what;
  EXPECT_EQ(e.best_x, b.best_x) << what;
  EXPECT_EQ(e.evals, b.evals) << what;
  EXPECT_EQ(e.infeasible, b.infeasible) << what;
  const double tol = prec == Precision::f64 ? 1e-9 : 1e-4;
  expect_same_run(a, b, tol, what);
  EXPECT_EQ(a.infeasible, b.infeasible) << what;
  ASSERT_EQ(a.population.size(), b.population.size()) << what;
  int differ = 0;
  for (std::size_t k = 0; k < a.population.size(); ++k)
    differ += !(std::fabs(a.population[k] - b.population[k]) <= tol * (1 + std::fabs(a.population[k])));
  EXPECT_EQ(differ, 0) << what;
}

// The serial engine's and `engine`'s runs of `trials` trials (the gpu engine's plan: DEGPU_GPU_PLAN's
// `plan`, nullptr for its own), `gens` generations, populations kept, the given initial rows.
std::pair<std::vector<Result>, std::vector<Result>> serial_and(Engine engine, const Problem& p, const DEConfig& de,
                                                               long long gens, Precision prec,
                                                               std::vector<std::vector<double>> initial,
                                                               const char* plan = nullptr, int trials = 1) {
  StopCriteria stop;
  stop.max_gens = gens;
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = engine;
  cpu.precision = gpu.precision = prec;
  cpu.keep_population = gpu.keep_population = true;
  cpu.initial = gpu.initial = std::move(initial);
  std::vector<Result> ref = minimize_trials(p, de, stop, cpu, trials).trials;
  std::optional<PlanOverride> po;
  if (plan) po.emplace(plan);
  return {std::move(ref), minimize_trials(p, de, stop, gpu, trials).trials};
}
// one initial row of 0.4s, for `p`
std::vector<std::vector<double>> row_of_04(const Problem& p) { return {std::vector<double>(static_cast<std::size_t>(p.dim()), 0.4)}; }

}  // namespace

TEST(GpuKernelsConstraints, TheSerialEnginesDecisions) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 8;
  const Problem base = sphere(D, -3, 3);
  const auto sum_at_least_2 = linear_constraints(std::vector<double>(D, 1.0), D, {2.0}, {kInf});
  const Problem linear = base.with_constraints(sum_at_least_2);
  const Problem function = base.with_constraints(all_of({sum_at_least_2, outside_disc()}));
  // two linear parts as one linear form (on the device), the second an upper bound on x_0 - x_1
  std::vector<double> diff(static_cast<std::size_t>(D), 0.0);
  diff[0] = 1, diff[1] = -1;
  const Problem two = base.with_constraints(all_of({sum_at_least_2, linear_constraints(diff, D, {-kInf}, {-0.5})}));
  const Problem integer = base.with_integrality({1, 1, 0, 0, 0, 0, 0, 1});
  const Problem both = linear.with_integrality({1, 1, 0, 0, 0, 0, 0, 0});
  const std::pair<Algorithm, Mutation> runs[] = {
      {Algorithm::de, Mutation::rand1}, {Algorithm::de, Mutation::current_to_pbest1}, {Algorithm::jade, Mutation::current_to_pbest1}};
  for (const auto& [a, m] : runs) {
    {
      DEConfig de;
      de.algorithm = a;
      de.mutation = m;
      de.np = 40;
      StopCriteria stop;
      stop.max_gens = 150;
      for (Precision prec : {Precision::f64, Precision::f32}) {
        const std::string what = std::string(algorithm_name(a)) + " " + std::string(mutation_name(m)) + (prec == Precision::f32 ? " f32" : " f64");
        expect_serial_run(linear, de, stop, prec, what + " linear");
        expect_serial_run(function, de, stop, prec, what + " function");
        expect_serial_run(two, de, stop, prec, what + " two linear");
        expect_serial_run(integer, de, stop, prec, what + " integer");
        expect_serial_run(both, de, stop, prec, what + " both");
      }
    }
  }
}

TEST(GpuKernelsConstraints, EndsFeasibleWithIntegersAndCountsTheInfeasible) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 8;
  const Problem p = sphere(D, -3, 3)
                        .with_constraints(linear_constraints(std::vector<double>(D, 1.0), D, {2.0}, {kInf}))
                        .with_integrality({1, 1, 0, 0, 0, 0, 0, 0});
  DEConfig de;
  de.np = 40;
  StopCriteria stop;
  stop.max_gens = 400;
  RunOptions o;
  o.engine = Engine::gpu_kernels;
  o.keep_population = true;
  const Result r = minimize(p, de, stop, o);
  EXPECT_GT(r.infeasible, 0);
  EXPECT_LT(r.infeasible, r.evals);
  double sum = 0;
  for (double v : r.best_x) sum += v;
  EXPECT_GE(sum, 2.0);
  EXPECT_EQ(r.best_x[0], 0.0);  // integers 0, and the six others sharing the sum of 2: f = 6 (1/3)^2
  EXPECT_EQ(r.best_x[1], 0.0);
  EXPECT_NEAR(r.best_f, 2.0 / 3, 1e-3);
  for (std::size_t k = 0; k < r.population.size(); k += D) {
    EXPECT_EQ(r.population[k], std::nearbyint(r.population[k]));
    EXPECT_EQ(r.population[k + 1], std::nearbyint(r.population[k + 1]));
    EXPECT_LE(std::fabs(r.population[k]), 3.0);
  }
}

// No point is feasible: the best is the least violating (the serial engine's), of value +inf, and nothing is
// evaluated.
TEST(GpuKernelsConstraints, NoFeasiblePointGivesTheLeastViolating) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 3;
  const Problem p = sphere(D, 0, 1).with_constraints(linear_constraints(std::vector<double>(D, 1.0), D, {-kInf}, {-1.0}));
  DEConfig de;
  de.np = 20;
  StopCriteria stop;
  stop.max_gens = 100;
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu_kernels;
  const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
  EXPECT_EQ(b.infeasible, b.evals);
  EXPECT_EQ(b.best_f, kInf);
  EXPECT_EQ(a.best_x, b.best_x);  // violations are computed on the host: the same bits
  EXPECT_EQ(a.evals, b.evals);
}

// Integrality on gpu-fused (its IE and MCER kernels round where they make a coordinate): the serial
// engine's run to the evaluation's rounding, with DE and JADE, both precisions, two given initial rows;
// every integer coordinate of the population an integer in range.
TEST(GpuFusedIntegrality, TheSerialEnginesRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 8;
  const Problem p = sphere(D, -2.6, 3.3).with_integrality({1, 0, 1, 0, 0, 0, 0, 1});
  const std::pair<Algorithm, Mutation> runs[] = {{Algorithm::de, Mutation::rand1}, {Algorithm::jade, Mutation::current_to_pbest1}};
  for (const auto& [a, m] : runs) {
    DEConfig de;
    de.algorithm = a;
    de.mutation = m;
    de.np = 40;
    for (Precision prec : {Precision::f64, Precision::f32}) {
      // two given rows (RunOptions::initial, rounded as the CPU rounds them), then the init stream
      const auto runs = serial_and(Engine::gpu_fused, p, de, 150, prec, {std::vector<double>(D, 0.4), std::vector<double>(D, -1.7)});
      const Result &ref = runs.first.front(), &r = runs.second.front();
      const std::string what = std::string(algorithm_name(a)) + (prec == Precision::f32 ? " f32" : " f64");
      expect_same_run(ref, r, prec == Precision::f64 ? 1e-9 : 1e-4, what);
      for (std::size_t k = 0; k < r.population.size(); k += D)
        for (int j : {0, 2, 7}) {
          EXPECT_EQ(r.population[k + j], std::nearbyint(r.population[k + j])) << what;
          EXPECT_GE(r.population[k + j], -2.0) << what;
          EXPECT_LE(r.population[k + j], 3.0) << what;
        }
    }
  }
}

// Linear constraints on gpu-fused (computed by each member's lanes in IE and MCER, Lampinen's rule in
// MCER's selection, the best by feasibility): the serial engine's run to the evaluation's rounding, with
// the same count of infeasible points, for DE, current-to-pbest and JADE, both precisions; with
// integrality; more constraints than lanes per member (D 3: 4 lanes, 6 constraints); a dimension of
// several warps per member (D 100); a host function's constraints refused, naming the engines that take
// them; no feasible point: the serial engine's least violating point, of value +inf, nothing evaluated.
TEST(GpuFusedConstraints, TheSerialEnginesRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const auto sum_at_least = [](int D, double v) { return linear_constraints(std::vector<double>(D, 1.0), D, {v}, {kInf}); };
  std::vector<double> diff(8, 0.0);
  diff[0] = 1, diff[1] = -1;
  // six constraints on three coordinates: -2.5 <= x_j <= 2.5, 0.5 <= x_0 + x_1 + x_2 <= 4, |x_0 - x_1| <= 1, |x_1 - x_2| <= 1
  std::vector<double> A6 = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, -1, 0, 0, 1, -1};
  const auto six = linear_constraints(A6, 3, {-2.5, -2.5, -2.5, 0.5, -1, -1}, {2.5, 2.5, 2.5, 4, 1, 1});
  struct Case {
    Problem p;
    const char* what;
  };
  const Case cases[] = {
      {sphere(8, -3, 3).with_constraints(sum_at_least(8, 2.0)), "linear"},
      {sphere(8, -3, 3).with_constraints(all_of({sum_at_least(8, 2.0), linear_constraints(diff, 8, {-kInf}, {-0.5})})), "two linear"},
      {sphere(8, -3, 3).with_constraints(sum_at_least(8, 2.0)).with_integrality({1, 1, 0, 0, 0, 0, 0, 0}), "linear integer"},
      {sphere(3, -3, 3).with_constraints(six), "six constraints D 3"},
      {sphere(100, -3, 3).with_constraints(sum_at_least(100, 5.0)), "linear D 100"}};
  const std::pair<Algorithm, Mutation> runs[] = {
      {Algorithm::de, Mutation::rand1}, {Algorithm::de, Mutation::current_to_pbest1}, {Algorithm::jade, Mutation::current_to_pbest1}};
  for (const Case& c : cases)
    for (const auto& [a, m] : runs)
      for (Precision prec : {Precision::f64, Precision::f32}) {
        DEConfig de;
        de.algorithm = a;
        de.mutation = m;
        de.np = 40;
        const auto runs = serial_and(Engine::gpu_fused, c.p, de, 120, prec, {});
        const Result &ref = runs.first.front(), &r = runs.second.front();
        const std::string what = std::string(c.what) + " " + std::string(algorithm_name(a)) + " " +
                                 std::string(mutation_name(m)) + (prec == Precision::f32 ? " f32" : " f64");
        expect_same_run(ref, r, prec == Precision::f64 ? 1e-9 : 1e-4, what);
        EXPECT_GT(r.infeasible, 0) << what;
        EXPECT_EQ(ref.infeasible, r.infeasible) << what;
        double sum = 0;
        for (double v : r.best_x) sum += v;
        if (c.p.dim() == 8) EXPECT_GE(sum, 2.0) << what;
      }

  RunOptions o;
  o.engine = Engine::gpu_fused;
  const Problem f = sphere(8, -3, 3).with_constraints(outside_disc());
  try {
    minimize(f, DEConfig{}, StopCriteria{}, o);
    ADD_FAILURE() << "gpu-fused took a host function's constraints";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("linear constraints only"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpu-kernels"), std::string::npos) << e.what();
  }

  const Problem none = sphere(3, 0, 1).with_constraints(linear_constraints(std::vector<double>(3, 1.0), 3, {-kInf}, {-1.0}));
  DEConfig de;
  de.np = 20;
  StopCriteria stop;
  stop.max_gens = 100;
  RunOptions cpu;
  cpu.engine = Engine::serial;
  const Result a = minimize(none, de, stop, cpu), b = minimize(none, de, stop, o);
  EXPECT_EQ(b.infeasible, b.evals);
  EXPECT_EQ(b.best_f, kInf);
  EXPECT_EQ(a.best_x, b.best_x);  // the violations are the CPU's bits
  EXPECT_EQ(a.evals, b.evals);
}

// Integrality on the gpu engine, on each of its paths (the resident path with 8 and 32 lanes, the spread,
// the grid, the wide): the serial engine's run to the evaluation's rounding, both precisions, with an initial row
// (rounded as the CPU rounds it); every integer coordinate of the population an integer in range.
TEST(GpuEngineIntegrality, EveryPathGivesTheSerialEnginesRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* plan;
    int D, np;
    Mutation m;
  };
  const Case cases[] = {{"resident,4,0,8", 9, 40, Mutation::rand1},
                        {"resident,2,0,32", 70, 30, Mutation::current_to_pbest1},
                        {"grid,128", 45, 60, Mutation::best1},
                        {"spread,5,0", 33, 40, Mutation::best1},
                        {"wide,3,256", 1001, 8, Mutation::rand1}};
  for (const Case& c : cases) {
    std::vector<std::uint8_t> integer(static_cast<std::size_t>(c.D), 0);
    for (int j = 0; j < c.D; j += 3) integer[static_cast<std::size_t>(j)] = 1;
    ProblemSpec s;
    s.name = "rastrigin";
    s.dim = c.D;
    s.bounds = std::pair<double, double>{-4.3, 5.6};
    const Problem p = make_problem(s).with_integrality(integer);
    DEConfig de;
    de.np = c.np;
    de.mutation = c.m;
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const auto runs = serial_and(Engine::gpu, p, de, 60, prec, row_of_04(p), c.plan);
      const Result &ref = runs.first.front(), &r = runs.second.front();
      const std::string what = std::string(c.plan) + (prec == Precision::f32 ? " f32" : " f64");
      expect_same_run(ref, r, prec == Precision::f64 ? 1e-9 : 1e-4, what);
      int bad = 0;
      for (std::size_t k = 0; k < r.population.size(); ++k) {
        const int j = static_cast<int>(k % static_cast<std::size_t>(c.D));
        if (integer[static_cast<std::size_t>(j)])
          bad += r.population[k] != std::nearbyint(r.population[k]) || r.population[k] < -4 || r.population[k] > 5;
      }
      EXPECT_EQ(bad, 0) << what;
    }
  }
}

// Linear constraints on the gpu engine, on each path that takes them (the resident path with 8 and 32
// lanes, one trial and several side by side; the spread path; the grid path): the serial engine's run to the evaluation's
// rounding, with the same count of infeasible points, DE and JADE, both precisions, with integrality and an
// initial row; the target stop decided on the feasible best. The wide path refuses them (the grid path
// takes large D), and a host function's constraints are refused.
TEST(GpuEngineConstraints, EveryPathGivesTheSerialEnginesRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* plan;
    int D, np, trials;
    Algorithm a;
    Mutation m;
  };
  const Case cases[] = {{"resident,4,0,8", 9, 40, 1, Algorithm::de, Mutation::rand1},
                        {"resident,2,0,32", 70, 30, 1, Algorithm::jade, Mutation::current_to_pbest1},
                        {"resident,1,0,8", 12, 24, 3, Algorithm::de, Mutation::best1},
                        {"grid,128", 45, 60, 1, Algorithm::de, Mutation::current_to_pbest1},
                        {"grid,64", 300, 20, 1, Algorithm::jade, Mutation::current_to_pbest1},
                        {"spread,7,0", 20, 30, 2, Algorithm::de, Mutation::current_to_pbest1},  // two trials, one after another
                        {nullptr, 20, 50, 1, Algorithm::de, Mutation::rand1}};  // the engine's own plan
  for (const Case& c : cases) {
    // sum(x) >= 1 and x_0 - x_1 <= -0.5 on rastrigin (the unconstrained optimum, 0, is infeasible)
    std::vector<double> A(2 * static_cast<std::size_t>(c.D), 0.0);
    for (int j = 0; j < c.D; ++j) A[static_cast<std::size_t>(j)] = 1;
    A[static_cast<std::size_t>(c.D)] = 1, A[static_cast<std::size_t>(c.D) + 1] = -1;
    std::vector<std::uint8_t> integer(static_cast<std::size_t>(c.D), 0);
    integer[2] = 1;
    ProblemSpec spec;
    spec.name = "rastrigin";
    spec.dim = c.D;
    spec.bounds = std::pair<double, double>{-4.3, 5.6};
    const Problem p = make_problem(spec)
                          .with_constraints(linear_constraints(A, c.D, {1.0, -kInf}, {kInf, -0.5}))
                          .with_integrality(integer);
    DEConfig de;
    de.algorithm = c.a;
    de.np = c.np;
    de.mutation = c.m;
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const auto [ref, r] = serial_and(Engine::gpu, p, de, 60, prec, row_of_04(p), c.plan, c.trials);
      ASSERT_EQ(r.size(), ref.size());
      for (std::size_t t = 0; t < r.size(); ++t) {
        const std::string what = std::string(c.plan ? c.plan : "own plan") + " trial " + std::to_string(t) +
                                 (prec == Precision::f32 ? " f32" : " f64");
        expect_same_run(ref[t], r[t], prec == Precision::f64 ? 1e-9 : 1e-4, what);
        EXPECT_GT(r[t].infeasible, 0) << what;
        EXPECT_EQ(ref[t].infeasible, r[t].infeasible) << what;
        double sum = 0;
        for (double v : r[t].best_x) sum += v;
        EXPECT_GE(sum, 1.0) << what;
        EXPECT_LE(r[t].best_x[0] - r[t].best_x[1], -0.5) << what;
        EXPECT_EQ(r[t].best_x[2], std::nearbyint(r[t].best_x[2])) << what;
      }
    }
  }

  const Problem base = sphere(8, -3, 3);
  const Problem lin = base.with_constraints(linear_constraints(std::vector<double>(8, 1.0), 8, {2.0}, {kInf}));
  RunOptions o;
  o.engine = Engine::gpu;
  {
    PlanOverride plan("wide,3,256");
    try {
      minimize(lin, DEConfig{}, StopCriteria{}, o);
      ADD_FAILURE() << "the wide path took constraints";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("grid"), std::string::npos) << e.what();
    }
  }
  try {
    minimize(base.with_constraints(outside_disc()), DEConfig{}, StopCriteria{}, o);
    ADD_FAILURE() << "the gpu engine took a host function's constraints";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("linear constraints only"), std::string::npos) << e.what();
  }
  // no feasible point: the least violating (the serial engine's: the violations are the CPU's bits)
  const Problem none = sphere(3, 0, 1).with_constraints(linear_constraints(std::vector<double>(3, 1.0), 3, {-kInf}, {-1.0}));
  DEConfig de;
  de.np = 20;
  de.mutation = Mutation::best1;
  StopCriteria stop;
  stop.max_gens = 50;
  RunOptions cpu;
  cpu.engine = Engine::serial;
  for (const char* plan : {"resident,2,0,8", "grid,64"}) {
    PlanOverride po(plan);
    const Result a = minimize(none, de, stop, cpu), b = minimize(none, de, stop, o);
    EXPECT_EQ(b.infeasible, b.evals) << plan;
    EXPECT_EQ(b.best_f, kInf) << plan;
    EXPECT_EQ(a.best_x, b.best_x) << plan;
  }
}
