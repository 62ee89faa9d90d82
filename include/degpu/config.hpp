// Build-wide macros shared by host and device code.
#pragma once

// Marks functions compiled for both the host and, under nvcc, the device.
#if defined(__CUDACC__)
#define DEGPU_HD __host__ __device__
#define DEGPU_HD_INLINE __host__ __device__ __forceinline__
#else
#define DEGPU_HD
#define DEGPU_HD_INLINE inline __attribute__((always_inline))
#endif

// DEGPU_HOST_CODE: 1 wherever host code compiles, 0 under NVRTC, which compiles the engines' device code for a
// CudaObjective (cuda_objective.hpp) and has neither host code nor the standard library: the host-only parts
// of the headers the engines' kernels include sit under `#if DEGPU_HOST_CODE`.
#if defined(__CUDACC_RTC__)
#define DEGPU_HOST_CODE 0
#else
#define DEGPU_HOST_CODE 1
#endif
