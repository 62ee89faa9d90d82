// The CUDA engines on the built-in problems (builtin.cuh; the translation units beside it), in plain C++.
#pragma once
#include <string>
#include <vector>

#include "cuda/engines/gpu/gpu_plan.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {
// The gpu engine: n trials o.trial .. o.trial + n - 1 in one launch, and its plan (builtin_run.cpp: the
// problem's family's unit in the run's precision, or the precision's unit); plan_gpu throws CudaError without a device.
std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
// The gpu engine's units (made by builtin_gpu_unit.cuh's DEGPU_GPU_UNIT): with CMake's DEGPU_GPU_UNITS=family
// (the default) one a family and precision, builtin_gpu_<family>_<precision>.cu, those of the families
// DEGPU_BUILTIN_FAMILIES omits left out; with =precision one a precision for every family, builtin_gpu_f32.cu
// and _f64.cu.
#define DEGPU_GPU_UNIT_DECLARE(NAME)                                                                               \
  std::vector<Result> minimize_gpu_##NAME(const Problem& problem, const Resolved& r, const RunOptions& o, int n); \
  GpuPlan plan_gpu_##NAME(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
DEGPU_GPU_UNIT_DECLARE(f32)
DEGPU_GPU_UNIT_DECLARE(f64)
DEGPU_GPU_UNIT_DECLARE(classic_f32)
DEGPU_GPU_UNIT_DECLARE(classic_f64)
DEGPU_GPU_UNIT_DECLARE(cec_f32)
DEGPU_GPU_UNIT_DECLARE(cec_f64)
DEGPU_GPU_UNIT_DECLARE(cec2010_f32)
DEGPU_GPU_UNIT_DECLARE(cec2010_f64)
DEGPU_GPU_UNIT_DECLARE(schedule_f32)
DEGPU_GPU_UNIT_DECLARE(schedule_f64)
#undef DEGPU_GPU_UNIT_DECLARE
// gpu-fused (builtin_fused.cu): one trial, and its launch in words (degpu devices --explain).
Result minimize_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o);
std::string explain_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o);
// gpu-kernels (builtin_rows.cu): one trial.
Result minimize_gpu_kernels(const Problem& problem, const Resolved& r, const RunOptions& o);
// How gpu-eval and gpu-kernels evaluate n rows of a built-in problem (builtin_rows.cu): a warp per row for a
// classic function, cec_device.cuh's kernels for a CEC function, a CTA per row for a schedule.
RowsLaunch builtin_rows_launch(const Problem& problem, const RunOptions& o, int n);
}  // namespace degpu::cuda
