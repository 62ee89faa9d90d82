// The gpu engine's paths for populations too large for a cluster's shared memory: rows in global memory,
// the whole device as one cooperative grid (one trial per launch), generations separated by grid
// barriers. Each individual has two rows and a side flag per generation saying which holds it: the trial
// is written into the other row and a win flips the flag, so no row is ever copied.
//   - grid path (run_grid): a group of 32 lanes per individual, individuals spread over every SM;
//   - wide path (run_wide): K CTAs per individual, for large D with too few individuals to fill the
//     device with groups (D up to 10^7 and beyond); the CTAs' partial sums meet in global memory.
// A shrinking population (L-SHADE, jSO) keeps its individuals' rows where they are: a live table in each
// CTA's shared memory maps the live indices, which the draws, sums and rankings use, to them (Generations).
#pragma once
#include "cuda/engines/gpu/gpu_reduction.cuh"
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
// last population's np live individuals (f and, under constraints, the violations cv in global memory;
// row, live: Generations' live tables, or nullptr), its row copied out, its live index the result's.
template <class T>
__device__ void write_result(const State<T>& s, unsigned t, const T* f, const double* cv, const GlobalRows<T>& rows, int np,
                             const std::uint32_t* row, const int* live, int D, long long done, int why) {
  T bf = static_cast<T>(NAN);
  std::uint32_t bi = 0xffffffffu;
  double bv = static_cast<double>(INFINITY);
  const int m = s.lin.m;
  for (std::uint32_t q = threadIdx.x; q < static_cast<std::uint32_t>(np); q += blockDim.x) {
    const std::uint32_t i = live_row(row, q);
    const double v = m ? violation_key(cv + static_cast<std::size_t>(i) * m, m) : 0.0;
    keep_best(bv, bf, bi, v, __ldcg(f + i), i);
  }
  __shared__ Slot<T> final_best;
  publish_best(bf, bi, &final_best, 0, m > 0, bv);
  const Slot<T> b = final_best;
  const T* xr = rows(b.idx);
  for (int j = threadIdx.x; j < D; j += blockDim.x) s.best_x[static_cast<std::size_t>(t) * D + j] = __ldcg(xr + j);
  if (threadIdx.x == 0) {
    s.best[t] = live ? static_cast<std::uint32_t>(live[b.idx]) : b.idx;
    s.best_f[t] = b.f;
    s.gens[t] = done;
    s.reason[t] = why;
    record_history(s, t, done, b.f);
  }
}

// The global paths' dynamic shared memory: the CTA's copy of the population's state (shared words; the
// SHADE family's memories are 201), then the archive's plan (cap ints: gpu_archive.cuh), then, where the
// population shrinks from np0 (live_np0; else 0), the live tables (Generations: np0 uint32 and np0 ints).
__host__ __device__ inline std::size_t global_smem_bytes(int shared_words, int archive_cap, int live_np0) {
  static_assert(sizeof(double) == 8 && sizeof(int) == 4 && sizeof(std::uint32_t) == 4, "alg::global_shared_bytes's words");
  return alg::global_shared_bytes(shared_words, archive_cap, live_np0);
}
__device__ __forceinline__ unsigned char* global_smem() {
  extern __shared__ __align__(16) unsigned char dyn[];
  return dyn;
}

// Donor k's row: live individual k's current row (row: the live table, or nullptr), or member k - np of
// the archive.
template <class T>
struct DonorRows {
  GlobalRows<T> rows;
  EngineArchive<T> archive;
  std::uint32_t np;
  const std::uint32_t* row;
  __device__ __forceinline__ const T* operator()(std::uint32_t k) const {
    return k < np ? rows(live_row(row, k)) : archive.member(static_cast<int>(k - np));
  }
};

