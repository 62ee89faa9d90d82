// The flat run description every engine's operators take (host only).
#pragma once
#include "core/de_ops.hpp"
#include "degpu/run.hpp"

#include <vector>

namespace degpu::ops {
Params make_params(const Problem& problem, const Resolved& r, const RunOptions& o);

// The resolved configuration of each island of archipelago `a` (r: the run's): Archipelago::configs[k]
// resolved for the problem, or r for every island; each island's max_evals is its share of the run's, in
// proportion to its initial np (what L-SHADE's and jSO's plans read; the run stops on the run's).
std::vector<Resolved> island_configs(const Problem& problem, const Resolved& r, const Archipelago& a);

// RunOptions::initial as one block of rows (k x D) in T, k = initial.size().
template <class T>
std::vector<T> initial_rows(const RunOptions& o) {
  std::vector<T> out;
  for (const auto& row : o.initial) out.insert(out.end(), row.begin(), row.end());
  return out;
}
}
