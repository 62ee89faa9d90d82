// degpu::device_problem in a .cpp file (no nvcc): a user's functor for the CPU engines, which every CPU
// engine evaluates as written, in the run's precision; the CUDA engines refuse it with one line. (Its GPU
// side is tested in tests/gpu/test_device_problem.cu.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "degpu/device_problem.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

// Styblinski-Tang with a coupling term, shifted by a fixed amount: no built-in function.
struct Coupled {
  double shift = 0.5;
  template <class T>
  __host__ __device__ T operator()(const T* x, int dim) const {
    T s = 0, c = 0;
    for (int j = 0; j < dim; ++j) {
      const T z = x[j] - static_cast<T>(shift);
      s += (z * z * z * z - T(16) * z * z + T(5) * z) / T(2);
      c += z;
    }
    return s + T(0.1) * c * c;
  }
};

struct Sphere1 {  // (x - 1)^2 summed: f* = 0 at x = 1
  template <class T>
  __host__ __device__ T operator()(const T* x, int dim) const {
    T s = 0;
    for (int j = 0; j < dim; ++j) s += (x[j] - T(1)) * (x[j] - T(1));
    return s;
  }
};

// The built-in sphere's terms, as a user's functor in the term form.
struct TermSphere : fn::Sphere {};

// docs/ARCHITECTURE.md's example of a problem family: weighted spheres in the term form.
struct WeightedSphere {  // the term form of include/degpu/functions/evaluate.hpp
  static constexpr degpu::fn::Pattern pattern = degpu::fn::Pattern::elementwise;  // term i reads x_i
  static constexpr int sums = 1;         // uses Terms::s0
  static constexpr bool product = false;  // not Terms::p
  template <class T>
  __host__ __device__ static degpu::fn::Terms<T> term(T x, T, int i, int) { return {static_cast<T>(i + 1) * x * x}; }
  template <class A>
  __host__ __device__ static A finish(A s0, A, A, int) { return s0; }
};

degpu::Problem weighted_sphere(int dim) {
  return degpu::device_problem(WeightedSphere{}, std::vector<double>(dim, -100.0), std::vector<double>(dim, 100.0),
                               "weighted-sphere", 0.0, std::vector<double>(dim, 0.0));
}

Problem coupled(int dim) { return device_problem(Coupled{}, std::vector<double>(dim, -5), std::vector<double>(dim, 5), "coupled"); }

DEConfig small_de() {
  DEConfig de;
  de.np = 24;
  return de;
}

}  // namespace

TEST(DeviceProblem, EvaluatesTheFunctorInEachPrecision) {
  const Problem p = coupled(7);
  EXPECT_EQ(p.name(), "coupled");
  EXPECT_EQ(p.dim(), 7);
  ASSERT_NE(p.model(), nullptr);
  EXPECT_FALSE(p.on_gpu());
  const std::vector<double> xd = {0.1, -2.5, 3.0, 4.9, -4.9, 0.0, 1.25};
  const std::vector<float> xf(xd.begin(), xd.end());
  EXPECT_EQ(p.evaluate<double>(xd.data()), Coupled{}(xd.data(), 7));
  EXPECT_EQ(p.evaluate<float>(xf.data()), Coupled{}(xf.data(), 7));  // in float, not through double
  EXPECT_NE(static_cast<double>(p.evaluate<float>(xf.data())), p.evaluate<double>(xd.data()));
}

TEST(DeviceProblem, EveryCpuEngineGivesTheSameRun) {
  const Problem p = coupled(12);
  for (Precision prec : {Precision::f64, Precision::f32}) {
    RunOptions o;
    o.precision = prec;
    o.engine = Engine::serial;
    const Result serial = minimize(p, small_de(), gens(60), o);
    EXPECT_LT(serial.best_f, p.evaluate<double>(std::vector<double>(12, 4.0).data()));
    for (Engine e : {Engine::threads, Engine::matrix}) {
      o.engine = e;
      o.threads = e == Engine::threads ? 3 : 0;
      EXPECT_TRUE(same_bits(minimize(p, small_de(), gens(60), o), serial)) << engine_name(e) << " " << precision_name(prec);
    }
  }
}

TEST(DeviceProblem, RunsAsTheSameObjectiveGivenAsAFunction) {
  // in double, the functor and an Objective computing the same thing give the same run, bit for bit
  const int D = 9;
  const Problem a = coupled(D);
  const Problem b("coupled", std::vector<double>(D, -5), std::vector<double>(D, 5),
                  [](std::span<const double> x) { return Coupled{}(x.data(), static_cast<int>(x.size())); });
  RunOptions o;
  o.engine = Engine::serial;
  const Result ra = minimize(a, small_de(), gens(40), o), rb = minimize(b, small_de(), gens(40), o);
  EXPECT_TRUE(same_bits(ra, rb));
}

