// Evaluates many individuals of a built-in problem at once on the GPU (the gpu-eval engine's device
// part). Plain C++ interface; the implementation is CUDA (batch_evaluator.cu) or, in a build without
// CUDA, a stub that throws NotCompiled.
#pragma once
#include <memory>

#include "degpu/problem.hpp"

namespace degpu::cuda {

// How the GPU does a CEC function's rotations: as matrix products, accumulated in T with fused
// multiply-adds (the default: for functions with one rotation and many rows, a kernel that rotates and
// evaluates a tile of rows at once, cuda/cec_device.cuh; else the population's product, then the bodies,
// cuda/cec_rotate.cuh); `unfused`: always the latter (the same values bit for bit; for comparison in tests
// and bench/cec_eval_gpu.cu); or inside each individual's thread exactly as the CPU does (double sums).
enum class CecRotation { product, unfused, per_thread };

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
