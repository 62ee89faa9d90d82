// A problem's linear constraints on the device (ConstraintModel::linear()), owned for a run of an engine
// that computes the violations in its kernels (cuda/blocks/linear_violation.cuh): gpu-kernels, gpu-fused
// and the gpu engine.
#pragma once
#include <cstddef>
#include <string>

#include "cuda/blocks/linear_violation.cuh"
#include "cuda/util/device_array.cuh"
#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

namespace degpu::cuda {

// Linear constraints (ConstraintModel::linear()) on the device, for an engine that computes the
// violations in its kernels (linear_violation.cuh); form nullptr: none (view().m = 0).
struct LinearConstraintsOnDevice {
  int m;
  DeviceArray<double> A, lower, upper;
  LinearConstraintsOnDevice(const LinearForm* form, int dim)
      : m(form ? form->count() : 0),
        A(form ? form->A.size() : 0),
        lower(static_cast<std::size_t>(m)),
        upper(static_cast<std::size_t>(m)) {
    if (!form) return;
    if (form->dim != dim)
      throw ConfigError("{constraints}: linear constraints of " + std::to_string(form->dim) + " columns for {dim} " +
                        std::to_string(dim));
    upload(A.ptr, form->A);
    upload(lower.ptr, form->lower);
    upload(upper.ptr, form->upper);
  }
  LinearOnDevice view() const { return m ? LinearOnDevice{A.ptr, lower.ptr, upper.ptr, m} : LinearOnDevice{}; }
  static std::size_t bytes(const LinearForm* form) {
    return form ? (form->A.size() + 2 * form->lower.size()) * sizeof(double) : 0;
  }
  // The problem's count of linear constraints (0: none, or not linear).
  static int count(const Problem& problem) {
    const LinearForm* f = problem.constraints() ? problem.constraints()->linear() : nullptr;
    return f ? f->count() : 0;
  }
  // An engine that takes linear constraints only (computed in its kernels: gpu, gpu-fused): the problem's
  // linear form, nullptr without constraints, a ConfigError naming `engine` for any other model (as
  // validate.cpp refuses them first).
  static const LinearForm* only_linear(const Problem& problem, const char* engine) {
    if (!problem.constraints()) return nullptr;
    if (const LinearForm* f = problem.constraints()->linear()) return f;
    throw ConfigError(std::string("{engine} ") + engine +
                      ": it takes linear {constraints} only (computed in its kernels): use {engine} gpu-kernels, "
                      "gpu-eval, serial, threads or matrix for these");
  }
};

}  // namespace degpu::cuda
