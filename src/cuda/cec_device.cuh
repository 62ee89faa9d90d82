// CEC 2017 / 2014 functions on the GPU (gpu-eval, gpu-kernels): the instance's data on the device; the
// rotations, the bulk of the work, made first for the whole population as matrix products
// (cuda/cec_rotate.cuh), then a thread or a group of lanes per individual for the rest (the CPU's loops,
// folded in order: cec.hpp's SequentialFold, or cec_fold.cuh's GroupFold, the terms spread over the lanes;
// the CPU's bits for the same rotations either way). CecRotation::per_thread keeps the CPU's arithmetic
// instead: a thread per individual running cec::evaluate, which rotates with double sums in its scratch.
// docs/CEC.md.
#pragma once
#include <memory>
#include <vector>

#include "cuda/batch_evaluator.hpp"
#include "cuda/cec_fold.cuh"
#include "cuda/cec_rotate.cuh"
#include "cuda/device_array.cuh"
#include "degpu/functions/cec.hpp"
#include "problems/cec_data.hpp"

namespace degpu::cuda {

// f of n rows of x from their rotations Z (row-major by individual, components side by side), Lanes lanes
// per row, kCecRowThreads threads a CTA. With one lane a thread folds its row's terms in order itself (a
// warp covers 32 rows); with several, the row's terms are made on its lanes and every lane folds them
// (GroupFold): a warp covers 32 / Lanes rows, and each fold step is paid Lanes times over, but a row's
// latency is shorter. So groups where the rows are too few to fill the device (cec_row_lanes).
constexpr int kCecRowThreads = 128;
template <class T, int Lanes>
__global__ void __launch_bounds__(kCecRowThreads) evaluate_cec_groups(cec::View<T> v, const T* __restrict__ x, int n,
                                                                      T* __restrict__ f, const T* __restrict__ Z, int K) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long row = t / Lanes;
  if (row >= n) return;  // whole groups: the group's lanes share the row
  const std::size_t D = static_cast<std::size_t>(v.D);
  const T* z = Z + row * K * D;
  if constexpr (Lanes == 1) {
    f[row] = static_cast<T>(cec::evaluate_rotated<T>(v, x + row * D, [&](int c, int i) -> T { return z[c * D + i]; },
                                                     cec::detail::SequentialFold{}));
  } else {
    __shared__ __align__(16) double slots[kCecRowThreads * kFoldSlotDoubles];
    GroupFold fold;
    const int lane = static_cast<int>(t % Lanes);
    group_fold(lane, Lanes, slots + kFoldSlotDoubles * (threadIdx.x - lane), fold);
    const double value = cec_rotated_value(v, x + row * D, z, fold);
    if (lane == 0) f[row] = static_cast<T>(value);
  }
}
// Lanes per row for n rows: 8 while n groups of 8 leave the SMs at most half full (at 512 threads an SM),
// else 1. Measured on the H100 (janssen:f01, D 100): at N 10^5 a thread per row gave 5.0e8 evaluations/s,
// groups of 8 3.8e8; at NP 250 (gpu-kernels, case study 1) groups of 8 took janssen:f10 from 7.8 to 5.5 s.
inline int cec_row_lanes(int n) {
  return static_cast<long long>(n) * 8 <= static_cast<long long>(multiprocessors()) * 256 ? 8 : 1;
}

// f of n rows of x by a thread per row, rotating as the CPU does (CecRotation::per_thread).
template <class T>
__global__ void evaluate_cec_rows(cec::View<T> v, const T* __restrict__ x, int n, T* __restrict__ f, T* __restrict__ work) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const std::size_t D = static_cast<std::size_t>(v.D);
  f[row] = static_cast<T>(cec::evaluate<T>(v, x + row * D, work + row * static_cast<std::size_t>(cec::work_size(v.D))));
}

// Components whose rotation the product computes for function (s, fn): 0 for CEC 2017 F7.
inline int cec_product_components(const CecInstance& c) {
  return cec::rotation_rate(c.suite, c.fn, 0) == 0.0 ? 0 : cec::layout(c.suite, c.fn).matrices;
}

// One CEC instance on the device, with scratch for `max_rows` individuals evaluated at once.
template <class T>
struct CecOnDevice {
  DeviceArray<T> shift, M, work, Z;
  DeviceArray<int> shuffle;
  cec::View<T> view;
  int max_rows, K;  // K: components the product computes
  CecRotation how;

  CecOnDevice(const CecInstance& c, int rows, CecRotation how = CecRotation::product)
      : shift(c.shift.size()), M(c.M.size()),
        work(how == CecRotation::per_thread ? static_cast<std::size_t>(rows) * cec::work_size(c.D) : 0),
        Z(how == CecRotation::product ? static_cast<std::size_t>(rows) * cec_product_components(c) * c.D : 0),
        shuffle(c.shuffle.size()), view(c.view<T>()), max_rows(rows), K(cec_product_components(c)), how(how) {
    upload_as(shift.ptr, c.shift);
    upload_as(M.ptr, c.M);
    if (!c.shuffle.empty())
      DEGPU_CUDA_TRY(cudaMemcpy(shuffle.ptr, c.shuffle.data(), c.shuffle.size() * sizeof(int), cudaMemcpyHostToDevice));
    view.shift = shift.ptr;
    view.M = M.ptr;
    view.shuffle = c.shuffle.empty() ? nullptr : shuffle.ptr;
  }
  static std::size_t bytes(const CecInstance& c, int rows, CecRotation how = CecRotation::product) {
    const std::size_t per_row = how == CecRotation::per_thread ? static_cast<std::size_t>(cec::work_size(c.D))
                                                               : static_cast<std::size_t>(cec_product_components(c)) * c.D;
    return (c.shift.size() + c.M.size() + static_cast<std::size_t>(rows) * per_row) * sizeof(T) + c.shuffle.size() * sizeof(int);
  }
  // f[k] = f(x row k) for k < n <= max_rows, on `stream`.
  void evaluate(const T* x, int n, T* f, cudaStream_t stream) const {
    if (n > max_rows) throw ConfigError("CecOnDevice: more rows than allocated");
    if (n == 0) return;
    constexpr int kBlock = 128;
    if (how == CecRotation::per_thread) {
      evaluate_cec_rows<T><<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(view, x, n, f, work.ptr);
    } else {
      if (K > 0) launch_rotate_population<T>(view, K, x, n, Z.ptr, stream);
      const int lanes = cec_row_lanes(n);
      const unsigned blocks = static_cast<unsigned>((static_cast<long long>(n) * lanes + kCecRowThreads - 1) / kCecRowThreads);
      if (lanes == 8) evaluate_cec_groups<T, 8><<<blocks, kCecRowThreads, 0, stream>>>(view, x, n, f, Z.ptr, K);
      else evaluate_cec_groups<T, 1><<<blocks, kCecRowThreads, 0, stream>>>(view, x, n, f, Z.ptr, K);
    }
    DEGPU_CUDA_TRY(cudaGetLastError());
  }
};

}  // namespace degpu::cuda
