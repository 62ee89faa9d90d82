// The gpu engine: the whole run is one kernel, generations follow one another on the device, and the
// host waits once. A team of CTAs holds one trial (one independent run):
//   - cluster path: a thread-block cluster of C <= 16 CTAs per trial, n trials side by side in one launch;
//     generations are separated by the cluster's hardware barrier (split arrive / wait, so the next
//     generation's draws are made while the slowest CTA finishes);
//   - grid path: for one large problem, the whole device (a cooperative launch), separated by grid barriers.
// Within a team, a group of G lanes (8 or 32) makes one individual's trial, evaluates it, selects and
// writes the survivor into the other population buffer (generational replacement with two buffers: one
// barrier per generation). The trial and target rows sit in shared memory when they fit, else the trial
// is written straight into its row of the next buffer. Stops (target, generations and evaluations, wall
// clock through %globaltimer) are decided on the device from the CTAs' best values, which every CTA
// reduces in the same order, so all of them stop at the same generation. The operators and random
// streams are the CPU engines' (core/de_ops.hpp), so decisions match theirs (docs/GPU.md).
#pragma once
#include <cooperative_groups.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "cuda/check.hpp"
#include "cuda/device_array.cuh"
#include "cuda/gpu_plan.hpp"
#include "degpu/errors.hpp"
#include "degpu/functions/classic.hpp"

namespace cg = cooperative_groups;

