// The gpu engine's paths for populations too large for a cluster's shared memory: rows in global memory,
// the whole device as one cooperative grid (one trial per launch), generations separated by grid
// barriers. Each individual has two rows and a side flag per generation saying which holds it: the trial
// is written into the other row and a win flips the flag, so no row is ever copied.
//   - grid path (run_grid): a group of 32 lanes per individual, individuals spread over every SM;
//   - wide path (run_wide): K CTAs per individual, for large D with too few individuals to fill the
//     device with groups (D up to 10^7 and beyond); the CTAs' partial sums meet in global memory.
#pragma once
#include "cuda/engines/gpu/gpu_trial.cuh"

namespace degpu::cuda {
namespace {

template <class T>
__device__ __forceinline__ Slot<T> load_slot(const Slot<T>* q) {
  return Slot<T>{__ldcg(&q->f), __ldcg(&q->idx), __ldcg(&q->stop), __ldcg(&q->v)};
}

// The row of individual k in generation parity `par` (side flags in global memory).
template <class T>
struct GlobalRows {
  T *x0, *x1;
  const std::uint8_t* side;
  std::size_t Ds;
  __device__ const T* operator()(std::uint32_t k) const { return (__ldcg(side + k) ? x1 : x0) + k * Ds; }
  __device__ T* other(std::uint32_t k) const { return (__ldcg(side + k) ? x0 : x1) + k * Ds; }
};

// Selection of individual i between generations cur and cur ^ 1 (rows in global memory): the survivor's
// value, its side flag (a win moves it to the other row), the NaN count. Run by one thread.
template <class T>
__device__ void record_selection(const State<T>& s, int cur, std::uint32_t i, bool take, T ft, T fi) {
  s.f[cur ^ 1][i] = take ? ft : fi;
  const std::uint8_t si = __ldcg(s.side[cur] + i);
  s.side[cur ^ 1][i] = take ? !si : si;
  if (ft != ft) atomicAdd(s.nans, 1ull);
}

// The team's final result (run by every thread of one CTA, after the last barrier): the best of the
// last population (f and, under constraints, the violations cv in global memory), its row copied out.
template <class T>
__device__ void write_result(const State<T>& s, unsigned t, const T* f, const double* cv, const GlobalRows<T>& rows, int np,
                             int D, long long done, int why) {
  T bf = static_cast<T>(NAN);
  std::uint32_t bi = 0xffffffffu;
  double bv = static_cast<double>(INFINITY);
  const int m = s.lin.m;
  for (std::uint32_t i = threadIdx.x; i < static_cast<std::uint32_t>(np); i += blockDim.x) {
    const double v = m ? violation_key(cv + static_cast<std::size_t>(i) * m, m) : 0.0;
    keep_best(bv, bf, bi, v, __ldcg(f + i), i);
  }
  __shared__ Slot<T> final_best;
  publish_best(bf, bi, &final_best, 0, m > 0, bv);
  const Slot<T> b = final_best;
  const T* xr = rows(b.idx);
  for (int j = threadIdx.x; j < D; j += blockDim.x) s.best_x[static_cast<std::size_t>(t) * D + j] = __ldcg(xr + j);
  if (threadIdx.x == 0) {
    s.best[t] = b.idx;
    s.best_f[t] = b.f;
    s.gens[t] = done;
    s.reason[t] = why;
    record_history(s, t, done, b.f);
  }
}

// The global paths' dynamic shared memory: the CTA's copy of the population's state (shared words; the
// SHADE family's memories are 201), then the archive's plan (cap ints: gpu_archive.cuh).
__host__ __device__ inline std::size_t global_smem_bytes(int shared_words, int archive_cap) {
  return static_cast<std::size_t>(shared_words) * sizeof(double) + static_cast<std::size_t>(archive_cap) * sizeof(int);
}
__device__ __forceinline__ unsigned char* global_smem() {
  extern __shared__ __align__(16) unsigned char dyn[];
  return dyn;
}

// The start of generation g on the grid: the barrier (generation g - 1 written), the team's best and the
// stop decision (StopReason + 1, or 0 to go on). Generations::next goes on with the archive's insertions
// and current-to-pbest's ranking.
template <class T>
__device__ int begin_generation(const ops::Params& p, const State<T>& s, GridTeam& team, const T* f, long long g,
                                std::uint32_t& best) {
  team.wait();
  const unsigned ranks = GridTeam::ranks(), rank = GridTeam::rank();
  const int why = decide_stop(s, 0, g, ranks, rank == 0,
                              [&](unsigned r) { return load_slot(s.slots + ((g - 1) & 1) * ranks + r); },
                              [&] { return global_converged<T>(s.tol, s.atol, f, static_cast<std::uint32_t>(p.np)); }, best);
  const GlobalRows<T> rows{s.x[0], s.x[1], s.side[(g - 1) & 1], static_cast<std::size_t>(row_stride(p.D))};
  record_history_x(s, 0, g - 1, p.D, rank == 0, [&](int j) { return __ldcg(rows(best) + j); });
  return why;
}

// Donor k's row: individual k's current row, or member k - np of the archive.
template <class T>
struct DonorRows {
  GlobalRows<T> rows;
  EngineArchive<T> archive;
  std::uint32_t np;
  __device__ __forceinline__ const T* operator()(std::uint32_t k) const {
    return k < np ? rows(k) : archive.member(static_cast<int>(k - np));
  }
};

// The global paths' generations, written once for the grid and the wide path (a loop the kernel writes
// around its step, so that the step stays in the kernel's body: no callback, nothing in local memory):
//   Generations<T> gen(p, s);
//   while (gen.next(team)) { ... generation gen.g: rows gen.rows (of parity gen.cur), best gen.best ... }
//   gen.finish();
// next() begins generation g (begin_generation: the barrier, the team's best, the stop decision, the
// archive's insertions, the p-best ranking) and says whether to make it; finish() writes the result (CTA 0).
// With a population-level update (core/algorithms), next() also makes generation g - 1's update into the
// CTA's copy of the population's state (`shared`, in the dynamic shared memory), from the contributions
// every CTA wrote before the barrier (sums_at(i): where individual i's of generation g goes). With an
// archive, every CTA computes generation g - 1's insertions from the flags lost_at(i) of generation g - 1
// (s.lost[cur]) and copies the parents' rows (still the other row of each: the trial of generation g
// writes it after the ranking's barrier) of the insertions that fall to it (member at % ranks == rank).
template <class T>
struct Generations {
  const ops::Params& p;
  const State<T>& s;
  std::size_t Ds;
  long long g = 0;
  int why = 0, cur = 0;
  std::uint32_t best = 0;
  GlobalRows<T> rows{};
  int sum_words;
  double* shared;
  int arc_count = 0;  // the archive's members, every CTA alike
  __device__ Generations(const ops::Params& p_, const State<T>& s_)
      : p(p_),
        s(s_),
        Ds(static_cast<std::size_t>(row_stride(p_.D))),
        sum_words(alg::sum_words(p_)),
        shared(sum_words ? load_shared_state(p_, s_.shared0, reinterpret_cast<double*>(global_smem())) : nullptr) {}  // read after next()'s barrier
  // the archive's plan: its cap ints of shared memory, after the population's state
  __device__ __forceinline__ int* owner() const {
    return reinterpret_cast<int*>(global_smem() + static_cast<std::size_t>(alg::shared_words(p)) * sizeof(double));
  }
  __device__ __forceinline__ bool next(GridTeam& team) {
    ++g;
    cur = static_cast<int>((g - 1) & 1);
    rows = GlobalRows<T>{s.x[0], s.x[1], s.side[cur], Ds};
    why = begin_generation(p, s, team, s.f[cur], g, best);
    if (why) return false;
    const unsigned ranks = GridTeam::ranks(), rank = GridTeam::rank();
    if (s.archive.cap && g >= 2) {  // generation g - 1's losers
      const std::uint8_t* lost = s.lost[cur];
      arc_count = cta_archive_insert(
          p, gen() - 1, p.np, [&](int i) { return __ldcg(lost + i) != 0; }, s.archive.cap, arc_count, owner(), [&](int i, int at) {
            if (static_cast<unsigned>(at) % ranks == rank)
              copy_row(s.archive.member(at), rows.other(static_cast<std::uint32_t>(i)), static_cast<int>(Ds),
                       [](const T* q) { return load4<true>(q); });
          });
    }
    const bool pbest = p.mutation == Mutation::current_to_pbest1;
    if (pbest)
      rank_pbest(p, [&](int j) { return __ldcg(s.f[cur] + j); }, s.ranking, static_cast<int>(rank * blockDim.x + threadIdx.x), p.np,
                 static_cast<int>(ranks * blockDim.x));
    if (pbest || s.archive.cap) team.sync();  // the ranking and the archive's rows published
    if (sum_words && g >= 2) {
      if (threadIdx.x < 32) update_shared(gen() - 1);
      __syncthreads();
    }
    return why == 0;
  }
  // generation `gen`'s population-level update into `shared`, by one warp
  __device__ __forceinline__ void update_shared(std::uint32_t gen_done) const {
    const double* sums = s.sums + static_cast<std::size_t>(gen_done & 1) * sum_words * p.np;  // generation gen_done's
    warp_end_generation(p, gen_done, shared, [&](int w, std::uint32_t i) { return __ldcg(sums + static_cast<std::size_t>(w) * p.np + i); },
                        static_cast<std::uint32_t>(p.np));
  }
  __device__ __forceinline__ alg::Sums sums_at(std::uint32_t i) const {
    return alg::Sums{s.sums + static_cast<std::size_t>(cur ^ 1) * sum_words * p.np + i, static_cast<std::size_t>(p.np)};
  }
  // where individual i's "parent lost" flag of this generation goes (an archive)
  __device__ __forceinline__ std::uint8_t* lost_at(std::uint32_t i) const { return s.lost[cur ^ 1] + i; }
  __device__ __forceinline__ std::uint32_t gen() const { return static_cast<std::uint32_t>(g); }
  // The donors' rows this generation (DonorRows: by value, so that no call keeps the generation in memory).
  __device__ __forceinline__ DonorRows<T> donors() const { return DonorRows<T>{rows, s.archive, static_cast<std::uint32_t>(p.np)}; }
  __device__ __forceinline__ void finish() {
    const long long done = g - 1;
    const GlobalRows<T> last{s.x[0], s.x[1], s.side[done & 1], Ds};
    if (GridTeam::rank() == 0) {
      write_result(s, 0, s.f[done & 1], s.cv[done & 1], last, p.np, p.D, done, why);
      // the algorithm's final state (the host driver's: generation done's update made, its losers counted in)
      if (sum_words && done >= 1) {
        if (threadIdx.x < 32) update_shared(static_cast<std::uint32_t>(done));
        __syncthreads();
      }
      for (int w = threadIdx.x; w < alg::shared_words(p); w += blockDim.x) s.shared_out[w] = shared[w];
      if (s.archive.cap) {
        const std::uint8_t* lost = s.lost[done & 1];
        const int n = done >= 1 ? cta_archive_count(p.np, [&](int i) { return __ldcg(lost + i) != 0; }, s.archive.cap, arc_count) : 0;
        if (threadIdx.x == 0) s.archive_size[0] = n;
      }
    }
    if (s.pop_x) {  // RunOptions::keep_population: every CTA copies a share of the rows (generation `done` is written)
      const std::size_t D = static_cast<std::size_t>(p.D);
      const std::size_t stride = static_cast<std::size_t>(GridTeam::ranks()) * blockDim.x;
      for (std::size_t e = static_cast<std::size_t>(GridTeam::rank()) * blockDim.x + threadIdx.x; e < p.np * D; e += stride)
        s.pop_x[e] = __ldcg(last(static_cast<std::uint32_t>(e / D)) + e % D);
      for (std::size_t i = static_cast<std::size_t>(GridTeam::rank()) * blockDim.x + threadIdx.x; i < static_cast<std::size_t>(p.np); i += stride)
        s.pop_f[i] = __ldcg(s.f[done & 1] + i);
    }
  }
};

// A row of generation 0 (coordinates of blocks b, b + step, ... of individual i), with the padding.
template <class T>
__device__ void init_blocks(const ops::Params& p, const State<T>& s, T* x0, T* x1, std::uint32_t i, int b, int step) {
  const ops::Stream st(p.seed, p.trial, ops::Purpose::init, 0, i);
  for (int j0 = kBlock * b; j0 < p.D; j0 += kBlock * step)
#pragma unroll
    for (int k = 0; k < kBlock; ++k) {
      const int j = j0 + k;
      if (j < p.D) x0[j] = initial_value(s, st, i, j, p.D, s.lo[j], s.hi[j]);
      else x0[j] = x1[j] = T(0);
    }
}

// donor(k): donor k's row (an individual's, or an archive's member: DonorRows)
template <class F, class T, class Donor>
__device__ __forceinline__ TrialIn<T> trial_in(const ops::Params& p, const State<T>& s, const GlobalRows<T>& rows, const WinDraw<T>& w,
                               std::uint32_t g, std::uint32_t i, std::uint32_t best, const std::uint32_t* ranking, Donor donor) {
  const Mutation m = p.mutation;
  const T* xi = rows(i);
  const T* xb = uses_best(m) ? rows(best) : nullptr;
  const T* xpb = m == Mutation::current_to_pbest1 ? rows(__ldcg(ranking + w.pbest_rank)) : nullptr;
  // (jSO, whose F_w differs from F, does not take the global paths yet: gpu_engine.cuh's plan)
  return make_trial<T>(p, mutation_form<T>(m, w.r, xi, xb, xpb, donor), xi, rows.other(i), s.lo, s.hi, s.shift, s.ints, w, g, i, w.F);
}

// Grid path: a group of G lanes per individual.
template <class F, class T, int G>
__global__ void __launch_bounds__(kMaxThreads) run_grid(ops::Params p, const __grid_constant__ State<T> s,
                                                    const __grid_constant__ F fn) {
  const Group<G> grp;
  GridTeam team(s);
  const unsigned ranks = GridTeam::ranks(), rank = GridTeam::rank();
  const std::size_t Ds = static_cast<std::size_t>(row_stride(p.D));
  T* f[2] = {s.f[0], s.f[1]};
  const unsigned groups_per_cta = blockDim.x / G, gid = threadIdx.x / G;
  const unsigned group = rank * groups_per_cta + gid, groups = ranks * groups_per_cta;
  const unsigned long long start = global_ns();
  const T nan = static_cast<T>(NAN);
  const std::uint32_t np = static_cast<std::uint32_t>(p.np);
  auto time_up = [&] { return s.max_time_ns && global_ns() - start >= s.max_time_ns; };

  // Under constraints (mc > 0): each row's violations beside its value, the value only where feasible
  // (+inf elsewhere, as the CPU engines), Lampinen's rule in the selection, the best by feasibility.
  const int mc = s.lin.m;
  const T inf = static_cast<T>(INFINITY);
  T bf = nan;
  std::uint32_t bi = 0xffffffffu;
  double bv = static_cast<double>(INFINITY);
  for (std::uint32_t i = group; i < np; i += groups) {
    T* xi = s.x[0] + i * Ds;
    init_blocks(p, s, xi, s.x[1] + i * Ds, i, grp.lane, G);
    grp.sync();
    const double v = group_violations(s.lin, xi, p.D, s.cv[0] + static_cast<std::size_t>(i) * mc, grp);
    const T fi = v == 0 ? static_cast<T>(group_value<F, T, G>(s, fn, i, xi, s.shift, p.D, grp) + s.bias) : inf;
    if (grp.lane == 0) {
      f[0][i] = fi;
      s.side[0][i] = 0;
      if (fi != fi) atomicAdd(s.nans, 1ull);
      if (v != 0) atomicAdd(s.infeasible, 1ull);
    }
    keep_best(bv, bf, bi, v, fi, i);
  }
  if (s.need_best) publish_best(bf, bi, &s.slots[rank], rank == 0 && time_up(), mc > 0, bv);
  team.arrive();
  // A group with one individual makes its next draws while the others finish.
  const bool single = group < np && group + groups >= np;
  const bool bin = p.crossover == Crossover::bin;
  const std::uint32_t tag = stream_tag(rng::Purpose::crossover, p.trial);
  WinDraw<T> wa{};
  rng::Block ahead{};
  if (single) {
    wa = make_win<T>(p, 1, group);
    if (bin) ahead = philox_block(s.rk, 1u + grp.lane, group, 1u, tag);
  }

  const bool stateful = alg::stateful(p);
  // an archive: the donors drawn at the trial (family_donors), r2 among its members too
  const bool redraw = s.archive.cap > 0;
  Generations<T> gen(p, s);
  while (gen.next(team)) {
    const std::uint32_t gu = gen.gen(), best = gen.best;
    const int cur = gen.cur, nxt = cur ^ 1;
    const GlobalRows<T>& rows = gen.rows;
    bf = nan, bi = 0xffffffffu, bv = static_cast<double>(INFINITY);
    for (std::uint32_t i = group; i < np; i += groups) {
      WinDraw<T> w = single ? wa : make_win<T>(p, gu, i);
      if (stateful) {
        stateful_trial(p, gu, i, s.algo + i, gen.shared, w);
        if (redraw) family_donors(p, gu, i, static_cast<std::uint32_t>(gen.arc_count), s.ranking, gen.shared, w);
      }
      const TrialIn<T> a = trial_in<F>(p, s, rows, w, gu, i, best, s.ranking, gen.donors());
      Partial acc = trial_blocks<F, T, true>(a, s.rk, grp.lane, G, single && bin, ahead);
      double* cvt = s.cv[nxt] + static_cast<std::size_t>(i) * mc;  // (each individual's rows: always this group's)
      const double* cvi = s.cv[cur] + static_cast<std::size_t>(i) * mc;
      const double vt = group_violations(s.lin, a.ui, p.D, cvt, grp);
      double value = 0;
      if constexpr (F::pattern == fn::Pattern::elementwise) {
        value = acc.finish<F>(grp, p.D);
      } else {
        grp.sync();
        if (vt == 0) value = group_value<F, T, G>(s, fn, i, a.ui, s.shift, p.D, grp);
      }
      const T fi = __ldcg(f[cur] + i);
      T ft;
      bool take;
      double vi = 0;
      if (mc) {  // a uniform branch: without constraints the selection is the values' comparison alone
        vi = violation_key(cvi, mc);
        ft = vt == 0 ? static_cast<T>(value + s.bias) : inf;
        take = group_takes(mc, ft, cvt, fi, cvi, grp);
        if (grp.lane == 0 && vt != 0) atomicAdd(s.infeasible, 1ull);
      } else {
        ft = static_cast<T>(value + s.bias);
        take = ops::no_worse(ft, fi);
      }
      if (grp.lane == 0) {
        record_selection(s, cur, i, take, ft, fi);
        if (stateful) alg::selected(p, gu, i, s.algo + i, gen.shared, take, fi, ft, gen.sums_at(i));
        if (redraw) *gen.lost_at(i) = ops::parent_lost(take, ft, fi, cvt, cvi, mc);
      }
      if (s.need_best) {
        if (mc) keep_best(bv, bf, bi, take ? vt : vi, take ? ft : fi, i);
        else keep_best(bf, bi, take ? ft : fi, i);
      }
    }
    if (s.need_best) publish_best(bf, bi, &s.slots[nxt * ranks + rank], rank == 0 && time_up(), mc > 0, bv);
    team.arrive();
    if (single) {  // while the others finish
      wa = make_win<T>(p, gu + 1, group);
      if (bin) ahead = philox_block(s.rk, 1u + grp.lane, group, gu + 1, tag);
    }
  }
  gen.finish();
}

// Reductions over the CTA (every thread gets the value; blockDim a multiple of 32, at most 1024). Not
// cub::BlockReduce: the wide path's CTA size is the plan's (DEGPU_GPU_PLAN may set it), known at run time.
template <class Op>
__device__ double cta_reduce(double v, Op op, double identity) {
  __shared__ double part[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int off = 16; off > 0; off /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, off));
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    double w = lane < warps ? part[lane] : identity;
    for (int off = 16; off > 0; off /= 2) w = op(w, __shfl_xor_sync(0xffffffffu, w, off));
    if (lane == 0) part[0] = w;
  }
  __syncthreads();
  const double r = part[0];
  __syncthreads();
  return r;
}
__device__ Partial cta_partial(Partial a) {
  const auto add = [](double x, double y) { return x + y; };
  a.s0 = cta_reduce(a.s0, add, 0.0);
  a.s1 = cta_reduce(a.s1, add, 0.0);
  a.p = cta_reduce(a.p, [](double x, double y) { return x * y; }, 1.0);
  return a;
}
// The terms of the blocks b, b + step, ... of row u (not prefix functions); u is read through L2, since
// other CTAs wrote parts of it.
template <class F, class T>
__device__ Partial slice_terms(const T* u, const T* o, int D, int b, int step) {
  Partial acc;
  auto z = [&](int i) -> T { return o ? static_cast<T>(__ldcg(u + i) - __ldg(o + i)) : __ldcg(u + i); };
  const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
  for (int j0 = kBlock * b; j0 < nterms; j0 += kBlock * step) {
    const int n = nterms - j0 < kBlock ? nterms - j0 : kBlock;
    Vec4<T> zv, zn;
    gather_block<F>(z, j0, n, D, zv, zn);
    add_block<F>(acc, zv, zn, j0, n, D);
  }
  return acc;
}
// A prefix function (Schwefel 1.2) over the whole row by one CTA: consecutive runs per thread, scanned.
template <class F, class T>
__device__ double cta_evaluate_prefix(const T* u, const T* o, int D) {
  auto z = [&](int i) -> T { return o ? static_cast<T>(__ldcg(u + i) - __ldg(o + i)) : __ldcg(u + i); };
  const int per = (D + blockDim.x - 1) / blockDim.x;
  const int begin = min(D, static_cast<int>(threadIdx.x) * per), end = min(D, begin + per);
  double run = 0;
  for (int i = begin; i < end; ++i) run += static_cast<double>(z(i));
  double prefix = cta_exclusive_scan(run);
  Partial acc;
  for (int i = begin; i < end; ++i) {
    prefix += static_cast<double>(z(i));
    acc.add<F, T>(F::template term<T>(static_cast<T>(prefix), T(0), i, D));
  }
  acc = cta_partial(acc);
  return F::template finish<double>(acc.s0, acc.s1, acc.p, D);
}

