// A batch model (ProblemModel::batch, a vectorised objective such as a Python one): the CPU engines make
// a generation's trials and evaluate them in one call, and the run is the point objective's bit for bit on
// every CPU engine.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "cpu_test_util.hpp"
#include "degpu/problem_model.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

double rastrigin(std::span<const double> x) {
  double s = 10.0 * static_cast<double>(x.size());
  for (double v : x) s += v * v - 10.0 * std::cos(2 * M_PI * v);
  return s;
}

// The objective in double whatever the run's precision, as a user objective (Problem's Objective) is.
struct BatchRastrigin : ProblemModel {
  mutable std::atomic<long long> calls{0}, rows{0};
  bool batch() const override { return true; }
  double evaluate(const double* x, int dim) const override { return rastrigin({x, static_cast<std::size_t>(dim)}); }
  float evaluate(const float* x, int dim) const override {
    const std::vector<double> d(x, x + dim);
    return static_cast<float>(rastrigin(d));
  }
  void evaluate_batch(const double* const* r, int n, int dim, double* f) const override {
    ++calls, rows += n;
    for (int k = 0; k < n; ++k) f[k] = evaluate(r[k], dim);
  }
  void evaluate_batch(const float* const* r, int n, int dim, float* f) const override {
    ++calls, rows += n;
    for (int k = 0; k < n; ++k) f[k] = evaluate(r[k], dim);
  }
};

}  // namespace

TEST(BatchObjective, OneCallAGenerationAndThePointRunOnEveryCpuEngine) {
  const int D = 12;
  const std::vector<double> lo(D, -5.12), hi(D, 5.12);
  const Problem point("rastrigin-point", lo, hi, rastrigin, 0.0);
  auto model = std::make_shared<BatchRastrigin>();
  const Problem batch = Problem::from_model("rastrigin-batch", lo, hi, model, 0.0);
  StopCriteria stop;
  stop.max_gens = 40;
  for (Algorithm a : {Algorithm::de, Algorithm::jade, Algorithm::shade}) {
    const DEConfig de = with_algorithm(a, 30);
    for (Precision prec : {Precision::f64, Precision::f32}) {
      RunOptions o;
      o.precision = prec;
      o.engine = Engine::serial;
      const Result ref = minimize(point, de, stop, o);
      for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
        o.engine = e;
        o.threads = e == Engine::serial ? 0 : 2;
        model->calls = 0;
        model->rows = 0;
        const Result r = minimize(batch, de, stop, o);
        EXPECT_TRUE(same_bits(r, ref)) << engine_name(e);
        EXPECT_EQ(model->calls, r.generations + 1) << engine_name(e);  // generation 0 and each generation
        EXPECT_EQ(model->rows, r.evals) << engine_name(e);
      }
    }
  }
}

// A batch model that throws: the run ends with the objective's error, as a point objective's does.
TEST(BatchObjective, AnErrorInTheObjectiveEndsTheRun) {
  struct Failing : BatchRastrigin {
    void evaluate_batch(const double* const*, int, int, double*) const override { throw std::runtime_error("objective failed"); }
  };
  const Problem p = Problem::from_model("failing", std::vector<double>(3, -1.0), std::vector<double>(3, 1.0), std::make_shared<Failing>());
  StopCriteria stop;
  stop.max_gens = 3;
  RunOptions o;
  o.engine = Engine::serial;
  EXPECT_THROW(minimize(p, DEConfig{}, stop, o), std::runtime_error);
}
