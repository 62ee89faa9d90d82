// The draw of a trial's F and CR that JADE and the SHADE family share: F ~ Cauchy(mu_F, sigma_F), drawn
// again while <= 0 and 1 where it exceeds 1; CR ~ N(mu_CR, sigma_CR), cut to [0, 1] (docs/ALGORITHMS.md).
//
// The draws (rng.hpp's dither purpose, stream (g, i)): attempt k reads block k, words 0 and 1 for CR and
// words 2 and 3 for F. Each pair is a point v = 2u - 1 of the square; it is used where it falls inside the
// unit disc (s = v1^2 + v2^2 in (0, 1)): CR's normal by Marsaglia's polar method, z = v1 sqrt(-2 ln s / s);
// F's Cauchy as v1 / v2 (the tangent of a uniform angle; no transcendental function, so the host and the
// device draw the same bits). At most kCauchyNormalAttempts blocks: in the (never seen) case that one draw is still
// missing after them, it is its mean.
#pragma once
#include <cmath>

#include "core/algorithms/algorithm.hpp"
#include "degpu/errors.hpp"
#if DEGPU_HOST_CODE
#include <string>
#endif

namespace degpu::alg {

inline constexpr std::uint32_t kCauchyNormalAttempts = 64;

// A point of [-1, 1)^2 from two words, exact in double.
DEGPU_HD_INLINE double square_coord(std::uint32_t w) { return rng::unit_from_word(w) * 2.0 - 1.0; }

DEGPU_HD_INLINE Control draw_cauchy_normal(const ops::Params& p, std::uint32_t g, std::uint32_t i, double mu_F,
                                           double sigma_F, double mu_CR, double sigma_CR) {
  const ops::Stream st(p.seed, p.trial, ops::Purpose::dither, g, i);
  Control c{mu_F, mu_CR};
  bool have_cr = false, have_f = false;
  for (std::uint32_t k = 0; k < kCauchyNormalAttempts && !(have_cr && have_f); ++k) {
    const rng::Block b = st.block(k);
    if (!have_cr) {
      const double v1 = square_coord(b.w[0]), v2 = square_coord(b.w[1]), s = v1 * v1 + v2 * v2;
      if (s > 0 && s < 1) {
        const double cr = mu_CR + sigma_CR * (v1 * std::sqrt(-2.0 * std::log(s) / s));
        c.CR = cr < 0 ? 0.0 : (cr > 1 ? 1.0 : cr);
        have_cr = true;
      }
    }
    if (!have_f) {
      const double v1 = square_coord(b.w[2]), v2 = square_coord(b.w[3]), s = v1 * v1 + v2 * v2;
      if (s < 1 && v2 != 0) {
        const double f = mu_F + sigma_F * (v1 / v2);
        if (f > 0) {
          c.F = f < 1 ? f : 1.0;
          have_f = true;
        }
      }
    }
  }
  return c;
}

#if DEGPU_HOST_CODE
// ConfigError where `de` asks an algorithm that mutates with current-to-pbest/1 and draws every trial's F
// and CR itself (JADE, the SHADE family: `who` its name in prose, `opt` its --algorithm name) for another
// mutation, ranges of F or CR, or a dither.
inline void check_own_draws(const DEConfig& de, const char* who, const char* opt) {
  if (de.mutation != Mutation::current_to_pbest1)
    throw ConfigError("{strategy} " + strategy_name(de.mutation, de.crossover) + ": " + who +
                      " mutates with current-to-pbest/1 ({algorithm} " + opt + "); use current-to-pbest/1/" +
                      std::string(crossover_name(de.crossover)));
  if (!de.F.fixed() || !de.CR.fixed())
    throw ConfigError(std::string("{F} and {CR}: ") + who + " draws every trial's F and CR itself ({algorithm} " + opt +
                      "); they take no ranges");
  if (de.dither != Dither::none)
    throw ConfigError("{dither} " + std::string(dither_name(de.dither)) + ": " + who +
                      " draws every trial's F and CR itself ({algorithm} " + opt + ")");
}
#endif

}  // namespace degpu::alg
