// jSO (Brest, Maucec and Boskovic 2017, "Single objective real-parameter optimization: algorithm jSO"), as
// the authors' code computes it (docs/ALGORITHMS.md: each rule and its line). L-SHADE (lshade.hpp) with:
//   - NP_init = round(25 ln(D) sqrt(D)), H = 5, archive rate 1, memories starting at M_F 0.3, M_CR 0.8;
//   - the last slot fixed: a trial drawing slot H - 1 takes means 0.9 and 0.9 (the update still writes it);
//   - CR floors and an F cap by the evaluations spent (nfes at the generation's start, of MAX_NFE):
//     CR >= 0.7 below 0.25 MAX_NFE, CR >= 0.6 below 0.5; F <= 0.7 below 0.6;
//   - the weighted mutation v = x + F_w (x_pbest - x) + F (x_r1 - x_r2), F_w = 0.7 F below 0.2 MAX_NFE,
//     0.8 F below 0.4, 1.2 F after (`pbest_factor`);
//   - the p-best other than the target below 0.5 MAX_NFE (`pbest_excludes_self`);
//   - p from 0.25 down to 0.125: after each reduction p = 0.25 (1 - 0.5 nfes / MAX_NFE);
//   - each memory update averaged with the slot's old value.
#pragma once
#include <cmath>

#include "core/algorithms/lshade.hpp"
#if DEGPU_HOST_CODE
#include <vector>
#endif

namespace degpu::alg {

struct Jso {
  static constexpr Algorithm id = Algorithm::jso;
  static constexpr const char* name = "jso";
  static constexpr int kState = 0;
  static constexpr int kShared = Reduction::kWords;
  static constexpr int kSums = Shade::kSums;
  static constexpr bool kReduces = true;

#if DEGPU_HOST_CODE
  static void check(const DEConfig& de) {
    const degpu::Jso& s = de.jso;
    Reduction::check(de, "jSO", "jso", s.H, 2, s.M_F, s.M_CR, s.p_max > 0 && s.p_max <= 1, "p_max", s.archive, s.np_min);
  }
#endif

  DEGPU_HD_INLINE static double archive_rate(const ops::Params& p) { return p.jso.archive; }
#if DEGPU_HOST_CODE
  static void memories(const ops::Params& p, const double* shared, std::vector<double>& F, std::vector<double>& CR) {
    Shade::append_memories(shared, p.jso.H - 1, F, CR);
    F.push_back(0.9), CR.push_back(0.9);  // the fixed last slot
  }
#endif
  DEGPU_HD_INLINE static void init(const ops::Params&, State) {}
  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control&, State) {}
  static void init_shared(const ops::Params& p, double* s) {
    Reduction::init(p, s, p.jso.H, p.jso.M_F, p.jso.M_CR, p.jso.p_max, p.jso.archive);
  }
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State, const double* shared) {
    const int r = Shade::slot(p, g, i, p.jso.H);
    const bool last = r == p.jso.H - 1;
    const double mu_F = last ? 0.9 : Shade::M_F(shared, r), mu_CR = last ? 0.9 : Shade::M_CR(shared, r);
    Control c = Reduction::draw(p, g, i, mu_F, mu_CR);
    if (before(p, shared, 0.25) && c.CR < 0.7) c.CR = 0.7;
    if (before(p, shared, 0.5) && c.CR < 0.6) c.CR = 0.6;
    if (before(p, shared, 0.6) && c.F > 0.7) c.F = 0.7;
    return c;
  }
  // Whether the evaluations so far are below `share` of the budget (nfes < share x MAX_NFE, as the code
  // compares): the stage rules' test.
  DEGPU_HD_INLINE static bool before(const ops::Params& p, const double* s, double share) {
    return s[Reduction::kNfes] < share * static_cast<double>(p.max_evals);
  }
  // F_w, the factor of the p-best difference, for a trial drawn with F.
  DEGPU_HD_INLINE static double pbest_factor(const ops::Params& p, const double* s, double F) {
    return before(p, s, 0.2) ? F * 0.7 : (before(p, s, 0.4) ? F * 0.8 : F * 1.2);
  }
  DEGPU_HD_INLINE static bool pbest_excludes_self(const ops::Params& p, const double* s) { return before(p, s, 0.5); }
  DEGPU_HD_INLINE static void contribute(const ops::Params&, const Control& c, double f_parent, double f_trial, bool, Sums out) {
    Shade::success_sums(c, f_parent, f_trial, out);
  }
  DEGPU_HD_INLINE static void end_generation(const ops::Params& p, std::uint32_t, double* s, const double* totals) {
    double mf, mcr;
    if (Reduction::means(totals, mf, mcr)) {
      const int k = static_cast<int>(s[0]);
      Shade::M_F(s, k) = (mf + Shade::M_F(s, k)) / 2.0;
      Shade::M_CR(s, k) = (mcr + Shade::M_CR(s, k)) / 2.0;
      s[0] = k + 1 < p.jso.H ? k + 1 : 0;
    }
    const double p_max = p.jso.p_max, max = static_cast<double>(p.max_evals);
    Reduction::schedule(p, s, p.jso.np_min, p.jso.archive, [&](double nfes) { return p_max * (1.0 - 0.5 * nfes / max); });
  }
};

}  // namespace degpu::alg
