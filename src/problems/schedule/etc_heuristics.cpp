// The classic mapping heuristics of Braun et al. 2001 (MCT, OLB, Min-Min, Max-Min): degpu/schedule.hpp.
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/schedule.hpp"

namespace degpu {

Heuristic parse_heuristic(const std::string& name, const std::string& option) {
  if (name == "minmin") return Heuristic::minmin;
  if (name == "maxmin") return Heuristic::maxmin;
  if (name == "mct") return Heuristic::mct;
  if (name == "olb") return Heuristic::olb;
  throw ConfigError(option + " " + name + ": expected minmin, maxmin, mct or olb");
}

const char* heuristic_name(Heuristic h) {
  switch (h) {
    case Heuristic::minmin: return "minmin";
    case Heuristic::maxmin: return "maxmin";
    case Heuristic::mct: return "mct";
    default: return "olb";
  }
}

namespace {

// The machine where task t completes first (the lowest index of equals), and that completion time.
struct Best {
  int machine;
  double completion;
};
Best earliest(const EtcInstance& e, const std::vector<double>& ready, int t) {
  Best b{0, ready[0] + e.at(t, 0)};
  for (int j = 1; j < e.m; ++j) {
    const double c = ready[j] + e.at(t, j);
    if (c < b.completion) b = {j, c};
  }
  return b;
}

}  // namespace

HeuristicSchedule run_heuristic(const EtcInstance& e, Heuristic h) {
  HeuristicSchedule s;
  s.machine.assign(e.n, 0);
  s.order.reserve(e.n);
  std::vector<double> ready = e.ready;
  const auto assign = [&](int t, int j) {
    s.machine[t] = j;
    s.order.push_back(t);
    ready[j] += e.at(t, j);
  };
  if (h == Heuristic::mct || h == Heuristic::olb) {
    for (int t = 0; t < e.n; ++t) {
      int j = 0;
      if (h == Heuristic::mct) {
        j = earliest(e, ready, t).machine;
      } else {
        for (int k = 1; k < e.m; ++k)
          if (ready[k] < ready[j]) j = k;
      }
      assign(t, j);
    }
  } else {
    // Each task left keeps its earliest completion; an assignment raises one machine's ready time, so
    // only the tasks whose best machine that was need it again. O(n^2 + n m) per instance in the worst case.
    std::vector<Best> best(e.n);
    std::vector<int> left(e.n);
    for (int t = 0; t < e.n; ++t) best[t] = earliest(e, ready, t), left[t] = t;
    const bool min = h == Heuristic::minmin;
    while (!left.empty()) {
      std::size_t pick = 0;
      for (std::size_t k = 1; k < left.size(); ++k) {
        const double c = best[left[k]].completion, p = best[left[pick]].completion;
        if (min ? c < p : c > p) pick = k;  // left stays in task order, so equals go to the lowest task
      }
      const int t = left[pick], j = best[t].machine;
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
      assign(t, j);
      for (int u : left)
        if (best[u].machine == j) best[u] = earliest(e, ready, u);
    }
  }
  s.cost = schedule_cost(e, s.machine);
  s.dispatch = schedule_cost(e, s.machine, s.order);
  return s;
}

}  // namespace degpu
