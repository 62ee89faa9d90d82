#include "degpu/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "degpu/errors.hpp"

namespace degpu {
namespace {

// Strictly worse: the order of section 7.3.5 (ascending = worst first).
bool worse(const TrialOutcome& a, const TrialOutcome& b, double target) {
  const bool ra = a.error <= target, rb = b.error <= target;  // NaN error never reaches
  if (ra != rb) return rb;
  if (ra) return a.seconds > b.seconds;
  const bool na = std::isnan(a.error), nb = std::isnan(b.error);
  if (na != nb) return na;
  return !na && a.error > b.error;
}

}  // namespace

std::vector<int> places(const std::vector<double>& score) {
  std::vector<int> p(score.size());
  for (std::size_t j = 0; j < score.size(); ++j) {
    int better = 0;
    for (double s : score) better += s > score[j];
    p[j] = 1 + better;
  }
  return p;
}

Ranking rank_trials(const std::vector<std::vector<TrialOutcome>>& trials, double target) {
  struct Item {
    TrialOutcome o;
    std::size_t config;
  };
  std::vector<Item> all;
  for (std::size_t j = 0; j < trials.size(); ++j) {
    if (trials[j].empty()) throw ConfigError("ranking: configuration " + std::to_string(j + 1) + " has no trial");
    for (const TrialOutcome& o : trials[j]) all.push_back({o, j});
  }
  std::stable_sort(all.begin(), all.end(), [&](const Item& a, const Item& b) { return worse(a.o, b.o, target); });
  Ranking r;
  r.score.assign(trials.size(), 0.0);
  // ranks 1 (worst) .. N (best); a run of equal outcomes shares the mean of its ranks
  for (std::size_t k = 0; k < all.size();) {
    std::size_t e = k + 1;
    while (e < all.size() && !worse(all[k].o, all[e].o, target) && !worse(all[e].o, all[k].o, target)) ++e;
    const double mean = (static_cast<double>(k + 1) + static_cast<double>(e)) / 2;
    for (std::size_t q = k; q < e; ++q) r.score[all[q].config] += mean;
    k = e;
  }
  for (std::size_t j = 0; j < trials.size(); ++j) {
    const double n = static_cast<double>(trials[j].size());
    r.score[j] -= n * (n + 1) / 2;
  }
  r.place = places(r.score);
  return r;
}

}  // namespace degpu
