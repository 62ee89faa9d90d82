// Evaluates many individuals of a built-in problem at once on the GPU (the gpu-eval engine's device
// part). Plain C++ interface; the implementation is CUDA (batch_evaluator.cu) or, in a build without
// CUDA, a stub that throws NotCompiled.
#pragma once
#include <memory>

#include "degpu/problem.hpp"

namespace degpu::cuda {

// How the GPU does a CEC function's rotations: as matrix products over the population, accumulated in T
// with fused multiply-adds (the default: cuda/cec_rotate.cuh), or inside each individual's thread exactly
// as the CPU does (double sums; for comparison in tests and bench/cec_eval_gpu.cu).
enum class CecRotation { product, per_thread };

template <class T>
class BatchEvaluator {
 public:
  // Allocates room for `max_rows` individuals on device 0. Throws CudaError when there is no usable
  // device or not enough memory (saying how much is needed and free), ConfigError for a user objective.
  BatchEvaluator(const Problem& problem, int max_rows, CecRotation rotation = CecRotation::product);
  ~BatchEvaluator();
  BatchEvaluator(const BatchEvaluator&) = delete;
  BatchEvaluator& operator=(const BatchEvaluator&) = delete;

  // f[k] = problem(rows[k * D .. k * D + D)) for k < n (n <= max_rows); rows and f are host memory.
  void evaluate(const T* rows, int n, T* f);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace degpu::cuda
