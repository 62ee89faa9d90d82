// Constraints (Lampinen's rules) and integrality on the CPU engines: the rule itself, the constraint models,
// runs that end feasible and near the constrained optimum, the objective never called at an infeasible
// point, every CPU engine and model form bit for bit, and integer coordinates drawn evenly and kept integer.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/problem_model.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

const auto no_worse = [](double a, double b) { return a <= b; };
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> violation_of(const ConstraintModel& c, std::vector<double> x) {
  const double* rows[1] = {x.data()};
  std::vector<double> cv(static_cast<std::size_t>(c.count()));
  c.violation(rows, 1, static_cast<int>(x.size()), cv.data());
  return cv;
}

// sum (x_j - 1)^2, which must not be called at a point where sum x_j > 1 (the constraint below): the
// constrained optimum is x_j = 1/D, of value D (1 - 1/D)^2.
struct ShiftedSphere : ProblemModel {
  bool vectorised = false;
  mutable std::atomic<long long> calls{0}, infeasible_calls{0};
  double value(const double* x, int dim) const {
    ++calls;
    double s = 0, sum = 0;
    for (int j = 0; j < dim; ++j) {
      s += (x[j] - 1) * (x[j] - 1);
      sum += x[j];
    }
    if (sum > 1) ++infeasible_calls;
    return s;
  }
  bool batch() const override { return vectorised; }
  double evaluate(const double* x, int dim) const override { return value(x, dim); }
  float evaluate(const float* x, int dim) const override {
    const std::vector<double> d(x, x + dim);
    return static_cast<float>(value(d.data(), dim));
  }
};

Problem constrained_sphere(int D, std::shared_ptr<ShiftedSphere> model) {
  const Problem p = Problem::from_model("shifted-sphere", std::vector<double>(D, -2.0), std::vector<double>(D, 2.0), model);
  return p.with_constraints(linear_constraints(std::vector<double>(D, 1.0), D, {-kInf}, {1.0}));
}

}  // namespace

TEST(Lampinen, TheRulesOfSelection) {
  const double none[2] = {0, 0}, small[2] = {0.5, 0}, large[2] = {1, 1}, mixed[2] = {0, 2};
  // both feasible: the values decide
  EXPECT_TRUE(lampinen_takes(1.0, none, 2.0, none, 2, no_worse));
  EXPECT_TRUE(lampinen_takes(2.0, none, 2.0, none, 2, no_worse));
  EXPECT_FALSE(lampinen_takes(3.0, none, 2.0, none, 2, no_worse));
  // a feasible trial replaces an infeasible individual, whatever the values
  EXPECT_TRUE(lampinen_takes(5.0, none, kInf, large, 2, no_worse));
  // an infeasible trial never replaces a feasible individual
  EXPECT_FALSE(lampinen_takes(kInf, small, 9.0, none, 2, no_worse));
  // both infeasible: the trial must violate no constraint more
  EXPECT_TRUE(lampinen_takes(kInf, small, kInf, large, 2, no_worse));
  EXPECT_TRUE(lampinen_takes(kInf, large, kInf, large, 2, no_worse));
  EXPECT_FALSE(lampinen_takes(kInf, large, kInf, small, 2, no_worse));
  EXPECT_FALSE(lampinen_takes(kInf, mixed, kInf, large, 2, no_worse));  // less in sum, more in constraint 1
  // a NaN violation counts as met (as scipy's sum(cv) > 0 test has it) but dominates nothing
  const double nan2[2] = {std::nan(""), 0};
  EXPECT_TRUE(feasible(nan2, 2));
  EXPECT_FALSE(feasible(small, 2));
}

