// JADE without its archive (Zhang and Sanderson 2009, "JADE: adaptive differential evolution with optional
// external archive", IEEE TEC 13(5), section III): the first algorithm with a population-level update.
// Mutation current-to-pbest/1. Each generation every trial draws its own CR ~ N(mu_CR, 0.1), cut to [0, 1],
// and F ~ Cauchy(mu_F, 0.1), 1 where it is >= 1 and drawn again where it is <= 0. A trial strictly better
// than its parent puts its F and CR in the generation's sets S_F and S_CR; after the generation, where
// the sets are not empty,
//     mu_CR = (1 - c) mu_CR + c mean(S_CR),    mu_F = (1 - c) mu_F + c sum(F^2) / sum(F)  (Lehmer mean),
// with c = 0.1 and mu_F = mu_CR = 0.5 to start (DEConfig::jade). A trial that only ties replaces its parent
// (degpu's selection, as L-SHADE's authors' code does) without entering the sets. The archive (JADE's
// r2 from P union A), SHADE's memories and the rest of the family are the SHADE family issue's.
//
// The draws (rng.hpp's dither purpose, stream (g, i)): attempt k reads block k, words 0 and 1 for CR and
// words 2 and 3 for F. Each pair is a point v = 2u - 1 of the square; it is used where it falls inside the
// unit disc (s = v1^2 + v2^2 in (0, 1)): CR's normal by Marsaglia's polar method, z = v1 sqrt(-2 ln s / s);
// F's Cauchy as v1 / v2 (the tangent of a uniform angle; no transcendental function, so the host and the
// device draw the same bits). At most kAttempts blocks: in the (never seen) case that one draw is still
// missing after them, it is its mean.
#pragma once
#include <cmath>

#include "core/algorithms/algorithm.hpp"
#include "degpu/config.hpp"
#include "degpu/errors.hpp"
#if DEGPU_HOST_CODE
#include <string>
#endif

namespace degpu::alg {

struct Jade {
  static constexpr Algorithm id = Algorithm::jade;
  static constexpr const char* name = "jade";
  static constexpr int kState = 0;
  static constexpr int kShared = 2;  // mu_F, mu_CR
  static constexpr int kSums = 4;    // success (1 or 0), F, F^2, CR of a success
  static constexpr std::uint32_t kAttempts = 64;

#if DEGPU_HOST_CODE
  static void check(const DEConfig& de) {
    if (de.mutation != Mutation::current_to_pbest1)
      throw ConfigError("{strategy} " + strategy_name(de.mutation, de.crossover) +
                        ": JADE mutates with current-to-pbest/1 ({algorithm} jade); use current-to-pbest/1/" +
                        std::string(crossover_name(de.crossover)));
    if (!de.F.fixed() || !de.CR.fixed())
      throw ConfigError("{F} and {CR}: JADE draws every trial's F and CR itself ({algorithm} jade); they take no ranges");
    if (de.dither != Dither::none)
      throw ConfigError("{dither} " + std::string(dither_name(de.dither)) + ": JADE draws every trial's F and CR itself ({algorithm} jade)");
    const degpu::Jade& j = de.jade;
    if (!(j.c > 0 && j.c <= 1) || !(j.mu_F > 0 && j.mu_F <= 1) || !(j.mu_CR >= 0 && j.mu_CR <= 1))
      throw ConfigError("{algorithm} jade: c must be in (0, 1], the initial mu_F in (0, 1] and mu_CR in [0, 1]");
  }
#endif

  DEGPU_HD_INLINE static void init(const ops::Params&, State) {}
  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control&, State) {}
  static void init_shared(const ops::Params& p, double* shared) {
    shared[0] = p.jade.mu_F;
    shared[1] = p.jade.mu_CR;
  }

  // A point of [-1, 1)^2 from two words, exact in double.
  DEGPU_HD_INLINE static double coord(std::uint32_t w) { return rng::unit_from_word(w) * 2.0 - 1.0; }

  DEGPU_HD_INLINE static Control draw_from(const ops::Params& p, std::uint32_t g, std::uint32_t i, double mu_F, double mu_CR) {
    const ops::Stream st(p.seed, p.trial, ops::Purpose::dither, g, i);
    Control c{mu_F, mu_CR};
    bool have_cr = false, have_f = false;
    for (std::uint32_t k = 0; k < kAttempts && !(have_cr && have_f); ++k) {
      const rng::Block b = st.block(k);
      if (!have_cr) {
        const double v1 = coord(b.w[0]), v2 = coord(b.w[1]), s = v1 * v1 + v2 * v2;
        if (s > 0 && s < 1) {
          const double cr = mu_CR + 0.1 * (v1 * std::sqrt(-2.0 * std::log(s) / s));
          c.CR = cr < 0 ? 0.0 : (cr > 1 ? 1.0 : cr);
          have_cr = true;
        }
      }
      if (!have_f) {
        const double v1 = coord(b.w[2]), v2 = coord(b.w[3]), s = v1 * v1 + v2 * v2;
        if (s < 1 && v2 != 0) {
          const double f = mu_F + 0.1 * (v1 / v2);
          if (f > 0) {
            c.F = f < 1 ? f : 1.0;
            have_f = true;
          }
        }
      }
    }
    return c;
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
