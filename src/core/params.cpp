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
  p.pbest_count = std::max(1, static_cast<int>(std::ceil(r.de.p * r.de.np)));
  return p;
}

}  // namespace degpu::ops
