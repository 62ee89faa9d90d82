// degpu::explain_launch's answer, in words, from what each CUDA engine chose for a problem (describe.cpp).
#pragma once
#include <string>
#include <vector>

#include "cuda/engines/gpu/gpu_plan.hpp"
#include "degpu/devices.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {
// `rows`: gpu-eval's and gpu-kernels' evaluation, `fused`: gpu-fused's launch in words, `plan`: the gpu
// engine's for `trials` trials.
std::vector<LaunchExplanation> describe_launches(const Problem& problem, const Resolved& r, int trials, const RowsLaunch& rows,
                                                 const std::string& fused, const GpuPlan& plan);
}  // namespace degpu::cuda
