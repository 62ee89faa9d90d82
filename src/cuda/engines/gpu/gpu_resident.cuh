// The gpu engine's resident path: a trial's whole population lives in the shared memory of one
// thread-block cluster (distributed shared memory), a slice of individuals per CTA, for the whole run.
// Donor rows are read from the other CTAs' shared memory; generations are separated by the cluster's
// hardware barrier, split into arrive (after the CTA's last write) and wait (before its next read); the
// per-individual draws (donors, F, CR, the crossover's first coordinate or length) are made a window of
// generations ahead, a lane per generation, so that a generation is only the per-coordinate work:
// the crossover words (one Philox block per four coordinates), the mutation, the evaluation and the
// selection. Chosen by the plan where the population fits (gpu_engine.cuh); docs/GPU.md.
// The spread path (kSpread; issue 34, docs/ONE_TRIAL_PLAN.md) is the same kernel over the whole grid of a
// cooperative launch, one trial, a CTA an SM: what the other CTAs read of a CTA's shared memory (the rows of
// a generation, the values, flags, contributions and best's slots) it copies before each barrier into its
// image in global memory (State::image, at the same offsets), where they read it through L2; the barriers
// are the grid's (GridTeam).
#pragma once
#include "cuda/engines/gpu/gpu_exchange.cuh"
#include "cuda/engines/gpu/gpu_reduction.cuh"
#include "cuda/engines/gpu/gpu_trial.cuh"

