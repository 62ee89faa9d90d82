// One unit of the gpu engine for the built-in problems: a family and a precision (DEGPU_GPU_UNITS=family, the
// default: builtin_gpu_<family>_<precision>.cu, which define the other families' DEGPU_FAMILY_* as 0 before
// including this header) or a precision (DEGPU_GPU_UNITS=precision: builtin_gpu_f32.cu and _f64.cu, every
// family the build keeps). A unit names itself with DEGPU_GPU_UNIT; builtin_run.cpp's
// dispatcher picks a problem's unit (builtin_family.hpp).
//
// Why a unit a family (issue 34, session 58; PERFORMANCE.md, "The shipped build is 21% slower..."): with every
// family's kernels in one unit a precision, the CEC kernels came out of the compiler with more stack (960 bytes
// against 736) and spills than the same source compiled in a unit of its family alone, and the whole D 100
// benchmark took 17.96 s against 14.86 on an H200, the same bits. Units a family also compile in parallel and
// load as smaller modules. Measured in full (session 59, PERFORMANCE.md "The gpu engine's units by family"):
// the benchmark 14.85 s, the classic functions and the schedule the same, a CEC run starting in 0.4 s against
// 1.1; CEC 2010's rotated functions (f4, f9) 12-24% slower than in the unit a precision, the others the same.
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
