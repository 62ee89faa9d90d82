// L-SHADE (Tanabe and Fukunaga 2014, "Improving the search performance of SHADE using linear population
// size reduction") and what jSO (jso.hpp) shares with it, as the authors' code computes it
// (docs/ALGORITHMS.md: each rule and its line). SHADE (shade.hpp) with:
//   - the weighted Lehmer mean for M_CR too, and its terminal value: where every successful CR was 0,
//     M_CR[k] = -1 and a trial drawing that slot takes CR = 0;
//   - linear population size reduction: after each generation, with nfes the evaluations so far,
//     NP_next = round((NP_min - NP_init) / MAX_NFE x nfes + NP_init); where NP > NP_next the engine removes
//     the NP - max(NP_next, NP_min) worst individuals, the archive's capacity becomes floor(NP rate) (its
//     first members kept) and the p-best count max(2, round(NP p)).
// The population's state carries the sizes the engines read each generation (`sizes` in registry.hpp):
// the live NP, the p-best count and the archive's capacity, besides the evaluations so far, so that every
// engine (and a device kernel, without the host) follows the same schedule.
#pragma once
#include <cmath>

#include "core/algorithms/algorithm.hpp"
#include "core/algorithms/cauchy_normal.hpp"
#include "core/algorithms/shade.hpp"
#include "degpu/config.hpp"
#include "degpu/errors.hpp"
#if DEGPU_HOST_CODE
#include <string>
#include <vector>
#endif

namespace degpu::alg {

// The words of L-SHADE's and jSO's population state: SHADE's (k, M_F, M_CR), then the schedule's.
struct Reduction {
  static constexpr int kNfes = 1 + 2 * kShadeMaxH;  // evaluations so far (the next generation's draws read it)
  static constexpr int kNp0 = kNfes + 1;            // the initial NP
  static constexpr int kNp = kNfes + 2;             // the live NP
  static constexpr int kPbest = kNfes + 3;          // the p-best count
  static constexpr int kArc = kNfes + 4;            // the archive's capacity
  static constexpr int kWords = kNfes + 5;

  DEGPU_HD_INLINE static double round_half_away(double x) { return x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5); }

  static void init(const ops::Params& p, double* s, int H, double M_F, double M_CR, double p_rate, double arc_rate) {
    s[0] = 0;
    for (int r = 0; r < kShadeMaxH; ++r) {
      Shade::M_F(s, r) = r < H ? M_F : 0;
      Shade::M_CR(s, r) = r < H ? M_CR : 0;
    }
    s[kNfes] = p.np;
    s[kNp0] = p.np;
    s[kNp] = p.np;
    const double pb = round_half_away(p.np * p_rate);
    s[kPbest] = pb < 1 ? 1 : (pb > p.np ? p.np : pb);
    s[kArc] = round_half_away(p.np * arc_rate);
  }
  // After a generation of the live NP: the evaluations counted, and where the plan is below the live NP
  // the sizes of the next one (p_rate: the p-best fraction then, from the evaluations so far).
  template <class PRate>
  DEGPU_HD_INLINE static void schedule(const ops::Params& p, double* s, int np_min, double arc_rate, PRate p_rate) {
    const double nfes = s[kNfes] + s[kNp];
    s[kNfes] = nfes;
    const double np0 = s[kNp0];
    const double plan = round_half_away((static_cast<double>(np_min) - np0) / static_cast<double>(p.max_evals) * nfes + np0);
    if (!(s[kNp] > plan)) return;
    const double np = plan < np_min ? np_min : plan;
    s[kNp] = np;
    s[kArc] = std::floor(np * arc_rate);  // an int conversion in the code
    const double pb = round_half_away(np * p_rate(nfes));
    s[kPbest] = pb <= 1 ? 2 : pb;
  }

  // F and CR from the means (mu_F, mu_CR); the terminal value mu_CR < 0 gives CR = 0.
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, double mu_F, double mu_CR) {
    Control c = draw_cauchy_normal(p, g, i, mu_F, 0.1, mu_CR < 0 ? 0.0 : mu_CR, 0.1);
    if (mu_CR < 0) c.CR = 0;
    return c;
  }
