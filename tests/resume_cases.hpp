// Shared by the CPU and GPU checkpoint tests (docs/CHECKPOINT_PLAN.md): a resumed run compared with the run
// that was not stopped, bit for bit, and MA-SW-Chains' interrupted and crashed runs resumed.
#pragma once
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "degpu/interrupt.hpp"
#include "degpu/masw.hpp"
#include "degpu/result.hpp"

// Ends a run at generation g as a crash would: by an exception, after the checkpoints before it.
struct Crash : std::runtime_error {
  Crash() : std::runtime_error("crash") {}
};

// b is a, bit for bit: the best value and row, the counts, the stop, the algorithm's report, the history.
inline void expect_resumed_run(const degpu::Result& a, const degpu::Result& b, const std::string& what) {
  EXPECT_EQ(std::memcmp(&a.best_f, &b.best_f, sizeof(double)), 0) << what << ": best_f " << a.best_f << " vs " << b.best_f;
  EXPECT_EQ(a.best_x, b.best_x) << what;
  EXPECT_EQ(a.evals, b.evals) << what;
  EXPECT_EQ(a.generations, b.generations) << what;
  EXPECT_EQ(a.stop_reason, b.stop_reason) << what;
  EXPECT_EQ(a.nan_evals, b.nan_evals) << what;
  EXPECT_EQ(a.infeasible, b.infeasible) << what;
  EXPECT_EQ(a.final_np, b.final_np) << what;
  EXPECT_EQ(a.archive_size, b.archive_size) << what;
  EXPECT_EQ(a.memory_F, b.memory_F) << what;
  EXPECT_EQ(a.memory_CR, b.memory_CR) << what;
  ASSERT_EQ(a.history.size(), b.history.size()) << what;
  for (std::size_t k = 0; k < a.history.size(); ++k) {
    EXPECT_EQ(a.history[k].generation, b.history[k].generation) << what << " sample " << k;
    EXPECT_EQ(a.history[k].evals, b.history[k].evals) << what << " sample " << k;
    EXPECT_EQ(std::memcmp(&a.history[k].best_f, &b.history[k].best_f, sizeof(double)), 0) << what << " sample " << k;
    EXPECT_EQ(a.history[k].best_x, b.history[k].best_x) << what << " sample " << k;
  }
}

// MA-SW-Chains on o's engine: interrupted after GA step 9 (local searches between) with a checkpoint asked
// for, and crashed at the 40th progress report with a checkpoint after every step; each resumed from `file`
// ends where the run that was not stopped ends.
inline void expect_masw_resumes(const degpu::Problem& p, const degpu::MaswConfig& c, const degpu::StopCriteria& stop,
                                const degpu::RunOptions& o, const std::string& file, const std::string& what) {
  using namespace degpu;
  const Result ref = minimize_masw(p, c, stop, o);
  ASSERT_GT(ref.ls_applications, 3) << what;
  RunOptions first = o;
  first.checkpoint.file = file;
  first.checkpoint.every_s = 1e9;
  first.progress = [](const Progress& pr) {
    if (pr.generation == 9) request_interrupt(SIGINT);
  };
  const Result stopped = minimize_masw(p, c, stop, first);
  clear_interrupt();
  ASSERT_EQ(stopped.stop_reason, StopReason::interrupted) << what;
  RunOptions again = o;
  again.checkpoint.resume = file;
  const Result resumed = minimize_masw(p, c, stop, again);
  expect_resumed_run(resumed, ref, "ma-sw-chains " + what + ", interrupted");
  EXPECT_EQ(resumed.ls_applications, ref.ls_applications) << what;
  std::remove(file.c_str());
  RunOptions crash = o;
  crash.checkpoint.file = file;
  crash.checkpoint.every_s = 0;
  int calls = 0;
  crash.progress = [&calls](const Progress&) {
    if (++calls == 40) throw Crash();
  };
  EXPECT_THROW(minimize_masw(p, c, stop, crash), Crash) << what;
  expect_resumed_run(minimize_masw(p, c, stop, again), ref, "ma-sw-chains " + what + ", crashed");
  std::remove(file.c_str());
}
