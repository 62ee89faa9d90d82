// The population-level update of the algorithm concept (core/algorithms/algorithm.hpp) on the device: the
// selections' contributions summed by a warp in tree_sum's order (the host driver's bits), and the
// algorithm's end_generation. gpu-kernels and gpu-fused launch end_generation_kernel after the selection;
// the gpu engine's CTAs each make the update into their own copy after the generation's barrier.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/algorithms/registry.hpp"
#include "cuda/util/check.hpp"

namespace degpu::cuda {
namespace {  // host code that launches a kernel keeps that kernel's linkage (docs/DECISIONS.md)

// The tree's last five levels across the warp: v is lane l's sum of the aligned block [l B, l B + B) of n
// values (0 where the block is empty); lane l takes lane l + s's sum where that block is not empty. Every
// lane gets the total.
__device__ __forceinline__ double warp_tree_levels(double v, std::uint32_t B, std::uint32_t n) {
  const unsigned lane = threadIdx.x % 32;
  for (unsigned s = 1; s < 32; s <<= 1) {
    const double o = __shfl_down_sync(0xffffffffu, v, s);
    if ((lane & (2 * s - 1)) == 0 && (lane + s) * B < n) v = v + o;
  }
  return __shfl_sync(0xffffffffu, v, 0);
}

// x(first) + ... + x(first + n - 1) in tree_sum's order, by the 32 lanes of a warp (every lane gets it), first
// a multiple of a power of two >= n: lane l sums the aligned block [l B, l B + B) of the range (B the least
// power of two with 32 B >= n), then the lanes' sums meet in the tree's last five levels, so the bits are
// the one thread's (tests/cpu/test_jade.cpp checks the split).
template <class X>
__device__ double warp_tree_sum(X x, std::uint32_t n, std::uint32_t first = 0) {
  std::uint32_t B = 1;
  while (32u * B < n) B <<= 1;
  const std::uint32_t begin = (threadIdx.x % 32) * B;
  return warp_tree_levels(begin < n ? alg::tree_sum(x, first + begin, first + (begin + B < n ? begin + B : n)) : 0.0, B, n);
}

// x(0) + ... + x(n - 1) in tree_sum's order by every warp of the CTA (blockDim.x a multiple of 32): warp w
// sums the aligned block [w B, w B + B) (B the least power of two with warps B >= n) as warp_tree_sum does,
// then warp 0 joins the warps' sums in the tree's last levels. Run by every thread; every thread gets it.
// part: 32 doubles of the CTA's shared memory, the caller's.
template <class X>
__device__ double cta_tree_sum(X x, std::uint32_t n, double* part) {
  const std::uint32_t warps = blockDim.x / 32, w = threadIdx.x / 32;
  std::uint32_t B = 1;
  while (warps * B < n) B <<= 1;
  const std::uint32_t begin = w * B;
  const double v = begin < n ? warp_tree_sum(x, begin + B < n ? B : n - begin, begin) : 0.0;
  if (threadIdx.x % 32 == 0) part[w] = v;
  __syncthreads();
  double total = 0;
  if (w == 0) total = warp_tree_levels(threadIdx.x < warps ? part[threadIdx.x] : 0.0, B, n);
  __syncthreads();  // every warp's part read
  if (threadIdx.x == 0) part[0] = total;
  __syncthreads();
  total = part[0];
  __syncthreads();  // read before a next call writes part
  return total;
}

// After generation g's selections, by one whole warp: each word of the n contributions (sum(w, i): word w of
// individual i) summed, then the algorithm's end_generation on `shared` (lane 0 writes it). Up to 32
// individuals every word is loaded at once (a value per lane), so the loads' latency is paid once.
template <class Sum>
__device__ void warp_end_generation(const ops::Params& p, std::uint32_t g, double* shared, Sum sum, std::uint32_t n) {
  double totals[alg::kMaxSums];
  const int words = alg::sum_words(p);
  if (n <= 32) {
    const std::uint32_t lane = threadIdx.x % 32;
    double v[alg::kMaxSums];
#pragma unroll
    for (int w = 0; w < alg::kMaxSums; ++w) v[w] = w < words && lane < n ? sum(w, lane) : 0.0;
#pragma unroll
    for (int w = 0; w < alg::kMaxSums; ++w)
      if (w < words) totals[w] = warp_tree_levels(v[w], 1, n);
  } else {
    for (int w = 0; w < words; ++w) totals[w] = warp_tree_sum([&](std::uint32_t i) { return sum(w, i); }, n);
  }
  if (threadIdx.x % 32 == 0) alg::end_generation(p, g, shared, totals);
}

// The gpu engine's CTAs: each keeps the population's state in its own shared memory (`dst`: in the resident
// path's dynamic region, or the global paths': gpu_global.cuh), updated by every CTA alike after the
// generation's barrier (so no other barrier is needed), starting from `initial`.
__device__ __forceinline__ double* load_shared_state(const ops::Params& p, const double* initial, double* dst) {
  for (int w = threadIdx.x; w < alg::shared_words(p); w += blockDim.x) dst[w] = initial[w];
  return dst;  // read after the caller's next __syncthreads
}

// gpu-kernels and gpu-fused: the update of the population's state in device memory from the contributions
// of the n individuals (word w of individual i at sums[w stride + i]; stride: the room for the first
// generation's population, n: the live one, which an L-SHADE population shrinks); one warp.
__global__ void end_generation_kernel(ops::Params p, std::uint32_t g, double* shared, const double* sums, std::uint32_t n,
                                      std::size_t stride) {
  warp_end_generation(p, g, shared, [&](int w, std::uint32_t i) { return sums[static_cast<std::size_t>(w) * stride + i]; }, n);
}
#if DEGPU_HOST_CODE
inline void launch_end_generation(const ops::Params& p, std::uint32_t g, double* shared, const double* sums, std::uint32_t n,
                                  std::size_t stride, cudaStream_t stream) {
  end_generation_kernel<<<1, 32, 0, stream>>>(p, g, shared, sums, n, stride);
  DEGPU_CUDA_TRY(cudaGetLastError());
}
#endif

}  // namespace
}  // namespace degpu::cuda
