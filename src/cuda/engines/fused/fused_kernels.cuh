// gpu-fused's kernels (IE, P and MCER; gpu_fused.cuh says what each does and holds the host loop that
// launches them). Device code only, so that NVRTC compiles IE and MCER for a CudaObjective's functor from
// this same header (cuda_objective.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/algorithms/registry.hpp"
#include "core/de_ops.hpp"
#include "cuda/blocks/archive_view.cuh"
#include "cuda/blocks/de_blocks.cuh"
#include "cuda/blocks/group.cuh"
#include "cuda/blocks/kernel_function.cuh"
#include "cuda/blocks/linear_violation.cuh"
#include "cuda/blocks/population_update.cuh"
#include "degpu/feasibility.hpp"
#include "degpu/functions/evaluate.hpp"

namespace degpu::cuda::fused {
namespace {

// Kernel P's output for one individual and generation.
struct Draw {
  double F, Fp;  // Fp: current-to-pbest's factor of the p-best difference (jSO's F_w; F for the others)
  ops::Donors donors;
  ops::CrossoverDraw crossover;
};

// Dynamic shared memory of IE and MCER for a block of `threads` threads holding m individuals:
// [trial rows: m D T, only when they are kept in shared memory][reduction: 3 doubles per warp][take: m ints]
struct SmemLayout {
  std::size_t red, take, total;  // byte offsets of the parts, and the size
};
__host__ __device__ inline SmemLayout smem_layout(int threads, int m, int D, std::size_t tsize, bool shared_rows) {
  SmemLayout l{};
  const std::size_t rows = shared_rows ? static_cast<std::size_t>(m) * static_cast<std::size_t>(D) * tsize : 0;
  l.red = (rows + 15) / 16 * 16;
  l.take = l.red + static_cast<std::size_t>((threads + kWarpSize - 1) / kWarpSize) * 3 * sizeof(double);
  l.total = l.take + static_cast<std::size_t>(m) * sizeof(int);
  return l;
}

extern __shared__ __align__(16) unsigned char fused_smem[];

// Where a thread works (a member of a group): the block is m groups of G threads, group k on individual blockIdx.x m + k.
struct Member {
  int G, m, k, lane;
  std::uint32_t i;
  bool active;  // i < np (the last block may have idle groups; they still reach every barrier)
};
__device__ __forceinline__ Member group_of(int G, int np) {
  Member q;
  q.G = G;
  q.m = static_cast<int>(blockDim.x) / G;
  q.k = static_cast<int>(threadIdx.x) / G;
  q.lane = static_cast<int>(threadIdx.x) % G;
  q.i = blockIdx.x * static_cast<unsigned>(q.m) + static_cast<unsigned>(q.k);
  q.active = q.i < static_cast<unsigned>(np);
  return q;
}

// f(row) without bias by the G threads of a group: each adds the terms of its coordinates (lane, lane + G,
// ...), then a shuffle reduction within the warp (width G when G < 32), then, for G > 32, the warps' sums
// are added in order through shared memory by the group's first thread. Every thread of the block must
// call it (it may hold a barrier); the value is valid in lane 0 of the group. Prefix functions (Schwefel
// 1.2) and a user's row function are evaluated by lane 0 alone, in order (a scan across the group is not
// written yet). A function that evaluates a row by a group itself (kernel_function.cuh's kGroupValue: a CEC
// function, its rotations and then lane 0, the block's barrier between the steps) does so, with its own
// bias where it adds one (the launch passes bias 0 then).
template <class F, class T>
__device__ double member_evaluate(const Member& q, const F& fn, const T* row, const T* __restrict__ o, int D, double* red) {
  if constexpr (is_row_function<F>) {  // a user's row: lane 0 alone
    return q.active && q.lane == 0 ? static_cast<double>(fn.f(row, D)) : 0.0;
  } else if constexpr (has_group_value<F>) {
    // the function's scratch: the lanes of each group's first warp (blocks of at most 1024 threads)
    const int first = q.G < kWarpSize ? static_cast<int>(threadIdx.x) - q.lane : q.k * kWarpSize;
    return fn.template group_value<1024, 0>(q.active ? q.i : 0, row, q.lane, q.G, q.active, first, [] { __syncthreads(); });
  } else if constexpr (F::pattern == fn::Pattern::prefix) {
    return q.active && q.lane == 0 ? fn::evaluate<F, T, double>(row, o, D) : 0.0;
  } else {
    double s0 = 0, s1 = 0, pr = 1;
    if (q.active) {
      auto z = [&](int j) -> T { return o ? static_cast<T>(row[j] - o[j]) : row[j]; };
      const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
      for (int j = q.lane; j < nterms; j += q.G) {
        T zn = 0;
        if constexpr (F::pattern == fn::Pattern::neighbour) zn = z(j + 1);
        if constexpr (F::pattern == fn::Pattern::cyclic) zn = z(j + 1 == D ? 0 : j + 1);
        const fn::Terms<T> t = F::template term<T>(z(j), zn, j, D);
        if constexpr (F::sums >= 1) s0 += static_cast<double>(t.s0);
        if constexpr (F::sums >= 2) s1 += static_cast<double>(t.s1);
        if constexpr (F::product) pr *= static_cast<double>(t.p);
      }
    }
    // Every block is whole warps (the launch makes m G a multiple of 32), so the full mask is right.
    const int width = q.G < kWarpSize ? q.G : kWarpSize;
    for (int off = width / 2; off > 0; off /= 2) {
      if constexpr (F::sums >= 1) s0 += __shfl_down_sync(0xffffffffu, s0, off, width);
      if constexpr (F::sums >= 2) s1 += __shfl_down_sync(0xffffffffu, s1, off, width);
      if constexpr (F::product) pr *= __shfl_down_sync(0xffffffffu, pr, off, width);
    }
    if (q.G > kWarpSize) {  // G is then a multiple of 32: the group is warps k G/32 .. (k+1) G/32 - 1
      const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
      if (threadIdx.x % kWarpSize == 0) {
        red[3 * warp] = s0;
        red[3 * warp + 1] = s1;
        red[3 * warp + 2] = pr;
      }
      __syncthreads();
      if (q.lane == 0) {
        const int w0 = q.k * (q.G / kWarpSize);
        s0 = red[3 * w0];
        s1 = red[3 * w0 + 1];
        pr = red[3 * w0 + 2];
        for (int w = w0 + 1; w < w0 + q.G / kWarpSize; ++w) {
          s0 += red[3 * w];
          s1 += red[3 * w + 1];
          pr *= red[3 * w + 2];
        }
      }
      // red is written once per kernel (one evaluation per launch), so no second barrier is needed here.
    }
    return F::template finish<double>(s0, s1, pr, D);
  }
}

// Linear constraints in IE and MCER (L.m = 0: none, and no step below is taken): cv the population's
// violations (np x m), cv_next where the kernel writes the violations of the rows it makes (IE: the
// population's; MCER: the next population's), infeasible the device's count of points not evaluated.
struct Constraints {
  LinearOnDevice L;
  const double* cv;
  double* cv_next;
  unsigned long long* infeasible;
};

// Under constraints, the violations of the member's row by the group's lanes (a constraint each, in the
// CPU's order: linear_violation.cuh) into cv_row, and whether the row is feasible; without, true. Every
// thread of the block must call it (it holds a barrier under constraints).
template <class T>
__device__ bool member_feasible(const Member& q, const LinearOnDevice& L, const T* row, int D, double* cv_row) {
  if (L.m == 0) return true;
  if (q.active) linear_violations_by(L, row, D, q.lane, q.G, cv_row);
  __syncthreads();  // the violations, written by the group's lanes, are read by all of them
  return q.active && feasible(cv_row, L.m);
}
// The member as the evaluation sees it: inactive where its row is infeasible (not evaluated, as the CPU
// engines do not evaluate it; its lanes still reach every barrier).
__device__ __forceinline__ Member evaluated(Member q, bool feasible_row) {
  q.active = q.active && feasible_row;
  return q;
}

// Kernel IE: the initial population (the given rows, RunOptions::initial: ninitial x D, then the CPU
// engines' init stream) and its values.
template <class F, class T>
__global__ void kernel_ie(ops::Params p, int G, T* __restrict__ x, T* __restrict__ f, const T* __restrict__ lo,
                          const T* __restrict__ hi, const T* __restrict__ o, double bias,
                          unsigned long long* nan_count, ops::Integers<T> ints, Constraints cons,
                          const T* __restrict__ initial, int ninitial, const __grid_constant__ F fn) {
  const Member q = group_of(G, p.np);
  const int D = p.D;
  const SmemLayout l = smem_layout(static_cast<int>(blockDim.x), q.m, D, sizeof(T), false);
  double* red = reinterpret_cast<double*>(fused_smem + l.red);
  T* xi = x + static_cast<std::size_t>(q.active ? q.i : 0) * D;
  if (q.active) {
    const ops::Stream s(p.seed, p.trial, ops::Purpose::init, 0, q.i);
    const T* given = static_cast<int>(q.i) < ninitial ? initial + static_cast<std::size_t>(q.i) * D : nullptr;
    for (int j = q.lane; j < D; j += G)
      xi[j] = ints(j, given ? given[j] : ops::uniform_in(s.unit_pair(static_cast<std::uint64_t>(j)), lo[j], hi[j]));
  }
  __syncthreads();  // the row's coordinates, written by the group's threads, are read by others below
  const int m = cons.L.m;
  const bool ok = member_feasible(q, cons.L, xi, D, cons.cv_next + static_cast<std::size_t>(q.active ? q.i : 0) * m);
  const double v = member_evaluate<F, T>(evaluated(q, ok), fn, xi, o, D, red);
  if (q.active && q.lane == 0) {
    const T fi = ok ? static_cast<T>(v + bias) : static_cast<T>(1.0 / 0.0);
    f[q.i] = fi;
    if (fi != fi) atomicAdd(nan_count, 1ull);
    if (!ok) atomicAdd(cons.infeasible, 1ull);
  }
}

// Kernel P: generation g's draws, one thread per individual (pure functions of seed, trial, g and i).
__global__ void kernel_p(ops::Params p, std::uint32_t g, Draw* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= static_cast<unsigned>(p.np)) return;
  Draw d;
  const alg::Control c = alg::draw_ahead(p, g, i);
  d.F = c.F;
  d.Fp = c.F;
  d.donors = ops::draw_donors(p, g, i);
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  d.crossover = ops::draw_crossover(p, cs, c.CR);
  out[i] = d;
}

// Coordinates lane, lane + G, ... of trial i into u: the steps of block_make_trial (de_blocks.cuh), with
// the draws from kernel P instead of thread 0.
template <class T>
__device__ __forceinline__ void group_make_trial(const ops::Params& p, std::uint32_t g, const Member& q, const Draw& dr,
                                                 const T* __restrict__ x, std::uint32_t best,
                                                 const std::uint32_t* __restrict__ ranking, const T* __restrict__ lo,
                                                 const T* __restrict__ hi, T* u, const ops::Integers<T>& ints,
                                                 const ArchiveView<T>& arc) {
  const int D = p.D;
  const T F = static_cast<T>(dr.F), Fp = static_cast<T>(dr.Fp);
  ops::MutationRows<T> R{};
  R.xi = x + static_cast<std::size_t>(q.i) * D;
  R.xb = x + static_cast<std::size_t>(best) * D;
  R.xpb = ranking ? x + static_cast<std::size_t>(ranking[dr.donors.pbest_rank]) * D : R.xb;
  // All five (unused ones are row 0, never read): a loop the compiler unrolls keeps R in registers. r2 may
  // be an archive's member.
#pragma unroll
  for (int k = 0; k < 5; ++k) R.r[k] = arc.donor(x, dr.donors.r[k], p.np, D);
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, q.i);
  const ops::Stream rs(p.seed, p.trial, ops::Purpose::repair, g, q.i);
  const ops::CrossoverDraw c = dr.crossover;
  ops::visit_mutation(p.mutation, [&](auto M) {  // one switch per individual, not per coordinate
    for (int j = q.lane; j < D; j += q.G) {
      u[j] = ints(j, ops::crossed_at(p, cs, c, j)
                         ? ops::repair(p.repair, ops::mutate<decltype(M)::value>(F, Fp, R, j), R.xi[j], lo[j], hi[j], rs, j)
                         : R.xi[j]);
    }
  });
}

