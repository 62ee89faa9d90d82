// Block-level DE steps on the GPU, written once for the gpu-kernels engine (one kernel each) and the
// gpu engine (one persistent kernel). The operators are the CPU engines' (core/de_ops.hpp).
#pragma once
#include <cstdint>

#include "core/algorithms/registry.hpp"
#include "core/de_ops.hpp"
#include "cuda/blocks/archive_view.cuh"
#include "cuda/blocks/best.cuh"
#include "degpu/feasibility.hpp"

namespace degpu::cuda {

// Block-level DE steps shared by the gpu-kernels kernels and the persistent gpu engine: each is run by
// every thread of one block (for individual i where it takes one).

template <class T>
__device__ void block_init(const ops::Params& p, std::uint32_t i, T* x, const T* lo, const T* hi, const T* initial, int ninitial,
                           ops::Integers<T> ints = {}) {
  const ops::Stream s(p.seed, p.trial, ops::Purpose::init, 0, i);
  T* xi = x + static_cast<std::size_t>(i) * p.D;
  const T* given = static_cast<int>(i) < ninitial ? initial + static_cast<std::size_t>(i) * p.D : nullptr;  // RunOptions::initial
  for (int j = threadIdx.x; j < p.D; j += blockDim.x) xi[j] = ints(j, given ? given[j] : ops::uniform_in(s.unit_pair(j), lo[j], hi[j]));
}

template <class T>
__device__ void block_make_trial(const ops::Params& p, std::uint32_t g, std::uint32_t i, const T* __restrict__ x,
                                 const std::uint32_t* best, const std::uint32_t* ranking, const T* __restrict__ lo,
                                 const T* __restrict__ hi, T* __restrict__ trial, alg::Trials states = {},
                                 ops::Integers<T> ints = {}, ArchiveView<T> arc = {}) {
  const int D = p.D;
  __shared__ T sF, sFp;
  __shared__ ops::Donors sd;
  __shared__ ops::CrossoverDraw sc;
  __shared__ std::uint32_t sbest, spbest;
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  if (threadIdx.x == 0) {
    const alg::Control c = states.draw(p, g, i);  // the algorithm's state in device memory (core/algorithms)
    sF = static_cast<T>(c.F);
    sFp = static_cast<T>(alg::pbest_factor(p, states.shared, c.F));  // jSO's F_w, else F
    sd = alg::trial_donors(p, g, i, arc.size(), ranking, states.shared);  // r2 from the population and an archive
    sc = ops::draw_crossover(p, cs, c.CR);
    sbest = *best;
    spbest = ranking ? ranking[sd.pbest_rank] : sbest;
  }
  __syncthreads();
  ops::MutationRows<T> R{};
  R.xi = x + static_cast<std::size_t>(i) * D;
  R.xb = x + static_cast<std::size_t>(sbest) * D;
  R.xpb = x + static_cast<std::size_t>(spbest) * D;
  for (int k = 0; k < donors_needed(p.mutation); ++k) R.r[k] = arc.donor(x, sd.r[k], p.np, D);
  const ops::Stream rs(p.seed, p.trial, ops::Purpose::repair, g, i);
  T* u = trial + static_cast<std::size_t>(i) * D;
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    u[j] = ints(j, ops::crossed_at(p, cs, sc, j)
                       ? ops::repair(p.repair, ops::mutate(p.mutation, sF, sFp, R, j), R.xi[j], lo[j], hi[j], rs, j)
                       : R.xi[j]);
  }
  __syncthreads();  // the shared draws may be reused for the block's next individual
}

// The selection of individual i in generation g; the algorithm's state follows it (its contribution to a
// population-level update too: alg::Trials::select). Lampinen's rule decides, as in the host driver: under
// constraints (m > 0: cv and cvtrial hold the individuals' and the trials' m violations each) the violations
// follow; without them (m = 0) it is the values' comparison.
template <class T>
__device__ void block_select(const ops::Params& p, std::uint32_t g, std::uint32_t i, T* __restrict__ x, T* __restrict__ f,
                             const T* __restrict__ trial, const T* __restrict__ ftrial, unsigned long long* nan_count,
                             alg::Trials states = {}, double* cv = nullptr, const double* cvtrial = nullptr, int m = 0) {
  const T fi = f[i], ft = ftrial[i];
  const std::size_t at = static_cast<std::size_t>(i) * m;
  const bool take = lampinen_takes(ft, cvtrial + at, fi, cv + at, m, ops::NoWorse{});
  __syncthreads();  // every thread has read f[i] and cv before they are replaced
  if (take) {
    const T* src = trial + static_cast<std::size_t>(i) * p.D;
    T* dst = x + static_cast<std::size_t>(i) * p.D;
    for (int j = threadIdx.x; j < p.D; j += blockDim.x) dst[j] = src[j];
    for (int c = threadIdx.x; c < m; c += blockDim.x) cv[at + c] = cvtrial[at + c];
  }
  if (threadIdx.x == 0) {
    if (take) f[i] = ft;
    states.select(p, g, i, take, fi, ft);
    if (ft != ft) atomicAdd(nan_count, 1ull);
  }
  __syncthreads();
}

// The best: lowest value, NaN last, ties to the lowest index (as the CPU engines).
// Run by one whole block of kThreads threads.
template <int kThreads, class T>
__device__ void block_find_best(int np, const T* __restrict__ f, std::uint32_t* best, T* best_f) {
  std::uint32_t b = threadIdx.x < static_cast<unsigned>(np) ? threadIdx.x : 0;
  for (int i = threadIdx.x + kThreads; i < np; i += kThreads)
    if (ops::better(f[i], f[b])) b = static_cast<std::uint32_t>(i);
  const Ranked<T> r = block_best<kThreads>(Ranked<T>{f[b], b});
  if (threadIdx.x == 0) {
    *best = r.idx;
    *best_f = r.f;
  }
}

// The best under constraints (m violations of each individual in cv): the feasible individual of the
// lowest value, or where none is feasible the one of the lowest summed violation (comes_first: the CPU
// engines' choice). Run by one whole block of kThreads threads.
template <int kThreads, class T>
__device__ void block_find_best_feasible(int np, const T* __restrict__ f, const double* __restrict__ cv, int m,
                                         std::uint32_t* best, T* best_f) {
  RankedFeasible<T> b{f[0], 0.0, 0u, false};
  bool any = false;
  for (int i = threadIdx.x; i < np; i += kThreads) {
    const double* c = cv + static_cast<std::size_t>(i) * m;
    const RankedFeasible<T> v{f[i], summed_violation(c, m), static_cast<std::uint32_t>(i), feasible(c, m)};
    if (!any || comes_first(v, b)) b = v;
    any = true;
  }
  if (!any) b = RankedFeasible<T>{f[0], 1.0 / 0.0, 0xffffffffu, false};  // a thread past np: last of all
  const RankedFeasible<T> r = block_first<kThreads>(b, FeasibleFirst{});
  if (threadIdx.x == 0) {
    *best = r.idx;
    *best_f = f[r.idx];
  }
}

}  // namespace degpu::cuda