namespace degpu::cuda {
namespace {

constexpr int kMaxThreads = 512;  // 128 registers a thread: the step does not spill

template <class T>
struct Slot {  // a CTA's best of one generation, and (CTA 0) whether the time is up
  T f;
  std::uint32_t idx;
  int stop;
};

template <class T>
struct State {
  T* x[2];  // trials x np x D: the population of even and odd generations (rows in shared memory), or
            // the two rows of each individual, side[] saying which holds it (rows in global memory)
  std::uint8_t* side[2];  // trials x np, by generation parity (rows in global memory)
  T* f[2];  // trials x np
  const T *lo, *hi, *shift;
  Slot<T>* slots;           // trials x 2 (parity) x ranks
  std::uint32_t* ranking;   // trials x pbest_count: the best individuals in order (current-to-pbest)
  unsigned long long* nans; // per trial
  unsigned long long* arrivals;  // grid path: the barrier's counter (zero at launch)
  long long* gens;          // per trial: generations done
  int* reason;              // per trial: StopReason + 1; 0 when the generation budget ran out unchecked
  std::uint32_t* best;      // per trial
  T* best_f;                // per trial
  T* history;               // trials x nhist
  double bias;
  long long max_gens;
  int history_every;
  long long nhist;
  bool need_best;  // the best is exchanged every generation (best mutations, target, history, time)
  bool has_target;
  double target_f;
  unsigned long long max_time_ns;
  bool smem_scratch;  // the trial and target rows in shared memory
};

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The team (CTAs of one trial) and its barrier.
struct ClusterTeam {
  template <class S>
  __device__ explicit ClusterTeam(const S&) {}
  __device__ static unsigned ranks() { return cg::this_cluster().num_blocks(); }
  __device__ static unsigned rank() { return cg::this_cluster().block_rank(); }
  __device__ static unsigned trial() { return blockIdx.x / ranks(); }
  __device__ static void arrive() { __cluster_barrier_arrive(); }  // release
  __device__ static void wait() { __cluster_barrier_wait(); }      // acquire
  __device__ static void sync() { cg::this_cluster().sync(); }
};
// The grid barrier, split like the cluster's: arrive (every write of the CTA released, one count), then
// wait (until every CTA has counted this barrier; acquire). The CTAs are co-resident (cooperative launch),
// so spinning is safe. The counter only grows: barrier k is passed at k x gridDim arrivals.
struct GridTeam {
  unsigned long long* arrivals;
  unsigned long long passed = 0;  // barriers begun by this CTA
  template <class S>
  __device__ explicit GridTeam(const S& s) : arrivals(s.arrivals) {}
  __device__ static unsigned ranks() { return gridDim.x; }
  __device__ static unsigned rank() { return blockIdx.x; }
  __device__ static unsigned trial() { return 0; }
  __device__ void arrive() {
    __syncthreads();  // the CTA's writes are done
    ++passed;
    if (threadIdx.x == 0) {
      __threadfence();  // release them device-wide before counting
      atomicAdd(arrivals, 1ull);
    }
  }
  __device__ void wait() {
    if (threadIdx.x == 0) {
      const unsigned long long target = passed * gridDim.x;
      while (*reinterpret_cast<volatile unsigned long long*>(arrivals) < target) __nanosleep(32);
      __threadfence();  // acquire: the others' writes before this CTA's reads
    }
    __syncthreads();
  }
  __device__ void sync() {
    arrive();
    wait();
  }
};

// G consecutive lanes of a warp.
template <int G>
struct Group {
  int lane;
  unsigned mask;
  __device__ Group()
      : lane(static_cast<int>(threadIdx.x % G)),
        mask(G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G)) {}
  template <class V>
  __device__ V sum(V v) const {
    for (int off = G / 2; off > 0; off /= 2) v += __shfl_xor_sync(mask, v, off, G);
    return v;
  }
  template <class V>
  __device__ V product(V v) const {
    for (int off = G / 2; off > 0; off /= 2) v *= __shfl_xor_sync(mask, v, off, G);
    return v;
  }
  template <class V>
  __device__ V from_first(V v) const { return __shfl_sync(mask, v, 0, G); }
  __device__ void sync() const { __syncwarp(mask); }
};

// f(u) without bias by one group; every lane gets the value.
template <class F, class T, int G>
__device__ double group_evaluate(const T* u, const T* __restrict__ o, int D, const Group<G>& grp) {
  if constexpr (F::pattern == fn::Pattern::prefix) {  // Schwefel 1.2: a serial scan by the first lane
    double v = 0;
    if (grp.lane == 0) v = fn::evaluate<F, T, double>(u, o, D);
    return grp.from_first(v);
  } else {
    auto z = [&](int i) -> T { return o ? static_cast<T>(u[i] - o[i]) : u[i]; };
    const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
    double s0 = 0, s1 = 0, p = 1;
    for (int i = grp.lane; i < nterms; i += G) {
      T zn = 0;
      if constexpr (F::pattern == fn::Pattern::neighbour) zn = z(i + 1);
      if constexpr (F::pattern == fn::Pattern::cyclic) zn = z(i + 1 == D ? 0 : i + 1);
      const fn::Terms<T> t = F::template term<T>(z(i), zn, i, D);
      if constexpr (F::sums >= 1) s0 += static_cast<double>(t.s0);
      if constexpr (F::sums >= 2) s1 += static_cast<double>(t.s1);
      if constexpr (F::product) p *= static_cast<double>(t.p);
    }
    if constexpr (F::sums >= 1) s0 = grp.sum(s0);
    if constexpr (F::sums >= 2) s1 = grp.sum(s1);
    if constexpr (F::product) p = grp.product(p);
    return F::template finish<double>(s0, s1, p, D);
  }
}

// Individual i of generation 0, by one group: uniform in the box, evaluated. Returns f.
template <class F, class T, int G>
__device__ T group_init(const ops::Params& p, const State<T>& s, T* x, T* f, std::uint32_t i, T* su,
                        const Group<G>& grp) {
  const ops::Stream st(p.seed, p.trial, ops::Purpose::init, 0, i);
  T* xi = x + static_cast<std::size_t>(i) * p.D;
  for (int j = grp.lane; j < p.D; j += G) {
    const T v = ops::uniform_in(st.unit_pair(j), s.lo[j], s.hi[j]);
    xi[j] = v;
    if (su) su[j] = v;
  }
  grp.sync();
  const T fi = static_cast<T>(group_evaluate<F, T, G>(su ? su : xi, s.shift, p.D, grp) + s.bias);
  if (grp.lane == 0) f[i] = fi;
  grp.sync();
  return fi;
}

// The random decisions of individual i in generation g: they depend on the counters alone, so a group
// with a single individual makes the next generation's while it waits at the barrier.
struct Draws {
  double F, CR;
  ops::Donors d;
  ops::CrossoverDraw c;
  rng::Block first;  // bin: the crossover words of the lane's first coordinate block (block `lane`)
};
__device__ Draws make_draws(const ops::Params& p, std::uint32_t g, std::uint32_t i, int lane) {
  Draws w;
  ops::draw_f_cr(p, g, i, w.F, w.CR);
  w.d = ops::draw_donors(p, g, i);
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  w.c = ops::draw_crossover(p, cs, w.CR);
  w.first = p.crossover == Crossover::bin && 4 * lane < p.D ? cs.block(1 + static_cast<std::uint32_t>(lane)) : rng::Block{};
  return w;
}

// Individual i of generation g, by one group: the trial (donors, mutation, crossover, repair, exactly as
// de_blocks.cuh and the CPU engines make it), its value, and the survivor written into the next buffer.
// f, fn: this trial's current and next values. Rows in shared memory (su, sx: the group's scratch rows
// for the trial and the target): x is the current population, xn the next, and the survivor is copied
// into xn. Rows in global memory (su = nullptr): x and xn are the two buffers, sc[k] says which holds
// individual k's row; the trial goes into the other one and a win flips sn[i] (no copy either way, as the
// CPU engines' two-buffer selection). Returns the survivor's f.
template <class F, class T, int G>
__device__ T group_step(const ops::Params& p, const State<T>& s, const T* x, const T* f, T* xn, T* fn,
                        const std::uint8_t* sc, std::uint8_t* sn, std::uint32_t g, std::uint32_t i, const Draws& w_,
                        std::uint32_t best, const std::uint32_t* ranking, T* su, T* sx, unsigned long long* nans,
                        const Group<G>& grp) {
  const int D = p.D;
  const ops::Donors& d = w_.d;
  const ops::CrossoverDraw& c = w_.c;
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  const ops::Stream rs(p.seed, p.trial, ops::Purpose::repair, g, i);
  const T Fs = static_cast<T>(w_.F);
  const Mutation m = p.mutation;
  const bool uses_best = m == Mutation::best1 || m == Mutation::best2 || m == Mutation::current_to_best1 ||
                         m == Mutation::rand_to_best1;
  const bool uses_pbest = m == Mutation::current_to_pbest1;
  const int nd = donors_needed(m);
  const std::size_t Ds = static_cast<std::size_t>(D);
  const auto row = [&](std::uint32_t k) -> const T* { return (sc && __ldcg(sc + k) ? xn : x) + k * Ds; };
  const std::uint8_t si = sc ? __ldcg(sc + i) : 0;
  const T* xi = row(i);
  const T* xb = uses_best ? row(best) : xi;
  const T* xpb = uses_pbest ? row(__ldcg(ranking + d.pbest_rank)) : xi;
  const T* xr[5];
#pragma unroll
  for (int k = 0; k < 5; ++k) xr[k] = k < nd ? row(d.r[k]) : xi;
  T* ui = su ? su : (si ? const_cast<T*>(x) : xn) + i * Ds;
  // The mutation reads one value of each row: the rows given as one-element arrays (registers).
  T v[8];
  const ops::MutationRows<T> R{&v[0], &v[1], &v[2], {&v[3], &v[4], &v[5], &v[6], &v[7]}};
  const T fi = __ldcg(f + i);  // issued early: its latency hides behind the trial's
  for (int b = grp.lane; 4 * b < D; b += G) {  // block b: coordinates 4b .. 4b+3, one Philox block (bin)
    rng::Block w{};
    if (p.crossover == Crossover::bin) w = b == grp.lane ? w_.first : cs.block(1 + static_cast<std::uint32_t>(b));
    const int j0 = 4 * b, n = D - j0 < 4 ? D - j0 : 4;
    bool crossed[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t j = static_cast<std::uint32_t>(j0 + k);
      if (p.crossover == Crossover::bin) crossed[k] = k < n && (w.w[k] < c.threshold || j == c.first);
      else crossed[k] = k < n && (j + D - c.first) % static_cast<std::uint32_t>(D) < c.length;
    }
    // Every load of the block first, then the arithmetic: one memory latency per block, not one per load.
    T xv[4] = {}, lov[4] = {}, hiv[4] = {}, val[8][4] = {};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int j = j0 + k;
      if (k < n) xv[k] = __ldcg(xi + j);
      if (!crossed[k]) continue;
      lov[k] = __ldg(s.lo + j);
      hiv[k] = __ldg(s.hi + j);
      if (uses_best) val[1][k] = __ldcg(xb + j);
      if (uses_pbest) val[2][k] = __ldcg(xpb + j);
#pragma unroll
      for (int q = 0; q < 5; ++q)  // constant indices: registers, not a local array
        if (q < nd) val[3 + q][k] = __ldcg(xr[q] + j);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (k >= n) break;
      const int j = j0 + k;
      T u = xv[k];
      if (crossed[k]) {
#pragma unroll
        for (int q = 0; q < 8; ++q) v[q] = val[q][k];
        v[0] = xv[k];
        u = ops::repair(p.repair, ops::mutate(m, Fs, R, 0), xv[k], lov[k], hiv[k], rs, j);
      }
      ui[j] = u;
      if (sx) sx[j] = xv[k];
    }
  }
  grp.sync();
  const T ft = static_cast<T>(group_evaluate<F, T, G>(ui, s.shift, D, grp) + s.bias);
  const bool take = ops::no_worse(ft, fi);
  if (su) {
    T* xni = xn + i * Ds;
    for (int j = grp.lane; j < D; j += G) xni[j] = take ? su[j] : sx[j];
  }
  if (grp.lane == 0) {
    fn[i] = take ? ft : fi;
    if (sn) sn[i] = take ? !si : si;
    if (ft != ft) atomicAdd(nans, 1ull);
  }
  grp.sync();  // the scratch rows are reused for the group's next individual
  return take ? ft : fi;
}

