// The archive (JADE's optional one, SHADE's) on the gpu engine, where a trial is one persistent kernel: the
// parents that lost in generation g join it at the start of generation g + 1, before the p-best ranking's
// barrier, which publishes the rows. No CTA plans for the others (that would take one more barrier): every
// CTA of the trial's team computes every insertion itself, the same in each, from the "parent lost" flags
// the selections wrote before the generation's barrier (np is a few thousand at most), and copies the rows
// of the parents it is given. The rule is the host driver's (core/driver.hpp) and gpu-kernels'
// (cuda/engines/archive.cuh): in index order, appended while there is room, else replacing the member drawn
// by word 8 of the parent's own donors stream, the later index winning a member two replace.
#pragma once
#include <cstdint>

#include "core/de_ops.hpp"
#include "cuda/blocks/vec4.cuh"

namespace degpu::cuda {
namespace {

// The sum of v over the threads before this one in the CTA (blockDim a multiple of 32, at most 1024);
// total: the CTA's sum. Run by every thread.
template <class V>
__device__ V cta_exclusive_scan(V v, V* total = nullptr) {
  __shared__ V tot[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  V incl = v;
  for (int off = 1; off < 32; off *= 2) {
    const V y = __shfl_up_sync(0xffffffffu, incl, off);
    if (lane >= off) incl += y;
  }
  if (lane == 31) tot[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    V w = lane < warps ? tot[lane] : V(0);
    for (int off = 1; off < 32; off *= 2) {
      const V y = __shfl_up_sync(0xffffffffu, w, off);
      if (lane >= off) w += y;
    }
    if (lane < warps) tot[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  V ex = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0) ex = V(0);
  if (warp > 0) ex += tot[warp - 1];
  if (total) *total = tot[warps - 1];
  __syncthreads();
  return ex;
}

// Where the archive lives on the gpu engine: `cap` members of `stride` values each (the row stride, so
// that the trials read a member 4-wide as they read a row); nullptr rows: no archive.
template <class T>
struct EngineArchive {
  T* rows = nullptr;
  int cap = 0;
  std::size_t stride = 0;
  __device__ __forceinline__ T* member(int at) const { return rows + static_cast<std::size_t>(at) * stride; }
};

// Generation g's insertions into an archive of cap members (count of them in use), computed by the whole
// CTA: lost(i) says whether individual i's parent lost (i < np); copy(i, at) is called, by one thread, for
// each insertion that stands (no later parent replaced member `at`), and copies the row where the CTA
// is the one to copy it. owner: cap ints of the CTA's shared memory. Returns the members after.
// (Inlined: a call would take the addresses of the caller's locals its lambdas capture, and keep them in
// local memory through every algorithm's generations.)
template <class Lost, class Copy>
__device__ __forceinline__ int cta_archive_insert(const ops::Params& p, std::uint32_t g, int np, Lost lost, int cap, int count, int* owner,
                                  Copy copy) {
  const int nt = static_cast<int>(blockDim.x);
  for (int k = threadIdx.x; k < cap; k += nt) owner[k] = -1;
  // thread t's individuals: [t chunk, t chunk + chunk), so that a thread's turns follow one another
  const int chunk = (np + nt - 1) / nt;
  const int begin = min(np, static_cast<int>(threadIdx.x) * chunk), end = min(np, begin + chunk);
  int mine = 0;
  for (int i = begin; i < end; ++i) mine += lost(i) ? 1 : 0;
  int total = 0;
  const int turn0 = cta_exclusive_scan(mine, &total);  // (its barriers also publish the owners' reset)
  const auto member = [&](int i, int turn) { return ops::archive_slot(p, g, static_cast<std::uint32_t>(i), count + turn, cap); };
  int turn = turn0;
  for (int i = begin; i < end; ++i)
    if (lost(i)) atomicMax(owner + member(i, turn++), i);
  __syncthreads();  // every owner decided
  turn = turn0;
  for (int i = begin; i < end; ++i)
    if (lost(i)) {
      const int at = member(i, turn++);
      if (owner[at] == i) copy(i, at);
    }
  __syncthreads();  // the owners read before a next call resets them
  return min(cap, count + total);
}

// A row of Ds values (the stride: padding included) copied by one thread, 4-wide; src read through load.
template <class T, class Load>
__device__ __forceinline__ void copy_row(T* dst, const T* src, int Ds, Load load) {
  for (int j = 0; j < Ds; j += 4) store4(dst + j, load(src + j));
}

}  // namespace
}  // namespace degpu::cuda
