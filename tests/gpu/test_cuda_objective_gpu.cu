// A CudaObjective (NVRTC) on the GPU: the same functor compiled by nvcc as a user's device_problem gives
// the serial engine's run, and the CudaObjective gives it bit for bit on the gpu engine (its kernels
// compiled by NVRTC), gpu-fused (its IE and MCER the same way), gpu-kernels and gpu-eval, in f64 and f32 (only +, -, * and /, --fmad=false on both
// sides). Skipped where no CUDA device exists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "degpu/cuda_objective.hpp"
#include "degpu/device_problem.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

// The functor, as code here and as text for NVRTC.
#define DEGPU_TEST_FUNCTOR                                                    \
  struct Quartic {                                                            \
    template <class T>                                                        \
    __host__ __device__ T operator()(const T* x, int dim) const {             \
      T s = 0, c = 0;                                                         \
      for (int j = 0; j < dim; ++j) {                                         \
        const T z = x[j] - T(0.25) * static_cast<T>(j % 3);                   \
        s += (z * z * z * z - T(16) * z * z + T(5) * z) / T(2);               \
        c += z;                                                               \
      }                                                                       \
      return s + T(0.1) * c * c;                                              \
    }                                                                         \
  };
#define DEGPU_STRINGIZE2(...) #__VA_ARGS__
#define DEGPU_STRINGIZE(...) DEGPU_STRINGIZE2(__VA_ARGS__)

namespace {
DEGPU_TEST_FUNCTOR
}  // namespace

TEST(CudaObjectiveGpu, GivesTheSerialRunOfTheSameFunctor) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 29;
  CudaCompileOptions o;
  o.cache_dir = "none";
  const CudaObjective f = CudaObjective::compile(DEGPU_STRINGIZE(DEGPU_TEST_FUNCTOR), o);
  EXPECT_EQ(f.name(), "Quartic");
  const std::vector<double> lo(D, -5), hi(D, 5);
  const Problem compiled = cuda_objective_problem(f, "quartic", lo, hi);
  const Problem native = device_problem(Quartic{}, lo, hi, "quartic");
  for (Precision prec : {Precision::f64, Precision::f32}) {
    DEConfig de;
    de.np = 48;
    de.mutation = Mutation::current_to_pbest1;
    StopCriteria stop;
    stop.max_gens = 60;
    RunOptions serial;
    serial.engine = Engine::serial;
    serial.precision = prec;
    const Result ref = minimize(native, de, stop, serial);
    for (Engine e : {Engine::gpu_fused, Engine::gpu_kernels, Engine::gpu_eval}) {
      RunOptions g = serial;
      g.engine = e;
      expect_same_run(ref, minimize(compiled, de, stop, g), 0.0,
                      std::string(engine_name(e)) + " " + std::string(precision_name(prec)));
    }
    // the gpu engine: each of its compiled kernels (groups of 8 and 32 lanes on the resident path; the grid path)
    for (const char* plan : {"resident,2,0,8", "resident,2,0,32", "grid,128"}) {
      const PlanOverride forced(plan);
      RunOptions g = serial;
      g.engine = Engine::gpu;
      expect_same_run(ref, minimize(compiled, de, stop, g), 0.0, std::string("gpu ") + plan + " " + std::string(precision_name(prec)));
    }
    // one point, as polishing evaluates it
    std::vector<double> x(D, 0.5);
    EXPECT_EQ(compiled.evaluate<double>(x.data()), native.evaluate<double>(x.data()));
  }
}

// The term form: the built-in's terms as a CudaObjective run the built-in's kernels, so the gpu engine gives
// the built-in's run, bit for bit, on each of its paths (the wide one too).
TEST(CudaObjectiveGpu, TheTermFormGivesTheBuiltInsRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  CudaCompileOptions o;
  o.cache_dir = "none";
  const CudaObjective f =
      CudaObjective::compile("#include \"degpu/functions/classic.hpp\"\nstruct MyRastrigin : degpu::fn::Rastrigin {};\n", o);
  ASSERT_TRUE(f.term_form());
  ProblemSpec spec;
  spec.name = "rastrigin";
  spec.dim = 40;
  const Problem builtin = make_problem(spec);
  const Problem mine = cuda_objective_problem(f, "mine", builtin.lower(), builtin.upper());
  DEConfig de;
  de.np = 40;
  StopCriteria stop;
  stop.max_gens = 50;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    for (const char* plan : {"resident,2,0,8", "resident,1,0,32", "grid,128", "wide,2,128"}) {
      const PlanOverride forced(plan);
      RunOptions g;
      g.engine = Engine::gpu;
      g.precision = prec;
      expect_same_run(minimize(builtin, de, stop, g), minimize(mine, de, stop, g), 0.0,
                      std::string("gpu ") + plan + " " + std::string(precision_name(prec)));
    }
    RunOptions k;
    k.engine = Engine::gpu_kernels;
    k.precision = prec;
    const Result a = minimize(builtin, de, stop, k), b = minimize(mine, de, stop, k);
    expect_same_run(a, b, prec == Precision::f64 ? 1e-9 : 1e-4, "gpu-kernels");  // a row per thread, summed as the CPU's
    k.engine = Engine::gpu_fused;  // the built-in's IE and MCER for the functor's type
    expect_same_run(minimize(builtin, de, stop, k), minimize(mine, de, stop, k), 0.0, "gpu-fused");
  }
}
