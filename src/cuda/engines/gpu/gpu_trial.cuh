// One individual's trial, shared by the gpu engine's paths (rows in cluster shared memory: gpu_resident.cuh;
// rows in global memory: gpu_engine.cuh). The decisions are the CPU engines' (core/de_ops.hpp, the same
// Philox counters), the arithmetic the same in T, so the trial is the CPU's bit for bit.
#pragma once
#include <cstdint>

#include "cuda/blocks/population_update.cuh"
#include "cuda/engines/gpu/gpu_team.cuh"
#include "degpu/feasibility.hpp"

namespace degpu::cuda {
namespace {

// The draws of individual i in generation g other than the binomial crossover's per-coordinate words:
// F (and CR, through the threshold or the length), the donors, the p-best rank, the crossover's first
// coordinate. They depend on the counters alone, so they are made ahead (a window of generations at a
// time in the resident path, the next generation during the barrier in the global one).
template <class T>
struct WinDraw {
  std::uint32_t r[5];
  std::uint32_t pbest_rank;
  std::uint32_t first, length;  // bin: first = jrand; exp, nec: the crossed run
  std::uint64_t threshold;      // bin: crossed where word < threshold
  T F;
};
template <class T>
__device__ WinDraw<T> make_win(const ops::Params& p, std::uint32_t g, std::uint32_t i) {
  WinDraw<T> w;
  const alg::Control ctl = alg::draw_ahead(p, g, i);
  const double F = ctl.F, CR = ctl.CR;
  const ops::Donors d = ops::draw_donors(p, g, i);
#pragma unroll
  for (int k = 0; k < 5; ++k) w.r[k] = d.r[k];
  w.pbest_rank = d.pbest_rank;
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  const ops::CrossoverDraw c = ops::draw_crossover(p, cs, CR);
  w.first = c.first;
  w.length = c.length;
  w.threshold = c.threshold;
  w.F = static_cast<T>(F);
  return w;
}

// A stateful algorithm (core/algorithms; the CPU driver's trial_control): the trial's F and CR from its
// individual's state (read through L2: the individual's group wrote it last generation) or the population's
// (`shared`: the CTA's copy, a population-level update) and generation g's draws; the crossover drawn for
// that CR replaces the window's (which was drawn for the initial CR: its first coordinate is the same, its
// threshold or length not). After the selection, alg::selected draws the same again. Returns current-to-
// pbest's factor of the p-best difference (jSO's F_w; F for the others: alg::pbest_factor).
template <class T>
__device__ __forceinline__ T stateful_trial(const ops::Params& p, std::uint32_t g, std::uint32_t i, alg::State st,
                                            const double* shared, WinDraw<T>& w) {
  const alg::Control c = alg::draw_stateful(p, g, i, st, shared);
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  const ops::CrossoverDraw x = ops::draw_crossover(p, cs, c.CR);
  w.F = static_cast<T>(c.F);
  w.first = x.first;
  w.length = x.length;
  w.threshold = x.threshold;
  return shared ? static_cast<T>(alg::pbest_factor(p, shared, c.F)) : w.F;
}
// An algorithm with a population-level update and an archive (JADE's optional one, SHADE's) draws its
// donors at the trial too, as every engine does (alg::trial_donors): r2 from the population and the
// archive's `archive` members as they are now.
template <class T>
__device__ __forceinline__ void family_donors(const ops::Params& p, std::uint32_t g, std::uint32_t i, std::uint32_t archive,
                                              const std::uint32_t* ranking, const double* shared, WinDraw<T>& w) {
  const ops::Donors d = alg::trial_donors(p, g, i, archive, ranking, shared);
#pragma unroll
  for (int k = 0; k < 5; ++k) w.r[k] = d.r[k];
  w.pbest_rank = d.pbest_rank;
}

// Every mutation is base + Fp (a - b) [+ F (c - d)], evaluated in that order, as ops::mutate does: Fp is
// current-to-pbest's factor of the p-best difference, jSO's F_w (alg::pbest_factor), and F for every other
// algorithm and mutation.
template <class T>
struct Form {
  const T *base, *a, *b, *c, *d;
  bool two;
};
// row(k): individual k's current row; xi the target's, xb the best's, xpb the p-best's (where used).
template <class T, class Row>
__device__ __forceinline__ Form<T> mutation_form(Mutation m, const std::uint32_t (&r)[5], const T* xi, const T* xb,
                                                 const T* xpb, Row row) {
  switch (m) {
    case Mutation::rand2: return {row(r[0]), row(r[1]), row(r[2]), row(r[3]), row(r[4]), true};
    case Mutation::best1: return {xb, row(r[0]), row(r[1]), nullptr, nullptr, false};
    case Mutation::best2: return {xb, row(r[0]), row(r[1]), row(r[2]), row(r[3]), true};
    case Mutation::current_to_best1: return {xi, xb, xi, row(r[0]), row(r[1]), true};
    case Mutation::current_to_pbest1: return {xi, xpb, xi, row(r[0]), row(r[1]), true};
    case Mutation::rand_to_best1: return {row(r[0]), xb, row(r[0]), row(r[1]), row(r[2]), true};
    case Mutation::rand1: break;
  }
  return {row(r[0]), row(r[1]), row(r[2]), nullptr, nullptr, false};
}

template <class T>
struct TrialIn {
  Form<T> form;
  const T* xi;  // target row
  T* ui;        // where the trial goes
  const T *lo, *hi, *o;  // box and shift (o: nullptr when unshifted), padded to whole blocks
  ops::Integers<T> ints;  // integrality: the integer coordinates rounded (constraints.hpp); integer nullptr: none
  T F, Fp;  // the factors of the second and first differences (Form)
  std::uint32_t first, length;
  std::uint64_t threshold;
  Crossover crossover;
  Repair repair;
  int D;
  std::uint32_t i, g, tag;  // the crossover stream's counter (the tag: purpose and trial)
  rng::Stream rs;           // the repair stream
};

__device__ __forceinline__ std::uint32_t stream_tag(rng::Purpose purpose, std::uint32_t trial) {
  return (static_cast<std::uint32_t>(purpose) << 24) | (trial & (rng::kMaxTrials - 1));
}

// The trial of individual i in generation g: the mutation's rows, the target row xi, where the trial goes
// (ui), the box and shift, the draws; Fp: the first difference's factor (jSO's F_w; w.F for the others).
template <class T>
__device__ __forceinline__ TrialIn<T> make_trial(const ops::Params& p, const Form<T>& form, const T* xi, T* ui, const T* lo,
                                                 const T* hi, const T* o, const ops::Integers<T>& ints, const WinDraw<T>& w,
                                                 std::uint32_t g, std::uint32_t i, T Fp) {
  return TrialIn<T>{form, xi, ui, lo, hi, o, ints, w.F, Fp, w.first, w.length, w.threshold, p.crossover, p.repair, p.D, i, g,
                    stream_tag(rng::Purpose::crossover, p.trial), ops::Stream(p.seed, p.trial, ops::Purpose::repair, g, i)};
}

// The blocks b, b + step, ... of the trial: crossover, mutation where crossed, repair, the trial written
// to a.ui; returns the sum of the terms of elementwise functions (others are evaluated from a.ui).
// With use_ahead, `ahead` holds the crossover words of the first block, made earlier. kGlobal: rows in
// global memory (else shared memory of the CTA or the cluster, and the box and shift too).
template <class F, class T, bool kGlobal>
__device__ __forceinline__ Partial trial_blocks(const TrialIn<T>& a, const RoundKeys& rk, int b, int step,
                                                bool use_ahead, const rng::Block& ahead) {
  Partial acc;
  const bool bin = a.crossover == Crossover::bin;
  // u < CR as a 32-bit compare: threshold = ceil(CR 2^32) <= 2^32, and 2^32 (CR = 1) crosses every word
  const bool all = a.threshold > 0xffffffffull;
  const std::uint32_t thr = static_cast<std::uint32_t>(a.threshold);
  // Two blocks a loop step: the compiler interleaves their chains (loads, Philox, evaluation). Measured on
  // the H100 (PERFORMANCE.md, fourth session): the CUDA issue's jobs 1.5-2% faster, one run and 30 trials.
#pragma unroll 2
  for (; kBlock * b < a.D; b += step, use_ahead = false) {
    const int j0 = kBlock * b, n = a.D - j0 < kBlock ? a.D - j0 : kBlock;
    // Every row of the block is loaded first, so that the loads' latency hides behind the crossover's
    // Philox rounds; blocks without a crossed coordinate are read too. Measured (PERFORMANCE.md): in global
    // memory 18% faster per generation at NP = D = 10^4 for the same DRAM bytes (the extra reads hit L2);
    // in shared memory, loading only the blocks or coordinates that cross was slower.
    const Vec4<T> xv = load4<kGlobal>(a.xi + j0);
    const Vec4<T> vb = load4<kGlobal>(a.form.base + j0), va = load4<kGlobal>(a.form.a + j0),
                  vd1 = load4<kGlobal>(a.form.b + j0);
    Vec4<T> vc{}, vd2{};
    if (a.form.two) vc = load4<kGlobal>(a.form.c + j0), vd2 = load4<kGlobal>(a.form.d + j0);
    const Vec4<T> lo = load4_ro<kGlobal>(a.lo + j0), hi = load4_ro<kGlobal>(a.hi + j0);
    bool crossed[kBlock];
    if (bin) {
      const rng::Block w = use_ahead ? ahead : philox_block(rk, 1u + static_cast<std::uint32_t>(b), a.i, a.g, a.tag);
#pragma unroll
      for (int k = 0; k < kBlock; ++k)  // bitwise, not short-circuit: no branches
        crossed[k] = (k < n) & (all | (w.w[k] < thr) | (static_cast<std::uint32_t>(j0 + k) == a.first));
    } else {
#pragma unroll
      for (int k = 0; k < kBlock; ++k) {
        int off = j0 + k - static_cast<int>(a.first);
        off += off < 0 ? a.D : 0;
        crossed[k] = (k < n) & (static_cast<std::uint32_t>(off) < a.length);
      }
    }
    // Every coordinate mutated (no branch per coordinate) and kept where crossed; the repair only where a
    // crossed value left the box (ops::repair leaves the others as they are).
    Vec4<T> u = xv;
    T v[kBlock];
    unsigned out = 0;  // bit k: coordinate j0 + k to repair
#pragma unroll
    for (int k = 0; k < kBlock; ++k) {
      v[k] = vb.v[k] + a.Fp * (va.v[k] - vd1.v[k]);
      if (a.form.two) v[k] = v[k] + a.F * (vc.v[k] - vd2.v[k]);
      out |= static_cast<unsigned>(crossed[k] && !(v[k] >= lo.v[k] && v[k] <= hi.v[k])) << k;
      u.v[k] = crossed[k] ? v[k] : xv.v[k];
    }
    // One coordinate at a time through one copy of ops::repair: a warp runs it as often as its lane with the
    // most to repair. (Unrolled, a copy a coordinate, each ran whenever any lane of the warp had that
    // coordinate out: ncu on the whole D 100 benchmark's janssen:f01 put those copies at 15% of the batch
    // kernel's instructions; one at a time, the benchmark took 15.85 s, not 16.12: PERFORMANCE.md, session
    // 55.) Each repair depends on its coordinate alone: the same values.
    while (out) {
      const int k = __ffs(out) - 1;
      out &= out - 1;
      T vk = v[0], xk = xv.v[0], lk = lo.v[0], hk = hi.v[0];
#pragma unroll
      for (int q = 1; q < kBlock; ++q)
        if (q == k) vk = v[q], xk = xv.v[q], lk = lo.v[q], hk = hi.v[q];
      const T r = ops::repair(a.repair, vk, xk, lk, hk, a.rs, j0 + k);
#pragma unroll
      for (int q = 0; q < kBlock; ++q)
        if (q == k) u.v[q] = r;
    }
    if (a.ints.integer) {  // integrality: a uniform branch, not taken without it
#pragma unroll
      for (int k = 0; k < kBlock; ++k)
        if (k < n) u.v[k] = a.ints(j0 + k, u.v[k]);
    }
    store4(a.ui + j0, u);
    if constexpr (F::pattern == fn::Pattern::elementwise) {
      Vec4<T> z = u;
      if (a.o) {
        const Vec4<T> ov = load4_ro<kGlobal>(a.o + j0);
#pragma unroll
        for (int k = 0; k < kBlock; ++k) z.v[k] = static_cast<T>(u.v[k] - ov.v[k]);
      }
      add_terms<F>(acc, z, j0, n, a.D);
    }
  }
  return acc;
}

// Linear constraints (State::lin, m > 0) on the gpu engine's paths, as gpu-fused and the CPU engines take
// them: a row's violations by its group's lanes, a constraint each in the CPU's order (linear_violation.cuh),
// into cv; returns the row's violation key (feasibility.hpp: 0 where feasible), which every lane gets;
// 0 without constraints. Called by the whole group after it wrote the row.
template <class T, int G>
__device__ __forceinline__ double group_violations(const LinearOnDevice& L, const T* u, int D, double* cv, const Group<G>& grp) {
  if (L.m == 0) return 0.0;
  grp.sync();  // the row, written by the group's lanes
  linear_violations_by(L, u, D, grp.lane, G, cv);
  grp.sync();  // the violations, read by every lane
  return violation_key(cv, L.m);
}
// Lampinen's rule (feasibility.hpp) between the trial (ft, its violations cvt) and its individual (fi,
// cvi); with m = 0 the values' comparison. Where the trial loses, its violations are replaced by the
// individual's (cvt is the next generation's row). Every lane of the group gets the decision.
template <class T, int G>
__device__ __forceinline__ bool group_takes(int m, T ft, double* cvt, T fi, const double* cvi, const Group<G>& grp) {
  const bool take = lampinen_takes(ft, cvt, fi, cvi, m, ops::NoWorse{});
  if (m) {
    grp.sync();  // every lane has read cvt
    if (!take)
      for (int c = grp.lane; c < m; c += G) cvt[c] = cvi[c];
  }
  return take;
}

}  // namespace
}  // namespace degpu::cuda
