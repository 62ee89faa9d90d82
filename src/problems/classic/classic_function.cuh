// A classic function as the CUDA engines take it: its term-form struct (degpu/functions/classic.hpp),
// empty: no data on the device (its shift and bias travel with the run, ops::make_params).
#pragma once
#include "cuda/blocks/kernel_function.cuh"
#include "degpu/problem.hpp"

namespace degpu::cuda {
namespace {

// f(fn) with the problem's kernel function, if the problem is a classic function; false for another problem.
// The family's line in cuda/families/builtin.cuh.
template <class F>
bool with_classic_function(const Problem& problem, F& f) {
  if (!problem.is_builtin()) return false;
  visit_host(problem.function(), f);
  return true;
}

}  // namespace
}  // namespace degpu::cuda
