// An owning device allocation (checked), for the engines' buffers.
#pragma once
#include <algorithm>
#include <cstddef>

#include "cuda/check.hpp"

namespace degpu::cuda {

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t n) { DEGPU_CUDA_TRY(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

}  // namespace degpu::cuda
