// SHADE (Tanabe and Fukunaga 2013, "Success-history based parameter adaptation for differential
// evolution"): docs/ALGORITHMS.md states every rule and where it comes from. In short: H memories of
// (mu_F, mu_CR), 0.5 to start; trial i of generation g draws a slot r uniformly (word 6 of its donors
// stream), F ~ Cauchy(M_F[r], 0.1) and CR ~ N(M_CR[r], 0.1) as JADE does (cauchy_normal.hpp), and its own
// p uniformly in [2/NP, 0.2] (ops::draw_donors, word 5). A trial strictly better than its parent is a
// success, of weight Delta f = f_parent - f_trial; after the generation, where there were successes, slot
// k takes M_F[k] = sum(w F^2) / sum(w F) (the weighted Lehmer mean) and M_CR[k] = sum(w CR) / sum(w)
// (the weighted arithmetic mean), and k moves to the next slot, round robin. The parents that lost go to
// the archive (the engines' part: registry.hpp's archive_capacity).
//
// The population's state (kShared words): word 0 the next slot k, words 1 .. kShadeMaxH the M_F, then
// kShadeMaxH words of M_CR (H of each used).
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

struct Shade {
  static constexpr Algorithm id = Algorithm::shade;
  static constexpr const char* name = "shade";
  static constexpr int kState = 0;
  static constexpr int kShared = 1 + 2 * kShadeMaxH;  // k, M_F[kShadeMaxH], M_CR[kShadeMaxH]
  static constexpr int kSums = 6;  // success_sums: success (1 or 0), w, w F, w F^2, w CR, w CR^2 (w = Delta f)

  DEGPU_HD_INLINE static double& M_F(double* s, int r) { return s[1 + r]; }
  DEGPU_HD_INLINE static double& M_CR(double* s, int r) { return s[1 + kShadeMaxH + r]; }
  DEGPU_HD_INLINE static double M_F(const double* s, int r) { return s[1 + r]; }
  DEGPU_HD_INLINE static double M_CR(const double* s, int r) { return s[1 + kShadeMaxH + r]; }
#if DEGPU_HOST_CODE
  // The first H slots' means, appended (Result::memory_F, memory_CR; L-SHADE and jSO share the layout).
  static void append_memories(const double* shared, int H, std::vector<double>& F, std::vector<double>& CR) {
    for (int r = 0; r < H; ++r) F.push_back(M_F(shared, r)), CR.push_back(M_CR(shared, r));
  }
#endif

#if DEGPU_HOST_CODE
  static void check(const DEConfig& de) {
    check_own_draws(de, "SHADE", "shade");
    const degpu::Shade& s = de.shade;
    if (s.H < 1 || s.H > kShadeMaxH)
      throw ConfigError("{algorithm} shade: the memory size H " + std::to_string(s.H) + " must be in [1, " +
                        std::to_string(kShadeMaxH) + "]");
    if (!(s.M_F > 0 && s.M_F <= 1) || !(s.M_CR >= 0 && s.M_CR <= 1))
      throw ConfigError("{algorithm} shade: the initial M_F must be in (0, 1] and M_CR in [0, 1]");
    if (!(s.sigma_F >= 0 && std::isfinite(s.sigma_F)) || !(s.sigma_CR >= 0 && std::isfinite(s.sigma_CR)))
      throw ConfigError("{algorithm} shade: sigma_F and sigma_CR must be finite and >= 0");
    if (!(s.p_min >= 0 && s.p_max > 0 && s.p_max <= 1 && s.p_min <= s.p_max))
      throw ConfigError("{algorithm} shade: p must range within (0, 1] with p_min <= p_max (p_min 0: 2 / NP)");
    if (!(s.archive >= 0 && s.archive <= 100))
      throw ConfigError("{algorithm} shade: the archive rate must be in [0, 100] (a fraction of NP)");
  }
#endif

  DEGPU_HD_INLINE static double archive_rate(const ops::Params& p) { return p.shade.archive; }
#if DEGPU_HOST_CODE
  static void memories(const ops::Params& p, const double* shared, std::vector<double>& F, std::vector<double>& CR) {
    append_memories(shared, p.shade.H, F, CR);
  }
#endif
  DEGPU_HD_INLINE static void init(const ops::Params&, State) {}
  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control&, State) {}
  static void init_shared(const ops::Params& p, double* shared) {
    shared[0] = 0;
    for (int r = 0; r < kShadeMaxH; ++r) {
      M_F(shared, r) = p.shade.M_F;
      M_CR(shared, r) = p.shade.M_CR;
    }
  }

  // The memory slot of H that trial i of generation g reads (word 6 of its donors stream).
  DEGPU_HD_INLINE static int slot(const ops::Params& p, std::uint32_t g, std::uint32_t i, int H) {
    const ops::Stream s(p.seed, p.trial, ops::Purpose::donors, g, i);
    return static_cast<int>(rng::uniform_below(s.block(1).w[2], static_cast<std::uint32_t>(H)));
  }
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State, const double* shared) {
    const int r = slot(p, g, i, p.shade.H);
    return draw_cauchy_normal(p, g, i, M_F(shared, r), p.shade.sigma_F, M_CR(shared, r), p.shade.sigma_CR);
  }

  // A success: strictly better, of finite weight (a parent at +inf, infeasible or overflowed, would make
  // every mean NaN; it still replaces its parent). Its words: 1, w, w F, w F^2, w CR, w CR^2 (w = Delta f;
  // SHADE reads all but the last, L-SHADE and jSO all).
  DEGPU_HD_INLINE static void success_sums(const Control& c, double f_parent, double f_trial, Sums out) {
    const double w = f_parent - f_trial;
    const bool success = f_trial < f_parent && w < INFINITY;
    out.set(0, success ? 1.0 : 0.0);
    out.set(1, success ? w : 0.0);
    out.set(2, success ? w * c.F : 0.0);
    out.set(3, success ? w * c.F * c.F : 0.0);
    out.set(4, success ? w * c.CR : 0.0);
    out.set(5, success ? w * c.CR * c.CR : 0.0);
  }
  DEGPU_HD_INLINE static void contribute(const ops::Params&, const Control& c, double f_parent, double f_trial, bool,
                                         Sums out) {
    success_sums(c, f_parent, f_trial, out);
  }
  DEGPU_HD_INLINE static void end_generation(const ops::Params& p, std::uint32_t, double* shared, const double* totals) {
    if (!(totals[0] > 0)) return;  // no success: the memories and k stay
    const int k = static_cast<int>(shared[0]);
    const double mf = totals[3] / totals[2], mcr = totals[4] / totals[1];
    // where a weighted sum overflowed (weights near DBL_MAX), the slot keeps its value
    if (mf > 0 && mf < INFINITY) M_F(shared, k) = mf;
    if (mcr >= 0 && mcr < INFINITY) M_CR(shared, k) = mcr;
    shared[0] = k + 1 < p.shade.H ? k + 1 : 0;
  }
};

}  // namespace degpu::alg