// The CTA's best (f, index) of this generation into its slot; ties to the lowest index, NaN last.
template <class T>
__device__ void publish_best(T bf, std::uint32_t bi, Slot<T>* slot, int stop) {
  __shared__ T sf[32];
  __shared__ std::uint32_t si[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  auto better = [](T fa, std::uint32_t ia, T fb, std::uint32_t ib) {
    return ops::better(fa, fb) || (!ops::better(fb, fa) && ia < ib);
  };
  for (int off = 16; off > 0; off /= 2) {
    const T of = __shfl_xor_sync(0xffffffffu, bf, off);
    const std::uint32_t oi = __shfl_xor_sync(0xffffffffu, bi, off);
    if (better(of, oi, bf, bi)) bf = of, bi = oi;
  }
  if (lane == 0) sf[warp] = bf, si[warp] = bi;
  __syncthreads();
  if (warp == 0) {
    bf = lane < warps ? sf[lane] : sf[0];
    bi = lane < warps ? si[lane] : si[0];
    for (int off = 16; off > 0; off /= 2) {
      const T of = __shfl_xor_sync(0xffffffffu, bf, off);
      const std::uint32_t oi = __shfl_xor_sync(0xffffffffu, bi, off);
      if (better(of, oi, bf, bi)) bf = of, bi = oi;
    }
    if (lane == 0) *slot = Slot<T>{bf, bi, stop};
  }
  __syncthreads();  // sf, si reused
}

// The team's best from the slots of all its CTAs (the same answer in every CTA), and CTA 0's stop flag.
template <class T>
__device__ Slot<T> read_best(const Slot<T>* slots, unsigned ranks) {
  __shared__ Slot<T> result;
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    T bf = __ldcg(&slots[0].f);
    std::uint32_t bi = __ldcg(&slots[0].idx);
    for (unsigned r = lane; r < ranks; r += 32) {
      const T f = __ldcg(&slots[r].f);
      const std::uint32_t i = __ldcg(&slots[r].idx);
      if (ops::better(f, bf) || (!ops::better(bf, f) && i < bi)) bf = f, bi = i;
    }
    for (int off = 16; off > 0; off /= 2) {
      const T of = __shfl_xor_sync(0xffffffffu, bf, off);
      const std::uint32_t oi = __shfl_xor_sync(0xffffffffu, bi, off);
      if (ops::better(of, bf) || (!ops::better(bf, of) && oi < bi)) bf = of, bi = oi;
    }
    if (lane == 0) result = Slot<T>{bf, bi, __ldcg(&slots[0].stop)};
  }
  __syncthreads();
  const Slot<T> r = result;
  __syncthreads();
  return r;
}

