// Evaluating many individuals at once on the GPU: the gpu-eval and gpu-kernels engines' device part. Plain
// C++ interface; the implementation is CUDA (batch_evaluator.cu) or, in a build without CUDA, a stub that
// throws NotCompiled.
//   - RowsEvaluator<T>: rows in device memory in, values in device memory out, on a stream: a problem's
//     batch evaluation as those engines see it. builtin_rows() makes the built-in problems' (classic,
//     CEC 2017 / 2014, schedule); a model makes its own (device_problem.hpp: a thread per row).
//   - BatchEvaluator<T>: host rows in, host values out (gpu-eval), around a RowsEvaluator.
#pragma once
#include <memory>
#include <vector>

#include "core/trials.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"
#include "problems/cec/cec_rotation.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace degpu::cuda {


template <class T>
class RowsEvaluator {
 public:
  virtual ~RowsEvaluator() = default;
  // f[k] = the problem's value of rows[k D .. k D + D) for k < n (n at most the rows it was made for);
  // rows and f are device memory. Launches on `stream` and returns; CudaError where a launch fails.
  virtual void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const = 0;
};

// A built-in problem's evaluator for up to max_rows rows, its data uploaded (after checking that the
// device has the memory: CudaError otherwise). ConfigError for a problem with no built-in evaluator.
template <class T>
std::shared_ptr<const RowsEvaluator<T>> builtin_rows(const Problem& problem, int max_rows,
                                                     CecRotation rotation = CecRotation::product);

template <class T>
class BatchEvaluator {
 public:
  // A built-in problem's evaluator (builtin_rows) and room for `max_rows` individuals on device 0. Throws
  // CudaError when there is no usable device or not enough memory (saying how much is needed and free),
  // ConfigError for a user objective.
  BatchEvaluator(const Problem& problem, int max_rows, CecRotation rotation = CecRotation::product);
  // The same around a given evaluator of rows of length dim.
  BatchEvaluator(int dim, int max_rows, std::shared_ptr<const RowsEvaluator<T>> rows);
  ~BatchEvaluator();
  BatchEvaluator(const BatchEvaluator&) = delete;
  BatchEvaluator& operator=(const BatchEvaluator&) = delete;

  // f[k] = problem(rows[k * D .. k * D + D)) for k < n (n <= max_rows); rows and f are host memory.
  void evaluate(const T* rows, int n, T* f);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The gpu-kernels and gpu-eval engines (one trial, o.trial) with a given evaluator: a model's
// (device_problem.hpp). `r` checked and resolved. gpu-kernels exists only in a build with CUDA.
template <class T>
Result minimize_gpu_kernels_rows(const Problem& problem, const Resolved& r, const RunOptions& o, const RowsEvaluator<T>& rows);
template <class T>
Result minimize_gpu_eval_rows(const Problem& problem, const Resolved& r, const RunOptions& o,
                              std::shared_ptr<const RowsEvaluator<T>> rows);
// Trials o.trial .. o.trial + trials - 1 of gpu-kernels or gpu-eval (o.engine) with `rows`: the run of an
// objective that only those engines run (device_batch.cpp's, a CudaObjective's). A build with CUDA only.
template <class T>
std::vector<Result> minimize_rows_trials(const Problem& problem, const Resolved& r, const RunOptions& o, int trials,
                                         std::shared_ptr<const RowsEvaluator<T>> rows) {
  return detail::each_trial(o, trials, [&](const RunOptions& ot) {
    if (o.engine == Engine::gpu_kernels) return minimize_gpu_kernels_rows<T>(problem, r, ot, *rows);
    return minimize_gpu_eval_rows<T>(problem, r, ot, rows);
  });
}
// gpu-eval (gpu_eval.cpp) on a built-in problem (its BatchEvaluator); without CUDA it throws NotCompiled.
Result minimize_gpu_eval(const Problem& problem, const Resolved& r, const RunOptions& o);

}  // namespace degpu::cuda
