// One warp per individual: lanes stride over the coordinates computing the functor's terms, then
// reduce with shuffles; lane 0 applies the finaliser and the bias. Prefix functions (Schwefel 1.2) are
// evaluated by lane 0 alone for now (a scan per individual comes with the fast engines).
#pragma once
#include <cstddef>

#include "degpu/functions/classic.hpp"

namespace degpu::cuda {

constexpr int kWarpSize = 32;

// f(x_i) + bias by the lanes of one warp; the value is valid in lane 0.
template <class F, class T>
__device__ double warp_evaluate(const T* __restrict__ xi, const T* __restrict__ o, int D, int lane) {
  if constexpr (F::pattern == fn::Pattern::prefix) {
    return lane == 0 ? fn::evaluate<F, T, double>(xi, o, D) : 0.0;
  } else {
    auto z = [&](int i) -> T { return o ? static_cast<T>(xi[i] - o[i]) : xi[i]; };
    const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
    double s0 = 0, s1 = 0, p = 1;
    for (int i = lane; i < nterms; i += kWarpSize) {
      T zn = 0;
      if constexpr (F::pattern == fn::Pattern::neighbour) zn = z(i + 1);
      if constexpr (F::pattern == fn::Pattern::cyclic) zn = z(i + 1 == D ? 0 : i + 1);
      const fn::Terms<T> t = F::template term<T>(z(i), zn, i, D);
      if constexpr (F::sums >= 1) s0 += static_cast<double>(t.s0);
      if constexpr (F::sums >= 2) s1 += static_cast<double>(t.s1);
      if constexpr (F::product) p *= static_cast<double>(t.p);
    }
    for (int off = kWarpSize / 2; off > 0; off /= 2) {
      s0 += __shfl_down_sync(0xffffffffu, s0, off);
      s1 += __shfl_down_sync(0xffffffffu, s1, off);
      p *= __shfl_down_sync(0xffffffffu, p, off);
    }
    return F::template finish<double>(s0, s1, p, D);
  }
}

template <class F, class T>
__global__ void evaluate_rows(const T* __restrict__ x, const T* __restrict__ o, int D, int n, double bias,
                              T* __restrict__ f) {
  const int row = static_cast<int>((static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize);
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  if (row >= n) return;  // whole warps leave together
  const double value = warp_evaluate<F, T>(x + static_cast<std::size_t>(row) * D, o, D, lane);
  if (lane == 0) f[row] = static_cast<T>(value + bias);
}

// Launches evaluate_rows for the problem's function over n rows (n warps).
template <class T>
void launch_evaluate_rows(fn::Classic function, const T* x, const T* o, int D, int n, double bias, T* f,
                          cudaStream_t stream, int block = 256) {
  const long long threads = static_cast<long long>(n) * kWarpSize;
  const unsigned blocks = static_cast<unsigned>((threads + block - 1) / block);
  fn::visit(function, [&](auto fun) {
    evaluate_rows<decltype(fun), T><<<blocks, block, 0, stream>>>(x, o, D, n, bias, f);
  });
}

}  // namespace degpu::cuda