TEST(Constraints, LinearViolationsAndBadInput) {
  // 0 <= x0 + x1 <= 1 and -1 <= x0 - x1 <= 1
  const auto c = linear_constraints({1, 1, 1, -1}, 2, {0, -1}, {1, 1});
  ASSERT_EQ(c->count(), 2);
  EXPECT_EQ(violation_of(*c, {0.25, 0.25}), (std::vector<double>{0, 0}));
  EXPECT_EQ(violation_of(*c, {1.5, 0.5}), (std::vector<double>{1, 0}));
  EXPECT_EQ(violation_of(*c, {-1, -2}), (std::vector<double>{3, 0}));
  EXPECT_EQ(violation_of(*c, {-1, 1}), (std::vector<double>{0, 1}));
  // several models side by side, in order
  const auto both = all_of({c, constraint_function(1, [](std::span<const double> x, std::span<double> cv) { cv[0] = x[0] * x[0]; })});
  EXPECT_EQ(violation_of(*both, {-1, -2}), (std::vector<double>{3, 0, 1}));

  const auto names = [](auto f) {
    try {
      f();
    } catch (const ConfigError& e) {
      return e.parameter();
    }
    return std::string("no error");
  };
  EXPECT_EQ(names([] { linear_constraints({1, 1, 1}, 2, {0, 0}, {1, 1}); }), "constraints");  // A of 3 values
  EXPECT_EQ(names([] { linear_constraints({1, 1}, 2, {0}, {1, 1}); }), "constraints");        // bounds' sizes
  EXPECT_EQ(names([] { linear_constraints({1, kInf}, 2, {0}, {1}); }), "constraints");       // A not finite
  EXPECT_EQ(names([] { linear_constraints({1, 1}, 2, {2}, {1}); }), "constraints");          // lower > upper
  EXPECT_EQ(names([] { constraint_function(0, [](std::span<const double>, std::span<double>) {}); }), "constraints");
  const Problem p = classic("sphere", 3);
  EXPECT_EQ(names([&] { p.with_integrality({1, 0}); }), "integrality");  // 2 flags for dim 3
  const Problem narrow("narrow", {0.2, 0.0}, {0.8, 1.0}, [](std::span<const double>) { return 0.0; });
  EXPECT_EQ(names([&] { narrow.with_integrality({1, 0}); }), "integrality");  // [0.2, 0.8] holds no integer
  EXPECT_NO_THROW(narrow.with_integrality({0, 1}));
  EXPECT_FALSE(narrow.with_integrality({0, 0}).constrained());  // all zero: none
}

