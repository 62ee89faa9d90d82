// The gpu and gpu-fused engines with kernels NVRTC compiled for a CudaObjective's functor (cuda_objective.cpp
// compiles and loads them): the engines' host code (gpu_engine.cuh, gpu_fused.cuh, instantiated in
// compiled_gpu.cu for the stand-in types of kernel_function.cuh) plans and launches them through their
// handles. A build with CUDA only.
#pragma once
#include <vector>

#include "degpu/problem.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {

// The handles (cudaKernel_t) of the gpu engine's kernels run_resident<Fn, T, 8>, <..., 32>, run_grid<..., 32>
// and, for a functor in the term form (`terms`: Fn is its type; else RowFunction<its adapter>),
// run_wide<Fn, T>; or of gpu-fused's kernel_ie<Fn, T> and kernel_mcer<Fn, T>.
struct CompiledGpuKernels {
  const void* resident8 = nullptr;
  const void* resident32 = nullptr;
  const void* grid = nullptr;
  const void* wide = nullptr;
  const void* ie = nullptr;
  const void* mcer = nullptr;
  bool terms = false;
};

// trials o.trial .. o.trial + trials - 1 of the gpu engine (o.engine gpu) or gpu-fused (gpu_fused) on
// `problem` with those kernels.
template <class T>
std::vector<Result> run_compiled(const Problem& problem, const Resolved& r, const RunOptions& o, int trials,
                                 const CompiledGpuKernels& kernels);

}  // namespace degpu::cuda
