// A group of G consecutive lanes of a warp (G a power of two up to 32): the unit that evaluates one
// individual in the gpu engine's kernels, and in a family's own group evaluation (schedule_device.cuh).
#pragma once
#include <cuda_runtime.h>

namespace degpu::cuda {

constexpr int kWarpSize = 32;

namespace {

// G consecutive lanes of a warp. Its reductions are butterflies (__shfl_xor_sync), not cub::WarpReduce:
// every lane needs the value (a function's finish, the selection), which CUB's gives to lane 0 alone.
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
  // The sum of v over the lanes before this one (0 in lane 0).
  template <class V>
  __device__ V exclusive_scan(V v) const {
    V incl = v;
    for (int off = 1; off < G; off *= 2) {
      const V y = __shfl_up_sync(mask, incl, off, G);
      if (lane >= off) incl += y;
    }
    const V ex = __shfl_up_sync(mask, incl, 1, G);
    return lane == 0 ? V(0) : ex;
  }
  __device__ void sync() const { __syncwarp(mask); }
};

}  // namespace
}  // namespace degpu::cuda
