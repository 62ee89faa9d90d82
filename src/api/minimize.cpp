// The entry points minimize() and minimize_trials() (degpu/run.hpp): auto resolved to an engine, the
// configuration checked and resolved, then the CPU engines (cpu/engines.hpp) or the CUDA engines
// (cuda/engines.hpp); and the checks and choice of the best shared by every algorithm's trials
// (core/trials.hpp).
#include <chrono>
#include <cmath>
#include <string>

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
  if (o.checkpoint.file.empty() && o.checkpoint.resume.empty()) return o;
  auto b = std::make_shared<CheckpointBatch>();
  b->first = o.trial;
  b->n = n;
  b->identity = ckpt::identity(problem, r, o, o.trial, n);
  b->last_write = std::make_shared<double>(std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
  if (!o.checkpoint.resume.empty()) {
    auto s = std::make_shared<ckpt::Sections>(ckpt::read(o.checkpoint.resume));
    ckpt::check_identity(*s, b->identity);
    const auto done = s->value<std::uint32_t>("done");
    const auto at = s->value<std::uint32_t>("run.trial");
    if (done >= static_cast<std::uint32_t>(n) || at != o.trial + done)
      throw DataError(s->file + ": trial " + std::to_string(at) + " in progress after " + std::to_string(done) +
                      " done: not a checkpoint of trials " + std::to_string(o.trial) + " to " + std::to_string(o.trial + n - 1));
    for (std::uint32_t k = 0; k < done; ++k) b->done.push_back(ckpt::get_result(*s, "done." + std::to_string(k) + "."));
    b->resume = std::move(s);
  }
  RunOptions out = o;
  out.checkpoint.batch = std::move(b);
  return out;
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
