// Which built-in family a problem belongs to, in plain C++: builtin_run.cpp picks the gpu engine's unit by it
// (builtin_gpu_unit.cuh). The same tests in the same order as builtin.cuh's with_function.
#pragma once
#include <string>

#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

// The families a unit compiles the engines for, 1 or 0 each: all four unless the unit or the build says
// otherwise (the gpu engine's units define the other families' as 0 before including builtin.cuh; CMake's
// DEGPU_BUILTIN_FAMILIES, a developer's option, sets a family left out to 0 for builtin_run.cpp,
// builtin_fused.cu and the precision units builtin_gpu_f32.cu and _f64.cu).
#ifndef DEGPU_FAMILY_CLASSIC
#define DEGPU_FAMILY_CLASSIC 1
#endif
#ifndef DEGPU_FAMILY_CEC
#define DEGPU_FAMILY_CEC 1
#endif
#ifndef DEGPU_FAMILY_CEC2010
#define DEGPU_FAMILY_CEC2010 1
#endif
#ifndef DEGPU_FAMILY_SCHEDULE
#define DEGPU_FAMILY_SCHEDULE 1
#endif

namespace degpu::cuda {

enum class BuiltinFamily { classic, cec, cec2010, schedule, none };

inline BuiltinFamily builtin_family(const Problem& problem) {
  if (problem.is_builtin()) return BuiltinFamily::classic;
  if (problem.cec_data()) return BuiltinFamily::cec;
  if (problem.cec2010_data()) return BuiltinFamily::cec2010;
  if (problem.schedule_data()) return BuiltinFamily::schedule;
  return BuiltinFamily::none;
}

// The refusal of a problem whose family (its name in words) this build leaves out of the gpu and gpu-fused
// engines (DEGPU_FAMILY_* 0).
[[noreturn]] inline void throw_family_left_out(const Problem& problem, const char* family) {
  throw NotCompiled("problem " + problem.name() + ": this build of degpu leaves out the gpu and gpu-fused engines' " + family +
                    " functions (DEGPU_BUILTIN_FAMILIES, a developer's option): build with it unset, or use another engine");
}

// The refusal of a problem of no built-in family on the engines that run only those.
[[noreturn]] inline void throw_not_builtin(const Problem& problem) {
  throw ConfigError("problem " + problem.name() + ": not a built-in problem; the CUDA engines run it through its model");
}

}  // namespace degpu::cuda
