// Result of a run.
#pragma once
#include <optional>
#include <vector>

#include "degpu/stop.hpp"

namespace degpu {

struct HistoryPoint {
  HistoryPoint() = default;
  HistoryPoint(long long g, long long e, double f, double t) : generation(g), evals(e), best_f(f), wall_s(t) {}
  long long generation = 0, evals = 0;
  double best_f = 0, wall_s = 0;
  std::vector<double> best_x;  // with RunOptions::history_x (gpu: empty past its first ~256 MB of samples)
};

// Where a run's wall time went (MA-SW-Chains: Lastra et al.'s Tables 13-14): the GA's operators and
// replacements, the local search's vector work, the objective's evaluations, and the rest.
struct PhaseTimes {
  double ga = 0, ls = 0, eval = 0, other = 0;
};

// One island of an archipelago (RunOptions::archipelago) at the run's end.
struct IslandResult {
  double best_f = 0;
  long long evals = 0;  // its evaluations (the initial population's included)
  int final_np = 0;
};

struct Result {
  std::vector<double> best_x;
  double best_f = 0;
  std::optional<double> best_error;  // best_f - f*, when the optimum is known
  long long evals = 0;               // points evaluated, the initial population included (less infeasible: objective calls)
  long long generations = 0;         // generations after the initial population
  long long nan_evals = 0;           // evaluations that returned NaN (ranked worse than any number)
  long long infeasible = 0;          // under constraints: points of evals not evaluated, as they violated one
  StopReason stop_reason = StopReason::max_evals;
  double wall_s = 0;
  std::vector<HistoryPoint> history;  // sampled as RunOptions::history_every says
  std::optional<PhaseTimes> phases;   // MA-SW-Chains: the time of each phase
  long long ls_applications = 0;      // MA-SW-Chains: local searches applied
  // with RunOptions::keep_population: the last generation's rows (np x D, individual 0 first) and values
  std::vector<double> population, population_f;
  // The algorithm's final state: the population size at the end (L-SHADE's and jSO's shrink), the
  // archive's members (JADE's optional one, the SHADE family's), and the adaptive means the next trial
  // would draw around: JADE's mu_F and mu_CR, the SHADE family's memories slot by slot (jSO's fixed last
  // slot as 0.9; L-SHADE's terminal value as -1); empty for the others. Engines that keep no such state
  // (gpu-kernels, gpu-fused, gpu) report final_np only.
  int final_np = 0;
  int archive_size = 0;
  std::vector<double> memory_F, memory_CR;
  // An archipelago's islands, island 0 first (empty for one population). best_x, best_f, evals and the
  // history are the archipelago's; final_np is the islands' total; archive_size and the memories are
  // those of the island whose best is the result's.
  std::vector<IslandResult> islands;
};

}  // namespace degpu