template <class F, class T, int G, class Team>
__global__ void __launch_bounds__(kMaxThreads) run_de(ops::Params p, State<T> s) {
  extern __shared__ unsigned char smem_raw[];
  const Group<G> grp;
  Team team(s);
  const unsigned ranks = Team::ranks(), rank = Team::rank(), t = Team::trial();
  p.trial += t;
  const std::size_t np = static_cast<std::size_t>(p.np), D = static_cast<std::size_t>(p.D);
  T* x[2] = {s.x[0] + t * np * D, s.x[1] + t * np * D};
  T* f[2] = {s.f[0] + t * np, s.f[1] + t * np};
  std::uint8_t* side[2] = {s.smem_scratch ? nullptr : s.side[0] + t * np, s.smem_scratch ? nullptr : s.side[1] + t * np};
  Slot<T>* slots = s.slots + static_cast<std::size_t>(t) * 2 * ranks;
  std::uint32_t* ranking = s.ranking + static_cast<std::size_t>(t) * p.pbest_count;
  unsigned long long* nans = s.nans + t;
  const unsigned groups_per_cta = blockDim.x / G, gid = threadIdx.x / G;
  const unsigned group = rank * groups_per_cta + gid, groups = ranks * groups_per_cta;
  T* su = s.smem_scratch ? reinterpret_cast<T*>(smem_raw) + 2 * gid * D : nullptr;
  T* sx = su ? su + D : nullptr;
  const unsigned long long start = global_ns();
  const T nan = static_cast<T>(NAN);

  // NaN ranks last and the lowest index wins ties: an empty (NaN, ~0) entry loses to any individual
  auto local_best_init = [&](T& bf, std::uint32_t& bi) { bf = nan, bi = 0xffffffffu; };
  auto consider = [&](T& bf, std::uint32_t& bi, T fi, std::uint32_t i) {
    if (ops::better(fi, bf) || (!ops::better(bf, fi) && i < bi)) bf = fi, bi = i;
  };
  auto time_up = [&] { return s.max_time_ns && global_ns() - start >= s.max_time_ns; };

  T bf;
  std::uint32_t bi;
  local_best_init(bf, bi);
  for (std::uint32_t i = group; i < p.np; i += groups) {
    consider(bf, bi, group_init<F, T, G>(p, s, x[0], f[0], i, su, grp), i);
    if (side[0] && grp.lane == 0) side[0][i] = 0;
  }
  if (s.need_best) publish_best(bf, bi, &slots[rank], rank == 0 && time_up());
  team.arrive();
  const bool single = group < p.np && group + groups >= p.np;  // one individual: draws made ahead
  Draws ahead{};
  if (single) ahead = make_draws(p, 1, group, grp.lane);

  long long g = 1;
  int why = 0;
  std::uint32_t best = 0;
  for (;; ++g) {
    team.wait();  // generation g - 1 is written
    if (s.need_best) {
      const Slot<T> b = read_best(slots + ((g - 1) & 1) * ranks, ranks);
      best = b.idx;
      if (rank == 0 && threadIdx.x == 0 && s.history_every > 0 && (g - 1) % s.history_every == 0 &&
          (g - 1) / s.history_every < s.nhist)
        s.history[t * s.nhist + (g - 1) / s.history_every] = b.f;
      if (s.has_target && static_cast<double>(b.f) <= s.target_f) why = 1 + static_cast<int>(StopReason::target);
      else if (g - 1 >= s.max_gens) why = 1 + static_cast<int>(StopReason::max_gens);
      else if (b.stop) why = 1 + static_cast<int>(StopReason::max_time);
      if (why) break;
    } else if (g - 1 >= s.max_gens) {
      why = 1 + static_cast<int>(StopReason::max_gens);
      break;
    }
    const T* xc = x[(g - 1) & 1];
    const T* fc = f[(g - 1) & 1];
    if (p.mutation == Mutation::current_to_pbest1) {  // rank i = how many are better, ties by index
      for (std::uint32_t i = rank * blockDim.x + threadIdx.x; i < p.np; i += ranks * blockDim.x) {
        const T fi = __ldcg(fc + i);
        int r = 0;
        for (std::uint32_t j = 0; j < p.np && r < p.pbest_count; ++j) {
          const T fj = __ldcg(fc + j);
          r += ops::better(fj, fi) || (j < i && !ops::better(fi, fj));
        }
        if (r < p.pbest_count) ranking[r] = i;
      }
      team.sync();
    }
    local_best_init(bf, bi);
    for (std::uint32_t i = group; i < p.np; i += groups) {
      const std::uint32_t gu = static_cast<std::uint32_t>(g);
      const Draws& w = single ? ahead : make_draws(p, gu, i, grp.lane);
      const T fi = su ? group_step<F, T, G>(p, s, xc, fc, x[g & 1], f[g & 1], nullptr, nullptr, gu, i, w, best, ranking,
                                            su, sx, nans, grp)
                      : group_step<F, T, G>(p, s, x[0], fc, x[1], f[g & 1], side[(g - 1) & 1], side[g & 1], gu, i, w,
                                            best, ranking, nullptr, nullptr, nans, grp);
      consider(bf, bi, fi, i);
    }
    if (s.need_best) publish_best(bf, bi, &slots[(g & 1) * ranks + rank], rank == 0 && time_up());
    team.arrive();
    if (single) ahead = make_draws(p, static_cast<std::uint32_t>(g + 1), group, grp.lane);  // while the others finish
  }
  const long long done = g - 1;
  // The result: CTA 0 of the team finds the best of the last population (written before the last wait).
  if (rank == 0) {
    const T* fl = f[done & 1];
    local_best_init(bf, bi);
    for (std::uint32_t i = threadIdx.x; i < p.np; i += blockDim.x) consider(bf, bi, __ldcg(fl + i), i);
    __shared__ Slot<T> final_best;  // not a slot in memory: other CTAs may still be reading those
    publish_best(bf, bi, &final_best, 0);
    if (threadIdx.x == 0) {
      const Slot<T> b = final_best;
      s.best[t] = b.idx;
      s.best_f[t] = b.f;
      s.gens[t] = done;
      s.reason[t] = why;
      if (s.history_every > 0 && done % s.history_every == 0 && done / s.history_every < s.nhist)
        s.history[t * s.nhist + done / s.history_every] = b.f;
    }
  }
}


