// Lampinen's feasibility rules (constraints.hpp) on a point's violations, for the host and the device: the
// CPU engines' selection and the GPU engines' kernels decide with these same functions. Plain C++ with no
// standard library, so that NVRTC compiles it with the engines' headers (cuda_objective.hpp).
#pragma once
#include "degpu/config.hpp"

namespace degpu {

// Whether a point of violations cv (m of them) is feasible: none above 0 (a NaN violation counts as met,
// as in scipy).
DEGPU_HD_INLINE bool feasible(const double* cv, int m) {
  for (int c = 0; c < m; ++c)
    if (cv[c] > 0) return false;
  return true;
}

// Lampinen's rule: whether a trial (value ft, violations cvt) replaces its individual (fi, cvi), m
// violations each; `no_worse(a, b)` is the engines' comparison of values (NaN worse than any number).
template <class T, class NoWorse>
DEGPU_HD_INLINE bool lampinen_takes(T ft, const double* cvt, T fi, const double* cvi, int m, NoWorse no_worse) {
  bool feasible_t = true, feasible_i = true, dominates = true;
  for (int c = 0; c < m; ++c) {
    feasible_t = feasible_t && !(cvt[c] > 0);
    feasible_i = feasible_i && !(cvi[c] > 0);
    dominates = dominates && cvt[c] <= cvi[c];
  }
  if (feasible_t && feasible_i) return no_worse(ft, fi);
  if (feasible_t) return true;
  return dominates;
}

// The summed violation by which the best of a population none of whose points is feasible is chosen
// (the lowest, the first of equals); NaN and +inf sums count as +inf, so that where no sum is finite the
// first point is the best.
DEGPU_HD_INLINE double summed_violation(const double* cv, int m) {
  double sum = 0;
  for (int c = 0; c < m; ++c) sum += cv[c];
  return sum < 1.0 / 0.0 ? sum : 1.0 / 0.0;
}

// The key by which the best is chosen under constraints, after feasibility: 0 where the point is feasible,
// else its summed violation (> 0 where the violations are >= 0, as every model's are), so that the best is
// the lowest (key, value, index): the feasible by value, then the others by summed violation.
DEGPU_HD_INLINE double violation_key(const double* cv, int m) { return feasible(cv, m) ? 0.0 : summed_violation(cv, m); }

}  // namespace degpu
