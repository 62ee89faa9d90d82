// The best of a population, written once: the order (lower f first, NaN last, ties to the lower index), and
// the block reduction that finds it with CUB (cub::BlockReduce) where the block's size is known at compile
// time (gpu-kernels' and gpu-fused's). The gpu engine's reductions of the best stay hand-written
// (gpu_team.cuh: a CTA size known at run time; cub::WarpReduce measured slower for the team's best). The order is total, so any reduction tree gives the same answer: the best is
// the CPU engines' (ops::better, the first index on ties).
#pragma once
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "core/de_ops.hpp"

namespace degpu::cuda {
namespace {

// Orders (f, index): lower f first, NaN last, ties to the lower index.
template <class T>
__host__ __device__ __forceinline__ bool ranks_before(T fa, std::uint32_t ia, T fb, std::uint32_t ib) {
  return ops::better(fa, fb) || (!ops::better(fb, fa) && ia < ib);
}

// A value and its individual, and the reduction operator that keeps the one that ranks first.
template <class T>
struct Ranked {
  T f;
  std::uint32_t idx;
};
struct RanksFirst {
  template <class T>
  __device__ __forceinline__ Ranked<T> operator()(const Ranked<T>& a, const Ranked<T>& b) const {
    return ranks_before(b.f, b.idx, a.f, a.idx) ? b : a;
  }
};

// The best of a block of kThreads threads' (f, idx), valid in thread 0; run by the whole block.
template <int kThreads, class T>
__device__ __forceinline__ Ranked<T> block_best(Ranked<T> v) {
  using Reduce = cub::BlockReduce<Ranked<T>, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  return Reduce(tmp).Reduce(v, RanksFirst{});
}

}  // namespace
}  // namespace degpu::cuda
