// Every CUDA call is checked: DEGPU_CUDA_TRY(call) throws CudaError with the file, the line and CUDA's
// message. Only for CUDA sources.
#pragma once
#include "degpu/config.hpp"
#if DEGPU_HOST_CODE  // (under NVRTC, for the kernels of a CudaObjective: nothing)
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "degpu/errors.hpp"

namespace degpu::cuda {
[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  throw CudaError(std::string("CUDA error: ") + cudaGetErrorString(e) + " (" + what + " at " + file + ":" +
                  std::to_string(line) + ")");
}

// Selects device 0 and checks that `bytes` of device memory are free. CudaError "no CUDA device: ..."
// or "out of GPU memory: N bytes needed, M available" otherwise (devices.cu).
void use_device(std::size_t bytes);

}  // namespace degpu::cuda

#define DEGPU_CUDA_TRY(call)                                                             \
  do {                                                                                   \
    const cudaError_t degpu_cuda_status_ = (call);                                       \
    if (degpu_cuda_status_ != cudaSuccess)                                               \
      ::degpu::cuda::throw_cuda(degpu_cuda_status_, #call, __FILE__, __LINE__);          \
  } while (0)
#endif