#if DEGPU_HOST_CODE
  // The settings L-SHADE and jSO share (`who`: the name in prose, `opt`: the --algorithm name; H at least
  // H_lo; p_ok: the p setting is in (0, 1], `p_name` its name).
  static void check(const DEConfig& de, const char* who, const char* opt, int H, int H_lo, double M_F, double M_CR,
                    bool p_ok, const char* p_name, double archive, int np_min) {
    check_own_draws(de, who, opt);
    const std::string a = std::string("{algorithm} ") + opt + ": ";
    if (H < H_lo || H > kShadeMaxH)
      throw ConfigError(a + "the memory size H " + std::to_string(H) + " must be in [" + std::to_string(H_lo) + ", " +
                        std::to_string(kShadeMaxH) + "]" + (H_lo > 1 ? " (its last slot is fixed)" : ""));
    if (!(M_F > 0 && M_F <= 1) || !(M_CR >= 0 && M_CR <= 1))
      throw ConfigError(a + "the initial M_F must be in (0, 1] and M_CR in [0, 1]");
    if (!p_ok) throw ConfigError(a + p_name + " must be in (0, 1]");
    if (!(archive >= 0 && archive <= 100)) throw ConfigError(a + "the archive rate must be in [0, 100] (a fraction of NP)");
    if (np_min < 4) throw ConfigError(a + "the final population size must be at least 4");
  }
#endif
  // The weighted Lehmer means of the generation's successes: M_F, and M_CR or the terminal value -1 where
  // sum(w CR) = 0. False where there was no success (or a sum overflowed).
  DEGPU_HD_INLINE static bool means(const double* totals, double& mf, double& mcr) {
    if (!(totals[0] > 0)) return false;
    mf = totals[3] / totals[2];
    mcr = totals[4] == 0 ? -1.0 : totals[5] / totals[4];
    return mf > 0 && mf < INFINITY && mcr < INFINITY && mcr >= -1;
  }
};

struct LShade {
  static constexpr Algorithm id = Algorithm::lshade;
  static constexpr const char* name = "lshade";
  static constexpr int kState = 0;
  static constexpr int kShared = Reduction::kWords;
  static constexpr int kSums = Shade::kSums;
  static constexpr bool kReduces = true;

#if DEGPU_HOST_CODE
  static void check(const DEConfig& de) {
    const degpu::LShade& s = de.lshade;
    Reduction::check(de, "L-SHADE", "lshade", s.H, 1, s.M_F, s.M_CR, s.p > 0 && s.p <= 1, "p", s.archive, s.np_min);
  }
#endif

  DEGPU_HD_INLINE static double archive_rate(const ops::Params& p) { return p.lshade.archive; }
#if DEGPU_HOST_CODE
  static void memories(const ops::Params& p, const double* shared, std::vector<double>& F, std::vector<double>& CR) {
    Shade::append_memories(shared, p.lshade.H, F, CR);
  }
#endif
  DEGPU_HD_INLINE static void init(const ops::Params&, State) {}
  DEGPU_HD_INLINE static void keep(const ops::Params&, const Control&, State) {}
  static void init_shared(const ops::Params& p, double* s) {
    Reduction::init(p, s, p.lshade.H, p.lshade.M_F, p.lshade.M_CR, p.lshade.p, p.lshade.archive);
  }
  DEGPU_HD_INLINE static Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State, const double* shared) {
    const int r = Shade::slot(p, g, i, p.lshade.H);
    return Reduction::draw(p, g, i, Shade::M_F(shared, r), Shade::M_CR(shared, r));
  }
  DEGPU_HD_INLINE static void contribute(const ops::Params&, const Control& c, double f_parent, double f_trial, bool, Sums out) {
    Shade::success_sums(c, f_parent, f_trial, out);
  }
  DEGPU_HD_INLINE static void end_generation(const ops::Params& p, std::uint32_t, double* s, const double* totals) {
    double mf, mcr;
    if (Reduction::means(totals, mf, mcr)) {
      const int k = static_cast<int>(s[0]);
      Shade::M_F(s, k) = mf;
      Shade::M_CR(s, k) = mcr;
      s[0] = k + 1 < p.lshade.H ? k + 1 : 0;
    }
    const double rate = p.lshade.p;
    Reduction::schedule(p, s, p.lshade.np_min, p.lshade.archive, [&](double) { return rate; });
  }
};

}  // namespace degpu::alg
