// One warp per individual (gpu-eval, gpu-kernels): the gpu engine's group evaluation (gpu_team.cuh) with a
// group of 32 lanes, prefix functions (Schwefel 1.2) by the lanes' scan.
#pragma once
#include <cstddef>

#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/gpu/gpu_team.cuh"

namespace degpu::cuda {

constexpr int kWarpSize = 32;

template <class F, class T>
__global__ void evaluate_rows(const T* __restrict__ x, const T* __restrict__ o, int D, int n, double bias,
                              T* __restrict__ f) {
  const int row = static_cast<int>((static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize);
  const Group<kWarpSize> grp;
  if (row >= n) return;  // whole warps leave together
  const double value = group_evaluate<F, T, kWarpSize>(x + static_cast<std::size_t>(row) * D, o, D, grp);
  if (grp.lane == 0) f[row] = static_cast<T>(value + bias);
}

// Launches evaluate_rows for the function type F over n rows (n warps, kEvaluateRowsBlock threads a block:
// what devices --explain says, gpu_plan.hpp's kWarpPerRow).
template <class F, class T>
void launch_evaluate_rows(const T* x, const T* o, int D, int n, double bias, T* f, cudaStream_t stream) {
  const long long threads = static_cast<long long>(n) * kWarpSize;
  const unsigned blocks = static_cast<unsigned>((threads + kEvaluateRowsBlock - 1) / kEvaluateRowsBlock);
  evaluate_rows<F, T><<<blocks, kEvaluateRowsBlock, 0, stream>>>(x, o, D, n, bias, f);
}
// The same for a built-in function named by its id.
template <class T>
void launch_evaluate_rows(fn::Classic function, const T* x, const T* o, int D, int n, double bias, T* f,
                          cudaStream_t stream) {
  fn::visit(function, [&](auto fun) { launch_evaluate_rows<decltype(fun), T>(x, o, D, n, bias, f, stream); });
}

}  // namespace degpu::cuda
