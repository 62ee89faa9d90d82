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

// gone[j] for the n individuals of values f(j) (live order) where r of them go: the r first in
// driver::survivors' order (worse first, the lower index first among equals). A warp per individual counts
// those before it, 32 at a time, stopping at r (most stop within their first 32). Run by the whole CTA;
// ends with a barrier.
template <class Value>
__device__ __forceinline__ void cta_mark_removed(Value f, int n, int r, std::uint8_t* gone) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int j = warp; j < n; j += warps) {
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
    if (lane == 0) gone[j] = before < r ? 1 : 0;
  }
  __syncthreads();
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
