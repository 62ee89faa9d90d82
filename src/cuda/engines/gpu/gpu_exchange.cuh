// Islands exchanging inside the launch (the resident path; docs/ISLANDS_PLAN.md step 5): at a migration
// (after generation gm's end: its population-level update, archive and reduction; before its stop decision),
// each island's cluster, through its CTA 0, takes core/migration.hpp's three steps (written once for the
// host and the device: the CPU engines' decisions) with the other islands' emigrants read from global
// memory (LaunchIslands, gpu_team.cuh):
//   1. its keys; its emigrants' rows, values, keys and state words out into the buffers of the epoch's
//      parity, then its flag (release): "out for generation gm";
//   2. its sources' flags awaited (acquire), their emigrants its candidates, its moves, the rows, values and
//      state words written in place (through DSMEM into the CTA that holds each row), then a read counted
//      on each source;
//   3. (the caller) each CTA's best of generation gm again, as the host's exchange between slices writes it.
// A source reuses a parity's buffers two epochs on, once every receiver has counted its read of them
// (before that, within the launch: a slice's launch begins with every earlier exchange read). Every
// island's cluster must be resident at once (the plan checks cudaOccupancyMaxActiveClusters), since an
// island waits for others; and every island reaches every migration (one configuration, stopped by max_gens,
// max_evals or a target agreed by the trial's islands each generation, island_agree_stop; interrupted only
// between launches: validate and the slices see to it). The launch's clusters may be the islands of several
// trials side by side (LaunchIslands): each exchanges with its own trial's islands only.
// Over processes (one trial's islands spread over the GPUs of one host, a process each; ISLANDS_PLAN.md
// "Several GPUs"): every process's launch runs at once, and an island reads its sources' emigrants, flags
// and counts in their processes' buffers (LaunchIslands::peers, opened through CUDA IPC), with the flags'
// releases and acquires, the fences and the read counts at system scope: the same moves as one process.
#pragma once
#include <cstdint>

#include "core/migration.hpp"
#include "cuda/engines/gpu/gpu_team.cuh"

