// The one order in which every engine sums a population's values (the population-level update of the
// algorithm concept, algorithm.hpp): the stride-doubling tree over the indices,
//     for s = 1, 2, 4, ...:  x[i] = x[i] + x[i + s]  for every i a multiple of 2s with i + s < n;  the sum is x[0],
// so that the host driver, gpu-kernels, gpu-fused and the gpu engine's paths get the same bits and so take
// the same decisions. The tree splits at aligned powers of two: the sum of x[lB .. lB + B) (B a power of
// two) is a subtree, so a warp may give each lane an aligned block and then combine the lanes' sums across
// the warp (cuda/blocks/population_update.cuh) without changing a bit.
#pragma once
#include <cstdint>

#include "degpu/config.hpp"

namespace degpu::alg {

// The tree's sum of x(begin), ..., x(end - 1), where begin is a multiple of a power of two B >= end - begin
// (0 for the whole range): read once, in order, with a stack of the partial sums of complete subtrees (the
// k-th leaf closes as many subtrees as k has trailing one bits). 0 for an empty range.
template <class X>
DEGPU_HD_INLINE double tree_sum(X x, std::uint32_t begin, std::uint32_t end) {
  double stack[33];
  int top = 0;
  for (std::uint32_t k = 0; begin + k < end; ++k) {
    double v = x(begin + k);
    for (std::uint32_t c = k; c & 1u; c >>= 1) v = stack[--top] + v;  // left sibling + right
    stack[top++] = v;
  }
  if (top == 0) return 0.0;
  double r = stack[--top];
  while (top > 0) r = stack[--top] + r;  // the incomplete right edge, smallest subtree first
  return r;
}

}  // namespace degpu::alg
