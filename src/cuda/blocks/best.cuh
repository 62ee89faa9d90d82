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

// Under constraints (constraints.hpp): a value, its individual, whether it is feasible and its summed
// violation (degpu::summed_violation); the feasible rank first by value, the others after them by summed
// violation, ties to the lower index: the CPU engines' best (driver.hpp's find_best).
template <class T>
struct RankedFeasible {
  T f;
  double sum;
  std::uint32_t idx;
  bool feasible;
};
template <class T>
__device__ __forceinline__ bool comes_first(const RankedFeasible<T>& a, const RankedFeasible<T>& b) {
  if (a.feasible != b.feasible) return a.feasible;
  if (a.feasible) return ranks_before(a.f, a.idx, b.f, b.idx);
  return a.sum < b.sum || (!(b.sum < a.sum) && a.idx < b.idx);
}
struct FeasibleFirst {
  template <class T>
  __device__ __forceinline__ RankedFeasible<T> operator()(const RankedFeasible<T>& a, const RankedFeasible<T>& b) const {
    return comes_first(b, a) ? b : a;
  }
};

// The first of a block of kThreads threads' values v by `op`, valid in thread 0; run by the whole block.
template <int kThreads, class V, class Op>
__device__ __forceinline__ V block_first(V v, Op op) {
  using Reduce = cub::BlockReduce<V, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  return Reduce(tmp).Reduce(v, op);
}

// The best of a block of kThreads threads' (f, idx), valid in thread 0; run by the whole block.
template <int kThreads, class T>
__device__ __forceinline__ Ranked<T> block_best(Ranked<T> v) {
  return block_first<kThreads>(v, RanksFirst{});
}

}  // namespace
}  // namespace degpu::cuda
