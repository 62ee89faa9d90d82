// The CUDA engines' entry points (absent from a build without CUDA, but MA-SW-Chains', which no_cuda.cpp
// gives a NotCompiled answer).
#pragma once
#include <string>
#include <vector>

#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/kernels/gpu_kernels.hpp"
#include "cuda/engines/masw/masw_gpu.hpp"
#include "cuda/families/builtin.hpp"
#include "degpu/devices.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {
// The gpu engine: n concurrent trials o.trial .. o.trial + n - 1 in one launch (gpu_engine.cpp: the
// precision's translation unit), and its plan; plan_gpu throws CudaError without a device.
std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
// degpu::explain_launch's answer from what each engine chose (explain.cpp): `rows` gpu-eval's and
// gpu-kernels' evaluation, `fused` gpu-fused's launch in words, `plan` the gpu engine's for `trials` trials.
std::vector<LaunchExplanation> describe_launches(const Problem& problem, const Resolved& r, int trials, const RowsLaunch& rows,
                                                 const std::string& fused, const GpuPlan& plan);
}  // namespace degpu::cuda
