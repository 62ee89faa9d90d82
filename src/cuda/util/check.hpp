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
// The errors after which this process's CUDA context is unusable (DeviceFault): a kernel's fault, which
// every later call reports too, and a device lost.
inline bool kernel_fault(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorAssert: case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc: case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}
inline bool device_lost(cudaError_t e) {
  return e == cudaErrorECCUncorrectable || e == cudaErrorDevicesUnavailable || e == cudaErrorContextIsDestroyed ||
         e == cudaErrorUnknown;
}
[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  const std::string where = std::string(" (") + what + " at " + file + ":" + std::to_string(line) + ")";
  if (kernel_fault(e)) throw DeviceFault(std::string("the GPU faulted in a kernel: ") + cudaGetErrorString(e) + where);
  if (device_lost(e)) throw DeviceFault(std::string("the GPU was lost: ") + cudaGetErrorString(e) + where);
  throw CudaError(std::string("CUDA error: ") + cudaGetErrorString(e) + where);
}


// What a run that needs more device memory than there is may lower (the front ends' option names).
inline constexpr const char* kLowerDefault = "use a smaller {np} or {dim}";

// Selects the process's device (select_device.hpp) and checks that `bytes` of device memory are free. CudaError "no CUDA device: ..."
// or "out of GPU memory: N bytes needed, M available; LOWER" otherwise (devices.cu).
void use_device(std::size_t bytes, const char* lower = kLowerDefault);

// CudaError "out of GPU memory: an allocation of N bytes failed, M available; use a smaller {np} or
// {dim}": a cudaMalloc that found less than use_device's check did (another process took the memory).
[[noreturn]] void out_of_device_memory(std::size_t bytes);

}  // namespace degpu::cuda

#define DEGPU_CUDA_TRY(call)                                                             \
  do {                                                                                   \
    const cudaError_t degpu_cuda_status_ = (call);                                       \
    if (degpu_cuda_status_ != cudaSuccess)                                               \
      ::degpu::cuda::throw_cuda(degpu_cuda_status_, #call, __FILE__, __LINE__);          \
  } while (0)
#endif
