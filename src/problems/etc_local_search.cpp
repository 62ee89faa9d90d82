// The schedule local search (degpu/schedule.hpp): best improvement over the moves and swaps of the tasks
// on the makespan machine, each candidate costed on the two machines it changes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "degpu/schedule.hpp"

namespace degpu {
namespace {

struct MachineCost {
  double finish = 0, flow = 0;
};

// Machine j's finish and flowtime with its tasks `list` (ascending), `skip` left out and `add` put in
// (-1: none), in task-index order from W_j.
MachineCost machine_cost(const EtcInstance& e, const std::vector<int>& list, int j, int skip, int add) {
  MachineCost c{e.ready[j], 0};
  const auto run = [&](int t) {
    c.finish += e.at(t, j);
    c.flow += c.finish;
  };
  bool added = add < 0;
  for (int t : list) {
    if (!added && add < t) run(add), added = true;
    if (t != skip) run(t);
  }
  if (!added) run(add);
  return c;
}

}  // namespace

LocalSearchStats improve_schedule(const EtcInstance& e, std::vector<int>& machine, double lambda, int max_steps) {
  (void)schedule_cost(e, machine);  // checks the assignment
  check_lambda(lambda);
  const int m = e.m;
  std::vector<std::vector<int>> tasks(m);
  for (int t = 0; t < e.n; ++t) tasks[machine[t]].push_back(t);
  std::vector<MachineCost> cost(m);
  for (int j = 0; j < m; ++j) cost[j] = machine_cost(e, tasks[j], j, -1, -1);
  const auto fitness = [&](int a, const MachineCost& ca, int b, const MachineCost& cb) {
    double span = std::max(ca.finish, cb.finish), flow = ca.flow + cb.flow;
    for (int j = 0; j < m; ++j)
      if (j != a && j != b) span = std::max(span, cost[j].finish), flow += cost[j].flow;
    return lambda * span + (1 - lambda) * flow / m;
  };
  LocalSearchStats st;
  if (m < 2) return st;
  for (; st.steps < max_steps; ++st.steps) {
    int jm = 0;
    for (int j = 1; j < m; ++j)
      if (cost[j].finish > cost[jm].finish) jm = j;
    const int other = jm == 0 ? 1 : 0;
    const double now = fitness(jm, cost[jm], other, cost[other]);
    double best = now - 1e-12 * std::fabs(now);
    int bt = -1, bu = -1, bj = -1;  // task off jm, task it swaps with (-1: a move), the other machine
    MachineCost ba, bb;
    for (int t : tasks[jm]) {
      const MachineCost a = machine_cost(e, tasks[jm], jm, t, -1);  // jm without t, whichever machine takes it
      for (int j = 0; j < m; ++j) {
        if (j == jm) continue;
        const MachineCost b = machine_cost(e, tasks[j], j, -1, t);
        ++st.candidates;
        if (const double f = fitness(jm, a, j, b); f < best) best = f, bt = t, bu = -1, bj = j, ba = a, bb = b;
        for (int u : tasks[j]) {
          const MachineCost a2 = machine_cost(e, tasks[jm], jm, t, u), b2 = machine_cost(e, tasks[j], j, u, t);
          ++st.candidates;
          if (const double f = fitness(jm, a2, j, b2); f < best) best = f, bt = t, bu = u, bj = j, ba = a2, bb = b2;
        }
      }
    }
    if (bt < 0) break;
    const auto erase = [](std::vector<int>& v, int x) { v.erase(std::find(v.begin(), v.end(), x)); };
    const auto insert = [](std::vector<int>& v, int x) { v.insert(std::lower_bound(v.begin(), v.end(), x), x); };
    erase(tasks[jm], bt), insert(tasks[bj], bt), machine[bt] = bj;
    if (bu >= 0) erase(tasks[bj], bu), insert(tasks[jm], bu), machine[bu] = jm;
    cost[jm] = ba, cost[bj] = bb;
  }
  return st;
}

}  // namespace degpu
