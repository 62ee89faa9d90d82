// The entry points minimize() and minimize_trials() (degpu/run.hpp): auto resolved to an engine, the
// configuration checked and resolved, then the CPU engines (cpu/engines.hpp) or the CUDA engines
// (cuda/engines.hpp); and the checks and choice of the best shared by every algorithm's trials
// (core/trials.hpp).
#include <chrono>
#include <cmath>
#include <string>

#include "core/checkpoint_batch.hpp"
#include "core/de_ops.hpp"
#include "core/trials.hpp"
#include "cpu/engines.hpp"
#include "cuda/engines.hpp"
#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "degpu/run.hpp"

namespace degpu {
namespace {

// The options with auto replaced by the engine that runs: the engines never see auto.
RunOptions concrete(const Problem& problem, const DEConfig& de, const RunOptions& options) {
  RunOptions o = options;
  o.engine = resolve_engine(options.engine, problem, de, options);
  return o;
}

}  // namespace

namespace detail {
void check_trial_count(int n) {
  if (n < 1 || static_cast<std::uint64_t>(n) > rng::kMaxTrials)
    throw ConfigError("{trials} " + std::to_string(n) + ": must be in [1, " + std::to_string(rng::kMaxTrials) + "]");
}
void check_trial_range(std::uint32_t first, int n) {
  if (static_cast<std::uint64_t>(first) + static_cast<std::uint64_t>(n) > rng::kMaxTrials)
    throw ConfigError("{trials} " + std::to_string(n) + ": trials " + std::to_string(first) + " to " +
                      std::to_string(static_cast<std::uint64_t>(first) + n - 1) + " pass the last trial index " +
                      std::to_string(rng::kMaxTrials - 1) + " (at most " + std::to_string(rng::kMaxTrials - first) +
                      " trials from {trial} " + std::to_string(first) + ")");
}
RunOptions with_checkpoints(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  if (!o.checkpoint.used()) return o;
  return checkpoint_batch(ckpt::identity(problem, r, o, o.trial, n), o, n);
}

void choose_best(TrialsResult& out) {
  out.best = 0;
  for (std::size_t t = 1; t < out.trials.size(); ++t)
    if (ops::better(out.trials[t].best_f, out.trials[out.best].best_f)) out.best = t;
}
}  // namespace detail

Result minimize(const Problem& problem, const DEConfig& de, const StopCriteria& stop, const RunOptions& options) {
  RunOptions o = concrete(problem, de, options);
  validate(problem, de, stop, o);
  const Resolved r = resolve(problem, de, stop);
  o = detail::with_checkpoints(problem, r, o, 1);
  if (is_cuda_engine(o.engine)) return cuda::minimize_cuda(problem, r, o);
  return cpu::minimize_cpu(problem, r, o);
}

TrialsResult minimize_trials(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                             const RunOptions& options, int n) {
  detail::check_trial_count(n);
  const RunOptions o = concrete(problem, de, options);
  validate(problem, de, stop, o);  // options.trial < kMaxTrials
  detail::check_trial_range(o.trial, n);
  if (const int K = o.archipelago.islands; o.archipelago.used() && (static_cast<std::uint64_t>(o.trial) + n) * K > rng::kMaxTrials)
    throw ConfigError("{trials} " + std::to_string(n) + ": with {islands} " + std::to_string(K) + " the islands of trials " +
                      std::to_string(o.trial) + " to " + std::to_string(static_cast<std::uint64_t>(o.trial) + n - 1) +
                      " draw as trials past the last trial index " + std::to_string(rng::kMaxTrials - 1));
  const Resolved r = resolve(problem, de, stop);
  const RunOptions oc = detail::with_checkpoints(problem, r, o, n);
  const auto t0 = std::chrono::steady_clock::now();
  TrialsResult out;
  if (is_cuda_engine(o.engine)) {
    out.trials = cuda::minimize_cuda_trials(problem, r, oc, n);
  } else {
    out.trials = detail::each_trial(oc, n, [&](const RunOptions& ot) { return cpu::minimize_cpu(problem, r, ot); });
  }
  detail::choose_best(out);
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace degpu