int floor_pow2(int v) {
  int r = 1;
  while (r * 2 <= v) r *= 2;
  return r;
}
int ceil_pow2(long long v) {
  int r = 1;
  while (r < v && r < (1 << 30)) r *= 2;
  return r;
}

template <class T, class K>
void set_attributes(K kernel, std::size_t smem, bool cluster) {
  const void* k = reinterpret_cast<const void*>(kernel);
  DEGPU_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  if (cluster) DEGPU_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

// A cluster launch of the plan for n trials: a cluster of plan.cluster CTAs per trial.
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1]{};
  ClusterLaunch(const GpuPlan& plan, int n) {
    cfg.gridDim = dim3(static_cast<unsigned>(plan.cluster * n));
    cfg.blockDim = dim3(static_cast<unsigned>(plan.threads));
    cfg.dynamicSmemBytes = plan.smem_bytes;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(plan.cluster);
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;  // cfg points into attr
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// The launch configuration (docs/GPU.md, "The gpu engine"). DEGPU_GPU_PLAN=C,B,G (cluster path) or
// grid,B overrides it, for measurements.
template <class Fn, class T>
GpuPlan make_plan(const ops::Params& p, int n) {
  int device = 0, sms = 0, optin = 0, max_cluster = 16;
  DEGPU_CUDA_TRY(cudaGetDevice(&device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  int cc = 0;
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, device));
  if (cc < 9) max_cluster = 1;  // thread-block clusters need sm_90
  const std::size_t row = 2 * static_cast<std::size_t>(p.D) * sizeof(T);
  GpuPlan plan;
  plan.group = p.D <= 256 ? 8 : 32;
  const auto smem_for = [&](int threads, int group) {
    const std::size_t b = static_cast<std::size_t>(threads / group) * row;
    return b + 1024 <= static_cast<std::size_t>(optin) ? b : 0;  // 1 KB for the static shared arrays
  };
  std::string why;
  const char* env = std::getenv("DEGPU_GPU_PLAN");
  bool forced = false;
  if (env && *env) {
    int a = 0, b = 0, c = 0;
    if (std::sscanf(env, "grid,%d", &b) == 1) {
      plan.grid = true, plan.threads = b, plan.group = 32, forced = true;
    } else if (std::sscanf(env, "%d,%d,%d", &a, &b, &c) == 3) {
      plan.cluster = a, plan.threads = b, plan.group = c == 8 ? 8 : 32, forced = true;
    }
    if (forced) why = std::string("DEGPU_GPU_PLAN=") + env + " (set in the environment). ";
  }
  if (!forced) {
    // One generation is a chain of dependent steps per individual (draws, loads, evaluation, reduction,
    // store) and a barrier: its time is set by the longest chain and by the instructions per SM. So:
    // one individual per group (a single round), spread over as many SMs as a cluster holds, the SMs
    // shared among trials that run at once.
    // Measured on the H100 (docs/PERFORMANCE.md): a generation is latency-bound, a chain of dependent
    // instructions per individual, so an individual gets a whole warp and the warps are spread thin.
    const int share = std::max(1, sms / n);
    if (n == 1 || max_cluster == 1) {
      plan.grid = true;
      plan.group = p.D <= 64 ? 8 : 32;
      const long long per_sm = (static_cast<long long>(p.np) * plan.group + sms - 1) / sms;
      plan.threads = std::clamp(ceil_pow2(per_sm), 64, kMaxThreads);
      why = "one trial: the whole device (grid barriers), a group of " + std::to_string(plan.group) +
            " lanes per individual (" + (plan.group == 8 ? "D <= 64" : "D > 64") + "), CTAs of " +
            std::to_string(plan.threads) + " threads so that the individuals spread over all " + std::to_string(sms) +
            " SMs. ";
    } else {
      plan.group = p.D <= 256 ? 8 : 32;
      plan.cluster = std::min({max_cluster, floor_pow2(share), ceil_pow2((static_cast<long long>(p.np) * plan.group + 63) / 64)});
      const long long need = (static_cast<long long>(p.np) * plan.group + plan.cluster - 1) / plan.cluster;
      plan.threads = std::clamp(ceil_pow2(need), std::max(plan.group, 64), kMaxThreads);
      why = std::to_string(n) + " trials: a cluster of " + std::to_string(plan.cluster) + " CTAs each (" +
            std::to_string(sms) + " SMs shared among the trials, at most 16), with enough threads for one individual per group of " +
            std::to_string(plan.group) + " lanes (" + (plan.group == 8 ? "D <= 256" : "D > 256") + "). ";
    }
  }
  plan.smem_bytes = smem_for(plan.threads, plan.group);
  if (plan.smem_bytes == 0) why += "The trial rows do not fit shared memory: they go to global memory. ";
  if (plan.grid) {
    auto kernel = run_de<Fn, T, 32, GridTeam>;
    set_attributes<T>(kernel, plan.smem_bytes, false);
    int per_sm = 0;
    DEGPU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, plan.threads, plan.smem_bytes));
    if (per_sm < 1) throw CudaError("gpu engine: " + std::to_string(plan.threads) + " threads per CTA do not fit on this device");
    const long long groups_needed = static_cast<long long>(p.np) * plan.group;
    plan.blocks = static_cast<int>(std::min<long long>(static_cast<long long>(per_sm) * sms,
                                                       (groups_needed + plan.threads - 1) / plan.threads));
    plan.resident_teams = 1;
    plan.rounds = static_cast<int>((p.np + static_cast<long long>(plan.blocks) * (plan.threads / plan.group) - 1) /
                                   (static_cast<long long>(plan.blocks) * (plan.threads / plan.group)));
    plan.why = why + std::to_string(per_sm) + " CTAs of " + std::to_string(plan.threads) +
               " threads fit per SM (occupancy API): " + std::to_string(plan.blocks) + " CTAs.";
    return plan;
  }
  const auto kernel = plan.group == 8 ? run_de<Fn, T, 8, ClusterTeam> : run_de<Fn, T, 32, ClusterTeam>;
  set_attributes<T>(kernel, plan.smem_bytes, true);
  const ClusterLaunch launch(plan, n);
  int clusters = 0;
  DEGPU_CUDA_TRY(cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(kernel), &launch.cfg));
  if (clusters < 1)
    throw CudaError("gpu engine: a cluster of " + std::to_string(plan.cluster) + " CTAs of " +
                    std::to_string(plan.threads) + " threads does not fit on this device");
  plan.blocks = plan.cluster * n;
  plan.resident_teams = std::min(clusters, n);
  const long long groups = static_cast<long long>(plan.cluster) * (plan.threads / plan.group);
  plan.rounds = static_cast<int>((p.np + groups - 1) / groups);
  plan.why = why + std::to_string(clusters) + " such clusters fit at once (occupancy API).";
  return plan;
}

