// The schedule local search (degpu/schedule.hpp): moves and swaps of tasks between two machines, the
// busier machine's first, each taken when it lowers the fitness, or keeps it and lowers the later of the
// two machines' finish times.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "degpu/schedule.hpp"

namespace degpu {
namespace {

// A machine's tasks (ascending) and their completion times, in task-index order from W_j.
struct MachineState {
  std::vector<int> tasks;
  std::vector<double> done;  // done[i]: tasks[i]'s completion time
  double finish = 0, flow = 0;
  void cost(const EtcInstance& e, int j) {
    done.resize(tasks.size());
    finish = e.ready[j], flow = 0;
    for (std::size_t i = 0; i < tasks.size(); ++i) finish += e.at(tasks[i], j), flow += finish, done[i] = finish;
  }
  int position(int t) const { return static_cast<int>(std::lower_bound(tasks.begin(), tasks.end(), t) - tasks.begin()); }
};

// Machine j's finish and flowtime after its task at position p (time x) leaves and, when add_time >= 0, a task
// whose place among the tasks is q0 (its lower bound, counted with the one leaving) comes in (time add_time).
// O(1): the later tasks' completions all shift by the same amount.
void changed(const MachineState& s, double ready, int p, double x, int q0, double add_time, double& finish,
             double& flow) {
  const int k = static_cast<int>(s.tasks.size());
  finish = s.finish, flow = s.flow;
  if (p >= 0) finish -= x, flow -= s.done[p] + x * (k - 1 - p);
  if (add_time < 0) return;
  const int kk = p >= 0 ? k - 1 : k;      // tasks left
  const int q = p >= 0 && q0 > p ? q0 - 1 : q0;  // its place among them
  double before = ready;  // the completion of the task before it
  if (q > 0) before = p < 0 || q - 1 < p ? s.done[q - 1] : s.done[q] - x;
  finish += add_time, flow += before + add_time + add_time * (kk - q);
}

// A candidate: task t off machine a onto b, and u (-1: none, a move) off b onto a.
struct Candidate {
  int t = -1, u = -1, b = -1;
  double f = 0, hi = 0, lo = 0;  // the fitness after it, and the later and earlier of a's and b's finishes
  bool better_than(const Candidate& o) const {
    if (o.t < 0 || f != o.f) return o.t < 0 || f < o.f;
    return hi != o.hi ? hi < o.hi : lo < o.lo;
  }
};

}  // namespace

LocalSearchStats improve_schedule(const EtcInstance& e, std::vector<int>& machine, double lambda, int max_steps) {
  (void)schedule_cost(e, machine);  // checks the assignment
  check_lambda(lambda);
  const int m = e.m;
  std::vector<MachineState> ms(m);
  for (int t = 0; t < e.n; ++t) ms[machine[t]].tasks.push_back(t);
  for (int j = 0; j < m; ++j) ms[j].cost(e, j);
  // At lambda 1 the fitness is the makespan: a candidate that keeps it may still lower the later finish of
  // its two machines (the busier one's tasks go first, so a busier b's turn as the source comes first).
  const bool span_only = lambda == 1.0;
  LocalSearchStats st;
  if (m < 2) return st;
  std::vector<int> order(m), in_a;
  for (; st.steps < max_steps; ++st.steps) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return ms[x].finish > ms[y].finish; });
    int a = -1;
    Candidate best;
    for (int src : order) {
      const MachineState& sa = ms[src];
      for (int b = 0; b < m; ++b) {
        if (b == src || (span_only && ms[b].finish > sa.finish)) continue;
        const MachineState& sb = ms[b];
        double rest_span = 0, rest_flow = 0;
        for (int j = 0; j < m; ++j)
          if (j != src && j != b) rest_span = std::max(rest_span, ms[j].finish), rest_flow += ms[j].flow;
        const auto fitness = [&](double fa, double wa, double fb, double wb) {
          return lambda * std::max({fa, fb, rest_span}) + (1 - lambda) * (wa + wb + rest_flow) / m;
        };
        const double now = fitness(sa.finish, sa.flow, sb.finish, sb.flow);
        const double old_hi = std::max(sa.finish, sb.finish);
        const auto offer = [&](const Candidate& c) {
          if (c.better_than(best)) best = c;
        };
        if (span_only) {
          // The fitness is max(a's, b's, the rest's finish): it is lower, or the same with a lower later
          // finish of the two, exactly when that later finish drops below a's and b's old one. The margin
          // is far above the rounding of these differences, so the exact costs (recomputed below) agree.
          const double limit = old_hi * (1 - 1e-12);
          for (int t : sa.tasks) {
            const double fa0 = sa.finish - e.at(t, src), fb0 = sb.finish + e.at(t, b);
            st.candidates += 1 + static_cast<long long>(sb.tasks.size());
            if (fb0 < limit && fa0 < limit) offer({t, -1, b, std::max({fa0, fb0, rest_span}), std::max(fa0, fb0), std::min(fa0, fb0)});
            for (int u : sb.tasks) {
              const double fa = fa0 + e.at(u, src), fb = fb0 - e.at(u, b);
              if (fa < limit && fb < limit) offer({t, u, b, std::max({fa, fb, rest_span}), std::max(fa, fb), std::min(fa, fb)});
            }
          }
          continue;
        }
        in_a.resize(sb.tasks.size());  // where each of b's tasks would go among a's
        for (std::size_t r = 0; r < sb.tasks.size(); ++r) in_a[r] = sa.position(sb.tasks[r]);
        for (int p = 0; p < static_cast<int>(sa.tasks.size()); ++p) {
          const int t = sa.tasks[p];
          const double x = e.at(t, src), z = e.at(t, b);
          const int in_b = sb.position(t);
          for (int r = -1; r < static_cast<int>(sb.tasks.size()); ++r) {  // r = -1: the move
            const int u = r < 0 ? -1 : sb.tasks[r];
            double fa, wa, fb, wb;
            changed(sa, e.ready[src], p, x, r < 0 ? 0 : in_a[r], r < 0 ? -1.0 : e.at(u, src), fa, wa);
            changed(sb, e.ready[b], r, r < 0 ? 0.0 : e.at(u, b), in_b, z, fb, wb);
            ++st.candidates;
            const double f = fitness(fa, wa, fb, wb);
            // A lower fitness (by a margin far above the rounding of these running sums)
            if (f < now - 1e-12 * std::fabs(now)) offer({t, u, b, f, std::max(fa, fb), std::min(fa, fb)});
          }
        }
      }
      if (best.t >= 0) {
        a = src;
        break;
      }
    }
    if (a < 0) break;
    const auto erase = [](std::vector<int>& v, int x) { v.erase(std::find(v.begin(), v.end(), x)); };
    const auto insert = [](std::vector<int>& v, int x) { v.insert(std::lower_bound(v.begin(), v.end(), x), x); };
    const int b = best.b;
    erase(ms[a].tasks, best.t), insert(ms[b].tasks, best.t), machine[best.t] = b;
    if (best.u >= 0) erase(ms[b].tasks, best.u), insert(ms[a].tasks, best.u), machine[best.u] = a;
    ms[a].cost(e, a), ms[b].cost(e, b);  // exact, in task-index order
  }
  return st;
}

}  // namespace degpu
