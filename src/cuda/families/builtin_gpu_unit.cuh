// One unit of the gpu engine for the built-in problems: a precision (DEGPU_GPU_UNITS=precision, the default:
// builtin_gpu_f32.cu and _f64.cu, every family the build keeps) or a family and a precision
// (DEGPU_GPU_UNITS=family: builtin_gpu_<family>_<precision>.cu, which define the other families'
// DEGPU_FAMILY_* as 0 before including this header). A unit names itself with DEGPU_GPU_UNIT; builtin_run.cpp's
// dispatcher picks a problem's unit (builtin_family.hpp).
//
// Why a unit a family (issue 34, session 58; PERFORMANCE.md, "The shipped build is 21% slower..."): with every
// family's kernels in one unit a precision, the CEC kernels came out of the compiler with more stack (960 bytes
// against 736) and spills than the same source compiled in a unit of its family alone, and the whole D 100
// benchmark took 17.96 s against 14.86 on an H200, the same bits. Units a family also compile in parallel and
// load as smaller modules. Not the default yet: the family layout's build and its speed on every family (the
// classic functions' kernels change too) are to be measured on the GPU first (ONE_TRIAL_PLAN.md, step 6).
#pragma once
#include <vector>

#include "cuda/families/builtin.cuh"
#include "cuda/families/builtin.hpp"

// minimize_gpu_<NAME> and plan_gpu_<NAME> (builtin.hpp) for the unit's family in T.
#define DEGPU_GPU_UNIT(NAME, T)                                                                                        \
  namespace degpu::cuda {                                                                                              \
  std::vector<Result> minimize_gpu_##NAME(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {     \
    return families::run_gpu<T>(problem, r, o, n);                                                                     \
  }                                                                                                                    \
  GpuPlan plan_gpu_##NAME(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {                     \
    return families::plan_gpu<T>(problem, r, o, n);                                                                    \
  }                                                                                                                    \
  }