// Kernel MCER: generation g from population (x, f) into (xn, fn). trial_rows: nullptr to keep the trial
// rows in shared memory, else np D values in global memory (dimensions whose row does not fit).
template <class F, class T>
__global__ void kernel_mcer(ops::Params p, std::uint32_t g, int G, const Draw* __restrict__ draws,
                            const T* __restrict__ x, const T* __restrict__ f, T* __restrict__ xn,
                            T* __restrict__ fn_next, const std::uint32_t* __restrict__ best,
                            const std::uint32_t* __restrict__ ranking, const T* __restrict__ lo,
                            const T* __restrict__ hi, const T* __restrict__ o, double bias, T* __restrict__ trial_rows,
                            unsigned long long* nan_count, alg::State state, const double* __restrict__ shared,
                            alg::Sums sums, ops::Integers<T> ints, Constraints cons, ArchiveView<T> arc,
                            std::uint8_t* __restrict__ lost, const __grid_constant__ F fn) {
  const Member q = group_of(G, p.np);
  const int D = p.D;
  const SmemLayout l = smem_layout(static_cast<int>(blockDim.x), q.m, D, sizeof(T), trial_rows == nullptr);
  double* red = reinterpret_cast<double*>(fused_smem + l.red);
  int* take = reinterpret_cast<int*>(fused_smem + l.take);
  T* u = trial_rows ? trial_rows + static_cast<std::size_t>(q.active ? q.i : 0) * D
                    : reinterpret_cast<T*>(fused_smem) + static_cast<std::size_t>(q.k) * D;
  // A stateful algorithm (core/algorithms): the trial's F and CR from the individual's state or the
  // population's (as the CPU driver's trial_control), drawn here and not in P, which runs beside the MCER
  // that updates the state; the crossover drawn for that CR. A population-level update: each selection's
  // contribution into sums, which end_generation_kernel adds up after the MCER; and every draw made here
  // (draws is then nullptr: the host launches no P), as the donors may read what the last generation left
  // (an archive's members, jSO's exclusion of the target from the p-best, a shrunk population).
  const bool stateful = alg::stateful(p);
  alg::Control ctl{};
  if (q.active) {
    Draw dr{};
    if (draws) dr = draws[q.i];
    if (stateful) {
      ctl = alg::draw_stateful(p, g, q.i, state + q.i, shared);
      dr.F = ctl.F;
      dr.Fp = ctl.F;
      dr.crossover = ops::draw_crossover(p, ops::Stream(p.seed, p.trial, ops::Purpose::crossover, g, q.i), ctl.CR);
    }
    if (!draws) {
      dr.Fp = alg::pbest_factor(p, shared, ctl.F);
      dr.donors = alg::trial_donors(p, g, q.i, arc.size(), ranking, shared);
    }
    group_make_trial(p, g, q, dr, x, *best, ranking, lo, hi, u, ints, arc);
  }
  __syncthreads();  // the trial's coordinates are read by other threads of the group
  // Under constraints: the trial's violations into the next population's row i (replaced by the
  // individual's below where the trial is not taken), the trial evaluated only where feasible, and
  // Lampinen's rule (feasibility.hpp) in the selection; without, the values' comparison.
  const int m = cons.L.m;
  const std::size_t at = static_cast<std::size_t>(q.active ? q.i : 0) * static_cast<std::size_t>(m);
  const bool ok = member_feasible(q, cons.L, static_cast<const T*>(u), D, cons.cv_next + at);
  const double v = member_evaluate<F, T>(evaluated(q, ok), fn, u, o, D, red);
  if (q.active && q.lane == 0) {
    const T ft = ok ? static_cast<T>(v + bias) : static_cast<T>(1.0 / 0.0), fi = f[q.i];
    const bool t = lampinen_takes(ft, cons.cv_next + at, fi, cons.cv + at, m, ops::NoWorse{});
    take[q.k] = t;
    if (lost) lost[q.i] = ops::parent_lost(t, ft, fi, cons.cv_next + at, cons.cv + at, m);  // an archive's member
    fn_next[q.i] = t ? ft : fi;
    if (!t)
      for (int c = 0; c < m; ++c) cons.cv_next[at + c] = cons.cv[at + c];
    if (ft != ft) atomicAdd(nan_count, 1ull);
    if (!ok) atomicAdd(cons.infeasible, 1ull);
    if (stateful && t) alg::keep(p, ctl, state + q.i);
    if (sums.at) alg::contribute(p, ctl, fi, ft, t, sums + q.i);  // a population-level update
  }
  __syncthreads();  // take[k], written by the group's lane 0
  if (q.active) {
    const T* src = take[q.k] ? u : x + static_cast<std::size_t>(q.i) * D;
    T* dst = xn + static_cast<std::size_t>(q.i) * D;
    for (int j = q.lane; j < D; j += G) dst[j] = src[j];
  }
}

}  // namespace
}  // namespace degpu::cuda::fused
