// The gpu-kernels engine's launch shape (gpu_kernels.cu; degpu devices --explain reports it).
#pragma once

namespace degpu::cuda {
// gpu-kernels: threads per block (a block per individual, a thread per coordinate): D rounded up to
// whole warps, at most 256.
inline int gpu_kernels_threads(int D) { return D >= 256 ? 256 : ((D + 31) / 32) * 32; }
}  // namespace degpu::cuda