namespace degpu::cuda {
namespace {

// A window entry: the draws of one individual and generation, with its donors' rows as addresses in the
// cluster's shared memory (of that generation's buffer), so that a generation does no index arithmetic.
template <class T>
struct ResidentDraw {
  WinDraw<T> w;
  const T* rows[5];
};

// A stateful algorithm's draws of one individual for the generation (core/algorithms): made by the CTA's
// threads together at the start of the generation (after the population-level update), read by the trial
// and again by the selection (which keeps or contributes the trial's F and CR).
struct StatefulDraw {
  alg::Control c;
  double Fp;  // current-to-pbest's factor of the p-best difference (jSO's F_w; F for the others)
  std::uint64_t threshold;  // the crossover drawn for c.CR (its first coordinate is the window's)
  std::uint32_t length;
};

// Shared memory of one CTA of the resident path, in bytes from its start (each part 16-byte aligned).
struct ResidentShape {
  int P;   // individuals per CTA (the last CTAs may hold fewer)
  int Ds;  // row stride
  int W;   // generations of draws made at a time (a power of two)
  std::size_t off_f, off_box, off_win, off_fall, off_slots, off_sums, off_draws, off_cv, off_live, off_fn, bytes;
};
// off_sums: a population-level update's contributions of the CTA's individuals (core/algorithms), by
// generation parity: word w of individual k of generation g at [((g & 1) sum_words + w) P + k]; then the
// CTA's copy of the population's state (shared_words). off_draws: a stateful algorithm's draws of the
// generation, one StatefulDraw per individual of the CTA. off_cv: under m linear constraints, the
// violations of the CTA's individuals by generation parity, [2][P][m] doubles. off_f: the values [2][P],
// then, with an archive of arc_cap members (in global memory), the "parent lost" flags of the CTA's
// individuals by generation parity ([2][P] bytes), the archive's members now (an int) and the plan's
// owners (arc_cap ints: gpu_archive.cuh), all found from the values' address (ResidentArchive), so that no
// other pointer stays live through every algorithm's generations.
// off_live: where the population shrinks (L-SHADE, jSO: `reduces`), the live table (gpu_reduction.cuh).
// off_fn: the kernel function's region (kernel_function.cuh's kResident: a CEC function's data and its
// generation's rotations), sized by the function for the plan's `choice`; none for the other functions.
template <class T, class F>
__host__ __device__ ResidentShape resident_shape(int np, int D, int cluster, int window, bool gather_f, bool stateful,
                                                 int sum_words, int shared_words, int arc_cap, bool reduces, const F& fn, int choice,
                                                 int m) {
  auto align = [](std::size_t v) { return (v + 15) / 16 * 16; };
  ResidentShape s{};
  s.P = (np + cluster - 1) / cluster;
  s.Ds = row_stride(D);
  s.W = window;
  std::size_t at = align(2 * static_cast<std::size_t>(s.P) * s.Ds * sizeof(T));
  s.off_f = at;
  at += align(2 * static_cast<std::size_t>(s.P) * sizeof(T) +
              (arc_cap ? (2 * static_cast<std::size_t>(s.P) + 3) / 4 * 4 + (1 + static_cast<std::size_t>(arc_cap)) * sizeof(int) : 0));
  s.off_box = at;
  at += align(3 * static_cast<std::size_t>(s.Ds) * sizeof(T));
  s.off_win = at;
  at += align(static_cast<std::size_t>(s.P) * s.W * sizeof(ResidentDraw<T>));
  s.off_fall = at;
  at += gather_f ? align(static_cast<std::size_t>(np) * sizeof(T)) : 0;
  s.off_slots = at;
  at += align(3 * sizeof(Slot<T>));
  s.off_sums = at;
  at += sum_words ? align((2 * static_cast<std::size_t>(sum_words) * s.P + shared_words) * sizeof(double)) : 0;
  s.off_draws = at;
  at += stateful ? align(static_cast<std::size_t>(s.P) * sizeof(StatefulDraw)) : 0;
  s.off_cv = at;
  at += align(2 * static_cast<std::size_t>(s.P) * static_cast<std::size_t>(m) * sizeof(double));
  s.off_live = at;
  at += reduces ? LiveTable::bytes(np, cluster, s.P) : 0;
  s.off_fn = at;
  at += resident_bytes(fn, s.P, s.Ds, D, choice);
  s.bytes = at;
  return s;
}

// The resident path's archive beside the values fv ([2][P] T: ResidentShape's off_f region).
template <class T>
struct ResidentArchive {
  T* fv;
  int P;
  __device__ __forceinline__ std::uint8_t* lost() const { return reinterpret_cast<std::uint8_t*>(fv + 2 * P); }
  __device__ __forceinline__ int* count() const { return reinterpret_cast<int*>(fv + 2 * P) + (2 * P + 3) / 4; }
  __device__ __forceinline__ int* owner() const { return count() + 1; }
};

// The convergence test of the resident path (population_converged): the values of the generation, fv_cur
// [P] in each CTA of the cluster, read through DSMEM; live: the live table's refs where the population
// shrinks, else nullptr. Out of line, with plain values.
// image: the spread path's CTAs' images (State::image, image_bytes apart), or nullptr: the cluster's.
template <class T>
__device__ __noinline__ bool cluster_converged(double tol, double atol, const T* fv_cur, int P, std::uint32_t np, const std::uint32_t* live,
                                               const unsigned char* image, std::size_t image_bytes) {
  extern __shared__ __align__(16) unsigned char smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  return population_converged(tol, atol, [&](std::uint32_t i) {
    const std::uint32_t ref = live_ref(live, i, P);
    const T* at = fv_cur + (ref & 0xfffffu);
    if (image)
      return static_cast<double>(*reinterpret_cast<const T*>(image + (ref >> 20) * image_bytes + (reinterpret_cast<const unsigned char*>(at) - smem)));
    return static_cast<double>(*cluster.map_shared_rank(at, ref >> 20));
  }, np);
}

// (kMaxThreads, 1): one CTA per SM, so ptxas may use 128 registers; without the 1 it held the CEC kernel
// (calls into the math library's slow paths, a large body) to 64 with 1.3 KB of spills a thread, and the
// H100 spent most of the run on local memory (ncu: 81% of local requests were spill overhead).
// kKind: the kind of algorithm the kernel runs (registry.hpp's alg::OfKind), each kernel carrying only its
// kind's code: 0, DE and jDE; 1, JADE and SHADE (the memories, the archive); 2, L-SHADE and jSO (also the
// reduction and jSO's F_w). Measured: every algorithm's generation 5-9% slower in a kernel that carried the
// others' code (PERFORMANCE.md, "L-SHADE and jSO on the gpu engine").
// kSpread: the spread path (above): one trial over the grid, the CTAs' images in place of the cluster's
// distributed shared memory.
template <class F, class T, int G, int kKind, bool kSpread = false>
__global__ void __launch_bounds__(kMaxThreads, 1) run_resident(ops::Params p, const __grid_constant__ State<T> s,
                                                             const __grid_constant__ F fn) {
  using Algs = alg::OfKind<kKind>;  // the algorithms this kernel runs
  constexpr bool kFamily = kKind != 0, kShrinking = kKind == 2;
  extern __shared__ __align__(16) unsigned char smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned C = kSpread ? gridDim.x : cluster.num_blocks(), rank = kSpread ? blockIdx.x : cluster.block_rank(),
                 t = kSpread ? 0u : blockIdx.x / C;
  GridTeam grid(s);  // the spread path's barriers
  // CTA r's shared memory at `at` (an address in this CTA's): through the cluster's distributed shared memory,
  // or, spread, in r's image (what r published before the last barrier)
  const auto remote = [&](auto* at, unsigned r) {
    if constexpr (kSpread)
      return reinterpret_cast<decltype(at)>(s.image + r * s.image_bytes + (reinterpret_cast<const unsigned char*>(at) - smem));
    else
      return cluster.map_shared_rank(at, r);
  };
  // the barrier of the CTAs of the trial (every CTA's writes before it seen by every CTA after it)
  const auto team_sync = [&] {
    if constexpr (kSpread) grid.sync();
    else cluster.sync();
  };
  p.trial += t;
  if (!s.fresh && s.reason[t] != 0) return;  // (slices: the trial ended in an earlier one)
  const bool pbest = p.mutation == Mutation::current_to_pbest1;
  const Mutation m = p.mutation;
  const int sum_words = kFamily ? alg::sum_words(p) : 0;
  const bool stateful = alg::stateful<Algs>(p);
  const int mc = s.lin.m;  // linear constraints (the plan takes this path under them only without resident hooks)
  // The population shrinks (L-SHADE, jSO: gpu_reduction.cuh): p.np and p.pbest_count follow the live NP, as
  // the host driver's do; np0, the initial NP, sizes the layout.
  constexpr bool reduces = kShrinking;
  const int np0 = p.np;
  const int rstride = p.pbest_count > 2 ? p.pbest_count : 2;  // a trial's ranking (gpu_engine.cuh allocates it so)
  const ResidentShape sh = resident_shape<T>(np0, p.D, static_cast<int>(C), s.window, pbest, stateful, sum_words,
                                             kFamily ? alg::shared_words(p) : 0, s.archive.cap, reduces, fn, s.fn_choice, mc);
  const int P = sh.P, Ds = sh.Ds, W = sh.W, D = p.D;
  T* rows = reinterpret_cast<T*>(smem);  // [2][P][Ds]: the even and odd generations' rows
  T* fv = reinterpret_cast<T*>(smem + sh.off_f);  // [2][P]
  T* lo = reinterpret_cast<T*>(smem + sh.off_box);
  T* hi = lo + Ds;
  T* os = hi + Ds;
  const T* o = s.shift ? os : nullptr;
  ResidentDraw<T>* win = reinterpret_cast<ResidentDraw<T>*>(smem + sh.off_win);  // [P][W]
  const std::uint32_t wmask = static_cast<std::uint32_t>(W - 1);
  T* fall = reinterpret_cast<T*>(smem + sh.off_fall);                  // current-to-pbest: every f
  Slot<T>* slot = reinterpret_cast<Slot<T>*>(smem + sh.off_slots);     // [3]: by parity, and the last
  double* sums = reinterpret_cast<double*>(smem + sh.off_sums);        // [2][sum_words][P]
  double* shared_state = sum_words ? load_shared_state(p, s.shared0, sums + 2 * sum_words * P) : nullptr;  // this CTA's copy
  StatefulDraw* sdraw = reinterpret_cast<StatefulDraw*>(smem + sh.off_draws);  // [P]
  double* cvs = reinterpret_cast<double*>(smem + sh.off_cv);                   // [2][P][mc]
  auto cv_at = [&](int buf, int kl) { return cvs + (static_cast<std::size_t>(buf) * P + kl) * mc; };
  // An archive (gpu_archive.cuh): its members in global memory, trial t's (arc()); the CTA's "parent lost"
  // flags, the members now (every CTA alike) and the plan's owners in shared memory (ResidentArchive); the
  // donors drawn at the trial. (Each found where used, not held through the generations.)
  const bool redraw = kFamily && s.archive.cap > 0;
  auto arc = [&] {
    return EngineArchive<T>{s.archive.rows + static_cast<std::size_t>(t) * s.archive.cap * s.archive.stride, s.archive.cap,
                            s.archive.stride};
  };
  const ResidentArchive<T> ra{fv, P};
  if (redraw && threadIdx.x == 0) *ra.count() = 0;  // (read after generation 1's barriers)
  int acap = s.archive.cap;  // the archive's capacity now (it shrinks with the population)
  // every draw made at the trial (a window of one generation): an archive's donors may be its members, and a
  // shrinking population's live indices change
  const bool at_trial = redraw || reduces;
  const Group<G> grp;
  const int gid = static_cast<int>(threadIdx.x) / G, ngroups = static_cast<int>(blockDim.x) / G;
  const int base = static_cast<int>(rank) * P;  // this CTA's first slot's individual in generation 0
  int mine = np0 - base < P ? (np0 - base > 0 ? np0 - base : 0) : P;  // its live individuals: its first slots
  int lbase = base;  // the live index of its first slot
  const LiveTable live = reduces ? LiveTable::at(smem + sh.off_live, np0, static_cast<int>(C), P) : LiveTable{};
  if (reduces) {
    for (int i = threadIdx.x; i < np0; i += blockDim.x) live.ref[i] = pack_ref(static_cast<std::uint32_t>(i), P);
    for (int r = threadIdx.x; r <= static_cast<int>(C); r += blockDim.x) live.first[r] = r * P < np0 ? r * P : np0;
  }
  // live individual k's CTA and slot (pack_ref's form)
  const std::uint32_t* lref = reduces ? live.ref : nullptr;
  auto ref = [&](std::uint32_t k) { return live_ref(lref, k, P); };
  const std::size_t jslot0 = static_cast<std::size_t>(t) * np0 + base;  // this CTA's first slot's algorithm state (a stateful algorithm does not shrink)
  std::uint32_t* ranking = s.ranking + static_cast<std::size_t>(t) * rstride;
  unsigned long long* nans = s.nans + t;
  const unsigned long long start = global_ns();
  if (s.carry.start_ns && rank == 0 && threadIdx.x == 0) atomicMin(s.carry.start_ns, start);
  const std::uint32_t tag = stream_tag(rng::Purpose::crossover, p.trial);
  const T nan = static_cast<T>(NAN), inf = static_cast<T>(INFINITY);
  unsigned long long* infeasible = s.infeasible + t;
  auto time_up = [&] { return s.max_time_ns && global_ns() - start >= s.max_time_ns; };
  // individual k's row in buffer `buf`, wherever in the cluster it lives
  auto row_at = [&](int buf, std::uint32_t k) -> const T* {
    const std::uint32_t r = ref(k);
    return remote(rows + (static_cast<std::size_t>(buf) * P + (r & 0xfffffu)) * Ds, r >> 20);
  };
  // this CTA's slot kl
  auto own = [&](int buf, int kl) -> T* { return rows + (static_cast<std::size_t>(buf) * P + kl) * Ds; };
  // Spread: `bytes` of this CTA's shared memory at `from` (4-byte aligned and sized) copied to its image.
  const auto publish_bytes = [&](const void* from, std::size_t bytes) {
    if constexpr (kSpread) {
      const std::uint32_t* a = static_cast<const std::uint32_t*>(from);
      std::uint32_t* b = reinterpret_cast<std::uint32_t*>(s.image + rank * s.image_bytes + (static_cast<const unsigned char*>(from) - smem));
      for (std::size_t w = threadIdx.x; w < bytes / 4; w += blockDim.x) b[w] = a[w];
    }
  };
  // Spread: what the other CTAs read of generation parity buf copied to the image after the CTA's writes: its
  // live rows, their values, the best's slot, the contributions to a population-level update and the
  // archive's "parent lost" flags (both parities: they share words). (The next barrier releases them.)
  const auto publish = [&](int buf) {
    if constexpr (kSpread) {
      __syncthreads();
      const uint4* a = reinterpret_cast<const uint4*>(own(buf, 0));
      uint4* b = reinterpret_cast<uint4*>(s.image + rank * s.image_bytes + (reinterpret_cast<const unsigned char*>(a) - smem));
      for (std::size_t w = threadIdx.x; w < static_cast<std::size_t>(mine) * Ds * sizeof(T) / sizeof(uint4); w += blockDim.x) b[w] = a[w];
      publish_bytes(fv + buf * P, static_cast<std::size_t>(P) * sizeof(T));
      publish_bytes(&slot[buf], sizeof(Slot<T>));
      if (redraw) publish_bytes(ra.lost(), (2 * static_cast<std::size_t>(P) + 3) / 4 * 4);
      if (sum_words) publish_bytes(sums + static_cast<std::size_t>(buf) * sum_words * P, static_cast<std::size_t>(sum_words) * P * sizeof(double));
    } else {
      (void)buf;
    }
  };
  // whether individual i's parent lost in the generation of parity buf, wherever in the cluster it lives
  auto lost_in = [&](int buf, std::uint32_t i) {
    const std::uint32_t r = ref(i);
    return *remote(ra.lost() + buf * P + (r & 0xfffffu), r >> 20) != 0;
  };
  // generation gd's population-level update into this CTA's copy, by one warp (the contributions of the
  // generation's parity, wherever in the cluster)
  auto update_shared = [&](std::uint32_t gd) {
    const double* from = sums + static_cast<std::size_t>(gd & 1) * sum_words * P;
    warp_end_generation(p, gd, shared_state, [from, P, &remote, lref](int w, std::uint32_t i) {
      const std::uint32_t r = live_ref(lref, i, P);
      return *remote(from + static_cast<std::size_t>(w) * P + (r & 0xfffffu), r >> 20);
    }, static_cast<std::uint32_t>(p.np));
  };

  for (int j = threadIdx.x; j < Ds; j += blockDim.x) {
    lo[j] = j < D ? s.lo[j] : T(0);
    hi[j] = j < D ? s.hi[j] : T(0);
    os[j] = j < D && s.shift ? s.shift[j] : T(0);
  }
  // the function's data for the whole run (a CEC function's shift rows, shuffles and rotation matrices)
  unsigned char* fregion = smem + sh.off_fn;
  if constexpr (has_resident_hooks<F>) fn.resident_load(fregion, P, Ds, D, s.fn_choice);
  __syncthreads();

  // Generation 0. Under constraints (mc > 0): each row's violations beside its value, the value only where
  // feasible (+inf elsewhere, as the CPU engines), Lampinen's rule in the selection, the best by feasibility.
  T bf = nan;
  std::uint32_t bi = 0xffffffffu;
  double bv = static_cast<double>(INFINITY);
  long long g = 1;  // the generation that begins next
  bool at_stop = false;  // generation g - 1's end made up to the stop decision in the last slice (a migration's)
  // A slice's carry (SliceCarry; gpu_slices.cuh): this CTA's header and shared memory, less the function's region
  unsigned char* carried = s.carry.cta ? s.carry.cta + static_cast<std::size_t>(blockIdx.x) * s.carry.cta_bytes : nullptr;
  int* carried_ints = reinterpret_cast<int*>(carried);
  const std::size_t carried_words = sh.off_fn / sizeof(uint4);  // (every part 16-byte aligned)
  if (s.fresh) {
    for (int k = gid; k < mine; k += ngroups) {
      const std::uint32_t i = static_cast<std::uint32_t>(base + k);
      const ops::Stream st(p.seed, p.trial, ops::Purpose::init, 0, i);
      T* x0 = own(0, k);
      T* x1 = own(1, k);
      for (int j = grp.lane; j < Ds; j += G) {
        x0[j] = j < D ? initial_value(s, st, i, j, D, lo[j], hi[j]) : T(0);
        if (j >= D) x1[j] = T(0);  // the padding, read (never used) by the 4-wide loads
      }
      grp.sync();
      const double v = group_violations(s.lin, x0, D, cv_at(0, k), grp);
      const T fi = v == 0 ? static_cast<T>(group_value<F, T, G>(s, fn, static_cast<std::size_t>(t) * np0 + i, x0, o, D, grp) + s.bias)
                          : inf;
      if (grp.lane == 0) {
        fv[k] = fi;
        if (fi != fi) atomicAdd(nans, 1ull);
        if (v != 0) atomicAdd(infeasible, 1ull);
      }
      keep_best(bv, bf, bi, v, fi, i);
    }
    if (s.need_best) publish_best(bf, bi, &slot[0], rank == 0 && time_up(), mc > 0, bv);
  } else {
    // A slice after the first: generations 0 .. first_gen are done, the last one's end not made; the shared
    // memory as the last slice left it (the population, its values, flags, sums and state, the best's slots,
    // the live table; the window is made again at generation first_gen + 1, on its boundary), the sizes from
    // the header.
    const uint4* from = reinterpret_cast<const uint4*>(carried + SliceCarry::kResidentHeader * sizeof(int));
    for (std::size_t w = threadIdx.x; w < carried_words; w += blockDim.x) reinterpret_cast<uint4*>(smem)[w] = from[w];
    p.np = carried_ints[SliceCarry::kResidentNp];
    p.pbest_count = carried_ints[SliceCarry::kResidentPbest];
    acap = carried_ints[SliceCarry::kResidentArcCap];
    at_stop = carried_ints[SliceCarry::kResidentAtStop] != 0;
    g = s.first_gen + 1;
    __syncthreads();
    if (reduces) {
      lbase = live.first[rank];
      mine = live.first[rank + 1] - lbase;
    }
    publish(1);  // (spread: both generations' rows, as the carry brought them)
  }
  publish(0);
  if constexpr (kSpread) grid.arrive();
  else cluster_arrive_shared();

  // A group with one individual makes the crossover words of its first block while the others finish.
  const bool single = gid < mine && gid + ngroups >= mine;
  const bool ahead_ok = single && p.crossover == Crossover::bin && !reduces;
  rng::Block ahead{};
  if (ahead_ok) ahead = philox_block(s.rk, 1u + grp.lane, static_cast<std::uint32_t>(base + gid), static_cast<std::uint32_t>(g), tag);

  // The population shrinks to n after the update of generation gd (the values of buffer cur; gpu_reduction.cuh):
  // every CTA marks the same individuals, the CTAs' first live indices and the live table follow, and each
  // CTA moves its survivors to its first slots (through the other buffer, free now: the archive took its
  // rows). Two cluster barriers: every CTA has read the others' values before one moves its own, and has
  // moved its own before another reads them.
  // every live value of buffer cur into fall (live order), seen by the whole CTA
  auto gather_f = [&](int cur) {
    for (int k = threadIdx.x; k < p.np; k += blockDim.x) {
      const std::uint32_t r = ref(static_cast<std::uint32_t>(k));
      fall[k] = *remote(fv + cur * P + (r & 0xfffffu), r >> 20);
    }
    __syncthreads();
  };
  auto shrink = [&](int cur, int n) {
    const int nxt = cur ^ 1;
    gather_f(cur);
    cta_mark_removed([&](int j) { return fall[j]; }, p.np, p.np - n, live.gone);
    int* next = live.next_first(static_cast<int>(C));
    for (int r = static_cast<int>(threadIdx.x) / 32; r <= static_cast<int>(C); r += static_cast<int>(blockDim.x) / 32) {
      const int c = warp_count_gone(live.gone, live.first[r]);
      if (threadIdx.x % 32 == 0) next[r] = live.first[r] - c;
    }
    // this CTA's survivors, in order: slot q takes slot from[q]
    int kept = 0;
    for (int c0 = 0; c0 < mine; c0 += static_cast<int>(blockDim.x)) {
      const int k = c0 + static_cast<int>(threadIdx.x);
      const int keep = k < mine && !live.gone[lbase + k] ? 1 : 0;
      int total = 0;
      const int at = cta_exclusive_scan(keep, &total);  // (its barriers also publish next[])
      if (keep) live.from[kept + at] = k;
      kept += total;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < kept * Ds; e += blockDim.x) own(nxt, e / Ds)[e % Ds] = own(cur, live.from[e / Ds])[e % Ds];
    for (int q = threadIdx.x; q < kept; q += blockDim.x) {
      fv[nxt * P + q] = fv[cur * P + live.from[q]];
      for (int c = 0; c < mc; ++c) cv_at(nxt, q)[c] = cv_at(cur, live.from[q])[c];
    }
    team_sync();  // every CTA has gathered the values it needed from the others
    for (int e = threadIdx.x; e < kept * Ds; e += blockDim.x) own(cur, e / Ds)[e % Ds] = own(nxt, e / Ds)[e % Ds];
    for (int q = threadIdx.x; q < kept; q += blockDim.x) {
      fv[cur * P + q] = fv[nxt * P + q];
      for (int c = 0; c < mc; ++c) cv_at(cur, q)[c] = cv_at(nxt, q)[c];
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      int r = 0;
      while (i >= next[r + 1]) ++r;
      live.ref[i] = (static_cast<std::uint32_t>(r) << 20) | static_cast<std::uint32_t>(i - next[r]);
    }
    __syncthreads();
    for (int r = threadIdx.x; r <= static_cast<int>(C); r += blockDim.x) live.first[r] = next[r];
    mine = kept;
    lbase = next[rank];
    publish(cur);  // (spread: the survivors' new places)
    team_sync();  // every CTA's survivors in place
  };

  // A slice's end before generation g: each CTA hands its shared memory and sizes on (at_stop_flag: with
  // generation g - 1's end made, up to its stop decision; kResidentAtStop), CTA 0 the trial's generations.
  auto hand_on = [&](long long g_next, int at_stop_flag) {
    for (std::size_t w = threadIdx.x; w < carried_words; w += blockDim.x)
      reinterpret_cast<uint4*>(carried + SliceCarry::kResidentHeader * sizeof(int))[w] = reinterpret_cast<const uint4*>(smem)[w];
    if (threadIdx.x == 0) {
      carried_ints[SliceCarry::kResidentNp] = p.np;
      carried_ints[SliceCarry::kResidentPbest] = p.pbest_count;
      carried_ints[SliceCarry::kResidentArcCap] = acap;
      carried_ints[SliceCarry::kResidentAtStop] = at_stop_flag;
      if (rank == 0) s.gens[t] = g_next - 1, s.reason[t] = 0;
    }
    if constexpr (has_resident_hooks<F>) fn.resident_done();
    team_sync();
  };
  int why = 0;
  std::uint32_t best = 0;
  int exchanges = 0;  // islands in one launch: the migrations made in this launch
  for (;; ++g) {
    if constexpr (kSpread) grid.wait();  // generation g - 1 is written everywhere in the cluster (the grid)
    else cluster_wait();
    if (g - 1 == s.slice_end && !s.end_at_stop) {
      // The slice's end (generation g - 1's selections written, its end not made; slice_end a multiple of the
      // window)
      hand_on(g, 0);
      return;
    }
    const std::uint32_t gu = static_cast<std::uint32_t>(g);
    const int cur = static_cast<int>((g - 1) & 1), nxt = cur ^ 1;
    // (a slice that begins at the stop decision: generation g - 1's end was made by the last one)
    const bool ended = at_stop;
    at_stop = false;
    // Generation g - 1's end, as the host driver makes it after its selections (before the stop test):
    // the population-level update, made by every CTA alike
    if (sum_words && g >= 2 && !ended) {
      if (threadIdx.x < 32) update_shared(gu - 1);
      __syncthreads();
    }
    // its losers into the archive: every CTA computes every insertion and copies its own parents' rows
    // (buffer nxt: the trials of generation g overwrite them after the barrier below)
    int arc_n = 0;
    const bool inserts = redraw && g >= 2 && acap > 0 && !ended;  // (its barriers order the count's reads before the write below)
    if (redraw && g >= 2 && !ended) {
      const EngineArchive<T> a = arc();
      arc_n = *ra.count();
      if (inserts)
        arc_n = cta_archive_insert(p, gu - 1, p.np, [&](int i) { return lost_in(cur, static_cast<std::uint32_t>(i)); }, acap, arc_n,
                                   ra.owner(), [&](int i, int at) {
                                     const std::uint32_t r = ref(static_cast<std::uint32_t>(i));
                                     if ((r >> 20) == rank)
                                       copy_row(a.member(at), static_cast<const T*>(own(nxt, static_cast<int>(r & 0xfffffu))), Ds,
                                                [](const T* q) { return load4<false>(q); });
                                   });
    }
    // the next generation's sizes: the worst removed, the archive cut to its new capacity
    const bool shrunk = reduces && g >= 2 && !ended && next_sizes(p, shared_state, s.archive.cap, acap, arc_n, [&](int n) { shrink(cur, n); });
    if (redraw && g >= 2 && !ended) {
      if (!inserts) __syncthreads();  // every thread has read the count
      if (threadIdx.x == 0) *ra.count() = arc_n;  // (read after the barriers below)
    }
    if (g - 1 == s.slice_end && s.end_at_stop && !s.isl.on) {
      // A migration's slice end (islands: gpu_islands.hpp): generation g - 1's end made up to the stop
      // decision; the shared memory handed on with the sizes and kResidentAtStop. (The best's slots are
      // the host's to write: it migrates and finds each CTA's best among the rows after the reduction.)
      __syncthreads();
      team_sync();  // every CTA's reduction and archive count written
      hand_on(g, 1);
      return;
    }
    // Islands in one launch (gpu_exchange.cuh): the migration after generation g - 1, where the host driver
    // migrates (as the slice end above does it between launches); then each CTA's best of generation g - 1
    // among its live individuals after the moves (and the reduction), by live index, as the host's exchange
    // writes it (so the best's index needs no mapping below).
    const bool migrated = s.isl.on && g >= 2 && !ended && (g - 1) % s.isl.mg.interval == 0;
    if (migrated) {
      __syncthreads();
      team_sync();  // every CTA's reduction and archive count written
      if (rank == 0) {
        const auto at = [&](std::uint32_t i) { return ref(i); };
        island_exchange(
            s.isl, static_cast<int>(t), static_cast<std::uint32_t>(g - 1), p.np, Ds, exchanges,
            [&](std::uint32_t i) { const std::uint32_t r = at(i); return remote(rows + (static_cast<std::size_t>(cur) * P + (r & 0xfffffu)) * Ds, r >> 20); },
            [&](std::uint32_t i) -> T& { const std::uint32_t r = at(i); return *remote(fv + cur * P + (r & 0xfffffu), r >> 20); },
            [&](std::uint32_t i) { return s.algo + (static_cast<std::size_t>(t) * np0 + i); });
      }
      ++exchanges;
      team_sync();  // the moves written into every CTA
      T mbf = nan;
      std::uint32_t mbi = 0xffffffffu;
      double mbv = static_cast<double>(INFINITY);
      for (int q = threadIdx.x; q < mine; q += blockDim.x)
        keep_best(mbv, mbf, mbi, mc ? violation_key(cv_at(cur, q), mc) : 0.0, fv[cur * P + q], static_cast<std::uint32_t>(lbase + q));
      const int stop0 = slot[cur].stop;
      __syncthreads();
      publish_best(mbf, mbi, &slot[cur], stop0, mc > 0, mbv);
      team_sync();  // every CTA's slot written before decide_stop reads them
    }
    if (g - 1 == s.slice_end && s.end_at_stop) {
      // Islands in one launch over processes (gpu_slices.cuh's SliceRun::stop_on): the slice end of the
      // islands between slices, the migration made here: the same carry, so that either resumes the other's
      // checkpoints
      if (!migrated) {
        __syncthreads();
        team_sync();
      }
      hand_on(g, 1);
      return;
    }
    why = decide_stop(
        s, t, g, C, rank == 0, [&](unsigned r) { return *remote(&slot[cur], r); },
        [&] {
          return cluster_converged<T>(s.tol, s.atol, fv + cur * P, P, static_cast<std::uint32_t>(p.np), reduces ? live.ref : nullptr,
                                      kSpread ? s.image : nullptr, s.image_bytes);
        },
        best);
    if (s.isl.target) {  // islands in one launch on a target: the trial's islands stop together (gpu_exchange.cuh)
      constexpr int kTarget = 1 + static_cast<int>(StopReason::target);
      __shared__ int agreed;
      if (rank == 0 && threadIdx.x == 0) agreed = island_agree_stop(s.isl, static_cast<int>(t), static_cast<unsigned long long>(g), why == kTarget);
      team_sync();
      if (*remote(&agreed, 0u)) why = kTarget;  // (the target before the other reasons, as stop_reason)
    }
    if (!why && s.interrupted) why = 1 + static_cast<int>(StopReason::interrupted);  // (after the stop test, as the host driver's)
    if (shrunk && s.need_best && !migrated) {  // the best's live index after the reduction (the first where it went: all were equal)
      __shared__ int before;
      if (threadIdx.x < 32) {
        const int c = warp_count_gone(live.gone, static_cast<int>(best));
        if (threadIdx.x == 0) before = c;
      }
      __syncthreads();
      best = live.gone[best] ? 0u : best - static_cast<std::uint32_t>(before);
      __syncthreads();
    }
    record_history_x(s, t, g - 1, D, static_cast<int>(best) >= lbase && static_cast<int>(best) < lbase + mine,
                     [&](int j) { return own(cur, static_cast<int>(best) - lbase)[j]; });
    if (why) break;
    if (pbest) {  // every f gathered here, this CTA's individuals ranked, the best pbest_count written out
      gather_f(cur);
      rank_pbest(p, [&](int j) { return fall[j]; }, ranking, lbase + static_cast<int>(threadIdx.x), lbase + mine,
                 static_cast<int>(blockDim.x));
    }
    if (pbest || redraw) team_sync();  // the ranking and the archive's rows published
    if (!at_trial && ((gu - 1) & wmask) == 0) {  // the next W generations' draws, a lane each
      for (int k = gid; k < mine; k += ngroups) {
        if (grp.lane < W) {
          const std::uint32_t gl = gu + static_cast<std::uint32_t>(grp.lane);
          ResidentDraw<T> d;
          d.w = make_win<T>(p, gl, static_cast<std::uint32_t>(base + k));
          const int par = static_cast<int>((gl - 1) & 1);
#pragma unroll
          for (int q = 0; q < 5; ++q) d.rows[q] = row_at(par, d.w.r[q]);
          win[k * W + grp.lane] = d;
        }
      }
      grp.sync();
    }
    if (stateful) {  // this generation's draws of a stateful algorithm, a thread per individual
      // the state the selections wrote last generation, seen by every thread: the update above synced the CTA
      // (at generation 1 nothing was written yet)
      if (!sum_words) __syncthreads();
      const std::uint32_t members = redraw ? static_cast<std::uint32_t>(*ra.count()) : 0u;
      for (int k = threadIdx.x; k < mine; k += blockDim.x) {
        const std::uint32_t i = static_cast<std::uint32_t>(lbase + k);
        const alg::Control c = alg::draw_stateful<Algs>(p, gu, i, s.algo + (jslot0 + k), shared_state);
        const ops::CrossoverDraw x = ops::draw_crossover(p, ops::Stream(p.seed, p.trial, ops::Purpose::crossover, gu, i), c.CR);
        double Fp = c.F;
        if constexpr (kShrinking) Fp = alg::pbest_factor<Algs>(p, shared_state, c.F);
        sdraw[k] = StatefulDraw{c, Fp, x.threshold, x.length};
        if (at_trial) {  // every draw made now (the window holds one generation): r2 may be an archive's member
          ResidentDraw<T> d{};
          d.w.F = static_cast<T>(c.F);
          d.w.first = x.first;
          d.w.length = x.length;
          d.w.threshold = x.threshold;
          family_donors(p, gu, i, members, ranking, shared_state, d.w);
#pragma unroll
          for (int q = 0; q < 5; ++q)
            d.rows[q] = d.w.r[q] < static_cast<std::uint32_t>(p.np) ? row_at(cur, d.w.r[q]) : arc().member(static_cast<int>(d.w.r[q]) - p.np);
          win[k * W + static_cast<int>((gu - 1) & wmask)] = d;
        }
      }
      __syncthreads();
    }
    const T* xb = uses_best(m) ? row_at(cur, best) : nullptr;
    constexpr std::uint32_t kSlots[5] = {0, 1, 2, 3, 4};
    bf = nan, bi = 0xffffffffu, bv = static_cast<double>(INFINITY);
    // individual k's trial into its row of the next buffer; returns the sum of an elementwise function's terms
    auto trial = [&](int k) {
      const std::uint32_t i = static_cast<std::uint32_t>(lbase + k);
      const ResidentDraw<T>& d = win[k * W + static_cast<int>((gu - 1) & wmask)];
      WinDraw<T> w = d.w;
      T Fp = w.F;
      if (stateful) {
        const StatefulDraw& sd = sdraw[k];
        w.F = static_cast<T>(sd.c.F);
        Fp = kShrinking ? static_cast<T>(sd.Fp) : w.F;
        w.threshold = sd.threshold;
        w.length = sd.length;
      }
      const T* xi = own(cur, k);
      const T* xpb = pbest ? row_at(cur, __ldcg(ranking + w.pbest_rank)) : nullptr;
      const TrialIn<T> a = make_trial<T>(p, mutation_form<T>(m, kSlots, xi, xb, xpb, [&](std::uint32_t q) { return d.rows[q]; }),
                                         xi, own(nxt, k), lo, hi, o, s.ints, w, gu, i, Fp);
      return trial_blocks<F, T, false>(a, s.rk, grp.lane, G, ahead_ok, ahead);
    };
    // the trial of individual k with value `value` against its target: the survivor in the next buffer
    // (under constraints, the trial's violations are in cv_at(nxt, k) and its value is not read where it
    // is infeasible)
    auto select = [&](int k, double value) {
      const std::uint32_t i = static_cast<std::uint32_t>(lbase + k);
      const T* xi = own(cur, k);
      T* ui = own(nxt, k);
      const T fi = fv[cur * P + k];
      T ft;
      bool take;
      double vt = 0, vi = 0;
      if (mc) {  // a uniform branch: without constraints the selection is the values' comparison alone
        double* cvt = cv_at(nxt, k);
        const double* cvi = cv_at(cur, k);
        vt = violation_key(cvt, mc), vi = violation_key(cvi, mc);
        ft = vt == 0 ? static_cast<T>(value + s.bias) : inf;
        take = group_takes(mc, ft, cvt, fi, cvi, grp);
        if (grp.lane == 0 && vt != 0) atomicAdd(infeasible, 1ull);
      } else {
        ft = static_cast<T>(value + s.bias);
        take = ops::no_worse(ft, fi);
      }
      if (!take)
        for (int j0 = kBlock * grp.lane; j0 < D; j0 += kBlock * G) store4(ui + j0, load4<false>(xi + j0));
      if (grp.lane == 0) {
        fv[nxt * P + k] = take ? ft : fi;
        if (redraw) ra.lost()[nxt * P + k] = ops::parent_lost(take, ft, fi, cv_at(nxt, k), cv_at(cur, k), mc);
        if (ft != ft) atomicAdd(nans, 1ull);
        if (stateful)
          alg::after_selection<Algs>(p, sdraw[k].c, s.algo + (jslot0 + k), take, fi, ft,
                               alg::Sums{sums + static_cast<std::size_t>(nxt) * sum_words * P + k, static_cast<std::size_t>(P)});
      }
      if (s.need_best) {
        if (mc) keep_best(bv, bf, bi, take ? vt : vi, take ? ft : fi, i);
        else keep_best(bf, bi, take ? ft : fi, i);
      }
    };
    if constexpr (has_resident_hooks<F>) {
      // the function's own generation (a CEC function: the CTA's trials rotated together, cec_function.cuh)
      const ResidentTeam<T> team{fregion, own(nxt, 0), P, Ds, D, mine, gid, ngroups, grp.lane, s.fn_choice};
      fn.template resident_generation<kMaxThreads, G, kSpread>(team, trial, select);
    } else {
      for (int k = gid; k < mine; k += ngroups) {
        Partial acc = trial(k);
        const double vt = group_violations(s.lin, static_cast<const T*>(own(nxt, k)), D, cv_at(nxt, k), grp);
        double value = 0;
        if constexpr (F::pattern == fn::Pattern::elementwise) {
          value = acc.finish<F>(grp, D);
        } else {
          grp.sync();
          if (vt == 0) value = group_value<F, T, G>(s, fn, static_cast<std::size_t>(t) * np0 + base + k, own(nxt, k), o, D, grp);
          grp.sync();  // every lane has read the trial (neighbours' coordinates too) before a loss overwrites it
        }
        select(k, value);
      }
    }
    if (s.need_best) publish_best(bf, bi, &slot[nxt], rank == 0 && time_up(), mc > 0, bv);
    publish(nxt);
    if constexpr (kSpread) grid.arrive();
    else cluster_arrive_shared();
    if (ahead_ok) ahead = philox_block(s.rk, 1u + grp.lane, static_cast<std::uint32_t>(base + gid), gu + 1, tag);
  }

  // The result: the best of the last population; its owner writes its row out. (The last generation's
  // update, archive insertions and reduction were made before the stop test, as the host driver makes them.)
  if constexpr (has_resident_hooks<F>) fn.resident_done();
  const long long done = g - 1;
  const int last = static_cast<int>(done & 1);
  bf = nan, bi = 0xffffffffu, bv = static_cast<double>(INFINITY);
  for (int k = threadIdx.x; k < mine; k += blockDim.x)
    keep_best(bv, bf, bi, mc ? violation_key(cv_at(last, k), mc) : 0.0, fv[last * P + k], static_cast<std::uint32_t>(lbase + k));
  publish_best(bf, bi, &slot[2], 0, mc > 0, bv);
  if constexpr (kSpread) __syncthreads();  // (slot[2] written)
  publish_bytes(&slot[2], sizeof(Slot<T>));
  team_sync();
  const Slot<T> b = read_best<T>([&](unsigned r) { return *remote(&slot[2], r); }, C, mc > 0);
  if (static_cast<int>(b.idx) >= lbase && static_cast<int>(b.idx) < lbase + mine) {
    const T* xr = own(last, static_cast<int>(b.idx) - lbase);
    for (int j = threadIdx.x; j < D; j += blockDim.x) s.best_x[static_cast<std::size_t>(t) * D + j] = xr[j];
  }
  if (s.pop_x) {  // RunOptions::keep_population: this CTA's live individuals (the first p.np of trial t's rows)
    const std::size_t first = static_cast<std::size_t>(t) * np0 + lbase;
    for (int e = threadIdx.x; e < mine * D; e += blockDim.x) s.pop_x[first * D + e] = own(last, e / D)[e % D];
    for (int k = threadIdx.x; k < mine; k += blockDim.x) s.pop_f[first + k] = fv[last * P + k];
  }
  if (kFamily && rank == 0) {  // the algorithm's final state
    const int words = alg::shared_words(p);
    for (int w = threadIdx.x; w < words; w += blockDim.x) s.shared_out[static_cast<std::size_t>(t) * words + w] = shared_state[w];
    if (redraw && threadIdx.x == 0) s.archive_size[t] = *ra.count();
  }
  if (rank == 0 && threadIdx.x == 0) {
    s.best[t] = b.idx;
    s.best_f[t] = b.f;
    s.gens[t] = done;
    s.reason[t] = why;
    record_history(s, t, done, b.f);
  }
  team_sync();  // no CTA leaves while another may still read its shared memory
}

}  // namespace
}  // namespace degpu::cuda