// Linear constraints as data (ConstraintModel::linear(), which gpu-kernels computes on the device): the
// given rows; all_of of linear parts, their rows in order with the same violations; none where a part is
// a function.
TEST(Constraints, LinearFormOfLinearModels) {
  const auto a = linear_constraints({1, 2, 3}, 3, {0}, {kInf});
  const auto b = linear_constraints({1, 0, 0, 0, 1, 0}, 3, {-1, -kInf}, {1, 0.5});
  ASSERT_NE(a->linear(), nullptr);
  EXPECT_EQ(a->linear()->dim, 3);
  EXPECT_EQ(a->linear()->A, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(a->linear()->count(), 1);
  const auto ab = all_of({a, b});
  ASSERT_NE(ab->linear(), nullptr);
  EXPECT_EQ(ab->linear()->count(), 3);
  EXPECT_EQ(ab->linear()->A, (std::vector<double>{1, 2, 3, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(ab->linear()->lower, (std::vector<double>{0, -1, -kInf}));
  EXPECT_EQ(ab->linear()->upper, (std::vector<double>{kInf, 1, 0.5}));
  const auto merged = linear_constraints(ab->linear()->A, 3, ab->linear()->lower, ab->linear()->upper);
  for (const std::vector<double>& x : {std::vector<double>{-2, 1, 0.1}, std::vector<double>{0.5, 0.2, 0.3}})
    EXPECT_EQ(violation_of(*ab, x), violation_of(*merged, x));
  const auto f = constraint_function(1, [](std::span<const double> x, std::span<double> cv) { cv[0] = x[0] > 0; });
  EXPECT_EQ(f->linear(), nullptr);
  EXPECT_EQ(all_of({a, f})->linear(), nullptr);
  EXPECT_EQ(all_of({a, linear_constraints({1, 1}, 2, {0}, {1})})->linear(), nullptr);  // columns disagree
}

// The run ends feasible near the constrained optimum, the objective is never called at an infeasible
// point, and the points not evaluated are counted.
TEST(Constraints, EndsFeasibleWithoutEvaluatingInfeasiblePoints) {
  const int D = 4;
  auto model = std::make_shared<ShiftedSphere>();
  const Problem p = constrained_sphere(D, model);
  DEConfig de;
  de.np = 40;
  RunOptions o;
  o.engine = Engine::serial;
  const Result r = minimize(p, de, gens(400), o);
  double sum = 0;
  for (double v : r.best_x) sum += v;
  EXPECT_LE(sum, 1.0);
  EXPECT_NEAR(r.best_f, D * (1 - 1.0 / D) * (1 - 1.0 / D), 1e-6);
  for (double v : r.best_x) EXPECT_NEAR(v, 1.0 / D, 1e-3);
  EXPECT_EQ(model->infeasible_calls, 0);
  EXPECT_GT(r.infeasible, 0);
  EXPECT_EQ(model->calls + r.infeasible, r.evals);
}

// Serial, threads and matrix, a point or a batch model, f64 and f32, DE, JADE and SHADE (its archive): the same run bit for bit.
TEST(Constraints, EveryCpuEngineAndModelFormBitForBit) {
  const int D = 6;
  auto point = std::make_shared<ShiftedSphere>();
  auto batch = std::make_shared<ShiftedSphere>();
  batch->vectorised = true;
  const Problem pp = constrained_sphere(D, point), pb = constrained_sphere(D, batch);
  for (Algorithm a : {Algorithm::de, Algorithm::jade, Algorithm::shade}) {
    const DEConfig de = with_algorithm(a, 24);
    for (Precision prec : {Precision::f64, Precision::f32}) {
      RunOptions o;
      o.precision = prec;
      o.engine = Engine::serial;
      o.keep_population = true;
      const Result ref = minimize(pp, de, gens(60), o);
      for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
        for (const Problem* p : {&pp, &pb}) {
          o.engine = e;
          o.threads = e == Engine::serial ? 0 : 2;
          const Result r = minimize(*p, de, gens(60), o);
          EXPECT_TRUE(same_bits(r, ref)) << engine_name(e);
          EXPECT_EQ(r.infeasible, ref.infeasible) << engine_name(e);
          EXPECT_EQ(r.population, ref.population) << engine_name(e);
        }
      }
    }
  }
  EXPECT_EQ(point->infeasible_calls + batch->infeasible_calls, 0);
}

// No point is feasible: the best is the least violating, of value +inf, and the objective is never called.
TEST(Constraints, NoFeasiblePointGivesTheLeastViolating) {
  const int D = 3;
  auto model = std::make_shared<ShiftedSphere>();
  const Problem p = Problem::from_model("impossible", std::vector<double>(D, 0.0), std::vector<double>(D, 1.0), model)
                        .with_constraints(linear_constraints(std::vector<double>(D, 1.0), D, {-kInf}, {-1.0}));
  RunOptions o;
  o.engine = Engine::threads;
  o.threads = 2;
  o.keep_population = true;
  DEConfig de;
  de.np = 20;
  StopCriteria stop = gens(100);
  stop.convergence = Convergence{};  // +inf values never converge (as scipy's test)
  const Result r = minimize(p, de, stop, o);
  EXPECT_EQ(model->calls, 0);
  EXPECT_EQ(r.infeasible, r.evals);
  EXPECT_EQ(r.best_f, kInf);
  EXPECT_EQ(r.stop_reason, StopReason::max_gens);
  // sum x >= 0 in the box, so the violation 1 + sum x is least near the origin, and no row violates less
  double best_sum = 0;
  for (double v : r.best_x) best_sum += v;
  for (int i = 0; i < de.np; ++i) {
    double s = 0;
    for (int j = 0; j < D; ++j) s += r.population[static_cast<std::size_t>(i) * D + j];
    EXPECT_LE(best_sum, s);
  }
  EXPECT_LT(best_sum, 0.05);
}

// Integer coordinates: every row holds integers there, in range, the integers of the range drawn evenly
// at generation 0, and the run finds the nearest integer to a continuous optimum.
TEST(Integrality, IntegerCoordinatesDrawnEvenlyAndKept) {
  const std::vector<double> lo = {-3.7, -1.0, 0.5}, hi = {5.2, 1.0, 1.5};
  const Problem p = Problem("mixed", lo, hi, [](std::span<const double> x) {
                      return (x[0] - 2.4) * (x[0] - 2.4) + x[1] * x[1] + (x[2] - 0.7) * (x[2] - 0.7);
                    }).with_integrality({1, 0, 1});
  DEConfig de;
  de.np = 900;
  RunOptions o;
  o.engine = Engine::serial;
  o.keep_population = true;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    o.precision = prec;
    StopCriteria stop;
    stop.max_evals = de.np;  // generation 0 only
    const Result g0 = minimize(p, de, stop, o);
    std::vector<int> count(9, 0);  // the integers -3 .. 5
    int fractional = 0;
    for (int i = 0; i < de.np; ++i) {
      const double* x = g0.population.data() + static_cast<std::size_t>(i) * 3;
      ASSERT_EQ(x[0], std::round(x[0]));
      ASSERT_GE(x[0], -3);
      ASSERT_LE(x[0], 5);
      ASSERT_EQ(x[2], 1.0);  // the only integer of [0.5, 1.5]
      fractional += x[1] != std::round(x[1]);
      ++count[static_cast<int>(x[0]) + 3];
    }
    EXPECT_GT(fractional, de.np - 5);  // the continuous coordinate stays continuous
    for (int k = 0; k < 9; ++k) {  // 100 expected; +-40 is beyond 4 standard deviations
      EXPECT_GT(count[k], 60) << k - 3;
      EXPECT_LT(count[k], 140) << k - 3;
    }
    de.np = 30;
    const Result r = minimize(p, de, gens(100), o);
    EXPECT_EQ(r.best_x[0], 2.0);
    EXPECT_EQ(r.best_x[2], 1.0);
    EXPECT_NEAR(r.best_x[1], 0.0, 1e-3);
    for (std::size_t i = 0; i < r.population.size(); i += 3) {
      EXPECT_EQ(r.population[i], std::round(r.population[i]));
      EXPECT_EQ(r.population[i + 2], 1.0);
    }
    de.np = 900;
  }
}

// Integrality with constraints, on every CPU engine alike.
TEST(Integrality, WithConstraintsOnEveryCpuEngine) {
  const int D = 4;
  auto model = std::make_shared<ShiftedSphere>();
  const Problem p = constrained_sphere(D, model).with_integrality({1, 1, 0, 0});
  DEConfig de;
  de.np = 30;
  RunOptions o;
  o.engine = Engine::serial;
  const Result ref = minimize(p, de, gens(150), o);
  EXPECT_EQ(ref.best_x[0], std::round(ref.best_x[0]));
  EXPECT_EQ(ref.best_x[1], std::round(ref.best_x[1]));
  EXPECT_LE(ref.best_x[0] + ref.best_x[1] + ref.best_x[2] + ref.best_x[3], 1.0);
  for (Engine e : {Engine::threads, Engine::matrix}) {
    o.engine = e;
    o.threads = 2;
    EXPECT_TRUE(same_bits(minimize(p, de, gens(150), o), ref)) << engine_name(e);
  }
  EXPECT_EQ(model->infeasible_calls, 0);
}

// The engines that take linear constraints only (gpu, gpu-fused: tests/gpu) refuse a host function's,
// naming the parameter and the engines that take it (gpu-kernels among them); auto picks one that does.
TEST(Constraints, EnginesThatTakeLinearOnesOnlySaySo) {
  const Problem sphere = classic("sphere", 4);
  const Problem c = sphere.with_constraints(linear_constraints(std::vector<double>(4, 1.0), 4, {-kInf}, {1.0}));
  const Problem h = sphere.with_constraints(constraint_function(1, [](std::span<const double> x, std::span<double> cv) {
    cv[0] = std::max(0.0, x[0]);
  }));
  for (Engine e : {Engine::gpu, Engine::gpu_fused}) {
    RunOptions o;
    o.engine = e;
    try {
      minimize(h, DEConfig{}, gens(2), o);
      ADD_FAILURE() << engine_name(e);
    } catch (const ConfigError& err) {
      EXPECT_NE(std::string(err.what()).find("linear constraints only"), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("gpu-kernels"), std::string::npos) << err.what();
    }
  }
  MaswConfig mc;
  EXPECT_THROW(minimize_masw(c, mc, gens(2), RunOptions{}), ConfigError);
  RunOptions o;  // auto: the gpu engine with a device (linear constraints), else threads
  const Result r = minimize(c, DEConfig{}, gens(20), o);
  EXPECT_LE(r.best_x[0] + r.best_x[1] + r.best_x[2] + r.best_x[3], 1.0);
}
