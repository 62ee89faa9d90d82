// The balancing search (degpu/schedule.hpp): moves and swaps between two machines that lower the sum of the
// machines' finish times to the power p, for p = 2, 4, ..., 128; and local_search_schedule, which keeps the
// better of the pair search alone and the balancing search followed by the pair search.
#include <algorithm>
#include <vector>

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

LocalSearchStats balance_schedule(const EtcInstance& e, std::vector<int>& machine, int max_steps) {
  (void)schedule_cost(e, machine);  // checks the assignment
  const int m = e.m;
  LocalSearchStats st;
  if (m < 2) return st;
  std::vector<std::vector<int>> tasks(m);
  std::vector<double> finish = e.ready;
  for (int t = 0; t < e.n; ++t) tasks[machine[t]].push_back(t), finish[machine[t]] += e.at(t, machine[t]);
  const auto drop = [](std::vector<int>& v, int x) { v.erase(std::find(v.begin(), v.end(), x)); };
  for (int k = 1; k <= kBalanceLevels; ++k) {  // p = 2^k
    // Finish times over the makespan at the level's start: the potential only falls within a level, so each
    // term stays at most m and no power overflows. A term's scale does not change which candidate is lower.
    const double scale = *std::max_element(finish.begin(), finish.end());
    if (scale <= 0) break;
    const auto g = [&](double f) { return power(f / scale, k); };
    for (bool moved = true; moved && st.steps < max_steps;) {
      moved = false;
      for (int a = 0; a < m && st.steps < max_steps; ++a) {
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

LocalSearchStats local_search_schedule(const EtcInstance& e, std::vector<int>& machine, double lambda) {
  check_lambda(lambda);
  std::vector<int> plain = machine;
  LocalSearchStats a = improve_schedule(e, plain, lambda);
  std::vector<int> bal = machine;
  LocalSearchStats b = balance_schedule(e, bal);
  const LocalSearchStats b2 = improve_schedule(e, bal, lambda);
  b.steps += b2.steps, b.candidates += b2.candidates;
  const bool take = fitness_of(e, bal, lambda) < fitness_of(e, plain, lambda);
  machine = take ? bal : plain;
  a.steps += b.steps, a.candidates += b.candidates;  // the work of both
  a.balanced = take;
  return a;
}

}  // namespace degpu
