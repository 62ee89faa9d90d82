// JADE (Zhang and Sanderson 2009, "JADE: adaptive differential evolution with optional
// external archive", IEEE TEC 13(5), section III): the first algorithm with a population-level update.
// Mutation current-to-pbest/1. Each generation every trial draws its own CR ~ N(mu_CR, 0.1), cut to [0, 1],
// and F ~ Cauchy(mu_F, 0.1), 1 where it is >= 1 and drawn again where it is <= 0. A trial strictly better
// than its parent puts its F and CR in the generation's sets S_F and S_CR; after the generation, where
// the sets are not empty,
//     mu_CR = (1 - c) mu_CR + c mean(S_CR),    mu_F = (1 - c) mu_F + c sum(F^2) / sum(F)  (Lehmer mean),
// with c = 0.1 and mu_F = mu_CR = 0.5 to start (DEConfig::jade). A trial that only ties replaces its parent
// (degpu's selection, as L-SHADE's authors' code does) without entering the sets. The optional archive
// (DEConfig::jade.archive, 0 by default): the parents that lost, r2 drawn from P union A, as SHADE's
// (registry.hpp's archive_capacity; every engine but the gpu engine, until the SHADE family issue's step 7).
//
// The draws: cauchy_normal.hpp's, with scale and deviation 0.1.
#pragma once
#include <cmath>

#include "core/algorithms/algorithm.hpp"
#include "core/algorithms/cauchy_normal.hpp"
#include "degpu/config.hpp"
#include "degpu/errors.hpp"
#if DEGPU_HOST_CODE
#include <string>
#include <vector>
#endif

namespace degpu::alg {

struct Jade {
  static constexpr Algorithm id = Algorithm::jade;
  static constexpr const char* name = "jade";
  static constexpr int kState = 0;
  static constexpr int kShared = 2;  // mu_F, mu_CR
  static constexpr int kSums = 4;    // success (1 or 0), F, F^2, CR of a success

#if DEGPU_HOST_CODE
  static void check(const DEConfig& de) {
    check_own_draws(de, "JADE", "jade");
    const degpu::Jade& j = de.jade;
    if (!(j.c > 0 && j.c <= 1) || !(j.mu_F > 0 && j.mu_F <= 1) || !(j.mu_CR >= 0 && j.mu_CR <= 1))
      throw ConfigError("{algorithm} jade: c must be in (0, 1], the initial mu_F in (0, 1] and mu_CR in [0, 1]");
    if (!(j.archive >= 0 && j.archive <= 100))
      throw ConfigError("{algorithm} jade: the archive rate must be in [0, 100] (a fraction of NP)");
  }
#endif

  DEGPU_HD_INLINE static double archive_rate(const ops::Params& p) { return p.jade.archive; }
#if DEGPU_HOST_CODE
  static void memories(const ops::Params& p, const double* shared, std::vector<double>& F, std::vector<double>& CR) {
    (void)p;
    F.assign(1, shared[0]);
    CR.assign(1, shared[1]);
  }
#endif
  DEGPU_HD_INLINE static void init(const ops::Params&, State) {}
  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control&, State) {}
  static void init_shared(const ops::Params& p, double* shared) {
    shared[0] = p.jade.mu_F;
    shared[1] = p.jade.mu_CR;
  }

  DEGPU_HD_INLINE static Control draw_from(const ops::Params& p, std::uint32_t g, std::uint32_t i, double mu_F, double mu_CR) {
    return draw_cauchy_normal(p, g, i, mu_F, 0.1, mu_CR, 0.1);
  }
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State, const double* shared) {
    return draw_from(p, g, i, shared[0], shared[1]);
  }

  DEGPU_HD_INLINE static void contribute(const ops::Params&, const Control& c, double f_parent, double f_trial, bool,
                                         Sums out) {
    const bool success = f_trial < f_parent;  // strictly better (NaN never)
    out.set(0, success ? 1.0 : 0.0);
    out.set(1, success ? c.F : 0.0);
    out.set(2, success ? c.F * c.F : 0.0);
    out.set(3, success ? c.CR : 0.0);
  }
  DEGPU_HD_INLINE static void end_generation(const ops::Params& p, std::uint32_t, double* shared, const double* totals) {
    if (!(totals[0] > 0)) return;  // no success: the means stay
    const double c = p.jade.c;
    shared[0] = (1 - c) * shared[0] + c * (totals[2] / totals[1]);
    shared[1] = (1 - c) * shared[1] + c * (totals[3] / totals[0]);
  }
};

}  // namespace degpu::alg
