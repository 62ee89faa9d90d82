// Device building blocks of the gpu engine (gpu_engine.cuh, gpu_resident.cuh): the evaluation of one
// individual by a group of lanes (cuda/blocks/group.cuh), Philox with precomputed round keys, 4-wide row
// accesses, and the exchange of the best individual between the CTAs of a team (the teams and their
// barriers: cuda/blocks/teams.cuh).
#pragma once
#include <cooperative_groups.h>

#include <cstdint>

#include "core/algorithms/registry.hpp"
#include "core/de_ops.hpp"
#include "cuda/blocks/best.cuh"
#include "cuda/blocks/group.cuh"
#include "cuda/blocks/kernel_function.cuh"
#include "cuda/blocks/linear_violation.cuh"
#include "cuda/blocks/population_update.cuh"
#include "cuda/blocks/teams.cuh"
#include "cuda/engines/gpu/island_peer.hpp"
#include "cuda/blocks/vec4.cuh"
#include "core/migration.hpp"
#include "cuda/engines/gpu/gpu_archive.cuh"
#include "degpu/feasibility.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/stop.hpp"

namespace cg = cooperative_groups;

namespace degpu::cuda {
namespace {

constexpr int kMaxThreads = 512;  // 128 registers a thread: the step does not spill

// A CTA's best of one generation, and (CTA 0) whether the time is up. Under constraints v is the best's
// violation_key (feasibility.hpp: 0 where feasible, else its summed violation), which ranks first.
template <class T>
struct Slot {
  T f;
  std::uint32_t idx;
  int stop;
  double v = 0;
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// kGlobal: rows in global memory (else shared memory), and their read-only companions.
template <bool kGlobal, class T>
__device__ __forceinline__ Vec4<T> load4(const T* p) { return load4_from<kGlobal ? From::global : From::shared>(p); }
template <bool kGlobal, class T>
__device__ __forceinline__ Vec4<T> load4_ro(const T* p) { return load4_from<kGlobal ? From::global_ro : From::shared>(p); }

// Philox4x32-10 with the round keys precomputed (rk[r] = key + r x Weyl constant): the kernels keep them
// in their parameters, which the rounds' XORs read from the constant bank. The same function as
// rng::philox4x32_10 (the tests compare every engine with the serial one).
struct RoundKeys {
  std::uint32_t k0[10], k1[10];
};
inline RoundKeys round_keys(std::uint64_t seed) {
  RoundKeys rk{};
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r, k0 += 0x9E3779B9u, k1 += 0xBB67AE85u) rk.k0[r] = k0, rk.k1[r] = k1;
  return rk;
}
__device__ __forceinline__ rng::Block philox_block(const RoundKeys& rk, std::uint32_t c0, std::uint32_t c1,
                                                   std::uint32_t c2, std::uint32_t c3) {
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const std::uint64_t p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;  // IMAD.WIDE: both halves at once
    c0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ rk.k0[r];
    c1 = static_cast<std::uint32_t>(p1);
    c2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ rk.k1[r];
    c3 = static_cast<std::uint32_t>(p0);
  }
  return rng::Block{{c0, c1, c2, c3}};
}

// The kernels' arguments (one launch runs every trial of the batch).

// What a slice of the gpu engine's run hands the next (docs/CHECKPOINT_PLAN.md, "The gpu engine, refined";
// gpu_slices.cuh). The global paths (gpu_global.cuh's Generations): each CTA's own copies, the same in every
// CTA, which CTA 0 writes at the slice's end and every CTA reads back at the next one's start: the
// population's state (shared words), the loop's sizes (ints: the archive's members and capacity now, the
// live NP and p-best count), a shrinking population's live tables (row: np0 individuals by live index, live:
// np0 live indices). The resident path (gpu_resident.cuh): each CTA's own shared memory (the layout before
// the function's region, ResidentShape::off_fn bytes) after a header of kResidentHeader ints (the live NP,
// the p-best count, the archive's capacity now), cta_bytes a CTA from `cta` (CTA b's at cta + b cta_bytes).
// Both: %globaltimer at the slice's start (the earliest CTA's). All nullptr for a run in one launch.
struct SliceCarry {
  enum Int { kArcCount, kArcCap, kNp, kPbest, kInts };
  // kResidentAtStop: the slice ended after its last generation's end was made up to the stop decision (a
  // migration's slice end: State::end_at_stop), which the next launch begins with
  enum ResidentInt { kResidentNp, kResidentPbest, kResidentArcCap, kResidentAtStop, kResidentHeader = 4 };
  double* shared = nullptr;
  int* ints = nullptr;
  std::uint32_t* row = nullptr;
  int* live = nullptr;
  unsigned long long* start_ns = nullptr;
  unsigned char* cta = nullptr;
  std::size_t cta_bytes = 0;
};

// Islands exchanging inside the launch (resident path; gpu_exchange.cuh, docs/ISLANDS_PLAN.md step 5): the
// batch's trials are the archipelago's islands (island k: trial k of the batch, drawing as trial first + k),
// which migrate after every generation that is a multiple of mg.interval, each island's cluster through
// these buffers in global memory, every island's cluster resident at once (the plan checks it); `on` false:
// none. Buffers by the epoch's parity (epoch e: the migration after generation e interval), M = mg.migrants:
template <class T>
// The launch's clusters are the islands of one or more trials side by side: cluster c is island c % K of the
// batch's trial c / K, which draws its migrations as trial first + (c - c % K) (the archipelago's first trial,
// core/islands.hpp); C = clusters. The buffers below are by cluster.
struct LaunchIslands {
  bool on = false;
  bool target = false;  // the trials stop on a target: every island of a trial at the same generation
  Migration mg;         // (mg.islands: K, each trial's)
  int clusters = 0;     // C
  std::uint64_t seed = 0;
  std::uint32_t first = 0;
  int np0 = 0;    // each island's first NP
  int words = 0;  // the algorithm's state words per individual (a stateful algorithm: jDE's F and CR)
  T* rows = nullptr;                 // [2][C][M][Ds]: each island's emigrants
  T* f = nullptr;                    // [2][C][M]: their values
  migration::Key* keys = nullptr;    // [2][C][M]: their rank keys
  double* state = nullptr;           // [2][C][M][words]: their state words
  unsigned* count = nullptr;         // [2][C]: how many each island sent
  unsigned* flag = nullptr;          // [C]: the generation of the last migration each island's emigrants are out for
  unsigned* reads = nullptr;         // [2][C]: how many receivers have read each island's emigrants of the parity
  migration::Key* own = nullptr;     // [C][np0]: scratch, each island's keys
  migration::Key* cand = nullptr;    // [C][max_sources(K) M]: scratch, each island's candidates
  int* from = nullptr;               // [C][max_sources(K) M][2]: candidate j's source island (of its trial) and emigrant
  int* sources = nullptr;            // [C][max_sources(K)]
  std::uint32_t* scratch = nullptr;  // [C][4 M]: the migration's draws, then each island's emigrants
  migration::Move* moves = nullptr;  // [C][M]
  unsigned long long* decided = nullptr;  // [C] (target): the last generation g whose stop each island has decided
  unsigned long long* reached = nullptr;  // [C / K] (target): the first g at which an island of the trial reached it
  // Over processes (one trial, a GPU each; ISLANDS_PLAN.md "Several GPUs"): this launch's clusters are islands
  // k0 .. k0 + local - 1 of the trial (one process: k0 0, local K, and trials side by side as above), first the
  // trial's island 0's draw; the other islands' buffers are peers[r]'s, process r's (IslandPeer: its own too,
  // at its rank), read and counted at system scope; abort (host memory, mapped): nonzero when the host found a
  // process lost, so that no wait waits for it (the launch's results are then dropped).
  int k0 = 0, local = 0;
  const IslandPeer* peers = nullptr;
  int procs = 1;
  const volatile unsigned* abort = nullptr;
};

template <class T>
struct State {
  T* x[2];  // global rows: trials x np x Ds, the two rows of each individual, side[] saying which holds it
  std::uint8_t* side[2];    // trials x np, by generation parity
  T* f[2];                  // global rows: trials x np
  const T *lo, *hi, *shift;  // padded to the row stride with zeros; shift nullptr when unshifted
  ops::Integers<T> ints;     // integrality (constraints.hpp): D values each; integer nullptr: none
  Slot<T>* slots;           // global rows: trials x 2 (parity) x ranks
  std::uint32_t* ranking;   // trials x pbest_count: the best individuals in order (current-to-pbest)
  unsigned long long* nans; // per trial
  unsigned long long* arrivals;  // grid barrier's counter (zero at launch)
  double* partials;         // wide path: np x K x 3 partial sums
  long long* gens;          // per trial: generations done
  int* reason;              // per trial: StopReason + 1
  std::uint32_t* best;      // per trial
  T* best_f;                // per trial
  T* best_x;                // trials x D
  T* history;               // trials x nhist
  unsigned long long* history_ns;  // trials x nhist: %globaltimer when each sample was taken
  T* history_x;             // RunOptions::history_x: trials x nhist_x x D, each sample's best row; else nullptr
  long long nhist_x;        // the samples that keep their row (the first nhist_x)
  double bias;
  long long max_gens;
  int history_every;
  long long nhist;
  bool need_best;  // the best is exchanged every generation (best mutations, target, convergence, history, time)
  bool has_target;
  double target_f;
  bool has_convergence;  // StopCriteria::convergence: tested on the values of generations 1 on
  double tol, atol;
  unsigned long long max_time_ns;
  int window;          // resident path: generations of draws made at a time
  int per_individual;  // wide path: CTAs per individual
  RoundKeys rk;
  int fn_choice;     // resident path: the plan's choice among the function's resident_choices (kernel_function.cuh)
  // the spread path (the resident kernel over the whole grid, gpu_resident.cuh's kSpread): each CTA's image of
  // its shared memory up to the function's region, image_bytes apart, where the other CTAs read it
  unsigned char* image;
  std::size_t image_bytes;
  alg::State algo;  // the algorithm's state of individual 0 of trial 0 (trials x np individuals; core/algorithms)
  // a population-level update: its initial state (every CTA keeps a copy: population_update.cuh) and, on the
  // global paths, the contributions (word w of individual i of generation g at sums[((g & 1) words + w) np + i];
  // the resident path keeps them in the cluster's shared memory)
  const double* shared0;
  double* sums;
  // an archive (JADE's optional one, SHADE's; archive.cap 0: none): trial t's members from archive.rows +
  // t cap stride (gpu_archive.cuh); the parents that lost (the global paths': np flags by generation parity;
  // the resident path keeps its own in shared memory); at the end, each trial's members (archive_size) and
  // population state (shared_out: shared words a trial), the result's
  EngineArchive<T> archive;
  std::uint8_t* lost[2];
  std::uint8_t* gone;  // a shrinking population on the global paths: np flags, those that go (gpu_global.cuh's Generations)
  int* archive_size;
  double* shared_out;
  const T* initial;        // RunOptions::initial: the first rows of generation 0 (ninitial x D), every trial's
  int ninitial;
  T* pop_x;  // RunOptions::keep_population: the last generation's rows (trials x np x D, unpadded); else nullptr
  T* pop_f;  // and values (trials x np)
  // Linear constraints (lin.m = 0: none): the violations of each individual, np x m by generation parity
  // on the grid path (the resident path keeps them in shared memory), and the count of points not
  // evaluated (infeasible: +inf, as the CPU engines) per trial.
  LinearOnDevice lin;
  double* cv[2];
  unsigned long long* infeasible;
  // Slices (gpu_slices.cuh): a launch that starts the run (fresh: generation 0 made here) or continues one
  // whose generations 0 .. first_gen are done (from `carry`), and ends at the start of generation
  // slice_end + 1, its end not yet made, handing `carry` on (reason 0, gens slice_end); a run in one launch:
  // fresh, first_gen 0, slice_end past max_gens. The resident path's trials that ended in an earlier slice
  // (reason not 0) do nothing.
  bool fresh = true;
  long long first_gen = 0;
  long long slice_end = 1LL << 62;
  bool interrupted = false;  // the run was interrupted after generation first_gen: it stops there (its end made)
  // Islands between slices (resident path; gpu_islands.hpp): the slice ends at generation slice_end after its
  // end is made (the population-level update, the archive's insertions, the reduction) and before the stop
  // decision, where the host driver migrates; the carry's header says so (kResidentAtStop) to the next launch.
  bool end_at_stop = false;
  LaunchIslands<T> isl;  // islands in one launch (isl.on)
  SliceCarry carry;
};

// Coordinate j of individual i in generation 0: the given row's, or drawn from the init stream.
template <class T>
__device__ __forceinline__ T initial_value(const State<T>& s, const ops::Stream& st, std::uint32_t i, int j, int D, T lo, T hi) {
  if (static_cast<int>(i) < s.ninitial) return s.ints(j, s.initial[static_cast<std::size_t>(i) * D + j]);
  return s.ints(j, ops::uniform_in(st.unit_pair(static_cast<std::uint64_t>(j)), lo, hi));
}

// A function's terms summed by one lane: s0, s1 and the product p, in double.
struct Partial {
  double s0 = 0, s1 = 0, p = 1;
  template <class F, class T>
  __device__ void add(const fn::Terms<T>& t) {
    if constexpr (F::sums >= 1) s0 += static_cast<double>(t.s0);
    if constexpr (F::sums >= 2) s1 += static_cast<double>(t.s1);
    if constexpr (F::product) p *= static_cast<double>(t.p);
  }
  template <class F, int G>
  __device__ double finish(const Group<G>& grp, int D) {
    if constexpr (F::sums >= 1) s0 = grp.sum(s0);
    if constexpr (F::sums >= 2) s1 = grp.sum(s1);
    if constexpr (F::product) p = grp.product(p);
    return F::template finish<double>(s0, s1, p, D);
  }
};

// The terms of block j0 .. j0+n-1 (z: its shifted coordinates, zn: each one's successor for neighbour and
// cyclic functions), summed as a tree, ((t0 + t1) + (t2 + t3)), then added to the lane's partial: a full
// block has no branch, so its four terms' dependency chains overlap.
template <class F, class T>
__device__ __forceinline__ void add_block(Partial& acc, const Vec4<T>& z, const Vec4<T>& zn, int j0, int n, int D) {
  fn::Terms<T> t[kBlock];
  if (n == kBlock) {
#pragma unroll
    for (int k = 0; k < kBlock; ++k) t[k] = F::template term<T>(z.v[k], zn.v[k], j0 + k, D);
  } else {
#pragma unroll
    for (int k = 0; k < kBlock; ++k) t[k] = k < n ? F::template term<T>(z.v[k], zn.v[k], j0 + k, D) : fn::Terms<T>{T(0), T(0), T(1)};
  }
  if constexpr (F::sums >= 1)
    acc.s0 += (static_cast<double>(t[0].s0) + static_cast<double>(t[1].s0)) + (static_cast<double>(t[2].s0) + static_cast<double>(t[3].s0));
  if constexpr (F::sums >= 2)
    acc.s1 += (static_cast<double>(t[0].s1) + static_cast<double>(t[1].s1)) + (static_cast<double>(t[2].s1) + static_cast<double>(t[3].s1));
  if constexpr (F::product)
    acc.p *= (static_cast<double>(t[0].p) * static_cast<double>(t[1].p)) * (static_cast<double>(t[2].p) * static_cast<double>(t[3].p));
}
// Elementwise functions: the trial's loop adds each block's terms as it makes the coordinates.
template <class F, class T>
__device__ __forceinline__ void add_terms(Partial& acc, const Vec4<T>& z, int j0, int n, int D) {
  add_block<F>(acc, z, Vec4<T>{}, j0, n, D);
}

// The shifted coordinates j0 .. j0+n-1 (z(i) reads one) and, for neighbour and cyclic functions, each
// one's successor; zero elsewhere. A whole block reads five coordinates, not eight (measured: 30 trials of
// the CUDA issue's Rosenbrock job 0.229 -> 0.210 s, PERFORMANCE.md).
template <class F, class T, class Z>
__device__ __forceinline__ void gather_block(Z z, int j0, int n, int D, Vec4<T>& zv, Vec4<T>& zn) {
  zv = Vec4<T>{}, zn = Vec4<T>{};
  if (n == kBlock) {  // a whole block: each coordinate once, the successors from the block but the last
#pragma unroll
    for (int k = 0; k < kBlock; ++k) zv.v[k] = z(j0 + k);
    if constexpr (F::pattern == fn::Pattern::neighbour || F::pattern == fn::Pattern::cyclic) {
#pragma unroll
      for (int k = 0; k + 1 < kBlock; ++k) zn.v[k] = zv.v[k + 1];
      const int i = j0 + kBlock;
      zn.v[kBlock - 1] = F::pattern == fn::Pattern::cyclic && i == D ? z(0) : z(i);
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < kBlock; ++k) {
    if (k >= n) continue;
    const int i = j0 + k;
    zv.v[k] = z(i);
    if constexpr (F::pattern == fn::Pattern::neighbour) zn.v[k] = z(i + 1);
    if constexpr (F::pattern == fn::Pattern::cyclic) zn.v[k] = z(i + 1 == D ? 0 : i + 1);
  }
}

// scipy's convergence test (stop.hpp's spread_of and converged) on the n values value(i) of a generation:
// the mean, then the mean squared deviation, each summed by the CTA's warps in tree_sum's order, so that
// the host driver's bits and decision come out. Run by every thread of the CTA; every thread gets the answer.
// The paths call it through an out-of-line function that takes plain values (global_converged,
// cluster_converged), so that a run without the test keeps the kernel as it was.
template <class Value>
__device__ __forceinline__ bool population_converged(double tol, double atol, Value value, std::uint32_t n) {
  __shared__ double part[32];
  const double nd = static_cast<double>(n);
  const double mean = cta_tree_sum([&](std::uint32_t i) { return static_cast<double>(value(i)); }, n, part) / nd;
  const double sd = sqrt(cta_tree_sum([&](std::uint32_t i) {
                           const double d = static_cast<double>(value(i)) - mean;
                           return d * d;
                         }, n, part) / nd);
  return isfinite(mean) && isfinite(sd) && sd <= atol + tol * fabs(mean);
}
// The global paths' live table (gpu_global.cuh's Generations: row[q], live individual q's rows, value and
// flags), or nullptr where the population keeps its order: live individual k's.
__device__ __forceinline__ std::uint32_t live_row(const std::uint32_t* row, std::uint32_t k) { return row ? row[k] : k; }
// The test on n values in global memory (the grid and wide paths): live individual i's at f[live_row(row, i)].
template <class T>
__device__ __noinline__ bool global_converged(double tol, double atol, const T* f, std::uint32_t n, const std::uint32_t* row) {
  return population_converged(tol, atol, [&](std::uint32_t i) { return static_cast<double>(__ldcg(f + live_row(row, i))); }, n);
}

// The stop decision before generation g (StopReason + 1, or 0 to go on), from the team's best and whether
// generation g - 1 passed the convergence test; check_stop's order (max_evals is a generation count here).
template <class T>
__device__ int stop_reason(const State<T>& s, const Slot<T>& b, long long g, bool converged) {
  if (s.has_target && static_cast<double>(b.f) <= s.target_f) return 1 + static_cast<int>(StopReason::target);
  if (converged) return 1 + static_cast<int>(StopReason::converged);
  if (g - 1 >= s.max_gens) return 1 + static_cast<int>(StopReason::max_gens);
  if (b.stop) return 1 + static_cast<int>(StopReason::max_time);
  return 0;
}
template <class T>
__device__ void record_history(const State<T>& s, unsigned t, long long gen, T f) {
  if (s.history_every > 0 && gen % s.history_every == 0 && gen / s.history_every < s.nhist) {
    s.history[t * s.nhist + gen / s.history_every] = f;
    s.history_ns[t * s.nhist + gen / s.history_every] = global_ns();
  }
}

// f(u) without bias by one group; every lane gets the value (kGlobal: u in global memory, read through L2). Lane l takes the blocks l, l + G, ..., in
// coordinate order (the trial's layout, so a value evaluated here and one summed while the trial is made
// are the same bits); prefix functions (Schwefel 1.2) give each lane a run of consecutive blocks and scan
// the lanes' sums.
template <class F, class T, int G, bool kGlobal = false>
__device__ double group_evaluate(const T* u, const T* __restrict__ o, int D, const Group<G>& grp) {
  auto at = [&](int i) -> T {  // kGlobal: a row in global memory, read through L2
    if constexpr (kGlobal) return __ldcg(u + i);
    return u[i];
  };
  auto z = [&](int i) -> T { return o ? static_cast<T>(at(i) - o[i]) : at(i); };
  Partial acc;
  if constexpr (F::pattern == fn::Pattern::prefix) {
    const int blocks = (D + kBlock - 1) / kBlock, per = (blocks + G - 1) / G;
    const int begin = grp.lane * per * kBlock < D ? grp.lane * per * kBlock : D;
    const int end = begin + per * kBlock < D ? begin + per * kBlock : D;
    double run = 0;
    for (int i = begin; i < end; ++i) run += static_cast<double>(z(i));
    double prefix = grp.exclusive_scan(run);
    for (int i = begin; i < end; ++i) {
      prefix += static_cast<double>(z(i));
      acc.add<F, T>(F::template term<T>(static_cast<T>(prefix), T(0), i, D));
    }
  } else {
    // the blocks' terms as the trial's loop adds them; a neighbour function has no term for D - 1
    const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
    for (int j0 = kBlock * grp.lane; j0 < nterms; j0 += kBlock * G) {
      const int n = nterms - j0 < kBlock ? nterms - j0 : kBlock;
      Vec4<T> zv, zn;
      gather_block<F>(z, j0, n, D, zv, zn);
      add_block<F>(acc, zv, zn, j0, n, D);
    }
  }
  return acc.finish<F>(grp, D);
}

// f(u) by one group, every lane gets it: group_evaluate for the built-in functions (without the bias), a
// function that evaluates a row by a group itself (kernel_function.cuh's kGroupValue: with its own bias
// where it adds one, State::bias being 0 then; `slot` is the individual's scratch slot in its data), a
// user's row function (fn: its value) by lane 0.
template <class F, class T, int G>
__device__ double group_value(const State<T>& s, const F& fn, std::size_t slot, const T* u, const T* o, int D, const Group<G>& grp) {
  if constexpr (is_row_function<F>) {
    double v = 0;
    if (grp.lane == 0) v = static_cast<double>(fn.f(u, D));
    return __shfl_sync(grp.mask, v, 0, G);
  } else if constexpr (has_group_value<F>) {
    const double v = fn.template group_value<kMaxThreads, G>(slot, u, grp.lane, G, true, static_cast<int>(threadIdx.x) - grp.lane,
                                                             [&] { grp.sync(); });
    return __shfl_sync(grp.mask, v, 0, G);
  } else {
    return group_evaluate<F, T, G>(u, o, D, grp);
  }
}

// The running best (bf, bi) of a thread: (f, i) replaces it if it ranks before.
template <class T>
__device__ __forceinline__ void keep_best(T& bf, std::uint32_t& bi, T f, std::uint32_t i) {
  if (ranks_before(f, i, bf, bi)) bf = f, bi = i;
}
// Under constraints: (v, f, i) ranks before (bv, bf, bi) by violation key (feasibility.hpp's
// violation_key), then value, then index: the CPU engines' best (driver.hpp's find_best). Without, every
// v is 0 and this is ranks_before.
template <class T>
__device__ __forceinline__ bool ranks_before(double v, T f, std::uint32_t i, double bv, T bf, std::uint32_t bi) {
  return v < bv || (!(bv < v) && ranks_before(f, i, bf, bi));
}
template <class T>
__device__ __forceinline__ void keep_best(double& bv, T& bf, std::uint32_t& bi, double v, T f, std::uint32_t i) {
  if (ranks_before(v, f, i, bv, bf, bi)) bv = v, bf = f, bi = i;
}

// The CTA's best (f, index) into *slot (with the stop flag); run by every thread of the CTA. Hand-written,
// not cub::BlockReduce: the CTA's size is the plan's, chosen at run time (cub::BlockReduce takes it as a
// template argument and needs exactly that many threads). with_v (constraints): the violation keys bv
// rank first (a uniform branch; without, bv is 0 and not exchanged).
template <class T>
__device__ void publish_best(T bf, std::uint32_t bi, Slot<T>* slot, int stop, bool with_v = false, double bv = 0) {
  __shared__ T sf[32];
  __shared__ std::uint32_t si[32];
  __shared__ double sv[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
  const auto reduce = [&] {
    for (int off = 16; off > 0; off /= 2) {
      const T of = __shfl_xor_sync(0xffffffffu, bf, off);
      const std::uint32_t oi = __shfl_xor_sync(0xffffffffu, bi, off);
      if (with_v) {
        const double ov = __shfl_xor_sync(0xffffffffu, bv, off);
        if (ranks_before(ov, of, oi, bv, bf, bi)) bv = ov, bf = of, bi = oi;
      } else if (ranks_before(of, oi, bf, bi)) {
        bf = of, bi = oi;
      }
    }
  };
  reduce();
  if (lane == 0) sf[warp] = bf, si[warp] = bi, sv[warp] = bv;
  __syncthreads();
  if (warp == 0) {
    bf = lane < warps ? sf[lane] : sf[0];
    bi = lane < warps ? si[lane] : si[0];
    bv = lane < warps ? sv[lane] : sv[0];
    reduce();
    if (lane == 0) *slot = Slot<T>{bf, bi, stop, with_v ? bv : 0.0};
  }
  __syncthreads();  // sf, si, sv reused
}

// The team's best from the slots of its `ranks` CTAs (load(r) reads rank r's), the same answer in every
// CTA, with CTA 0's stop flag (with_v: under constraints, the violation keys rank first). Run by every
// thread of the CTA.
template <class T, class Load>
__device__ Slot<T> read_best(Load load, unsigned ranks, bool with_v = false) {
  __shared__ Slot<T> result;
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    const Slot<T> s0 = load(0);
    T bf = s0.f;
    std::uint32_t bi = s0.idx;
    double bv = s0.v;
    for (unsigned r = lane; r < ranks; r += 32) {
      const Slot<T> s = load(r);
      if (ranks_before(s.v, s.f, s.idx, bv, bf, bi)) bv = s.v, bf = s.f, bi = s.idx;
    }
    // Hand-written, not cub::WarpReduce (over best.cuh's Ranked): with CUB's, the whole D 100 benchmark
    // took 3.8% longer (H200, bench/architecture_speed.sh: 18.22 s against 17.56 s; PERFORMANCE.md).
    for (int off = 16; off > 0; off /= 2) {
      const T of = __shfl_xor_sync(0xffffffffu, bf, off);
      const std::uint32_t oi = __shfl_xor_sync(0xffffffffu, bi, off);
      if (with_v) {
        const double ov = __shfl_xor_sync(0xffffffffu, bv, off);
        if (ranks_before(ov, of, oi, bv, bf, bi)) bv = ov, bf = of, bi = oi;
      } else if (ranks_before(of, oi, bf, bi)) {
        bf = of, bi = oi;
      }
    }
    if (lane == 0) result = Slot<T>{bf, bi, s0.stop, bv};
  }
  __syncthreads();
  const Slot<T> r = result;
  __syncthreads();
  return r;
}

// History sample `gen`'s best row (RunOptions::history_x), copied by every thread of the CTA that holds
// it (at(j): coordinate j, read once the generation is written everywhere).
template <class T, class At>
__device__ void record_history_x(const State<T>& s, unsigned t, long long gen, int D, bool holder, At at) {
  if (!s.history_x || !holder || gen % s.history_every != 0 || gen / s.history_every >= s.nhist_x) return;
  T* dst = s.history_x + (static_cast<std::size_t>(t) * s.nhist_x + static_cast<std::size_t>(gen / s.history_every)) * D;
  for (int j = threadIdx.x; j < D; j += blockDim.x) dst[j] = at(j);
}

// The start of generation g in every CTA of a team: with the team's best (load(r): rank r's slot of
// generation g - 1) where the run needs it, the history sample of trial t (written by the leader) and the
// stop decision: StopReason + 1, or 0 to go on, the same in every CTA (converged_now(): whether generation
// g - 1's values pass the convergence test, asked where the run has one).
template <class T, class Load, class Converged>
__device__ int decide_stop(const State<T>& s, unsigned t, long long g, unsigned ranks, bool leader, Load load,
                           Converged converged_now, std::uint32_t& best) {
  if (!s.need_best) return g - 1 >= s.max_gens ? 1 + static_cast<int>(StopReason::max_gens) : 0;
  const Slot<T> b = read_best<T>(load, ranks, s.lin.m > 0);
  best = b.idx;
  if (leader && threadIdx.x == 0) record_history(s, t, g - 1, b.f);
  const bool converged = s.has_convergence && g >= 2 && converged_now();
  return stop_reason(s, b, g, converged);
}

// current-to-pbest: ranking[r] = the individual of rank r < pbest_count (rank = how many are better, ties
// by index), for the individuals i = first, first + step, ... below last; value(j) reads j's f.
// (the global paths: warp_rank_pbest)
template <class Value>
__device__ void rank_pbest(const ops::Params& p, Value value, std::uint32_t* ranking, int first, int last, int step) {
  for (int i = first; i < last; i += step) {
    const auto fi = value(i);
    int r = 0;
    for (int j = 0; j < p.np && r < p.pbest_count; ++j) {
      const auto fj = value(j);
      r += ranks_before(fj, static_cast<std::uint32_t>(j), fi, static_cast<std::uint32_t>(i));
    }
    if (r < p.pbest_count) ranking[r] = static_cast<std::uint32_t>(i);
  }
}
// The same ranking on the global paths, whose values value(j) are read through L2: a warp per individual
// (warp w of `warps`: i = w, w + warps, ... below p.np), its lanes counting those better 256 at a time, eight
// loads in flight a lane, stopping at pbest_count (a thread per individual spent ~1 ms a generation at NP
// 9,000 in its chain of loads, PERFORMANCE.md).
template <class Value>
__device__ void warp_rank_pbest(const ops::Params& p, Value value, std::uint32_t* ranking, int w, int warps) {
  constexpr int kLoads = 8;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (int i = w; i < p.np; i += warps) {
    const auto fi = value(i);
    int r = 0;
    for (int j0 = 0; j0 < p.np && r < p.pbest_count; j0 += 32 * kLoads) {
      int c = 0;
#pragma unroll
      for (int u = 0; u < kLoads; ++u) {
        const int j = j0 + u * 32 + lane;
        if (j < p.np) {
          const auto fj = value(j);
          c += ranks_before(fj, static_cast<std::uint32_t>(j), fi, static_cast<std::uint32_t>(i));
        }
      }
      for (int off = 16; off > 0; off /= 2) c += __shfl_xor_sync(0xffffffffu, c, off);
      r += c;
    }
    if (lane == 0 && r < p.pbest_count) ranking[r] = static_cast<std::uint32_t>(i);
  }
}

}  // namespace
}  // namespace degpu::cuda
