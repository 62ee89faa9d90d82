// Linear constraints (constraints.hpp's LinearForm: lower <= A x <= upper, A m x D row-major) on the
// device: a point's violations with the CPU's operations in the CPU's order (LinearConstraints::violation:
// the products summed from coordinate 0, in double, rounded at each step, no fused multiply-add), so the
// same bits as the CPU engines. Used by gpu-kernels (constrained_rows.cuh), gpu-fused and the gpu engine;
// plain device code, so that NVRTC compiles it with the engines' headers (cuda_objective.hpp).
#pragma once
#include <cstddef>

namespace degpu::cuda {

// The kernels' view of linear constraints on the device; m = 0: none (the kernels then skip every step
// that concerns constraints, on a uniform branch).
struct LinearOnDevice {
  const double* A = nullptr;
  const double* lower = nullptr;
  const double* upper = nullptr;
  int m = 0;
};

// Constraint c's violation by the point x (D values): max(lower_c - a_c x, 0) + max(a_c x - upper_c, 0).
template <class T>
__device__ __forceinline__ double linear_violation(const LinearOnDevice& L, int c, const T* x, int D) {
  const double* a = L.A + static_cast<std::size_t>(c) * static_cast<std::size_t>(D);
  double ax = 0;
  for (int j = 0; j < D; ++j) ax = __dadd_rn(ax, __dmul_rn(a[j], static_cast<double>(x[j])));
  return __dadd_rn(fmax(__dsub_rn(L.lower[c], ax), 0.0), fmax(__dsub_rn(ax, L.upper[c]), 0.0));
}

// The m violations of x into cv by `count` threads, thread `lane` taking constraints lane, lane + count, ...
// (each constraint's sum is one thread's, in order, so the bits do not depend on count).
template <class T>
__device__ __forceinline__ void linear_violations_by(const LinearOnDevice& L, const T* x, int D, int lane, int count,
                                                     double* cv) {
  for (int c = lane; c < L.m; c += count) cv[c] = linear_violation(L, c, x, D);
}

}  // namespace degpu::cuda
