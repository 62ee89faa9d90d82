// The CUDA engines on the built-in problems (builtin.cuh; the translation units beside it), in plain C++.
#pragma once
#include <string>
#include <vector>

#include "cuda/engines/gpu/gpu_plan.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {
// The gpu engine: n trials o.trial .. o.trial + n - 1 in one launch, and its plan (builtin_run.cpp: the
// precision's translation unit, builtin_gpu_f32.cu or _f64.cu); plan_gpu throws CudaError without a device.
std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
std::vector<Result> minimize_gpu_f32(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
std::vector<Result> minimize_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu_f32(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
// gpu-fused (builtin_fused.cu): one trial, and its launch in words (degpu devices --explain).
Result minimize_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o);
std::string explain_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o);
// gpu-kernels (builtin_rows.cu): one trial.
Result minimize_gpu_kernels(const Problem& problem, const Resolved& r, const RunOptions& o);
// How gpu-eval and gpu-kernels evaluate n rows of a built-in problem (builtin_rows.cu): a warp per row for a
// classic function, cec_device.cuh's kernels for a CEC function, a CTA per row for a schedule.
RowsLaunch builtin_rows_launch(const Problem& problem, const RunOptions& o, int n);
}  // namespace degpu::cuda
