// Constraints on a problem, and integrality: what Problem::with_constraints and Problem::with_integrality
// attach to a problem.
//
// A constrained problem is minimised under Lampinen's feasibility rules, as scipy's differential_evolution
// does (J. Lampinen, "A constraint handling approach for the differential evolution algorithm", CEC 2002):
// every point has a violation per constraint (cv_c >= 0; 0 where satisfied) and is feasible where every
// cv_c is 0; the objective is evaluated at feasible points only (an infeasible one's value is +inf), and a
// trial replaces its individual where
//   both are feasible and f(trial) <= f(individual), or
//   the trial is feasible and the individual is not, or
//   the trial is infeasible and cv_c(trial) <= cv_c(individual) for every constraint c.
// The best is the feasible point of the lowest value, or, where none is feasible, the point of the lowest
// summed violation (the first such).
//
// Integrality: coordinate j takes only integer values where integer[j]. The engines search the box widened
// to [ceil(lo) - 1/2, floor(hi) + 1/2] (just inside) on those coordinates and round a coordinate to the
// nearest integer (ties to even) wherever the repair puts it in the box, so the population, the
// objective's arguments and the result hold integers there.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "degpu/feasibility.hpp"

namespace degpu {

// Linear constraints lower <= A x <= upper as data: A is m x dim, row-major (linear_constraints').
struct LinearForm {
  int dim = 0;
  std::vector<double> A, lower, upper;
  int count() const { return static_cast<int>(lower.size()); }
};

class ConstraintModel {
 public:
  virtual ~ConstraintModel() = default;
  // Its constraints as linear data where they all are linear (linear_constraints, or all_of such parts),
  // so that an engine may compute the violations itself (gpu-kernels on the device, with the same
  // arithmetic in the same order); else nullptr, and only violation() gives them.
  virtual const LinearForm* linear() const { return nullptr; }
  // The number of violations a point has (m >= 1).
  virtual int count() const = 0;
  // cv[k m + c] = the violation of constraint c by rows[k] (dim values each), for k in [0, n): >= 0, and 0
  // where satisfied. The engines call it once for a generation's rows, from one thread of a run (the
  // trials of minimize_trials may run at once: a model shared by them must allow concurrent calls).
  virtual void violation(const double* const* rows, int n, int dim, double* cv) const = 0;
};

// Linear constraints lower <= A x <= upper, A m x dim (row-major, m = lower.size() = upper.size()); a bound
// may be infinite. Constraint c's violation is max(0, lower_c - a_c x) + max(0, a_c x - upper_c), as scipy's.
// ConfigError where the sizes disagree, a value of A is not finite, or lower_c > upper_c.
std::shared_ptr<const ConstraintModel> linear_constraints(std::vector<double> A, int dim, std::vector<double> lower,
                                                          std::vector<double> upper);

// m constraints from a function of one point: violation(x, cv) writes the m violations of x.
std::shared_ptr<const ConstraintModel> constraint_function(int m,
                                                           std::function<void(std::span<const double> x, std::span<double> cv)> violation);

// Several models as one: their violations side by side, in order.
std::shared_ptr<const ConstraintModel> all_of(std::vector<std::shared_ptr<const ConstraintModel>> parts);

}  // namespace degpu
