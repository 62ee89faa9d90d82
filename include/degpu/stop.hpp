// Stop criteria. A run stops at the first criterion met, checked after the initial population and after
// every generation. Selection is generational, so a run never exceeds max_evals: it stops when another
// generation of NP evaluations would.
#pragma once
#include <cstddef>

#include "degpu/config.hpp"
#if DEGPU_HOST_CODE
#include <optional>
#include <string_view>
#endif

namespace degpu {

// scipy's convergence test (its differential_evolution's tol and atol): the run stops after a generation
// (never generation 0) whose values f have std(f) <= atol + tol |mean(f)| (std with divisor NP), the mean
// and std finite (never with a value infinite or NaN, as scipy's test). The mean and the deviations are
// summed in tree_sum's order (core/algorithms/tree_sum.hpp) in double, so every engine takes the same
// decision on the same values.
struct Convergence {
  double tol = 0.01;  // relative: scipy's default
  double atol = 0;    // absolute
};

#if DEGPU_HOST_CODE  // (the engines' kernels take Convergence and StopReason only)
struct StopCriteria {
  std::optional<long long> max_evals;    // default when neither this nor max_gens is set: 10000 D
  std::optional<long long> max_gens;     // generations after the initial population
  std::optional<double> target_error;    // stop when best_f - f* <= target (needs a known optimum)
  std::optional<double> max_time_s;      // wall clock, checked once per generation
  std::optional<Convergence> convergence;  // every engine
};

#endif

// converged: the convergence test held; callback: RunOptions::observe asked to stop; interrupted:
// request_interrupt (degpu/interrupt.hpp: a signal, Ctrl-C). Appended only: the gpu engine's kernels
// encode StopReason + 1.
enum class StopReason { max_evals, max_gens, target, max_time, converged, callback, interrupted };
#if DEGPU_HOST_CODE
std::string_view stop_reason_name(StopReason r);

// The population's values as the convergence test sees them: their mean and standard deviation (divisor
// n), and whether both are finite (not where a value is infinite or NaN, or the sums overflow; the test
// holds for no spread that is not).
struct Spread {
  double mean = 0, std = 0;
  bool finite = true;
};
Spread spread_of(const double* f, std::size_t n);
bool converged(const Convergence& c, const Spread& s);

// The stop decision every engine makes after generation g (0: the initial population): the first
// criterion met, in the order target, converged (`is_converged`: the convergence test held, which the
// engine checks for g >= 1 where stop.convergence is set), max_evals (another generation of np would
// exceed it), max_gens, max_time; nullopt to go on.
std::optional<StopReason> check_stop(const StopCriteria& stop, const std::optional<double>& optimum_f, double best_f,
                                     long long evals, int np, long long generation, double elapsed_s,
                                     bool is_converged = false);
#endif

}  // namespace degpu