template <class T>
GpuPlan plan_for(const Problem& problem, const ops::Params& p, int n) {
  GpuPlan plan;
  fn::visit(problem.function(), [&](auto fun) { plan = make_plan<decltype(fun), T>(p, n); });
  return plan;
}

template <class T>
std::vector<Result> run(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const ops::Params p = ops::make_params(problem, r, o);
  const GpuPlan plan = plan_for<T>(problem, p, n);
  if (plan.grid && n > 1) {  // the grid path holds one trial: one launch each
    std::vector<Result> out;
    RunOptions ot = o;
    for (int k = 0; k < n; ++k, ++ot.trial) out.push_back(run<T>(problem, r, ot, 1).front());
    return out;
  }
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np), nt = static_cast<std::size_t>(n);
  long long max_gens = r.stop.max_gens ? *r.stop.max_gens : (1LL << 62);
  if (r.stop.max_evals) max_gens = std::min(max_gens, (*r.stop.max_evals - p.np) / p.np);
  // History samples kept on the device per trial: at most kMaxHistory (the first ones; the last point is
  // always added), so a run bounded only by time does not reserve memory for 2^62 generations.
  constexpr long long kMaxHistory = 1 << 20;
  const std::size_t nhist =
      o.history_every > 0 ? static_cast<std::size_t>(std::min(max_gens / o.history_every + 1, kMaxHistory)) : 1;
  const std::size_t ranks = static_cast<std::size_t>(plan.grid ? plan.blocks : plan.cluster);
  use_device(nt * (2 * np * D + 2 * np + 1 + nhist) * sizeof(T) + nt * 2 * np + ProblemOnDevice<T>::bytes(problem) +
             nt * (2 * ranks * sizeof(Slot<T>) + static_cast<std::size_t>(p.pbest_count) * 4 + 32) + 64);
  DeviceArray<T> x0(nt * np * D), x1(nt * np * D), f0(nt * np), f1(nt * np), best_f(nt), history(nt * nhist);
  DeviceArray<Slot<T>> slots(nt * 2 * ranks);
  DeviceArray<unsigned long long> arrivals(1);
  DEGPU_CUDA_TRY(cudaMemset(arrivals.ptr, 0, sizeof(unsigned long long)));
  DeviceArray<std::uint8_t> side0(plan.smem_bytes ? 0 : nt * np), side1(plan.smem_bytes ? 0 : nt * np);
  DeviceArray<std::uint32_t> ranking(nt * static_cast<std::size_t>(p.pbest_count)), best(nt);
  DeviceArray<unsigned long long> nans(nt);
  DeviceArray<long long> gens(nt);
  DeviceArray<int> reason(nt);
  const ProblemOnDevice<T> box(problem);
  DEGPU_CUDA_TRY(cudaMemset(nans.ptr, 0, nt * sizeof(unsigned long long)));

  State<T> s{};
  s.x[0] = x0.ptr, s.x[1] = x1.ptr, s.f[0] = f0.ptr, s.f[1] = f1.ptr, s.side[0] = side0.ptr, s.side[1] = side1.ptr;
  s.arrivals = arrivals.ptr;
  s.lo = box.lo.ptr, s.hi = box.hi.ptr, s.shift = box.shift;
  s.slots = slots.ptr, s.ranking = ranking.ptr, s.nans = nans.ptr, s.gens = gens.ptr, s.reason = reason.ptr;
  s.best = best.ptr, s.best_f = best_f.ptr, s.history = history.ptr;
  s.bias = problem.bias();
  s.max_gens = max_gens;
  s.history_every = o.history_every;
  s.nhist = static_cast<long long>(nhist);
  if (r.stop.max_time_s) s.max_time_ns = static_cast<unsigned long long>(*r.stop.max_time_s * 1e9);
  if (r.stop.target_error && problem.optimum_f()) {
    s.has_target = true;
    s.target_f = *problem.optimum_f() + *r.stop.target_error;
  }
  const Mutation m = p.mutation;
  s.need_best = m == Mutation::best1 || m == Mutation::best2 || m == Mutation::current_to_best1 ||
                m == Mutation::rand_to_best1 || s.has_target || o.history_every > 0 || s.max_time_ns > 0;
  s.smem_scratch = plan.smem_bytes > 0;

  fn::visit(problem.function(), [&](auto fun) {
    using Fn = decltype(fun);
    ops::Params pp = p;
    void* args[] = {&pp, &s};
    auto launch = [&](auto kernel, bool cluster) {
      const void* k = reinterpret_cast<const void*>(kernel);  // attributes set by make_plan
      if (!cluster) {
        DEGPU_CUDA_TRY(cudaLaunchCooperativeKernel(k, dim3(plan.blocks), dim3(plan.threads), args, plan.smem_bytes, 0));
        return;
      }
      const ClusterLaunch cl(plan, n);
      DEGPU_CUDA_TRY(cudaLaunchKernelExC(&cl.cfg, k, args));
    };
    if (plan.grid) launch(run_de<Fn, T, 32, GridTeam>, false);
    else if (plan.group == 8) launch(run_de<Fn, T, 8, ClusterTeam>, true);
    else launch(run_de<Fn, T, 32, ClusterTeam>, true);
  });
  DEGPU_CUDA_TRY(cudaGetLastError());
  DEGPU_CUDA_TRY(cudaDeviceSynchronize());

  std::vector<std::uint32_t> b(nt);
  std::vector<T> bf(nt);
  std::vector<unsigned long long> nan_h(nt);
  std::vector<long long> g(nt);
  std::vector<int> why(nt);
  DEGPU_CUDA_TRY(cudaMemcpy(b.data(), best.ptr, nt * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(bf.data(), best_f.ptr, nt * sizeof(T), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(nan_h.data(), nans.ptr, nt * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(g.data(), gens.ptr, nt * sizeof(long long), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(why.data(), reason.ptr, nt * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<T> hist;
  if (o.history_every > 0) {
    hist.resize(nt * nhist);
    DEGPU_CUDA_TRY(cudaMemcpy(hist.data(), history.ptr, hist.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }
  const double wall = std::chrono::duration<double>(clock::now() - t0).count();
  std::vector<Result> out(nt);
  for (std::size_t t = 0; t < nt; ++t) {
    Result& res = out[t];
    std::vector<T> bx(D);
    std::uint8_t where = g[t] & 1;  // rows in shared memory: the buffer of the last generation's parity
    if (!plan.smem_bytes)           // rows in global memory: the individual's side flag says
      DEGPU_CUDA_TRY(cudaMemcpy(&where, (g[t] & 1 ? side1.ptr : side0.ptr) + t * np + b[t], 1, cudaMemcpyDeviceToHost));
    const T* xs = (where ? x1.ptr : x0.ptr) + (t * np + b[t]) * D;
    DEGPU_CUDA_TRY(cudaMemcpy(bx.data(), xs, D * sizeof(T), cudaMemcpyDeviceToHost));
    res.generations = g[t];
    res.evals = static_cast<long long>(p.np) * (g[t] + 1);
    res.stop_reason = static_cast<StopReason>(why[t] - 1);
    // the device merges max-gens and max-evals into one generation count; name the one the other
    // engines would (check_stop's order: max_evals first)
    if (res.stop_reason == StopReason::max_gens && r.stop.max_evals && res.evals + p.np > *r.stop.max_evals)
      res.stop_reason = StopReason::max_evals;
    res.best_f = static_cast<double>(bf[t]);
    res.best_x.assign(bx.begin(), bx.end());
    res.nan_evals = static_cast<long long>(nan_h[t]);
    if (problem.optimum_f()) res.best_error = res.best_f - *problem.optimum_f();
    res.wall_s = wall;  // the trials run together
    if (o.history_every > 0) {
      const T* h = hist.data() + t * nhist;
      for (long long k = 0; k * o.history_every <= g[t] && k < static_cast<long long>(nhist); ++k)
        res.history.push_back({k * o.history_every, p.np * (k * o.history_every + 1), static_cast<double>(h[k]), 0.0});
      if (res.history.empty() || res.history.back().generation != g[t]) res.history.push_back({g[t], res.evals, res.best_f, wall});
    }
  }
  return out;
}

}  // namespace
}  // namespace degpu::cuda
