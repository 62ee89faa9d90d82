// A user's objective as a C++ functor, on every engine.
//
//   struct Styblinski {
//     template <class T>
//     __host__ __device__ T operator()(const T* x, int dim) const {
//       T s = 0;
//       for (int j = 0; j < dim; ++j) s += x[j] * x[j] * x[j] * x[j] - 16 * x[j] * x[j] + 5 * x[j];
//       return s / 2;
//     }
//   };
//   degpu::Problem p = degpu::device_problem(Styblinski{}, std::vector<double>(10, -5), std::vector<double>(10, 5));
//
// The functor's row form: f(x, dim) for one individual's row x (dim values, in the run's precision T,
// float or double), returning f in T. It is evaluated as written: by the CPU engines in T on the host,
// and by the CUDA engines by one thread per individual (the gpu engine's and gpu-fused's groups of lanes
// leave the row to their first lane).
//
// The term form, the fast path on the GPU: a stateless struct written as the built-in functions are
// (functions/evaluate.hpp: pattern, sums, product, static term<T>(z, znext, i, D) and finish<A>(s0, s1, p,
// D), with z = x here). The engines then spread an individual's terms over a group of lanes, as for the
// built-ins, and the CPU engines evaluate it as they evaluate a built-in (bench/device_problem_gpu.cu: the
// row form is 4-7x slower where the evaluation is the work). device_problem() tells the forms apart by
// whether F has `pattern`.
//
// In a .cu file compiled by nvcc (and a degpu built with CUDA), device_problem() instantiates the CUDA
// engines' kernels for F right there (as CUB's algorithms are instantiated where they are called), so the
// problem runs on serial, threads, matrix, gpu-eval, gpu-kernels, gpu-fused and gpu. In a .cpp file (no
// nvcc) the same call gives a problem for the CPU engines only, and a CUDA engine refuses it with one line.
// Under nvcc, F is copied to the device as a kernel parameter: it must be trivially copyable (hold device
// pointers to any data, never containers) and at most 4 KiB; the CPU engines call it on the host, so data
// that both read belongs in managed memory (cudaMallocManaged). Compile the .cu file for sm_90 (the gpu
// engine's thread-block clusters), and with --fmad=false for the serial engine's bits on the GPU (degpu's
// own kernels are; examples/cuda does both).
//
// Outside nvcc this header defines __host__ and __device__ as nothing where they are not defined, so that
// the same functor compiles in a .cpp file.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "degpu/functions/evaluate.hpp"
#include "degpu/problem.hpp"

#if !defined(__CUDACC__)
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#endif

#if defined(__CUDACC__) && defined(DEGPU_HAVE_CUDA)
#define DEGPU_DEVICE_PROBLEM_ON_GPU 1
#include "cuda/row_problem.cuh"
#else
#define DEGPU_DEVICE_PROBLEM_ON_GPU 0
#include "degpu/errors.hpp"
#include "degpu/result.hpp"
#endif

namespace degpu {

namespace detail {

// Whether F is written in the term form (the built-ins', functions/evaluate.hpp), not the row form.
template <class F, class = void>
struct HasTerms : std::false_type {};
template <class F>
struct HasTerms<F, std::void_t<decltype(F::pattern), decltype(F::sums), decltype(F::product)>> : std::true_type {};

// The model of a functor problem (problem_model.hpp).
template <class F>
class FunctorModel final : public ProblemModel {
 public:
  static constexpr bool kTerms = HasTerms<F>::value;
  explicit FunctorModel(F f) : f_(std::move(f)) {}
  double evaluate(const double* x, int dim) const override {
    if constexpr (kTerms) return fn::evaluate<F, double, double>(x, nullptr, dim);
    else return static_cast<double>(f_(x, dim));
  }
  float evaluate(const float* x, int dim) const override {
    if constexpr (kTerms) return static_cast<float>(fn::evaluate<F, float, double>(x, nullptr, dim));
    else return static_cast<float>(f_(x, dim));
  }
#if DEGPU_DEVICE_PROBLEM_ON_GPU
  bool on_gpu() const override { return true; }
  std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const override {
    if constexpr (kTerms) return run<F>(problem, r, o, trials, F{});  // the kernels' type, as a built-in's
    else return run<cuda::RowFunction<F>>(problem, r, o, trials, cuda::RowFunction<F>{f_});
  }
  std::vector<LaunchExplanation> explain_gpu(const Problem& problem, const Resolved& r, const RunOptions& o,
                                             int trials) const override {
    if constexpr (kTerms) return explain<F>(problem, r, o, trials, F{});
    else return explain<cuda::RowFunction<F>>(problem, r, o, trials, cuda::RowFunction<F>{f_});
  }
#endif
  std::string not_on_gpu() const override {
#if defined(__CUDACC__)
    return "made by degpu::device_problem, but this degpu was built without CUDA: use {engine} serial, threads or matrix";
#else
    return "made by degpu::device_problem in a file not compiled by nvcc: compile that file as CUDA (a .cu file) to run it "
           "on the GPU engines, or use {engine} serial, threads or matrix";
#endif
  }

 private:
#if DEGPU_DEVICE_PROBLEM_ON_GPU
  template <class Fn>
  static std::vector<Result> run(const Problem& problem, const Resolved& r, const RunOptions& o, int trials, const Fn& fn) {
    return o.precision == Precision::f32 ? cuda::row_problem::run<float>(problem, r, o, trials, fn)
                                         : cuda::row_problem::run<double>(problem, r, o, trials, fn);
  }
  template <class Fn>
  static std::vector<LaunchExplanation> explain(const Problem& problem, const Resolved& r, const RunOptions& o, int trials,
                                                const Fn& fn) {
    return o.precision == Precision::f32 ? cuda::row_problem::explain<float>(problem, r, o, trials, fn)
                                         : cuda::row_problem::explain<double>(problem, r, o, trials, fn);
  }
#endif
  F f_;
};

}  // namespace detail

// A problem on the box [lower, upper] whose objective is f (the row form or the term form above).
// `optimum_f`, when given, enables target-error stops and best_error in results; `optimum_x` (D values), distance_to_optimum.
// ConfigError on a bad box (as Problem's constructor).
template <class F>
Problem device_problem(F f, std::vector<double> lower, std::vector<double> upper, std::string name = "user",
                       std::optional<double> optimum_f = std::nullopt,
                       std::optional<std::vector<double>> optimum_x = std::nullopt) {
  if constexpr (detail::HasTerms<F>::value) {
    static_assert(std::is_empty_v<F>, "device_problem: a functor in the term form is stateless (static term and finish)");
    static_assert(F::pattern != fn::Pattern::whole, "device_problem: the term form needs a pattern other than whole");
  } else {
    static_assert(std::is_invocable_r_v<double, const F&, const double*, int> && std::is_invocable_r_v<float, const F&, const float*, int>,
                  "device_problem: F needs `template <class T> __host__ __device__ T operator()(const T* x, int dim) const` "
                  "(the row form) or the built-ins' term form");
  }
#if DEGPU_DEVICE_PROBLEM_ON_GPU
  static_assert(std::is_trivially_copyable_v<F>,
                "device_problem: F is copied to the GPU as a kernel parameter, so it must be trivially copyable "
                "(hold device pointers to its data, not containers)");
  static_assert(sizeof(F) <= 4096, "device_problem: F is a kernel parameter and must be at most 4 KiB");
#endif
  return Problem::from_model(std::move(name), std::move(lower), std::move(upper),
                             std::make_shared<const detail::FunctorModel<F>>(std::move(f)), optimum_f, std::move(optimum_x));
}

}  // namespace degpu
