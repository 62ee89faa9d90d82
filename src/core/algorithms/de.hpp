// Classic DE (Storn and Price 1997): F and CR as configured, fixed or dithered (ops::draw_f_cr, the dither
// stream of (g, i) or of the generation); nothing adapts.
#pragma once
#include "core/algorithms/algorithm.hpp"

namespace degpu::alg {

struct De {
  static constexpr Algorithm id = Algorithm::de;
  static constexpr const char* name = "de";
  static constexpr int kState = 0;
  static void check(const DEConfig&) {}
  DEGPU_HD_INLINE static void init(const ops::Params&, State) {}
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State) {
    Control c;
    ops::draw_f_cr(p, g, i, c.F, c.CR);
    return c;
  }
  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control&, State) {}
};

}  // namespace degpu::alg
