// CEC 2017 / 2014 functions on the GPU (gpu-eval, gpu-kernels): the instance's data on the device and a
// thread per individual running the same code as the CPU (degpu/functions/cec.hpp), with its scratch
// (the official code's y and z) in global memory. The rotations, the bulk of the work, are done first for
// the whole population as matrix products (cuda/cec_rotate.cuh) and handed to the thread as `pre`;
// CEC 2017 F7 (and Rotation::per_thread) rotates inside the thread as the CPU does. docs/CEC.md.
#pragma once
#include <memory>
#include <vector>

#include "cuda/batch_evaluator.hpp"
#include "cuda/cec_rotate.cuh"
#include "cuda/device_array.cuh"
#include "degpu/functions/cec.hpp"
#include "problems/cec_data.hpp"

namespace degpu::cuda {

template <class T>
__global__ void evaluate_cec_rows(cec::View<T> v, const T* __restrict__ x, int n, T* __restrict__ f,
                                  T* __restrict__ work, const T* __restrict__ Z, int K) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const std::size_t D = static_cast<std::size_t>(v.D);
  const T* pre = Z != nullptr ? Z + row * K * D : nullptr;
  f[row] = static_cast<T>(cec::evaluate<T>(v, x + row * D, work + row * static_cast<std::size_t>(cec::work_size(v.D)), pre));
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
  int max_rows, K;  // K: components the product computes (0: rotations inside each thread)

  CecOnDevice(const CecInstance& c, int rows, CecRotation how = CecRotation::product)
      : shift(c.shift.size()), M(c.M.size()), work(static_cast<std::size_t>(rows) * cec::work_size(c.D)),
        Z(how == CecRotation::product ? static_cast<std::size_t>(rows) * cec_product_components(c) * c.D : 0),
        shuffle(c.shuffle.size()), view(c.view<T>()), max_rows(rows),
        K(how == CecRotation::product ? cec_product_components(c) : 0) {
    upload_as(shift.ptr, c.shift);
    upload_as(M.ptr, c.M);
    if (!c.shuffle.empty())
      DEGPU_CUDA_TRY(cudaMemcpy(shuffle.ptr, c.shuffle.data(), c.shuffle.size() * sizeof(int), cudaMemcpyHostToDevice));
    view.shift = shift.ptr;
    view.M = M.ptr;
    view.shuffle = c.shuffle.empty() ? nullptr : shuffle.ptr;
  }
  static std::size_t bytes(const CecInstance& c, int rows) {
    const std::size_t per_row = static_cast<std::size_t>(cec::work_size(c.D)) + static_cast<std::size_t>(cec_product_components(c)) * c.D;
    return (c.shift.size() + c.M.size() + static_cast<std::size_t>(rows) * per_row) * sizeof(T) + c.shuffle.size() * sizeof(int);
  }
  // f[k] = f(x row k) for k < n <= max_rows, on `stream`.
  void evaluate(const T* x, int n, T* f, cudaStream_t stream) const {
    if (n > max_rows) throw ConfigError("CecOnDevice: more rows than allocated");
    if (K > 0) launch_rotate_population<T>(view, K, x, n, Z.ptr, stream);
    constexpr int kBlock = 128;
    evaluate_cec_rows<T><<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(view, x, n, f, work.ptr, K > 0 ? Z.ptr : nullptr, K);
    DEGPU_CUDA_TRY(cudaGetLastError());
  }
};

}  // namespace degpu::cuda
