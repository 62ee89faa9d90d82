// MA-SW-Chains' operators on one individual or coordinate, written once for every engine (host and
// device), from the counter-based streams of rng.hpp (the layout of the ga, blx and ls purposes is there).
// Decisions are made in double whatever the precision T. Values and sources: docs/MA_SW_CHAINS.md.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/de_ops.hpp"
#include "degpu/config.hpp"
#include "degpu/functions/evaluate.hpp"
#include "degpu/rng.hpp"

namespace degpu::masw {

using rng::Purpose;
using rng::Stream;

// BGA mutation (Muehlenbein and Schlierkamp-Voosen 1993, as realea's MutationBGA): gene i moves by
// +-rang sum_{m=0}^{15} a_m 2^-m, a_m = 1 with probability 1/16, rang = 0.1 (hi - lo).
inline constexpr int kBgaTerms = 16;
inline constexpr double kBgaRange = 0.1;
// The draws of one offspring k of GA step s (stream: ga, generation s, individual k).
struct OffspringDraw {
  std::uint32_t first;  // the first parent
  bool mutate;          // whether one gene is mutated
  std::uint32_t gene;   // that gene
  double step;          // its step in units of rang (signed): +-sum a_m 2^-m
};
DEGPU_HD_INLINE OffspringDraw draw_offspring(const Stream& s, std::uint32_t np, int D, double mutation_rate) {
  OffspringDraw d{};
  const rng::Block b2 = s.block(2);
  d.first = rng::uniform_below(b2.w[0], np);
  d.mutate = rng::unit_from_word(b2.w[1]) < mutation_rate;
  d.gene = rng::uniform_below(b2.w[2], static_cast<std::uint32_t>(D));
  double sum = 0, pow2 = 1;
  for (int m = 0; m < kBgaTerms; m += 4) {
    const rng::Block b = s.block(static_cast<std::uint32_t>(3 + m / 4));
    for (int q = 0; q < 4; ++q, pow2 *= 0.5)
      if (b.w[q] < (1u << 28)) sum += pow2;  // probability 2^28 / 2^32 = 1/16
  }
  d.step = (b2.w[3] & 1u) ? -sum : sum;
  return d;
}
// Gene value u after its BGA step (draw_offspring's step, in units of rang), cut to [lo, hi].
template <class T>
DEGPU_HD_INLINE T bga_mutate(T u, double step, T lo, T hi) {
  const double v = static_cast<double>(u) + step * kBgaRange * (static_cast<double>(hi) - lo);
  return ops::clamp_to(static_cast<T>(v), lo, hi);
}

// The negative assortative mating's `count` candidates (at most kMaxNam): distinct, none the first parent.
inline constexpr int kMaxNam = 7;
DEGPU_HD_INLINE void nam_candidates(const Stream& s, std::uint32_t np, std::uint32_t first, int count, std::uint32_t* out) {
  rng::distinct_indices(s, np, first, count, out);
}

// BLX-alpha (Eshelman and Schaffer 1993, as realea's CrossBLX): the interval [cmin - alpha I, cmax + alpha I],
// I = cmax - cmin, cut to [lo, hi], then a uniform value in it.
template <class T>
DEGPU_HD_INLINE T blx(double u, T a, T b, double alpha, T lo, T hi) {
  const double cmin = a < b ? a : b, cmax = a < b ? b : a, I = cmax - cmin;
  double A = cmin - alpha * I, B = cmax + alpha * I;
  if (A < static_cast<double>(lo)) A = lo;
  if (B > static_cast<double>(hi)) B = hi;
  const T t = static_cast<T>(A + u * (B - A));
  return t < lo ? lo : (t > hi ? hi : t);
}

// Box-Muller of two words: r = sqrt(-2 ln u1) (u1 from the open interval), theta = 2 pi u2; z0 = r cos,
// z1 = r sin (rng.hpp's ls layout).
DEGPU_HD_INLINE void box_muller(std::uint32_t w1, std::uint32_t w2, double& z0, double& z1) {
  const double u1 = rng::open_unit_from_word(w1), u2 = rng::unit_from_word(w2);
  const double r = std::sqrt(-2.0 * std::log(u1)), th = 6.283185307179586476925 * u2;
  z0 = r * std::cos(th);
  z1 = r * std::sin(th);
}
// The N(0, 1) draws of coordinates 2p and 2p + 1 of local search step t of application a.
DEGPU_HD_INLINE void normal_pair(const Stream& s, std::uint32_t p, double& z0, double& z1) {
  const rng::Block b = s.block(p >> 1);
  const unsigned o = (p & 1u) * 2;
  box_muller(b.w[o], b.w[o + 1], z0, z1);
}
// The N(0, 1) draws of coordinates 4q .. 4q + 3 (normal_pair of pairs 2q and 2q + 1: one Philox block).
DEGPU_HD_INLINE void normal_quad(const Stream& s, std::uint32_t q, double (&z)[4]) {
  const rng::Block b = s.block(q);
  box_muller(b.w[0], b.w[1], z[0], z[1]);
  box_muller(b.w[2], b.w[3], z[2], z[3]);
}

// Solis-Wets' candidates: x + bias + d, or (minus) x - bias - d, cut to [lo, hi].
template <class T>
DEGPU_HD_INLINE T sw_candidate(bool minus, T x, T bias, T d, T lo, T hi) {
  return ops::clamp_to(minus ? static_cast<T>(x - bias - d) : static_cast<T>(x + bias + d), lo, hi);
}

// Solis-Wets' bias updates (Solis and Wets 1981, as MA-SW-Chains uses them; per coordinate, d the step):
// after x + bias + d succeeds, after x - bias - d succeeds, after both fail.
template <class T>
DEGPU_HD_INLINE T bias_after_plus(T bias, T d) { return T(0.2) * bias + T(0.4) * (d + bias); }
template <class T>
DEGPU_HD_INLINE T bias_after_minus(T bias, T d) { return bias - T(0.4) * (d + bias); }
template <class T>
DEGPU_HD_INLINE T bias_after_failure(T bias) { return T(0.5) * bias; }
// rho doubles after this many consecutive successes and halves after this many consecutive failures
// (realea's SolisWets maxSuccess, maxFailed).
inline constexpr int kSwMaxSuccess = 5, kSwMaxFailure = 3;
// A step's outcome counted: consecutive successes or failures, and rho doubled or halved by them.
DEGPU_HD_INLINE void sw_count(bool success, int& succ, int& fail, double& rho) {
  if (success) ++succ, fail = 0;
  else ++fail, succ = 0;
  if (succ >= kSwMaxSuccess) succ = 0, rho *= 2;
  else if (fail >= kSwMaxFailure) fail = 0, rho /= 2;
}
// A new chain's rho: "an initial rho = 0.2" (Lastra et al. 4.2). (realea's SolisWets::getInitOptions
// instead takes half the distance to the nearest individual over D, capped at 0.2: docs/MA_SW_CHAINS.md.)
inline constexpr double kSwInitialRho = 0.2;
// A local search improves its individual only when it gains at least this much (realea's
// hasImprovedEnough: the threshold 1e-8 over 10); otherwise its result is dropped and its chain ends.
inline constexpr double kLsMinGain = 1e-9;

// The functions the GPU engine evaluates: terms that read one coordinate each, or a prefix sum
// (Schwefel 1.2). A term that reads its neighbour would race with the local search's in-place update of x.
template <class F>
inline constexpr bool kGpuTerms = F::pattern == fn::Pattern::elementwise || F::pattern == fn::Pattern::prefix;

}  // namespace degpu::masw
