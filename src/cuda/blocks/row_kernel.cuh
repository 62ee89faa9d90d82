// The kernel that evaluates rows by a user's functor in the row form, a thread per row: the one header both
// compilers build it from. nvcc compiles it into the engines (evaluate_rows.cuh, for device_problem.hpp's
// RowFunction<F>); NVRTC compiles it at run time for a CudaObjective's functor (cuda_objective.hpp; the
// library embeds this file's text). So it includes nothing and names nothing of the standard library,
// which NVRTC does not have.
#pragma once

namespace degpu::cuda {

// The threads of a block of evaluate_row_function.
constexpr int kRowFunctionThreads = 128;

// The functor as the kernel takes it (device_problem.hpp's RowFunction<F> has the same member).
template <class F>
struct RowCall {
  F f;
};

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)  // (host code reads the constant above)
// f[k] = fn.f(row k, D) for k < n, row k at x + k D, a thread per row.
template <class Fn, class T>
__global__ void evaluate_row_function(const __grid_constant__ Fn fn, const T* __restrict__ x, int D, int n, T* __restrict__ f) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) f[k] = static_cast<T>(fn.f(x + static_cast<unsigned long long>(k) * static_cast<unsigned long long>(D), D));
}
#endif

}  // namespace degpu::cuda
