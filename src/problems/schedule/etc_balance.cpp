// The balancing search (degpu/schedule.hpp): moves and swaps between two machines that lower the sum of the
// machines' finish times to the power p, for p = 2, 4, ..., 128; and local_search_schedule, which keeps the
// best of the pair search alone and of balancing searches (each followed by the pair search).
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "degpu/schedule.hpp"

namespace degpu {
namespace {

// x^(2^k) by k squarings (p is a power of two: cheap, and exact enough for comparisons of sums of two)
inline double power(double x, int k) {
  for (int i = 0; i < k; ++i) x *= x;
  return x;
}

double fitness_of(const EtcInstance& e, const std::vector<int>& machine, double lambda) {
  return schedule_fitness(schedule_cost(e, machine), lambda, e.m);
}

}  // namespace

LocalSearchStats balance_schedule(const EtcInstance& e, std::vector<int>& machine, int max_steps, int start,
                                  std::uint64_t seed) {
  (void)schedule_cost(e, machine);  // checks the assignment
  if (start < 0) throw ConfigError("balance_schedule: start " + std::to_string(start) + " must be >= 0");
  const int m = e.m;
  LocalSearchStats st;
  st.start = start;
  if (m < 2) return st;
  std::vector<std::vector<int>> tasks(m);
  std::vector<double> finish = e.ready;
  for (int t = 0; t < e.n; ++t) tasks[machine[t]].push_back(t), finish[machine[t]] += e.at(t, machine[t]);
  const auto drop = [](std::vector<int>& v, int x) { v.erase(std::find(v.begin(), v.end(), x)); };
  std::vector<int> order(m);
  std::uint32_t sweep = 0;
  for (int k = 1; k <= kBalanceLevels; ++k) {  // p = 2^k
    // Finish times over the makespan at the level's start: the potential only falls within a level, so each
    // term stays at most m and no power overflows. A term's scale does not change which candidate is lower.
    const double scale = *std::max_element(finish.begin(), finish.end());
    if (scale <= 0) break;
    const auto g = [&](double f) { return power(f / scale, k); };
    for (bool moved = true; moved && st.steps < max_steps;) {
      moved = false;
      std::iota(order.begin(), order.end(), 0);
      ++sweep;
      if (start > 0) {  // this start's order of the source machines for this sweep
        const rng::Stream s(seed, 0, rng::Purpose::schedule_order, sweep, static_cast<std::uint32_t>(start));
        for (int q = 0; q + 1 < m; ++q)
          std::swap(order[q], order[q + rng::uniform_below(s.word(q), static_cast<std::uint32_t>(m - q))]);
      }
      for (int i = 0; i < m && st.steps < max_steps; ++i) {
        const int a = order[i];
        double best = 0;
        int bt = -1, bu = -1, bb = -1;
        for (int b = 0; b < m; ++b) {
          if (b == a) continue;
          const double now = g(finish[a]) + g(finish[b]);
          const double limit = -1e-12 * now;  // a relative margin far above the rounding of these sums
          for (int t : tasks[a]) {
            const double fa0 = finish[a] - e.at(t, a), fb0 = finish[b] + e.at(t, b);
            st.candidates += 1 + static_cast<long long>(tasks[b].size());
            const double d = g(fa0) + g(fb0) - now;
            if (d < limit && d < best) best = d, bt = t, bu = -1, bb = b;
            for (int u : tasks[b]) {
              const double ds = g(fa0 + e.at(u, a)) + g(fb0 - e.at(u, b)) - now;
              if (ds < limit && ds < best) best = ds, bt = t, bu = u, bb = b;
            }
          }
        }
        if (bt < 0) continue;
        drop(tasks[a], bt), tasks[bb].push_back(bt), machine[bt] = bb;
        if (bu >= 0) drop(tasks[bb], bu), tasks[a].push_back(bu), machine[bu] = a;
        // exact finish times again (not the running differences)
        for (int j : {a, bb}) {
          finish[j] = e.ready[j];
          for (int t : tasks[j]) finish[j] += e.at(t, j);
        }
        ++st.steps, moved = true;
      }
    }
  }
  return st;
}

LocalSearchStats local_search_schedule(const EtcInstance& e, std::vector<int>& machine, double lambda,
                                       const LocalSearchOptions& o) {
  check_lambda(lambda);
  (void)schedule_cost(e, machine);  // checks the assignment before any thread starts
  if (o.starts < 0 || o.starts > kMaxLocalSearchStarts)
    throw ConfigError("local search starts " + std::to_string(o.starts) + ": must be in [0, " +
                      std::to_string(kMaxLocalSearchStarts) + "]");
  if (o.threads < 0) throw ConfigError("local search threads " + std::to_string(o.threads) + ": must be >= 0");
  // run -1: the pair search alone; run r >= 0: balancing start r, then the pair search. Each run writes its
  // own slot; the best is picked in run order, so the result does not depend on the threads.
  const int runs = o.starts + 1;
  std::vector<std::vector<int>> result(runs, machine);
  std::vector<double> fit(runs);
  std::vector<LocalSearchStats> stats(runs);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(threads, runs)))
  for (int i = 0; i < runs; ++i) {
    LocalSearchStats b;
    if (i > 0) b = balance_schedule(e, result[i], 1000000, i - 1, o.seed);
    const LocalSearchStats p = improve_schedule(e, result[i], lambda);
    b.steps += p.steps, b.candidates += p.candidates;
    stats[i] = b;
    fit[i] = fitness_of(e, result[i], lambda);
  }
  int keep = 0;
  for (int i = 1; i < runs; ++i)
    if (fit[i] < fit[keep]) keep = i;
  machine = result[keep];
  LocalSearchStats st;
  for (const LocalSearchStats& s : stats) st.steps += s.steps, st.candidates += s.candidates;  // the work of all
  st.start = keep - 1;
  return st;
}

}  // namespace degpu
