// degpu::device_problem compiled by nvcc, as a user's .cu file is: the functor runs on every CUDA engine
// (gpu-eval, gpu-kernels, gpu-fused and each path of gpu) in f32 and f64 and gives the serial engine's run,
// bit for bit (the functor's arithmetic is the same on both sides, and the test compiles with --fmad=false).
// The functor reads its shift from managed memory, which the host (CPU engines) and the device both read.
// Skipped with a message where no CUDA device exists.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <vector>

#include "degpu/device_problem.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"
#include "../../examples/cuda/styblinski_tang.hpp"

using namespace degpu;

namespace {

// Styblinski-Tang with a coupling term, shifted by o (managed memory): no built-in function. Only +, -
// and *, so that host and device (--fmad=false) compute the same bits.
struct Coupled {
  const double* o;
  template <class T>
  __host__ __device__ T operator()(const T* x, int dim) const {
    T s = 0, c = 0;
    for (int j = 0; j < dim; ++j) {
      const T z = x[j] - static_cast<T>(o[j]);
      s += (z * z * z * z - T(16) * z * z + T(5) * z) / T(2);
      c += z;
    }
    return s + T(0.1) * c * c;
  }
};

// A shift of D values in managed memory, freed at the end of the test.
struct ManagedShift {
  double* o = nullptr;
  explicit ManagedShift(int D) {
    if (cudaMallocManaged(&o, static_cast<std::size_t>(D) * sizeof(double)) != cudaSuccess) throw CudaError("cudaMallocManaged");
    for (int j = 0; j < D; ++j) o[j] = 0.3 * std::sin(1.0 + j);
  }
  ~ManagedShift() { cudaFree(o); }
};

Problem coupled(const ManagedShift& s, int D) {
  return device_problem(Coupled{s.o}, std::vector<double>(D, -5), std::vector<double>(D, 5), "coupled");
}

}  // namespace

TEST(DeviceProblemGpu, EveryCudaEngineGivesTheSerialRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 37;
  const ManagedShift shift(D);
  const Problem p = coupled(shift, D);
  EXPECT_TRUE(p.on_gpu());
  struct Case {
    Engine engine;
    const char* plan;  // the gpu engine's forced launch (nullptr: its own choice)
    Mutation mutation;
    Crossover crossover;
  };
  const Case cases[] = {
      {Engine::gpu_eval, nullptr, Mutation::rand1, Crossover::bin},
      {Engine::gpu_kernels, nullptr, Mutation::current_to_pbest1, Crossover::exp},
      {Engine::gpu_fused, nullptr, Mutation::best2, Crossover::bin},
      {Engine::gpu, nullptr, Mutation::rand_to_best1, Crossover::nec},
      {Engine::gpu, "resident,4,0,8", Mutation::current_to_pbest1, Crossover::bin},
      {Engine::gpu, "resident,2,0,32", Mutation::rand2, Crossover::exp},
      {Engine::gpu, "resident,1,0,8", Mutation::best1, Crossover::bin},
      {Engine::gpu, "grid,128", Mutation::current_to_best1, Crossover::bin},
  };
  for (const Case& c : cases) {
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const DEConfig de = path_config(40, c.mutation, c.crossover);
      StopCriteria stop;
      stop.max_gens = 50;
      RunOptions cpu, gpu;
      cpu.engine = Engine::serial;
      gpu.engine = c.engine;
      cpu.precision = gpu.precision = prec;
      const std::string what = std::string(engine_name(c.engine)) + " " + (c.plan ? c.plan : "(own plan)") + " " +
                               std::string(precision_name(prec));
      std::unique_ptr<PlanOverride> plan;
      if (c.plan) plan = std::make_unique<PlanOverride>(c.plan);
      expect_same_run(minimize(p, de, stop, cpu), minimize(p, de, stop, gpu), 0.0, what);  // the same bits
    }
  }
}

TEST(DeviceProblemGpu, JdeTrialsSideBySideOnTheGpuEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 10;
  const ManagedShift shift(D);
  const Problem p = coupled(shift, D);
  DEConfig de;
  de.np = 30;
  de.algorithm = Algorithm::jde;
  StopCriteria stop;
  stop.max_gens = 80;
  RunOptions o;
  o.engine = Engine::gpu;
  const TrialsResult all = minimize_trials(p, de, stop, o, 4);  // resident, the trials side by side
  ASSERT_EQ(all.trials.size(), 4u);
  for (int t = 0; t < 4; ++t) {
    RunOptions s = o;
    s.engine = Engine::serial;
    s.trial = static_cast<std::uint32_t>(t);
    expect_same_run(minimize(p, de, stop, s), all.trials[t], 0.0, "jde trial " + std::to_string(t));
  }
  EXPECT_NE(all.trials[0].best_f, all.trials[1].best_f);
}

