// A user's row function on every CUDA engine: what degpu::device_problem (device_problem.hpp) compiles in
// the user's own .cu file, so that the engines' kernels are instantiated there for the user's functor F:
//   - gpu and gpu-fused: their kernels (gpu_engine.cuh, gpu_fused.cuh) for RowFunction<F>;
//   - gpu-kernels and gpu-eval: the library's engines with a RowsEvaluator whose kernel is instantiated
//     here (a thread per row; a warp per row for a functor in the term form).
// Fn is RowFunction<F> for the row form, F itself for the term form (as a built-in function's type).
#pragma once
#include <memory>
#include <vector>

#include "cuda/blocks/kernel_function.cuh"
#include "core/trials.hpp"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines/fused/gpu_fused.cuh"
#include "cuda/engines/gpu/evaluate_rows.cuh"
#include "cuda/engines/gpu/gpu_engine.cuh"
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines_cuda.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda::row_problem {

template <class Fn, class T>
class Rows final : public RowsEvaluator<T> {
 public:
  Rows(const Fn& fn, int D) : fn_(fn), D_(D) {}
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override {
    launch_function_rows<Fn, T>(fn_, rows, nullptr, D_, n, 0.0, f, stream);  // evaluate_rows.cuh
    DEGPU_CUDA_TRY(cudaGetLastError());
  }

 private:
  Fn fn_;
  int D_;
};

// n trials o.trial .. of the CUDA engine o.engine on `problem`, whose objective is fn.
template <class T, class Fn>
std::vector<Result> run(const Problem& problem, const Resolved& r, const RunOptions& o, int n, const Fn& fn) {
  if (o.engine == Engine::gpu) return gpu_engine::run<T>(problem, r, o, n, fn);
  const auto rows = std::make_shared<const Rows<Fn, T>>(fn, problem.dim());
  return detail::each_trial(o, n, [&](const RunOptions& ot) {
    switch (o.engine) {
      case Engine::gpu_fused: return fused::run<T>(problem, r, ot, fn);
      case Engine::gpu_kernels: return minimize_gpu_kernels_rows<T>(problem, r, ot, *rows);
      case Engine::gpu_eval: return minimize_gpu_eval_rows<T>(problem, r, ot, rows);
      default: throw ConfigError("{engine} " + std::string(engine_name(o.engine)) + ": not a CUDA engine");
    }
  });
}

// How each CUDA engine would launch for fn's problem (degpu::explain_launch): the plans the engines make for
// Fn, as run() above makes them.
template <class T, class Fn>
std::vector<LaunchExplanation> explain(const Problem& problem, const Resolved& r, const RunOptions& o, int trials, const Fn& fn) {
  const GpuPlan plan = gpu_engine::make_plan<Fn, T>(ops::make_params(problem, r, o), trials, fn, LinearConstraintsOnDevice::count(problem));
  return describe_launches(problem, r, trials, function_rows_launch<Fn>(), fused::explain<T, Fn>(problem, r, o), plan);
}

}  // namespace degpu::cuda::row_problem
