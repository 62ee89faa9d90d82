#include "core/params.hpp"

#include <algorithm>
#include <cmath>

namespace degpu::ops {

ops::Params make_params(const Problem& problem, const Resolved& r, const RunOptions& o) {
  ops::Params p{};
  p.seed = o.seed;
  p.trial = o.trial;
  p.D = problem.dim();
  p.np = r.de.np;
  p.mutation = r.de.mutation;
  p.crossover = r.de.crossover;
  p.repair = r.de.repair;
  p.dither = r.de.dither;
  p.algorithm = r.de.algorithm;
  p.jde = r.de.jde;
  p.jade = r.de.jade;
  p.F = r.de.F;
  p.CR = r.de.CR;
  p.shade = r.de.shade;
  p.lshade = r.de.lshade;
  p.jso = r.de.jso;
  p.max_evals = r.stop.max_evals.value_or(0);
  p.pbest_count = std::max(1, static_cast<int>(std::ceil(r.de.p * r.de.np)));
  p.pbest_lo = p.pbest_hi = 0;
  if (r.de.algorithm == Algorithm::shade) {  // each trial's own p in [p_min, p_max], pb among the best round(p NP)
    p.pbest_lo = r.de.shade.p_min > 0 ? r.de.shade.p_min : 2.0 / r.de.np;
    p.pbest_hi = std::max(p.pbest_lo, r.de.shade.p_max);
    p.pbest_count = std::clamp(static_cast<int>(std::floor(p.pbest_hi * r.de.np + 0.5)), 1, r.de.np);
  }
  return p;
}

std::vector<Resolved> island_configs(const Problem& problem, const Resolved& r, const Archipelago& a) {
  std::vector<Resolved> out;
  long long total = 0;
  for (int k = 0; k < a.islands; ++k) {
    out.push_back(a.configs.empty() ? r : resolve(problem, a.configs[static_cast<std::size_t>(k)], r.stop));
    total += out.back().de.np;
  }
  if (r.stop.max_evals)  // each island's plan (L-SHADE's, jSO's) over its share of the budget
    for (Resolved& rk : out)
      rk.stop.max_evals = std::max(1LL, static_cast<long long>(static_cast<double>(*r.stop.max_evals) * rk.de.np / static_cast<double>(total)));
  return out;
}

}  // namespace degpu::ops
