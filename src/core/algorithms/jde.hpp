// jDE (Brest, Greiner, Boskovic, Zumer and Zumer 2006, "Self-adapting control parameters in differential
// evolution", section 3): every individual carries its own F and CR (state words 0 and 1), starting at the
// run's --F and --CR. Before its trial is made, F is redrawn with probability tau1 as F_l + rand x F_u (in
// [F_l, F_l + F_u)) and CR with probability tau2 as rand (in [0, 1)); the trial's F and CR become the
// individual's only when the trial replaces it.
#pragma once
#include "core/algorithms/algorithm.hpp"
#include "degpu/config.hpp"
#include "degpu/errors.hpp"
#if DEGPU_HOST_CODE
#include <string>
#endif

namespace degpu::alg {

struct Jde {
  static constexpr Algorithm id = Algorithm::jde;
  static constexpr const char* name = "jde";
  static constexpr int kState = 2;  // F, CR

#if DEGPU_HOST_CODE
  static void check(const DEConfig& de) {
    if (!de.F.fixed() || !de.CR.fixed())
      throw ConfigError("{algorithm} jde: F and CR adapt per individual; {F} and {CR} give their initial values, not ranges");
    if (de.dither != Dither::none)
      throw ConfigError("{dither} " + std::string(dither_name(de.dither)) + ": jDE adapts F and CR itself ({algorithm} jde)");
    const degpu::Jde& j = de.jde;
    if (!(j.tau1 >= 0 && j.tau1 <= 1) || !(j.tau2 >= 0 && j.tau2 <= 1) || !(j.F_l > 0) || !(j.F_u >= 0) ||
        !(j.F_l + j.F_u <= 2))
      throw ConfigError("{algorithm} jde: tau1, tau2 must be in [0, 1] and F_l + [0, F_u) within (0, 2]");
  }
#endif

  DEGPU_HD_INLINE static void init(const ops::Params& p, State s) {
    s.set(0, p.F.lo);
    s.set(1, p.CR.lo);
  }

  // Words 0..3 of the dither stream of (g, i): F = F_l + u0 F_u if u1 < tau1, CR = u2 if u3 < tau2
  // (u = word / 2^32); otherwise the individual's own.
  DEGPU_HD_INLINE static Control draw_from(const ops::Params& p, std::uint32_t g, std::uint32_t i, double Fi, double CRi) {
    const rng::Block b = ops::Stream(p.seed, p.trial, ops::Purpose::dither, g, i).block(0);
    Control c;
    c.F = rng::unit_from_word(b.w[1]) < p.jde.tau1 ? p.jde.F_l + rng::unit_from_word(b.w[0]) * p.jde.F_u : Fi;
    c.CR = rng::unit_from_word(b.w[3]) < p.jde.tau2 ? rng::unit_from_word(b.w[2]) : CRi;
    return c;
  }
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State s) {
    return draw_from(p, g, i, s.get(0), s.get(1));
  }

  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control& c, State s) {
    s.set(0, c.F);
    s.set(1, c.CR);
  }
};

}  // namespace degpu::alg
