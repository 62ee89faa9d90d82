// Which built-in family a problem belongs to, in plain C++: builtin_run.cpp picks the gpu engine's unit by it
// (builtin_gpu_unit.cuh). The same tests in the same order as builtin.cuh's with_function.
#pragma once
#include "degpu/problem.hpp"

// The families a unit compiles the engines for, 1 or 0 each: all four unless the unit or the build says
// otherwise (the gpu engine's units define the other families' as 0 before including builtin.cuh; CMake's
// DEGPU_BUILTIN_FAMILIES, a developer's option, sets a family left out to 0 for builtin_run.cpp and
// builtin_fused.cu).
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

}  // namespace degpu::cuda