// The global paths' generations, written once for the grid and the wide path (a loop the kernel writes
// around its step, so that the step stays in the kernel's body: no callback, nothing in local memory):
//   Generations<T, kShrinking> gen(p, s);
//   while (gen.next(team)) { ... generation gen.g: rows gen.rows (of parity gen.cur), best gen.best ... }
//   gen.finish();
// next() begins generation g: the barrier (generation g - 1 written); generation g - 1's end, as the host
// driver makes it after its selections, before the stop test: the population-level update (core/algorithms)
// into the CTA's copy of the population's state (`shared`, in the dynamic shared memory) from the
// contributions every CTA wrote before the barrier (sums_at(q): where live individual q's of generation g
// go), the archive's insertions (every CTA computes generation g - 1's from the flags lost_at(q) and copies
// the parents' rows, still the other row of each, of the insertions that fall to it: member at % ranks ==
// rank; the trial of generation g writes those rows after the ranking's barrier) and the reduction; then the
// team's best, the stop decision (false: stop) and the p-best ranking. finish() writes the result (CTA 0).
// A shrinking population (L-SHADE, jSO: alg::reduces) keeps every individual's rows, value, side flag and
// violations where they are (individual i of the np0 at the start: the kernel's loops run over them, each
// the same group's or CTAs' for the whole run); a live table in each CTA's shared memory, the same in every
// CTA, maps live index q (the host driver's index in its compacted population: the draws, sums, rankings,
// flags and the archive's plan use it) to its individual, row[q], and back, live[i] (-1 where it went). The
// best is an individual (the tables keep the order, so the lower index first among equals is the same).
// kShrinking: the kernels of the algorithms whose population shrinks (alg::reduces), the others' without
// that code (measured: the wide path's generation 13% slower for DE with it, PERFORMANCE.md).
template <class T, bool kShrinking>
struct Generations {
  ops::Params& p;  // the kernel's: p.np and p.pbest_count follow a shrinking population, as the host driver's
  const State<T>& s;
  std::size_t Ds;
  int np0;  // the individuals (the initial NP)
  long long g = 0;
  int why = 0, cur = 0;
  std::uint32_t best = 0;  // the best's individual
  GlobalRows<T> rows{};
  int sum_words;
  double* shared;
  int arc_count = 0;  // the archive's members, every CTA alike
  int acap;           // its capacity now (it shrinks with the population)
  std::uint32_t* row = nullptr;  // the live tables where the population shrinks (else nullptr: q is i)
  int* live = nullptr;
  bool sliced = false;  // the launch ended at its slice's end (State::slice_end), the run not
  // (a slice after the first: the CTA's copies from s.carry, as the last slice's CTA 0 wrote them)
  __device__ Generations(ops::Params& p_, const State<T>& s_)
      : p(p_),
        s(s_),
        Ds(static_cast<std::size_t>(row_stride(p_.D))),
        np0(p_.np),
        g(s_.first_gen),
        sum_words(alg::sum_words(p_)),
        shared(sum_words ? load_shared_state(p_, s_.fresh ? s_.shared0 : s_.carry.shared, reinterpret_cast<double*>(global_smem()))
                         : nullptr),  // read after next()'s barrier
        acap(s_.archive.cap) {
    if (!s.fresh) {
      const int* c = s.carry.ints;
      arc_count = c[SliceCarry::kArcCount], acap = c[SliceCarry::kArcCap];
      p.np = c[SliceCarry::kNp], p.pbest_count = c[SliceCarry::kPbest];
    }
    if constexpr (kShrinking) {
      unsigned char* at = global_smem() + global_smem_bytes(alg::shared_words(p_), s_.archive.cap, 0);
      row = reinterpret_cast<std::uint32_t*>(at);
      live = reinterpret_cast<int*>(at + static_cast<std::size_t>(np0) * sizeof(std::uint32_t));
      for (int i = threadIdx.x; i < np0; i += blockDim.x) {
        row[i] = s.fresh ? static_cast<std::uint32_t>(i) : s.carry.row[i];
        live[i] = s.fresh ? i : s.carry.live[i];
      }
    }
  }
  // The slice's end (generation slice_end's selections written, its end not made): CTA 0 hands its copies
  // on (SliceCarry), the same in every CTA.
  __device__ void hand_on() {
    sliced = true;
    if (GridTeam::rank() != 0) return;
    for (int w = threadIdx.x; w < alg::shared_words(p); w += blockDim.x) s.carry.shared[w] = shared ? shared[w] : s.shared0[w];
    if constexpr (kShrinking)
      for (int i = threadIdx.x; i < np0; i += blockDim.x) s.carry.row[i] = row[i], s.carry.live[i] = live[i];
    if (threadIdx.x == 0) {
      int* c = s.carry.ints;
      c[SliceCarry::kArcCount] = arc_count, c[SliceCarry::kArcCap] = acap;
      c[SliceCarry::kNp] = p.np, c[SliceCarry::kPbest] = p.pbest_count;
      s.gens[0] = g - 1;
      s.reason[0] = 0;
    }
  }
  // the archive's plan: its cap ints of shared memory, after the population's state
  __device__ __forceinline__ int* owner() const {
    return reinterpret_cast<int*>(global_smem() + static_cast<std::size_t>(alg::shared_words(p)) * sizeof(double));
  }
  // live individual q's individual; individual i's live index (-1: it went)
  __device__ __forceinline__ std::uint32_t row_of(std::uint32_t q) const {
    if constexpr (kShrinking) return row[q];
    return q;
  }
  __device__ __forceinline__ int live_of(std::uint32_t i) const {
    if constexpr (kShrinking) return live[i];
    return static_cast<int>(i);
  }
  __device__ __forceinline__ const std::uint32_t* table() const { return kShrinking ? row : nullptr; }
  __device__ __forceinline__ bool next(GridTeam& team) {
    ++g;
    cur = static_cast<int>((g - 1) & 1);
    rows = GlobalRows<T>{s.x[0], s.x[1], s.side[cur], Ds};
    team.wait();
    if (g - 1 == s.slice_end) {
      hand_on();
      return false;
    }
    const unsigned ranks = GridTeam::ranks(), rank = GridTeam::rank();
    bool shrunk = false;
    if (g >= 2) {
      if (sum_words) {
        if (threadIdx.x < 32) update_shared(gen() - 1);
        __syncthreads();
      }
      if (s.archive.cap && acap > 0) {  // generation g - 1's losers
        const std::uint8_t* lost = s.lost[cur];
        arc_count = cta_archive_insert(
            p, gen() - 1, p.np, [&](int q) { return __ldcg(lost + q) != 0; }, acap, arc_count, owner(), [&](int q, int at) {
              if (static_cast<unsigned>(at) % ranks == rank)
                copy_row(s.archive.member(at), rows.other(row_of(static_cast<std::uint32_t>(q))), static_cast<int>(Ds),
                         [](const T* x) { return load4<true>(x); });
            });
      }
      // the next generation's sizes: the worst removed, the archive cut to its new capacity
      if constexpr (kShrinking) shrunk = next_sizes(p, shared, s.archive.cap, acap, arc_count, [&](int n) { shrink(team, n); });
    }
    why = decide_stop(s, 0, g, ranks, rank == 0, [&](unsigned r) { return load_slot(s.slots + cur * ranks + r); },
                      [&] { return global_converged<T>(s.tol, s.atol, s.f[cur], static_cast<std::uint32_t>(p.np), table()); }, best);
    if (!why && s.interrupted) why = 1 + static_cast<int>(StopReason::interrupted);  // (after the stop test, as the host driver's)
    if (shrunk && s.need_best && live_of(best) < 0) best = row_of(0);  // (the best went: every value was equal; the first is the host driver's)
    record_history_x(s, 0, g - 1, p.D, rank == 0, [&](int j) { return __ldcg(rows(best) + j); });
    if (why) return false;
    const bool pbest = p.mutation == Mutation::current_to_pbest1;
    if (pbest)
      warp_rank_pbest(p, [&](int q) { return __ldcg(s.f[cur] + row_of(static_cast<std::uint32_t>(q))); }, s.ranking,
                      static_cast<int>((rank * blockDim.x + threadIdx.x) / 32), static_cast<int>(ranks * blockDim.x / 32));
    if (pbest || s.archive.cap) team.sync();  // the ranking and the archive's rows published
    return true;
  }
  // The population shrinks to n (driver::survivors' order): the grid's warps mark the live individuals that
  // go (s.gone, by live index), and after the grid's barrier every CTA compacts its live tables (the
  // survivors keep their order).
  __device__ void shrink(GridTeam& team, int n) {
    const T* f = s.f[cur];
    const int warps = static_cast<int>(blockDim.x) / 32;
    mark_removed([&](int q) { return __ldcg(f + row_of(static_cast<std::uint32_t>(q))); }, p.np, p.np - n, s.gone,
                 static_cast<int>(GridTeam::rank()) * warps + static_cast<int>(threadIdx.x) / 32, static_cast<int>(GridTeam::ranks()) * warps);
    team.sync();
    int kept = 0;
    for (int c0 = 0; c0 < p.np; c0 += static_cast<int>(blockDim.x)) {
      const int q = c0 + static_cast<int>(threadIdx.x);
      const bool in = q < p.np;
      const bool out = in && __ldcg(s.gone + q) != 0;
      const std::uint32_t i = in ? row_of(static_cast<std::uint32_t>(q)) : 0u;
      int total = 0;
      const int at = cta_exclusive_scan(in && !out ? 1 : 0, &total);  // (its barriers: the chunk's entries read before any is written)
      if (in) {
        if (out) {
          live[i] = -1;
        } else {
          row[kept + at] = i;
          live[i] = kept + at;
        }
      }
      kept += total;
    }
    __syncthreads();
  }
  // generation `gen`'s population-level update into `shared`, by one warp
  __device__ __forceinline__ void update_shared(std::uint32_t gen_done) const {
    const double* sums = s.sums + static_cast<std::size_t>(gen_done & 1) * sum_words * np0;  // generation gen_done's
    warp_end_generation(p, gen_done, shared, [&](int w, std::uint32_t q) { return __ldcg(sums + static_cast<std::size_t>(w) * np0 + q); },
                        static_cast<std::uint32_t>(p.np));
  }
  __device__ __forceinline__ alg::Sums sums_at(std::uint32_t q) const {
    return alg::Sums{s.sums + static_cast<std::size_t>(cur ^ 1) * sum_words * np0 + q, static_cast<std::size_t>(np0)};
  }
  // where live individual q's "parent lost" flag of this generation goes (an archive)
  __device__ __forceinline__ std::uint8_t* lost_at(std::uint32_t q) const { return s.lost[cur ^ 1] + q; }
  __device__ __forceinline__ std::uint32_t gen() const { return static_cast<std::uint32_t>(g); }
  // The donors' rows this generation (DonorRows: by value, so that no call keeps the generation in memory).
  __device__ __forceinline__ DonorRows<T> donors() const { return DonorRows<T>{rows, s.archive, static_cast<std::uint32_t>(p.np), table()}; }
  __device__ __forceinline__ void finish() {
    if (sliced) return;
    const long long done = g - 1;
    const GlobalRows<T> last{s.x[0], s.x[1], s.side[done & 1], Ds};
    if (GridTeam::rank() == 0) {
      write_result(s, 0, s.f[done & 1], s.cv[done & 1], last, p.np, table(), kShrinking ? live : nullptr, p.D, done, why);
      // the algorithm's final state: generation done's update, insertions and reduction were made before the stop test
      for (int w = threadIdx.x; w < alg::shared_words(p); w += blockDim.x) s.shared_out[w] = shared[w];
      if (s.archive.cap && threadIdx.x == 0) s.archive_size[0] = arc_count;
    }
    if (s.pop_x) {  // RunOptions::keep_population: every CTA copies a share of the live rows (generation `done` is written)
      const std::size_t D = static_cast<std::size_t>(p.D);
      const std::size_t stride = static_cast<std::size_t>(GridTeam::ranks()) * blockDim.x;
      for (std::size_t e = static_cast<std::size_t>(GridTeam::rank()) * blockDim.x + threadIdx.x; e < p.np * D; e += stride)
        s.pop_x[e] = __ldcg(last(row_of(static_cast<std::uint32_t>(e / D))) + e % D);
      for (std::size_t q = static_cast<std::size_t>(GridTeam::rank()) * blockDim.x + threadIdx.x; q < static_cast<std::size_t>(p.np); q += stride)
        s.pop_f[q] = __ldcg(s.f[done & 1] + row_of(static_cast<std::uint32_t>(q)));
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

// Live individual q's trial of generation g, into individual i's other row (gen: Generations; best: the
// best's individual; the ranking's live indices and the donors' through gen's live table); Fp: current-to-
// pbest's factor of the p-best difference (jSO's F_w, else w.F).
template <class F, class T, class Gen>
__device__ __forceinline__ TrialIn<T> trial_in(const ops::Params& p, const State<T>& s, const Gen& gen, const WinDraw<T>& w,
                                               std::uint32_t q, std::uint32_t i, T Fp) {
  const Mutation m = p.mutation;
  const GlobalRows<T>& rows = gen.rows;
  const T* xi = rows(i);
  const T* xb = uses_best(m) ? rows(gen.best) : nullptr;
  const T* xpb = m == Mutation::current_to_pbest1 ? rows(gen.row_of(__ldcg(s.ranking + w.pbest_rank))) : nullptr;
  return make_trial<T>(p, mutation_form<T>(m, w.r, xi, xb, xpb, gen.donors()), xi, rows.other(i), s.lo, s.hi, s.shift, s.ints, w,
                       gen.gen(), q, Fp);
}

// Grid path: a group of G lanes per individual; kShrinking: Generations'.
template <class F, class T, int G, bool kShrinking>
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
  if (s.carry.start_ns && rank == 0 && threadIdx.x == 0) *s.carry.start_ns = start;
  // generation 0 (a slice after the first finds it, and the generations before, in global memory)
  for (std::uint32_t i = group; i < np && s.fresh; i += groups) {
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
  if (s.fresh) {
    if (s.need_best) publish_best(bf, bi, &s.slots[rank], rank == 0 && time_up(), mc > 0, bv);
    team.arrive();
  }
  // A group with one individual makes its next draws while the others finish (not where the population
  // shrinks: the live indices change).
  const bool single = group < np && group + groups >= np && !kShrinking;
  const bool bin = p.crossover == Crossover::bin;
  const std::uint32_t tag = stream_tag(rng::Purpose::crossover, p.trial);
  WinDraw<T> wa{};
  rng::Block ahead{};
  if (single) {
    const std::uint32_t g1 = static_cast<std::uint32_t>(s.first_gen + 1);  // the launch's first generation
    wa = make_win<T>(p, g1, group);
    if (bin) ahead = philox_block(s.rk, 1u + grp.lane, group, g1, tag);
  }

  const bool stateful = alg::stateful(p);
  // an archive: the donors drawn at the trial (family_donors), r2 among its members too
  const bool redraw = s.archive.cap > 0;
  Generations<T, kShrinking> gen(p, s);
  while (gen.next(team)) {
    const std::uint32_t gu = gen.gen();
    const int cur = gen.cur, nxt = cur ^ 1;
    bf = nan, bi = 0xffffffffu, bv = static_cast<double>(INFINITY);
    // individual i, live individual q (a shrinking population's live table; those that went are skipped)
    for (std::uint32_t i = group; i < np; i += groups) {
      const int ql = gen.live_of(i);
      if (ql < 0) continue;
      const std::uint32_t q = static_cast<std::uint32_t>(ql);
      WinDraw<T> w = single ? wa : make_win<T>(p, gu, q);
      T Fp = w.F;
      if (stateful) {
        Fp = stateful_trial(p, gu, q, s.algo + i, gen.shared, w);
        if (redraw) family_donors(p, gu, q, static_cast<std::uint32_t>(gen.arc_count), s.ranking, gen.shared, w);
      }
      const TrialIn<T> a = trial_in<F>(p, s, gen, w, q, i, Fp);
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
        if (stateful) alg::selected(p, gu, q, s.algo + i, gen.shared, take, fi, ft, gen.sums_at(q));
        if (redraw) *gen.lost_at(q) = ops::parent_lost(take, ft, fi, cvt, cvi, mc);
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
// such a type is empty; the parameter keeps the three paths' launches alike.) kShrinking: Generations'.
template <class F, class T, bool kShrinking>
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
  const int np0 = p.np;  // the individuals (a shrinking population's live ones: Generations' live table)
  // Evaluation of the rows u(i) of this CTA's individuals from memory (those for which on(i)): partials,
  // then (after a barrier) CTA 0 of each individual adds them (prefix functions: CTA 0 evaluates the whole row).
  auto evaluate_rows = [&](auto u, auto on) {
    for (int i = first; i < np0; i += stride) {
      if (!on(i)) continue;
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

  if (s.carry.start_ns && rank == 0 && threadIdx.x == 0) *s.carry.start_ns = start;
  T bf = nan;
  std::uint32_t bi = 0xffffffffu;
  if (s.fresh) {  // generation 0 (a slice after the first finds it, and the generations before, in global memory)
    for (int i = first; i < p.np; i += stride) init_blocks(p, s, s.x[0] + i * Ds, s.x[1] + i * Ds, static_cast<std::uint32_t>(i), b0, bstep);
    team.sync();
    evaluate_rows([&](int i) { return s.x[0] + i * Ds; }, [](int) { return true; });
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
  }

  const bool stateful = alg::stateful(p);
  const bool redraw = s.archive.cap > 0;  // as run_grid
  Generations<T, kShrinking> gen(p, s);
  while (gen.next(team)) {
    const std::uint32_t gu = gen.gen();
    const int cur = gen.cur, nxt = cur ^ 1;
    const GlobalRows<T>& rows = gen.rows;
    for (int i = first; i < np0; i += stride) {
      const int ql = gen.live_of(i);
      if (ql < 0) continue;
      const std::uint32_t q = static_cast<std::uint32_t>(ql);
      WinDraw<T> w = make_win<T>(p, gu, q);
      T Fp = w.F;
      if (stateful) {
        Fp = stateful_trial(p, gu, q, s.algo + i, gen.shared, w);
        if (redraw) family_donors(p, gu, q, static_cast<std::uint32_t>(gen.arc_count), s.ranking, gen.shared, w);
      }
      const TrialIn<T> a = trial_in<F>(p, s, gen, w, q, static_cast<std::uint32_t>(i), Fp);
      const Partial acc = trial_blocks<F, T, true>(a, s.rk, b0, bstep, false, rng::Block{});
      if constexpr (kElementwise) put(i, cta_partial(acc));
    }
    team.sync();  // every CTA's part of the trials (and partials) written
    if constexpr (!kElementwise)
      evaluate_rows([&](int i) { return rows.other(static_cast<std::uint32_t>(i)); }, [&](int i) { return gen.live_of(i) >= 0; });
    bf = nan, bi = 0xffffffffu;
    if (c == 0 && threadIdx.x == 0)
      for (int i = first; i < np0; i += stride) {
        const int ql = gen.live_of(i);
        if (ql < 0) continue;
        const std::uint32_t q = static_cast<std::uint32_t>(ql);
        const T ft = static_cast<T>(total(i) + s.bias), fi = __ldcg(f[cur] + i);
        const bool take = ops::no_worse(ft, fi);
        record_selection(s, cur, static_cast<std::uint32_t>(i), take, ft, fi);
        if (stateful) alg::selected(p, gu, q, s.algo + i, gen.shared, take, fi, ft, gen.sums_at(q));
        if (redraw) *gen.lost_at(q) = ops::parent_lost(take, ft, fi, nullptr, nullptr, 0);
        keep_best(bf, bi, take ? ft : fi, static_cast<std::uint32_t>(i));
      }
    if (s.need_best) publish_best(bf, bi, &s.slots[nxt * ranks + rank], rank == 0 && time_up());
    team.arrive();
  }
  gen.finish();
}

}  // namespace
}  // namespace degpu::cuda