// A population too large for a cluster's shared memory (NP 128 rows of D 3001 doubles, twice: 6.1 MB) takes
// the grid path, never the wide one, which splits a row over CTAs (the explanation says which the run took).
TEST(DeviceProblemGpu, LargeDimensionTakesTheGridPathNotTheWideOne) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 3001;
  const ManagedShift shift(D);
  const Problem p = coupled(shift, D);
  DEConfig de;
  de.np = 128;
  StopCriteria stop;
  stop.max_gens = 5;
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu;
  expect_same_run(minimize(p, de, stop, cpu), minimize(p, de, stop, gpu), 0.0, "D 3001");
  const std::string plan = explain_launch(p, de, stop, gpu, 1).at(3).text;  // the plan the run took
  EXPECT_NE(plan.find("one cooperative grid"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("CTAs per individual"), std::string::npos) << plan;
  {
    PlanOverride wide("wide,2,256");
    EXPECT_THROW(minimize(p, de, stop, gpu), ConfigError);
  }
}

// Runs p on the serial engine and on each CUDA engine, in f64 and f32: check(serial, gpu run, "engine
// precision", gpu options).
template <class Check>
void on_every_cuda_engine(const Problem& p, const DEConfig& de, const StopCriteria& stop, Check check) {
  for (Precision prec : {Precision::f64, Precision::f32}) {
    RunOptions cpu;
    cpu.engine = Engine::serial;
    cpu.precision = prec;
    const Result serial = minimize(p, de, stop, cpu);
    for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu}) {
      RunOptions gpu = cpu;
      gpu.engine = e;
      check(serial, minimize(p, de, stop, gpu), std::string(engine_name(e)) + " " + std::string(precision_name(prec)), gpu);
    }
  }
}

// The functor of examples/cuda on every CUDA engine, in f32 and f64: the serial engine's run, bit for bit.
TEST(DeviceProblemGpu, TheExamplesFunctorOnEveryEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 20;
  const Problem p = device_problem(StyblinskiTang{}, std::vector<double>(D, -5.0), std::vector<double>(D, 5.0), "styblinski-tang",
                                   StyblinskiTang::kMinimumPerCoordinate * D);
  DEConfig de;
  de.np = 60;
  StopCriteria stop;
  stop.max_gens = 100;
  on_every_cuda_engine(p, de, stop, [](const Result& serial, const Result& r, const std::string& what, const RunOptions&) {
    expect_same_run(serial, r, 0.0, what);
  });
}

// A functor in the term form (here the built-in rastrigin's terms, as a user's type) takes the built-ins'
// kernels: on each CUDA engine the built-in's run bit for bit, and the serial engine's within the sums'
// order (as the built-ins).
struct TermRastrigin : fn::Rastrigin {};

// The built-in rastrigin at D 50 and the same terms as a user's functor ("mine"), on its box.
Problem builtin_rastrigin(int dim) {
  ProblemSpec spec;
  spec.name = "rastrigin";
  spec.dim = dim;
  return make_problem(spec);
}
struct RastriginTwice {
  Problem builtin = builtin_rastrigin(50);
  Problem mine = device_problem(TermRastrigin{}, builtin.lower(), builtin.upper(), "mine");
};

TEST(DeviceProblemGpu, TheTermFormTakesTheBuiltInsKernels) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const RastriginTwice two;
  const Problem &builtin = two.builtin, &mine = two.mine;
  const DEConfig de = path_config(40, Mutation::rand1, Crossover::bin);
  StopCriteria stop;
  stop.max_gens = 60;
  on_every_cuda_engine(mine, de, stop, [&](const Result& serial, const Result& r, const std::string& what, const RunOptions& gpu) {
    expect_same_run(minimize(builtin, de, stop, gpu), r, 0.0, what + " vs the built-in");
    expect_same_run(serial, r, gpu.precision == Precision::f64 ? 1e-9 : 1e-4, what + " vs serial");
  });
}

// devices --explain for a functor: the launches the engines make for it. The term form's are the built-in's,
// word for word; the row form evaluates a row per thread, in groups of 8 lanes on the gpu engine.
TEST(DeviceProblemGpu, ExplainsTheLaunchesOfAFunctor) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 50;
  const RastriginTwice two;
  const Problem &builtin = two.builtin, &terms = two.mine;
  const DEConfig de = path_config(40, Mutation::rand1, Crossover::bin);
  RunOptions o;
  o.precision = Precision::f32;
  for (int trials : {1, 30}) {
    const auto a = explain_launch(builtin, de, StopCriteria{}, o, trials), b = explain_launch(terms, de, StopCriteria{}, o, trials);
    ASSERT_EQ(a.size(), 4u);
    ASSERT_EQ(b.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(a[k].engine, b[k].engine);
      EXPECT_EQ(a[k].text, b[k].text) << a[k].engine << ", " << trials << " trials";
    }
  }
  const ManagedShift shift(D);
  const auto rows = explain_launch(coupled(shift, D), de, StopCriteria{}, o, 1);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].engine, "gpu-eval");
  EXPECT_NE(rows[0].text.find("evaluated by one thread each (1 blocks of 128 threads)"), std::string::npos) << rows[0].text;
  EXPECT_NE(rows[1].text.find("evaluation one thread per individual"), std::string::npos) << rows[1].text;
  EXPECT_EQ(rows[3].engine, "gpu");
  EXPECT_NE(rows[3].text.find("8 lanes per individual"), std::string::npos) << rows[3].text;
}
