// The gpu and gpu-fused engines with kernels NVRTC compiled for a CudaObjective's functor (cuda_objective.cpp
// compiles and loads them): the engines' host code (gpu_engine.cuh, gpu_fused.cuh, instantiated in
// compiled_gpu.cu for the stand-in types of kernel_function.cuh) plans and launches them through their
// handles. A build with CUDA only.
#pragma once
#include <vector>

#include "cuda/blocks/kernel_handles.hpp"
#include "degpu/problem.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {

// The handles of the gpu engine's kernels or gpu-fused's, and the form they were compiled for (`terms`: Fn
// is the functor's type; else RowFunction<its adapter>).
struct CompiledGpuKernels {
  KernelHandles handles;
  bool terms = false;
};

// trials o.trial .. o.trial + trials - 1 of the gpu engine (o.engine gpu) or gpu-fused (gpu_fused) on
// `problem` with those kernels.
template <class T>
std::vector<Result> run_compiled(const Problem& problem, const Resolved& r, const RunOptions& o, int trials,
                                 const CompiledGpuKernels& kernels);

}  // namespace degpu::cuda