// Wide path: K = s.per_individual CTAs per individual (CTA c of individual i takes the blocks
// c x blockDim + thread, stepping by K x blockDim); their partial sums go to s.partials, and CTA 0 of the
// individual adds them in order, selects and flips the side flag. (fn is not read: F has terms, and
// such a type is empty; the parameter keeps the three paths' launches alike.)
template <class F, class T>
__global__ void __launch_bounds__(kMaxThreads) run_wide(ops::Params p, const __grid_constant__ State<T> s,
                                                    const __grid_constant__ F fn) {
  GridTeam team(s);
  const int K = s.per_individual, c = static_cast<int>(blockIdx.x) % K;
  const int first = static_cast<int>(blockIdx.x) / K, stride = static_cast<int>(gridDim.x) / K;
  const int b0 = c * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x), bstep = K * static_cast<int>(blockDim.x);
  const std::size_t Ds = static_cast<std::size_t>(row_stride(p.D));
  const unsigned ranks = GridTeam::ranks(), rank = GridTeam::rank();
  T* f[2] = {s.f[0], s.f[1]};
  const unsigned long long start = global_ns();
  const T nan = static_cast<T>(NAN);
  constexpr bool kElementwise = F::pattern == fn::Pattern::elementwise, kPrefix = F::pattern == fn::Pattern::prefix;
  auto time_up = [&] { return s.max_time_ns && global_ns() - start >= s.max_time_ns; };
  auto put = [&](int i, const Partial& a) {
    if (threadIdx.x == 0) {
      double* q = s.partials + (static_cast<std::size_t>(i) * K + c) * 3;
      q[0] = a.s0, q[1] = a.s1, q[2] = a.p;
    }
  };
  // Evaluation of the rows u(i) of this CTA's individuals from memory: partials, then (after a barrier)
  // CTA 0 of each individual adds them (prefix functions: CTA 0 evaluates the whole row).
  auto evaluate_rows = [&](auto u) {
    for (int i = first; i < p.np; i += stride) {
      if constexpr (kPrefix) {
        if (c == 0) {
          const double v = cta_evaluate_prefix<F, T>(u(i), s.shift, p.D);
          put(i, Partial{v, 0, 1});
        }
      } else {
        put(i, cta_partial(slice_terms<F, T>(u(i), s.shift, p.D, b0, bstep)));
      }
    }
    team.sync();
  };
  auto total = [&](int i) -> double {
    if constexpr (kPrefix) return __ldcg(s.partials + static_cast<std::size_t>(i) * K * 3);
    Partial a;
    for (int q = 0; q < K; ++q) {
      const double* r = s.partials + (static_cast<std::size_t>(i) * K + q) * 3;
      a.s0 += __ldcg(r), a.s1 += __ldcg(r + 1), a.p *= __ldcg(r + 2);
    }
    return F::template finish<double>(a.s0, a.s1, a.p, p.D);
  };

  for (int i = first; i < p.np; i += stride) init_blocks(p, s, s.x[0] + i * Ds, s.x[1] + i * Ds, static_cast<std::uint32_t>(i), b0, bstep);
  team.sync();
  evaluate_rows([&](int i) { return s.x[0] + i * Ds; });
  T bf = nan;
  std::uint32_t bi = 0xffffffffu;
  if (c == 0 && threadIdx.x == 0)
    for (int i = first; i < p.np; i += stride) {
      const T fi = static_cast<T>(total(i) + s.bias);
      f[0][i] = fi;
      s.side[0][i] = 0;
      if (fi != fi) atomicAdd(s.nans, 1ull);
      keep_best(bf, bi, fi, static_cast<std::uint32_t>(i));
    }
  if (s.need_best) publish_best(bf, bi, &s.slots[rank], rank == 0 && time_up());
  team.arrive();

  const bool stateful = alg::stateful(p);
  const bool redraw = s.archive.cap > 0;  // as run_grid
  Generations<T> gen(p, s);
  while (gen.next(team)) {
    const std::uint32_t gu = gen.gen(), best = gen.best;
    const int cur = gen.cur, nxt = cur ^ 1;
    const GlobalRows<T>& rows = gen.rows;
    for (int i = first; i < p.np; i += stride) {
      WinDraw<T> w = make_win<T>(p, gu, static_cast<std::uint32_t>(i));
      if (stateful) {
        stateful_trial(p, gu, static_cast<std::uint32_t>(i), s.algo + i, gen.shared, w);
        if (redraw) family_donors(p, gu, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(gen.arc_count), s.ranking, gen.shared, w);
      }
      const TrialIn<T> a = trial_in<F>(p, s, rows, w, gu, static_cast<std::uint32_t>(i), best, s.ranking, gen.donors());
      const Partial acc = trial_blocks<F, T, true>(a, s.rk, b0, bstep, false, rng::Block{});
      if constexpr (kElementwise) put(i, cta_partial(acc));
    }
    team.sync();  // every CTA's part of the trials (and partials) written
    if constexpr (!kElementwise) evaluate_rows([&](int i) { return rows.other(static_cast<std::uint32_t>(i)); });
    bf = nan, bi = 0xffffffffu;
    if (c == 0 && threadIdx.x == 0)
      for (int i = first; i < p.np; i += stride) {
        const T ft = static_cast<T>(total(i) + s.bias), fi = __ldcg(f[cur] + i);
        const bool take = ops::no_worse(ft, fi);
        record_selection(s, cur, static_cast<std::uint32_t>(i), take, ft, fi);
        if (stateful) alg::selected(p, gu, static_cast<std::uint32_t>(i), s.algo + i, gen.shared, take, fi, ft, gen.sums_at(static_cast<std::uint32_t>(i)));
        if (redraw) *gen.lost_at(static_cast<std::uint32_t>(i)) = ops::parent_lost(take, ft, fi, nullptr, nullptr, 0);
        keep_best(bf, bi, take ? ft : fi, static_cast<std::uint32_t>(i));
      }
    if (s.need_best) publish_best(bf, bi, &s.slots[nxt * ranks + rank], rank == 0 && time_up());
    team.arrive();
  }
  gen.finish();
}

}  // namespace
}  // namespace degpu::cuda
