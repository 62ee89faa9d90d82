// What every algorithm's batch of trials shares (minimize_trials, minimize_masw_trials): the checks of
// --trials and the choice of the best trial.
#pragma once
#include <cstdint>

#include "degpu/run.hpp"

namespace degpu::detail {

// ConfigError naming --trials unless n is in [1, rng::kMaxTrials].
void check_trial_count(int n);
// ConfigError naming --trials when trials first .. first + n - 1 pass the last trial index.
void check_trial_range(std::uint32_t first, int n);
// out.best: the lowest best_f, the first on ties; NaN best values (every evaluation NaN) rank last, as
// in the engines' selection.
void choose_best(TrialsResult& out);

}  // namespace degpu::detail
