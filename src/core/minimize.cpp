#include <chrono>
#include <string>

#include "cpu/engines.hpp"
#include "cuda/engines.hpp"
#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "degpu/run.hpp"

namespace degpu {

Result minimize(const Problem& problem, const DEConfig& de, const StopCriteria& stop, const RunOptions& options) {
  validate(problem, de, stop, options);
  const Resolved r = resolve(problem, de, stop);
  if (is_cuda_engine(options.engine)) return cuda::minimize_cuda(problem, r, options);
  return cpu::minimize_cpu(problem, r, options);
}

TrialsResult minimize_trials(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                             const RunOptions& options, int n) {
  if (n < 1 || static_cast<std::uint64_t>(options.trial) + static_cast<std::uint64_t>(n) > rng::kMaxTrials)
    throw ConfigError("--trials " + std::to_string(n) + ": must be in [1, " +
                      std::to_string(rng::kMaxTrials - options.trial) + "]");
  validate(problem, de, stop, options);
  const Resolved r = resolve(problem, de, stop);
  const auto t0 = std::chrono::steady_clock::now();
  TrialsResult out;
  if (is_cuda_engine(options.engine)) {
    out.trials = cuda::minimize_cuda_trials(problem, r, options, n);
  } else {
    RunOptions o = options;
    for (int t = 0; t < n; ++t, ++o.trial) out.trials.push_back(cpu::minimize_cpu(problem, r, o));
  }
  for (std::size_t t = 1; t < out.trials.size(); ++t)
    if (out.trials[t].best_f < out.trials[out.best].best_f) out.best = t;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace degpu
