// The handles of the kernels NVRTC compiled for a CudaObjective's functor (cudaKernel_t, which the
// runtime's launch, attribute and occupancy calls take as a kernel): plain C++, so that cuda_objective.cpp
// fills them and the engines' host code (kernel_function.cuh's stand-in types) reads them.
#pragma once

namespace degpu::cuda {

struct KernelHandles {
  const void* resident8 = nullptr;   // the gpu engine's run_resident<Fn, T, 8, K> (K: the run's algorithm's kind)
  const void* resident32 = nullptr;  // run_resident<Fn, T, 32, K>
  const void* grid = nullptr;        // run_grid<Fn, T, 32, the kind shrinks>
  const void* wide = nullptr;        // run_wide<Fn, T, the kind shrinks> (the term form's only)
  const void* ie = nullptr;          // gpu-fused's kernel_ie<Fn, T>
  const void* mcer = nullptr;        // kernel_mcer<Fn, T>
};

}  // namespace degpu::cuda
