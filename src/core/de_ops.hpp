// The DE operators on one individual, written once for every engine (host and device). Each takes the
// counter-based streams of rng.hpp, so every engine makes the same decisions for the same seed.
// Decisions (crossover, donor choice, F and CR) are computed in double whatever the precision T, so
// f32 and f64 runs and CPU and GPU runs choose alike; vector arithmetic is done in T.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "degpu/config.hpp"
#include "degpu/de.hpp"
#include "degpu/rng.hpp"

namespace degpu::ops {

using rng::Purpose;
using rng::Stream;

// What every operator needs to know about the run, flattened for device code.
struct Params {
  std::uint64_t seed;
  std::uint32_t trial;
  int D, np;
  Mutation mutation;
  Crossover crossover;
  Repair repair;
  Dither dither;
  Range F, CR;
  Algorithm algorithm;  // how F and CR are drawn and adapt (core/algorithms/registry.hpp)
  Jde jde;              // --algorithm jde's settings
  Jade jade;            // --algorithm jade's
  Shade shade;          // --algorithm shade's
  LShade lshade;        // --algorithm lshade's
  Jso jso;              // --algorithm jso's
  long long max_evals;  // the run's evaluation budget (0: none): L-SHADE's and jSO's plans read it
  int pbest_count;  // current-to-pbest: pb is drawn from the best pbest_count individuals (the most, where p varies)
  // Where pbest_hi > pbest_lo, each trial draws its own p uniformly in [pbest_lo, pbest_hi] (SHADE) and pb
  // from the best round(p np) (at least 1, at most pbest_count)
  double pbest_lo, pbest_hi;
};

// F and CR of individual i in generation g.
DEGPU_HD_INLINE void draw_f_cr(const Params& p, std::uint32_t g, std::uint32_t i, double& F, double& CR) {
  if (p.dither == Dither::none) {
    F = p.F.lo;
    CR = p.CR.lo;
    return;
  }
  const Stream s(p.seed, p.trial, Purpose::dither, g, p.dither == Dither::generation ? rng::kAllIndividuals : i);
  const rng::Block b = s.block(0);
  F = p.F.lo + rng::unit_from_word(b.w[0]) * (p.F.hi - p.F.lo);
  CR = p.CR.lo + rng::unit_from_word(b.w[1]) * (p.CR.hi - p.CR.lo);
}

// Donor indices r[0..donors_needed) (distinct, != i) and, for current-to-pbest, the rank of pb among the
// best individuals. With an archive of `archive` members (current-to-pbest only) the last donor, r2, is
// drawn from the population and the archive together: r[1] >= np is the archive's member r[1] - np.
struct Donors {
  std::uint32_t r[5];
  std::uint32_t pbest_rank;
};
// How many of the best individuals trial i's p-best is drawn from (word 5 of the donors stream, where
// each trial draws its own p).
DEGPU_HD_INLINE std::uint32_t pbest_count_of(const Params& p, const rng::Block& b1) {
  if (!(p.pbest_hi > p.pbest_lo)) return static_cast<std::uint32_t>(p.pbest_count);
  const double frac = p.pbest_lo + rng::unit_from_word(b1.w[1]) * (p.pbest_hi - p.pbest_lo);
  const double c = std::floor(frac * p.np + 0.5);
  return c < 1 ? 1u : (c > p.pbest_count ? static_cast<std::uint32_t>(p.pbest_count) : static_cast<std::uint32_t>(c));
}
// jSO's p-best other than the target: where the rank drawn was the target's own, a rank drawn uniformly
// from the trial's p-best count but that one (word 9 of the donors stream; the authors' code draws again
// until it differs, which gives the same distribution). The rank itself where the count is 1.
DEGPU_HD_INLINE std::uint32_t rank_other_than(const Params& p, std::uint32_t g, std::uint32_t i, std::uint32_t rank) {
  const Stream s(p.seed, p.trial, Purpose::donors, g, i);
  const std::uint32_t count = pbest_count_of(p, s.block(1));
  if (count < 2) return rank;
  const std::uint32_t r = rng::uniform_below(s.word(9), count - 1);
  return r < rank ? r : r + 1;
}
// The archive's insertion rule (every engine's): where individual i's parent, lost in generation g, goes in
// an archive of cap members of which `filled` are taken before it (the members before the generation and
// the generation's earlier losers, in index order): appended while there is room, else in place of the
// member drawn by word 8 of its donors stream.
DEGPU_HD_INLINE int archive_slot(const Params& p, std::uint32_t g, std::uint32_t i, int filled, int cap) {
  if (filled < cap) return filled;
  return static_cast<int>(rng::uniform_below(Stream(p.seed, p.trial, Purpose::donors, g, i).word(8), static_cast<std::uint32_t>(cap)));
}
DEGPU_HD_INLINE Donors draw_donors(const Params& p, std::uint32_t g, std::uint32_t i, std::uint32_t archive = 0) {
  Donors d{};
  const Stream s(p.seed, p.trial, Purpose::donors, g, i);
  rng::distinct_indices(s, static_cast<std::uint32_t>(p.np), i, donors_needed(p.mutation), d.r, archive);
  if (p.mutation == Mutation::current_to_pbest1) {
    const rng::Block b1 = s.block(1);
    d.pbest_rank = rng::uniform_below(b1.w[3], pbest_count_of(p, b1));
  }
  return d;
}

// u < CR for u = w / 2^32 is exactly w < ceil(CR 2^32): an integer compare, the same on every device.
DEGPU_HD_INLINE std::uint64_t crossover_threshold(double CR) {
  return static_cast<std::uint64_t>(std::ceil(CR * 4294967296.0));
}

// Crossover of one individual: bin uses `first` as jrand; exp and nec cross the `length` coordinates
// first, first+1, ... (mod D).
struct CrossoverDraw {
  std::uint32_t first, length;
  std::uint64_t threshold;
};

// NEC: L = min(D, ceil(ln u / ln CR)), u in (0, 1); CR = 0 gives 1 and CR = 1 gives D.
DEGPU_HD_INLINE std::uint32_t nec_length(double CR, std::uint32_t word, int D) {
  if (CR <= 0.0) return 1;
  if (CR >= 1.0) return static_cast<std::uint32_t>(D);
  const double q = std::ceil(std::log(rng::open_unit_from_word(word)) / std::log(CR));
  if (!(q < D)) return static_cast<std::uint32_t>(D);
  return q < 1.0 ? 1u : static_cast<std::uint32_t>(q);
}

// The classic exponential crossover loop: L grows by one while the next draw is below CR and L < D.
// Draw m (m = 0, 1, ...) is word 4 + m of the crossover stream.
DEGPU_HD_INLINE std::uint32_t exp_loop_length(const Stream& s, std::uint64_t threshold, int D) {
  std::uint32_t L = 1;
  rng::Block b = s.block(1);
  for (std::uint32_t m = 0; L < static_cast<std::uint32_t>(D); ++m) {
    if ((m & 3) == 0 && m) b = s.block(1 + (m >> 2));
    if (!(b.w[m & 3] < threshold)) break;
    ++L;
  }
  return L;
}

DEGPU_HD_INLINE CrossoverDraw draw_crossover(const Params& p, const Stream& s, double CR) {
  const rng::Block b0 = s.block(0);
  CrossoverDraw c{};
  c.first = rng::uniform_below(b0.w[0], static_cast<std::uint32_t>(p.D));
  c.threshold = crossover_threshold(CR);
  switch (p.crossover) {
    case Crossover::bin: c.length = 0; break;
    case Crossover::exp: c.length = exp_loop_length(s, c.threshold, p.D); break;
    case Crossover::nec: c.length = nec_length(CR, b0.w[1], p.D); break;
  }
  return c;
}

// Binomial crossover: calls fn(j, crossed) for j = 0..D-1 in order (crossed: u_j < CR or j = jrand).
// Words are made two blocks (8 coordinates) at a time, so that the Philox rounds overlap (four blocks
// run out of registers on x86-64 and were slower).
template <class Fn>
DEGPU_HD_INLINE void for_each_bin(const Stream& s, const CrossoverDraw& c, int D, Fn&& fn) {
  int j0 = 0;
  for (; j0 + 8 <= D; j0 += 8) {
    rng::Block b[2];
    s.blocks<2>(1 + static_cast<std::uint32_t>(j0 >> 2), b);
    for (int k = 0; k < 8; ++k) {
      const int j = j0 + k;
      fn(j, b[k >> 2].w[k & 3] < c.threshold || static_cast<std::uint32_t>(j) == c.first);
    }
  }
  for (; j0 < D; j0 += 4) {
    const rng::Block b = s.block(1 + static_cast<std::uint32_t>(j0 >> 2));
    const int n = D - j0 < 4 ? D - j0 : 4;
    for (int k = 0; k < n; ++k) {
      const int j = j0 + k;
      fn(j, b.w[k] < c.threshold || static_cast<std::uint32_t>(j) == c.first);
    }
  }
}

// Whether coordinate j of the trial comes from the mutant, decided on its own (the GPU engines' thread per
// coordinate): bin, word 4 + j of the crossover stream (for_each_bin's) below the threshold, or j = jrand;
// exp and nec, j inside the cyclic run.
DEGPU_HD_INLINE bool crossed_at(const Params& p, const Stream& cs, const CrossoverDraw& c, int j) {
  if (p.crossover == Crossover::bin)
    return cs.word(4 + static_cast<std::uint64_t>(j)) < c.threshold || static_cast<std::uint32_t>(j) == c.first;
  const std::uint32_t offset = (static_cast<std::uint32_t>(j) + p.D - c.first) % static_cast<std::uint32_t>(p.D);
  return offset < c.length;
}

// The crossover mask of one individual (m[j] = 1 where coordinate j comes from the mutant), as the
// matrix engine makes it: bin draws every coordinate; exp and nec fill one cyclic run.
DEGPU_HD_INLINE void crossover_mask(const Params& p, const Stream& cs, const CrossoverDraw& c, std::uint8_t* m) {
  const int D = p.D;
  if (p.crossover == Crossover::bin) {
    for_each_bin(cs, c, D, [&](int j, bool crossed) { m[j] = crossed; });
    return;
  }
  // Each byte written once, as three runs (plain loops over a local pointer compile to memset).
  const auto fill = [](std::uint8_t* run, std::uint32_t n, std::uint8_t v) {
    for (std::uint32_t k = 0; k < n; ++k) run[k] = v;
  };
  const std::uint32_t end = c.first + c.length, d = static_cast<std::uint32_t>(D);
  if (end <= d) {
    fill(m, c.first, 0);
    fill(m + c.first, c.length, 1);
    fill(m + end, d - end, 0);
  } else {
    fill(m, end - d, 1);
    fill(m + (end - d), c.first - (end - d), 0);
    fill(m + c.first, d - c.first, 1);
  }
}

// The rows a mutation reads.
template <class T>
struct MutationRows {
  const T* xi;   // target
  const T* xb;   // best
  const T* xpb;  // p-best
  const T* r[5];
};

// v_j of mutation M (a compile-time constant: no branch per coordinate).
template <Mutation M, class T>
DEGPU_HD_INLINE T mutate(T F, const MutationRows<T>& R, int j) {
  if constexpr (M == Mutation::rand1) return R.r[0][j] + F * (R.r[1][j] - R.r[2][j]);
  if constexpr (M == Mutation::rand2) return R.r[0][j] + F * (R.r[1][j] - R.r[2][j]) + F * (R.r[3][j] - R.r[4][j]);
  if constexpr (M == Mutation::best1) return R.xb[j] + F * (R.r[0][j] - R.r[1][j]);
  if constexpr (M == Mutation::best2) return R.xb[j] + F * (R.r[0][j] - R.r[1][j]) + F * (R.r[2][j] - R.r[3][j]);
  if constexpr (M == Mutation::current_to_best1) return R.xi[j] + F * (R.xb[j] - R.xi[j]) + F * (R.r[0][j] - R.r[1][j]);
  if constexpr (M == Mutation::current_to_pbest1)
    return R.xi[j] + F * (R.xpb[j] - R.xi[j]) + F * (R.r[0][j] - R.r[1][j]);
  if constexpr (M == Mutation::rand_to_best1) return R.r[0][j] + F * (R.xb[j] - R.r[0][j]) + F * (R.r[1][j] - R.r[2][j]);
}

// v_j of current-to-pbest/1 with its own factor Fp for the p-best difference (jSO's F_w; every other
// algorithm's Fp is F, and then this is mutate<current_to_pbest1> above); mutation M otherwise.
template <Mutation M, class T>
DEGPU_HD_INLINE T mutate(T F, T Fp, const MutationRows<T>& R, int j) {
  if constexpr (M == Mutation::current_to_pbest1)
    return R.xi[j] + Fp * (R.xpb[j] - R.xi[j]) + F * (R.r[0][j] - R.r[1][j]);
  else
    return mutate<M>(F, R, j);
}

// Calls fn(std::integral_constant<Mutation, m>{}): one switch per individual instead of per coordinate.
template <class Fn>
DEGPU_HD_INLINE decltype(auto) visit_mutation(Mutation m, Fn&& fn) {
  switch (m) {
    case Mutation::rand2: return fn(std::integral_constant<Mutation, Mutation::rand2>{});
    case Mutation::best1: return fn(std::integral_constant<Mutation, Mutation::best1>{});
    case Mutation::best2: return fn(std::integral_constant<Mutation, Mutation::best2>{});
    case Mutation::current_to_best1: return fn(std::integral_constant<Mutation, Mutation::current_to_best1>{});
    case Mutation::current_to_pbest1: return fn(std::integral_constant<Mutation, Mutation::current_to_pbest1>{});
    case Mutation::rand_to_best1: return fn(std::integral_constant<Mutation, Mutation::rand_to_best1>{});
    case Mutation::rand1: break;
  }
  return fn(std::integral_constant<Mutation, Mutation::rand1>{});
}

template <class T>
DEGPU_HD_INLINE T mutate(Mutation m, T F, const MutationRows<T>& R, int j) {
  return visit_mutation(m, [&](auto M) { return mutate<decltype(M)::value>(F, R, j); });
}
template <class T>
DEGPU_HD_INLINE T mutate(Mutation m, T F, T Fp, const MutationRows<T>& R, int j) {
  return visit_mutation(m, [&](auto M) { return mutate<decltype(M)::value>(F, Fp, R, j); });
}

template <class T>
DEGPU_HD_INLINE T clamp_to(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// A uniform value in [lo, hi] from a 53-bit uniform (init and reinit).
template <class T>
DEGPU_HD_INLINE T uniform_in(double u, T lo, T hi) {
  return clamp_to(static_cast<T>(static_cast<double>(lo) + u * (static_cast<double>(hi) - static_cast<double>(lo))),
                  lo, hi);
}

// Bounds repair of trial coordinate j (value v, parent value `parent`). `s` is the repair stream of the
// individual and generation.
template <class T>
DEGPU_HD_INLINE T repair(Repair r, T v, T parent, T lo, T hi, const Stream& s, int j) {
  if (v >= lo && v <= hi) return v;
  switch (r) {
    case Repair::reinit: return uniform_in(s.unit_pair(static_cast<std::uint64_t>(j)), lo, hi);
    case Repair::midpoint: return clamp_to(v < lo ? (parent + lo) / T(2) : (parent + hi) / T(2), lo, hi);
    case Repair::clip: return v < lo ? lo : hi;
    case Repair::reflect: {
      if (v != v) return clamp_to(parent, lo, hi);
      const T w = hi - lo;
      T y = std::fmod(v - lo, T(2) * w);
      if (y < 0) y += T(2) * w;
      return clamp_to(y <= w ? lo + y : lo + (T(2) * w - y), lo, hi);
    }
  }
  return v;
}

// Integrality (constraints.hpp): v rounded to the nearest integer (ties to even), kept in [lo, hi] (the
// coordinate's lowest and highest integers), as std::min(std::max(rounded, lo), hi).
template <class T>
DEGPU_HD_INLINE T round_integer(T v, T lo, T hi) {
#if defined(__CUDA_ARCH__)
  T r = rint(v);  // the default rounding mode: to nearest, ties to even, as nearbyint on the host
#else
  T r = std::nearbyint(v);
#endif
  r = r < lo ? lo : r;
  return hi < r ? hi : r;
}

// The integer coordinates of a population on the device (the gpu-kernels engine's kernels): coordinate j
// takes integers in [lo[j], hi[j]] where integer[j]; integer == nullptr: none.
template <class T>
struct Integers {
  const std::uint8_t* integer = nullptr;
  const T* lo = nullptr;
  const T* hi = nullptr;
  DEGPU_HD_INLINE T operator()(int j, T v) const { return integer && integer[j] ? round_integer(v, lo[j], hi[j]) : v; }
};

// Orderings in which NaN is worse than any number.
template <class T>
DEGPU_HD_INLINE bool better(T a, T b) {  // a strictly better than b
  if (a != a) return false;
  if (b != b) return true;
  return a < b;
}
template <class T>
DEGPU_HD_INLINE bool no_worse(T a, T b) {  // selection: the trial a replaces the target b
  if (a != a) return b != b;
  if (b != b) return true;
  return a <= b;
}
// Whether a parent that its trial replaced (took) lost to it: an archive's member (JADE's optional archive,
// the SHADE family's). Not where the trial only tied it: the same value and, under constraints (m > 0), the
// same violations (cv: the parent's m, cvt: the trial's).
template <class T>
DEGPU_HD_INLINE bool parent_lost(bool took, T f_trial, T f_parent, const double* cvt, const double* cv, int m) {
  if (!took) return false;
  if (!(f_trial == f_parent)) return true;
  for (int c = 0; c < m; ++c)
    if (!(cvt[c] == cv[c])) return true;
  return false;
}
// no_worse as a functor (Lampinen's rule takes the comparison: feasibility.hpp)
struct NoWorse {
  template <class T>
  DEGPU_HD_INLINE bool operator()(T a, T b) const {
    return no_worse(a, b);
  }
};

}  // namespace degpu::ops
