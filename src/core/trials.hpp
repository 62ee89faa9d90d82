// What every algorithm's batch of trials shares (minimize_trials, minimize_masw_trials): the checks of
// --trials and the choice of the best trial.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/checkpoint.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::detail {

// ConfigError naming --trials unless n is in [1, rng::kMaxTrials].
void check_trial_count(int n);
// ConfigError naming --trials when trials first .. first + n - 1 pass the last trial index.
void check_trial_range(std::uint32_t first, int n);
// out.best: the lowest best_f, the first on ties; NaN best values (every evaluation NaN) rank last, as
// in the engines' selection.
void choose_best(TrialsResult& out);

// The engine auto runs `problem` on, given whether a CUDA device is there (resolve_engine asks once): threads
// for what only the CPU engines run or without a device; else gpu, or, where the problem's model refuses the
// gpu engine (a schedule of more machines than its groups hold), gpu-kernels, or threads where it refuses both;
// gpu-eval for a problem with constraints or integrality (the GPU engine that takes them). `host_loop`: the
// host must see every generation, for a callback (RunOptions::observe), which the gpu engine's kernels (a
// slice of generations a launch) do not give, so gpu-kernels in its place.
Engine auto_engine(const Problem& problem, bool device, bool host_loop = false);

// Trials o.trial .. o.trial + n - 1 one after another (an engine that does not run them together):
// one(ot) for each, ot being o with that trial's index. An interrupted trial (degpu/interrupt.hpp) is the
// last: the results are then fewer than n. With checkpoints (o.checkpoint.batch), the trials a resumed
// batch had done are its first results, the trial in progress resumes, and each trial's checkpoints hold
// the results before it.
template <class One>
std::vector<Result> each_trial(const RunOptions& o, int n, One&& one) {
  const CheckpointBatch* batch = o.checkpoint.batch.get();
  std::vector<Result> out;
  if (batch) out = batch->done;
  out.reserve(static_cast<std::size_t>(n));
  RunOptions ot = o;
  ot.trial += static_cast<std::uint32_t>(out.size());
  for (int t = static_cast<int>(out.size()); t < n; ++t, ++ot.trial) {
    if (batch) {
      auto b = std::make_shared<CheckpointBatch>(*batch);
      if (t > static_cast<int>(batch->done.size())) b->resume = nullptr;  // (only the trial in progress resumes)
      b->done = out;
      ot.checkpoint.batch = std::move(b);
    }
    out.push_back(one(ot));
    if (out.back().stop_reason == StopReason::interrupted) break;
  }
  return out;
}

// o with its checkpoints' batch (trials o.trial .. o.trial + n - 1 of this problem and configuration): the
// done trials and the sections of the trial in progress read from o.checkpoint.resume, which must be of
// the same run (DataError naming the file otherwise); o itself where it neither writes nor resumes one.
RunOptions with_checkpoints(const Problem& problem, const Resolved& r, const RunOptions& o, int n);

}  // namespace degpu::detail
