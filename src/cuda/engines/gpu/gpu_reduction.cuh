// The population's reduction (L-SHADE, jSO) on the gpu engine's resident path, where a trial is one
// persistent kernel: no host round trip, no CTA deciding for the others. After generation g's update every
// CTA of the cluster finds the same individuals to remove (the host driver's driver::survivors: the worst
// first, the lowest index first among equals) from the values it gathers, and keeps a live table, the same
// in every CTA: the CTAs' first live indices, and each live individual's CTA and slot. Each CTA then
// compacts its own slots (its survivors keep their order), so that live index i is slot i - first[r] of CTA
// r, the CTA's live individuals are its first slots, and the generation's loops, sums and rankings over live
// indices are the host driver's over its compacted population. docs/SHADE_PLAN.md, "Step 7b's design".
#pragma once
#include <cstdint>

#include "core/algorithms/registry.hpp"
#include "core/de_ops.hpp"

namespace degpu::cuda {
namespace {

// The live table in a CTA's shared memory (ResidentShape's off_live region, sized for the initial NP np0 and
// C CTAs): ref[i], live index i's CTA (ref >> 20) and slot (ref & 0xfffff); first[r], CTA r's first live
// index (first[C]: the live NP); gone[j], whether live individual j of the last reduction went; from[k], the
// slot that slot k's survivor came from (the compaction's own scratch).
struct LiveTable {
  std::uint32_t* ref;
  int* first;
  int* from;
  std::uint8_t* gone;
  // its bytes, 16-byte aligned parts: ref (np0), first (C + 1 and C + 1 more for the next), from (P), gone (np0)
  __host__ __device__ static std::size_t bytes(int np0, int C, int P) {
    auto align = [](std::size_t v) { return (v + 15) / 16 * 16; };
    return align(4 * static_cast<std::size_t>(np0)) + align(4 * 2 * (static_cast<std::size_t>(C) + 1)) +
           align(4 * static_cast<std::size_t>(P)) + align(static_cast<std::size_t>(np0));
  }
  __device__ static LiveTable at(unsigned char* region, int np0, int C, int P) {
    auto align = [](std::size_t v) { return (v + 15) / 16 * 16; };
    LiveTable t;
    t.ref = reinterpret_cast<std::uint32_t*>(region);
    region += align(4 * static_cast<std::size_t>(np0));
    t.first = reinterpret_cast<int*>(region);
    region += align(4 * 2 * (static_cast<std::size_t>(C) + 1));
    t.from = reinterpret_cast<int*>(region);
    region += align(4 * static_cast<std::size_t>(P));
    t.gone = region;
    return t;
  }
  // the first live indices after the reduction (first[C + 1 ..]), before they replace first[]
  __device__ int* next_first(int C) const { return first + C + 1; }
};

// Whether live individual j of the n of values f(k) (live order) goes where r of them go: whether it is
// among the r first in driver::survivors' order (worse first, the lower index first among equals). Run by
// one warp (every lane gets it): it counts those before j, 32 at a time, stopping at r (most stop within
// their first 32).
template <class Value>
__device__ __forceinline__ bool warp_removed(Value f, int n, int r, int j) {
  const int lane = threadIdx.x % 32;
  const auto fj = f(j);
  int before = 0;
  for (int k0 = 0; k0 < n && before < r; k0 += 32) {
    const int k = k0 + lane;
    bool b = false;
    if (k < n) {
      const auto fk = f(k);
      b = ops::better(fj, fk) || (k < j && !ops::better(fk, fj));  // k is worse, or equal and before
    }
    before += __popc(__ballot_sync(0xffffffffu, b));
  }
  return before < r;
}

// gone[j] for the n individuals of values f(j) (live order) where r of them go (warp_removed), warp w of
// `warps` taking individuals w, w + warps, ...: a CTA's warps (the resident path) or the grid's (the global
// paths).
template <class Value>
__device__ __forceinline__ void mark_removed(Value f, int n, int r, std::uint8_t* gone, int w, int warps) {
  for (int j = w; j < n; j += warps) {
    const bool out = warp_removed(f, n, r, j);
    if (threadIdx.x % 32 == 0) gone[j] = out ? 1 : 0;
  }
}
// By the whole CTA; ends with a barrier.
template <class Value>
__device__ __forceinline__ void cta_mark_removed(Value f, int n, int r, std::uint8_t* gone) {
  mark_removed(f, n, r, gone, static_cast<int>(threadIdx.x) / 32, static_cast<int>(blockDim.x) / 32);
  __syncthreads();
}

// The resident path's reference to individual k of the cluster's slices of P (the CTA that holds it and its
// slot there), where the population keeps its order.
__device__ __forceinline__ std::uint32_t pack_ref(std::uint32_t k, int P) {
  const std::uint32_t r = k / static_cast<std::uint32_t>(P);
  return (r << 20) | (k - r * static_cast<std::uint32_t>(P));
}
// Live individual k's reference: the live table's (live: LiveTable::ref) where the population shrinks (else
// nullptr: pack_ref's).
__device__ __forceinline__ std::uint32_t live_ref(const std::uint32_t* live, std::uint32_t k, int P) {
  return live ? live[k] : pack_ref(k, P);
}

// The next generation's sizes after the update of the population's state `shared` (alg::sizes), as the
// host driver takes them: p.np and p.pbest_count follow them, the archive's capacity now (acap; cap: the
// initial) and its members (count) are cut to the new capacity, and shrink(n) runs where the population
// shrinks to n. Returns whether it shrank. Every thread of the CTA alike.
template <class Shrink>
__device__ __forceinline__ bool next_sizes(ops::Params& p, const double* shared, int cap, int& acap, int& count, Shrink shrink) {
  const alg::Sizes z = alg::sizes(p, shared);
  acap = z.archive < cap ? z.archive : cap;
  count = count < acap ? count : acap;
  const bool shrinks = z.np < p.np;
  if (shrinks) shrink(z.np);
  p.np = z.np;
  p.pbest_count = z.pbest_count < z.np ? z.pbest_count : z.np;
  return shrinks;
}

// How many of gone[0 .. end) are set, counted by warp w of the CTA (every lane gets it).
__device__ __forceinline__ int warp_count_gone(const std::uint8_t* gone, int end) {
  const int lane = threadIdx.x % 32;
  int c = 0;
  for (int k0 = 0; k0 < end; k0 += 32) c += __popc(__ballot_sync(0xffffffffu, k0 + lane < end && gone[k0 + lane]));
  return c;
}

}  // namespace
}  // namespace degpu::cuda
