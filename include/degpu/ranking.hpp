// The evaluation criteria of 001_4fa57c347dbcd9f9.txt, section 7.3.5 (after CEC 2022): on one function,
// every trial of every configuration is ranked together. A trial that reached the target error beats one
// that did not, and among those the faster (wall-clock) wins; the others rank by their error (NaN last).
// The best trial gets rank n m (n trials of m configurations), the worst 1, ties share their mean rank.
// A configuration's score is the sum of its trials' ranks minus n (n + 1) / 2; over a benchmark the
// scores of the functions are added. Higher is better.
#pragma once
#include <vector>

namespace degpu {

struct TrialOutcome {
  double error;    // best f - f* at the end of the trial
  double seconds;  // wall-clock time of the trial
};

struct Ranking {
  std::vector<double> score;  // per configuration
  std::vector<int> place;     // 1 = the highest score; equal scores share a place (1, 2, 2, 4)
};

// trials[j]: the outcomes of configuration j (each at least one trial). `target`: the error that counts
// as reached (1e-8 in the paper). ConfigError on an empty configuration.
Ranking rank_trials(const std::vector<std::vector<TrialOutcome>>& trials, double target = 1e-8);

// Places from scores (e.g. the totals over functions): 1 = highest, ties share.
std::vector<int> places(const std::vector<double>& score);

}  // namespace degpu