TEST(DeviceProblem, CudaEnginesRefuseItWithOneLine) {
  const Problem p = coupled(5);
  for (Engine e : {Engine::gpu, Engine::gpu_fused, Engine::gpu_kernels, Engine::gpu_eval}) {
    RunOptions o;
    o.engine = e;
    try {
      minimize(p, small_de(), gens(5), o);
      ADD_FAILURE() << engine_name(e) << " ran a problem compiled without nvcc";
    } catch (const ConfigError& err) {
      const std::string what = err.what();
      EXPECT_NE(what.find("engine " + std::string(engine_name(e))), std::string::npos) << what;
      EXPECT_NE(what.find("problem coupled"), std::string::npos) << what;
      EXPECT_NE(what.find("compile that file as CUDA"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  // auto picks a CPU engine for it
  RunOptions o;
  EXPECT_NO_THROW(minimize(p, small_de(), gens(5), o));
}

TEST(DeviceProblem, OptimumEnablesTheTargetStop) {
  const int D = 4;
  // the optimum of the coupled function is not known in closed form: a sphere's is
  const Problem p = device_problem(Sphere1{}, std::vector<double>(D, -5), std::vector<double>(D, 5), "sphere1", 0.0,
                                   std::vector<double>(D, 1.0));
  StopCriteria stop;
  stop.max_evals = 200000;
  stop.target_error = 1e-8;
  RunOptions o;
  o.engine = Engine::serial;
  const Result r = minimize(p, small_de(), stop, o);
  EXPECT_EQ(r.stop_reason, StopReason::target);
  ASSERT_TRUE(r.best_error.has_value());
  EXPECT_LE(*r.best_error, 1e-8);
}

TEST(DeviceProblem, BadInputIsRefused) {
  EXPECT_THROW(device_problem(Coupled{}, {}, {}, "empty"), ConfigError);
  EXPECT_THROW(device_problem(Coupled{}, {0.0, 1.0}, {1.0}, "lengths"), ConfigError);
  EXPECT_THROW(device_problem(Coupled{}, {1.0}, {0.0}, "order"), ConfigError);
  EXPECT_THROW(device_problem(Coupled{}, {0.0}, {INFINITY}, "infinite"), ConfigError);
  EXPECT_THROW(device_problem(Coupled{}, {0.0, 0.0}, {1.0, 1.0}, "x", 0.0, std::vector<double>{0.5}), ConfigError);
  EXPECT_THROW(device_problem(Coupled{}, {0.0}, {1.0}, "f", NAN), ConfigError);
}

TEST(DeviceProblem, TheTermFormRunsAsTheBuiltInDoes) {
  // a functor in the term form is evaluated as the built-ins are: the same formula gives the same run
  const int D = 30;
  const Problem builtin = classic("sphere", D);
  const Problem mine = device_problem(TermSphere{}, builtin.lower(), builtin.upper(), "mine");
  EXPECT_FALSE(mine.on_gpu());
  for (Precision prec : {Precision::f64, Precision::f32}) {
    for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
      RunOptions o;
      o.engine = e;
      o.precision = prec;
      EXPECT_TRUE(same_bits(minimize(mine, small_de(), gens(50), o), minimize(builtin, small_de(), gens(50), o)))
          << engine_name(e) << " " << precision_name(prec);
    }
  }
  const std::vector<float> x(D, 1.5f);
  EXPECT_EQ(mine.evaluate<float>(x.data()), builtin.evaluate<float>(x.data()));
}

// The documented family: its value is sum_j (j + 1) x_j^2, and every CPU engine solves it alike.
TEST(DeviceProblem, TheDocumentedFamilyRuns) {
  const Problem p = weighted_sphere(5);
  const std::vector<double> x{1, -2, 0.5, 0, 3};
  EXPECT_DOUBLE_EQ(p.evaluate<double>(x.data()), 1 * 1 + 2 * 4 + 3 * 0.25 + 0 + 5 * 9);
  EXPECT_EQ(p.name(), "weighted-sphere");
  StopCriteria stop;
  stop.max_evals = 20000;
  RunOptions o;
  o.engine = Engine::serial;
  const Result serial = minimize(p, small_de(), stop, o);
  EXPECT_LT(serial.best_f, 1e-3);
  ASSERT_TRUE(serial.best_error.has_value());
  for (Engine e : {Engine::threads, Engine::matrix}) {
    o.engine = e;
    const Result r = minimize(p, small_de(), stop, o);
    EXPECT_EQ(r.best_f, serial.best_f) << engine_name(e);
    EXPECT_EQ(r.best_x, serial.best_x) << engine_name(e);
  }
}