namespace degpu::cuda {
namespace {

// How many islands of its trial (whose migrations draw as trial `first`) read island k's emigrants of the
// migration after generation gm.
template <class T>
__device__ unsigned island_receivers(const LaunchIslands<T>& X, std::uint32_t first, std::uint32_t gm, int k) {
  const int K = X.mg.islands;
  if (K <= 1) return 0;
  switch (X.mg.topology) {
    case Topology::ring:
      return 1;
    case Topology::full:
      return static_cast<unsigned>(K - 1);
    case Topology::torus: {  // (the torus's neighbours are each other's: its sources are its receivers)
      int s[4];
      return static_cast<unsigned>(migration::sources(X.mg, X.seed, first, gm, k, s));
    }
    case Topology::random: {
      unsigned n = 0;
      for (int j = 0; j < K; ++j) {
        int s = -1;
        if (j != k && migration::sources(X.mg, X.seed, first, gm, j, &s) == 1 && s == k) ++n;
      }
      return n;
    }
  }
  return 0;
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned load_acquire_sys(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release_sys(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

// Island kk of a trial: where its buffers are (its process's, over processes: LaunchIslands::peers) and its
// index there (i, of C clusters); base: the trial's island 0's cluster in this launch (one process).
template <class T>
struct IslandAt {
  T* rows;
  T* f;
  migration::Key* keys;
  double* state;
  unsigned* count;
  unsigned* flag;
  unsigned* reads;
  std::size_t C, i;
};
template <class T>
__device__ IslandAt<T> island_at(const LaunchIslands<T>& X, int base, int kk) {
  if (!X.peers) return {X.rows, X.f, X.keys, X.state, X.count, X.flag, X.reads, static_cast<std::size_t>(X.clusters), static_cast<std::size_t>(base + kk)};
  int r = 0;
  while (r + 1 < X.procs && X.peers[r + 1].k0 <= kk) ++r;
  const IslandPeer& q = X.peers[r];
  return {static_cast<T*>(q.rows), static_cast<T*>(q.f), static_cast<migration::Key*>(q.keys), q.state, q.count, q.flag, q.reads,
          static_cast<std::size_t>(q.clusters), static_cast<std::size_t>(kk - q.k0)};
}

// The exchange's waits, fences and counts: at the GPU's scope in one process, at the system's over processes
// (the other islands on other GPUs); a wait gives up where the host has found a process lost (X.abort).
template <class T>
__device__ void wait_at_least(const LaunchIslands<T>& X, const unsigned* p, unsigned v) {
  for (unsigned n = 1; (X.peers ? load_acquire_sys(p) : load_acquire(p)) < v; ++n) {
    if (X.abort && (n & 255u) == 0 && *X.abort) return;
    __nanosleep(64);
  }
}
template <class T>
__device__ __forceinline__ void exchange_fence(const LaunchIslands<T>& X) {
  if (X.peers) __threadfence_system();
  else __threadfence();
}

// Cluster c's part of the migration after generation gm (island k of its trial: one process, k = c % K, the
// trial's islands the clusters base = c - k .. base + K - 1; over processes, k = k0 + c of the one trial),
// run by every thread of its CTA 0 (the caller syncs the cluster before and after). np: its live individuals;
// row(i) and value(i): live individual i's row and value (of generation gm, wherever in the cluster);
// state(i): its algorithm state; exchanges: how many migrations this island made earlier in this launch.
template <class T, class Row, class Value, class StateOf>
__device__ void island_exchange(const LaunchIslands<T>& X, int c, std::uint32_t gm, int np, int Ds, int exchanges, Row row, Value value,
                                StateOf state) {
  const int K = X.mg.islands, M = X.mg.migrants, room = migration::max_sources(K) * M, L = X.local, k = X.k0 + c % L, base = c - c % L;
  const std::size_t C = static_cast<std::size_t>(X.clusters);
  const std::uint32_t first = X.first + static_cast<std::uint32_t>(c / L) * static_cast<std::uint32_t>(K);  // (the trial's island 0 draws as it)
  const std::uint32_t epoch = gm / static_cast<std::uint32_t>(X.mg.interval);
  const std::size_t par = epoch & 1u;
  migration::Key* own = X.own + static_cast<std::size_t>(c) * X.np0;
  std::uint32_t* sent = X.scratch + static_cast<std::size_t>(c) * 4 * M;  // M words, then 3 M of the draws'
  std::uint32_t* draws = sent + M;
  migration::Key* cand = X.cand + static_cast<std::size_t>(c) * room;
  int* from = X.from + 2 * static_cast<std::size_t>(c) * room;
  int* src = X.sources + static_cast<std::size_t>(c) * migration::max_sources(K);
  migration::Move* moves = X.moves + static_cast<std::size_t>(c) * M;
  const rng::Stream st = migration::stream(X.seed, first, gm, k);
  __shared__ unsigned out_n, moves_n;
  __shared__ int sources_n;
  // 1. the keys (the gpu engine's islands take no constraints: every violation key 0) and the emigrants out
  for (int i = threadIdx.x; i < np; i += blockDim.x) own[i] = migration::Key{static_cast<double>(value(i)), 0.0};
  __syncthreads();
  const std::size_t mine = par * C + c;  // this island's slot of the parity
  if (threadIdx.x == 0) {
    if (exchanges >= 2)  // the parity's last emigrants (two epochs back, in this launch) read by all
      wait_at_least(X, X.reads + mine, island_receivers(X, first, gm - 2 * static_cast<std::uint32_t>(X.mg.interval), k));
    X.reads[mine] = 0;  // (no receiver reads this parity of k's again before the flag below)
    out_n = migration::emigrants(X.mg, st, own, np, sent, draws);
  }
  __syncthreads();
  const unsigned n_out = out_n;
  const std::size_t out = mine * M;
  for (int x = threadIdx.x; x < static_cast<int>(n_out) * Ds; x += blockDim.x) {
    const int e = x / Ds, j = x % Ds;
    X.rows[(out + e) * Ds + j] = row(sent[e])[j];
  }
  for (int e = threadIdx.x; e < static_cast<int>(n_out); e += blockDim.x) {
    X.f[out + e] = value(sent[e]);
    X.keys[out + e] = own[sent[e]];
    for (int w = 0; w < X.words; ++w) X.state[(out + e) * X.words + w] = state(sent[e]).get(w);
  }
  if (threadIdx.x == 0) X.count[mine] = n_out;
  exchange_fence(X);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (X.peers) store_release_sys(X.flag + c, gm);
    else atomicExch(X.flag + c, gm);
  }
  // 2. the sources' emigrants in, the moves
  if (threadIdx.x == 0) {
    const int ns = migration::sources(X.mg, X.seed, first, gm, k, src);
    for (int j = 0; j < ns; ++j) {
      const IslandAt<T> a = island_at(X, base, src[j]);
      wait_at_least(X, a.flag + a.i, gm);
    }
    int n = 0;
    for (int j = 0; j < ns; ++j) {
      const IslandAt<T> a = island_at(X, base, src[j]);
      const std::size_t theirs = par * a.C + a.i;
      const unsigned sent_n = min(__ldcg(a.count + theirs), static_cast<unsigned>(M));  // (M at most: a lost process's may be anything)
      for (unsigned e = 0; e < sent_n; ++e) {
        const migration::Key* key = a.keys + theirs * M + e;
        cand[n] = migration::Key{__ldcg(&key->f), __ldcg(&key->v)};
        from[2 * n] = src[j], from[2 * n + 1] = static_cast<int>(e);
        ++n;
      }
    }
    moves_n = migration::immigrants(X.mg, st, own, np, cand, n, moves, draws);
    sources_n = ns;
  }
  __syncthreads();
  const unsigned n_in = moves_n;
  // (candidate m's emigrant: its island's buffers and its place there)
  const auto emigrant = [&](const migration::Move& mv, IslandAt<T>& a) {
    a = island_at(X, base, from[2 * mv.candidate]);
    return (par * a.C + a.i) * M + from[2 * mv.candidate + 1];
  };
  for (int x = threadIdx.x; x < static_cast<int>(n_in) * Ds; x += blockDim.x) {
    IslandAt<T> a;
    const std::size_t at = emigrant(moves[x / Ds], a);
    const int j = x % Ds;
    row(moves[x / Ds].row)[j] = __ldcg(a.rows + at * Ds + j);
  }
  for (int m = threadIdx.x; m < static_cast<int>(n_in); m += blockDim.x) {
    const migration::Move mv = moves[m];
    IslandAt<T> a;
    const std::size_t at = emigrant(mv, a);
    value(mv.row) = __ldcg(a.f + at);
    for (int w = 0; w < X.words; ++w) state(mv.row).set(w, __ldcg(a.state + at * X.words + w));
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // read: each source may reuse this parity two epochs on
    exchange_fence(X);
    for (int j = 0; j < sources_n; ++j) {
      const IslandAt<T> a = island_at(X, base, src[j]);
      if (X.peers) atomicAdd_system(a.reads + par * a.C + a.i, 1u);
      else atomicAdd(a.reads + par * a.C + a.i, 1u);
    }
  }
}

__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
}

// A target on islands in one launch (LaunchIslands::target): generation g's stop for cluster c's trial, the
// same for each of its islands, as the serial engine's archipelago stops on its best: whether any island of
// the trial reached the target at g (reached_here: this one's). Run by one thread of the cluster; every island
// of the trial calls it at every generation until it stops (they stop together). The trial's first reach is
// an atomicMin; an island's "decided g" a release store after it, awaited (acquire) from every other island
// of the trial before the reach is read; an island a generation ahead cannot lower it to g or below.
template <class T>
__device__ bool island_agree_stop(const LaunchIslands<T>& X, int c, unsigned long long g, bool reached_here) {
  const int K = X.mg.islands, base = c - c % K;
  unsigned long long* reached = X.reached + base / K;
  if (reached_here) atomicMin(reached, g);
  store_release(X.decided + c, g);  // (ordered after the reach by the release)
  for (int j = base; j < base + K; ++j)
    if (j != c)
      while (load_acquire(X.decided + j) < g) __nanosleep(32);
  return load_acquire(reached) <= g;
}

}  // namespace
}  // namespace degpu::cuda
