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
