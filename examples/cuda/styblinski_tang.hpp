// The example's objective (minimize.cu), a functor in the row form of degpu/device_problem.hpp. degpu's GPU
// tests run this same functor on every engine (tests/gpu/test_device_problem.cu).
#pragma once
#include <degpu/device_problem.hpp>  // __host__ and __device__ outside nvcc

// Styblinski-Tang: f(x) = sum_j (x_j^4 - 16 x_j^2 + 5 x_j) / 2, minimum -39.16616570377142 D at
// x_j = -2.903534. The row form: one individual's row x of `dim` values, in float or double.
struct StyblinskiTang {
  static constexpr double kMinimumPerCoordinate = -39.16616570377142;
  template <class T>
  __host__ __device__ T operator()(const T* x, int dim) const {
    T s = 0;
    for (int j = 0; j < dim; ++j) s += (x[j] * x[j] * x[j] * x[j] - T(16) * x[j] * x[j] + T(5) * x[j]) / T(2);
    return s;
  }
};
