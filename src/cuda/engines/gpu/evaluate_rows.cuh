// A kernel function's evaluation of rows (gpu-eval, gpu-kernels): one warp per row for a function in the
// term form (the gpu engine's group evaluation, gpu_team.cuh, with a group of 32 lanes, prefix functions
// (Schwefel 1.2) by the lanes' scan) and for one that evaluates a row by a group of lanes itself (a CEC 2010
// function); one thread per row for a function in the row form (a user's functor).
#pragma once
#include <cstddef>

#include "cuda/blocks/row_kernel.cuh"
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/gpu/gpu_team.cuh"

namespace degpu::cuda {

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

// f[k] = fn's value of row k for k < n by a warp per row, for a function that evaluates a row by a group of
// lanes itself (kernel_function.cuh's kGroupValue), row k in its scratch slot k; kEvaluateRowsBlock threads
// a block.
template <class Fn, class T>
__global__ void evaluate_group_value_rows(const __grid_constant__ Fn fn, const T* __restrict__ x, int D, int n, T* __restrict__ f) {
  const int row = static_cast<int>((static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize);
  if (row >= n) return;  // whole warps leave together
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const double v = fn.template group_value<kEvaluateRowsBlock, kWarpSize>(
      static_cast<std::size_t>(row), x + static_cast<std::size_t>(row) * D, lane, kWarpSize, true,
      static_cast<int>(threadIdx.x) - lane, [] { __syncwarp(); });
  if (lane == 0) f[row] = static_cast<T>(v);
}

// f[k] = fn(row k) + bias for k < n on `stream`: a warp per row for a function in the term form (rows shifted
// by o where o is not null) and for one that evaluates a row by a group of lanes (its scratch slots for n
// rows at least; no shift, no bias: it has its own), a thread per row for one in the row form (the same).
template <class Fn, class T>
void launch_function_rows(const Fn& fn, const T* x, const T* o, int D, int n, double bias, T* f, cudaStream_t stream) {
  if (n < 1) return;
  if constexpr (has_terms<Fn>) {
    launch_evaluate_rows<Fn, T>(x, o, D, n, bias, f, stream);
  } else if constexpr (has_group_value<Fn>) {
    const long long threads = static_cast<long long>(n) * kWarpSize;
    evaluate_group_value_rows<Fn, T><<<static_cast<unsigned>((threads + kEvaluateRowsBlock - 1) / kEvaluateRowsBlock),
                                       kEvaluateRowsBlock, 0, stream>>>(fn, x, D, n, f);
  } else {
    static_assert(is_row_function<Fn>, "launch_function_rows: a function in the term form or the row form");
    evaluate_row_function<Fn, T><<<static_cast<unsigned>((n + kRowFunctionThreads - 1) / kRowFunctionThreads),
                                   kRowFunctionThreads, 0, stream>>>(fn, x, D, n, f);
  }
}
// How launch_function_rows launches for Fn (devices --explain).
template <class Fn>
RowsLaunch function_rows_launch() {
  return has_terms<Fn> || has_group_value<Fn> ? kWarpPerRow : RowsLaunch{"one thread", kRowFunctionThreads, kRowFunctionThreads, {}};
}

}  // namespace degpu::cuda
