// Stop criteria. A run stops at the first criterion met, checked after the initial population and after
// every generation. Selection is generational, so a run never exceeds max_evals: it stops when another
// generation of NP evaluations would.
#pragma once
#include <optional>
#include <string_view>

namespace degpu {

struct StopCriteria {
  std::optional<long long> max_evals;    // default when neither this nor max_gens is set: 10000 D
  std::optional<long long> max_gens;     // generations after the initial population
  std::optional<double> target_error;    // stop when best_f - f* <= target (needs a known optimum)
  std::optional<double> max_time_s;      // wall clock, checked once per generation
};

enum class StopReason { max_evals, max_gens, target, max_time };
std::string_view stop_reason_name(StopReason r);

// The stop decision every engine makes after generation g (0: the initial population): the first
// criterion met, in the order target, max_evals (another generation of np would exceed it), max_gens,
// max_time; nullopt to go on.
std::optional<StopReason> check_stop(const StopCriteria& stop, const std::optional<double>& optimum_f, double best_f,
                                     long long evals, int np, long long generation, double elapsed_s);

}  // namespace degpu
