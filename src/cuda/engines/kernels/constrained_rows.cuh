// The objective of a constrained population on the gpu-kernels engine (constraints.hpp): each row's
// violations, then the objective at the feasible rows only (packed, evaluated by the engine's
// RowsEvaluator) and +inf at the others, the violations left on the device beside the values for the
// selection (Lampinen's rule) and the best.
//   - Linear constraints (ConstraintModel::linear()): the violations on the device, a thread per row, with
//     the CPU's operations in the CPU's order (LinearConstraints::violation: the products summed from
//     coordinate 0, in double, rounded at each step: no fused multiply-add), so the same bits; the
//     feasible rows selected by cub::DeviceSelect (in order) and their count read back.
//   - Any other model (a host function, a Python one): the rows read back and the model called on the host
//     (driver::Violations, as the CPU engines call it), the violations and the packing uploaded.
#pragma once
#include <cub/device/device_select.cuh>

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "core/driver.hpp"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines/linear_constraints.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

namespace degpu::cuda {
namespace {  // host code that launches a kernel keeps that kernel's linkage (docs/DECISIONS.md)

// cv[k m + c] and feasible[k] of the n rows (a thread per row; linear_violation.cuh).
template <class T>
__global__ void linear_violations(int n, int D, LinearOnDevice L, const T* __restrict__ rows, double* __restrict__ cv,
                                  std::uint8_t* __restrict__ feasible_row) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= n) return;
  double* v = cv + static_cast<std::size_t>(k) * L.m;
  linear_violations_by(L, rows + static_cast<std::size_t>(k) * D, D, 0, 1, v);
  feasible_row[k] = feasible(v, L.m);
}
// slot[at[k]] = k for the count[0] packed rows (slot holds -1 before)
__global__ void slots_of(const int* __restrict__ at, const int* __restrict__ count, int* __restrict__ slot) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < *count) slot[at[k]] = k;
}
// packed row k = rows' row at[k] (a block per row)
template <class T>
__global__ void pack_rows(int D, const T* __restrict__ rows, const int* __restrict__ at, T* __restrict__ packed) {
  const T* src = rows + static_cast<std::size_t>(at[blockIdx.x]) * D;
  T* dst = packed + static_cast<std::size_t>(blockIdx.x) * D;
  for (int j = threadIdx.x; j < D; j += blockDim.x) dst[j] = src[j];
}
// f[i] = the packed value of row i, or `none` (+inf) where it was not evaluated (slot[i] < 0)
template <class T>
__global__ void unpack_values(int n, const int* __restrict__ slot, const T* __restrict__ packed, T* __restrict__ f, T none) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) f[i] = slot[i] >= 0 ? packed[slot[i]] : none;
}

template <class T>
struct ConstrainedObjective {
  const Problem& problem;
  const RowsEvaluator<T>& eval;
  const LinearForm* linear;  // the violations on the device; nullptr: on the host
  int np, D, m, tpb;
  cudaStream_t stream;
  DeviceArray<double> cv, cvtrial;  // the population's and the trials' violations (np x m)
  DeviceArray<T> packed, fpacked;   // the feasible rows, packed, and their values
  DeviceArray<int> at, slot;        // packed row k is row at[k]; row i is packed row slot[i] (-1: infeasible)
  // linear constraints on the device; each row's feasibility, the rows' indices, CUB's scratch and the
  // count it selects
  LinearConstraintsOnDevice linear_d;
  DeviceArray<std::uint8_t> flags;
  DeviceArray<int> iota, count;
  std::size_t scratch_bytes;
  DeviceArray<unsigned char> scratch;
  // any other model: on the host
  std::vector<T> rows_h;
  std::vector<const T*> rows;
  std::vector<double> cv_h;
  std::vector<int> at_h, slot_h;
  driver::Violations<T> violations;
  long long infeasible = 0;

  ConstrainedObjective(const Problem& problem, const RowsEvaluator<T>& eval, int np, int tpb, cudaStream_t stream)
      : problem(problem),
        eval(eval),
        linear(problem.constraints()->linear()),
        np(np),
        D(problem.dim()),
        m(problem.constraints()->count()),
        tpb(tpb),
        stream(stream),
        cv(static_cast<std::size_t>(np) * m),
        cvtrial(static_cast<std::size_t>(np) * m),
        packed(static_cast<std::size_t>(np) * D),
        fpacked(static_cast<std::size_t>(np)),
        at(static_cast<std::size_t>(np)),
        slot(static_cast<std::size_t>(np)),
        linear_d(linear, D),
        flags(linear ? static_cast<std::size_t>(np) : 0),
        iota(linear ? static_cast<std::size_t>(np) : 0),
        count(1),
        scratch_bytes(scratch_size(linear, np)),
        scratch(scratch_bytes) {
    if (!linear) return;
    std::vector<int> idx(static_cast<std::size_t>(np));
    std::iota(idx.begin(), idx.end(), 0);
    upload(iota.ptr, idx);
  }
  static std::size_t bytes(const Problem& problem, std::size_t np) {
    if (!problem.constraints()) return 0;
    const std::size_t m = static_cast<std::size_t>(problem.constraints()->count()), D = static_cast<std::size_t>(problem.dim());
    return np * (2 * m * sizeof(double) + (D + 1) * sizeof(T) + 4 * sizeof(int) + 1) +
           LinearConstraintsOnDevice::bytes(problem.constraints()->linear()) +
           scratch_size(problem.constraints()->linear(), static_cast<int>(np));
  }
  // values[i] and the violations cv_d[i m ..] of the np rows at x_d (device)
  void operator()(const T* x_d, T* values, double* cv_d) {
    const int feasible_rows = linear ? on_device(x_d, cv_d) : on_host(x_d, cv_d);
    infeasible += np - feasible_rows;
    if (feasible_rows) {
      pack_rows<T><<<static_cast<unsigned>(feasible_rows), tpb, 0, stream>>>(D, x_d, at.ptr, packed.ptr);
      DEGPU_CUDA_TRY(cudaGetLastError());
      eval.evaluate(packed.ptr, feasible_rows, fpacked.ptr, stream);
    }
    unpack_values<T><<<blocks(np), 256, 0, stream>>>(np, slot.ptr, fpacked.ptr, values, std::numeric_limits<T>::infinity());
    DEGPU_CUDA_TRY(cudaGetLastError());
  }

 private:
  static unsigned blocks(int n) { return static_cast<unsigned>((n + 255) / 256); }
  static std::size_t scratch_size(const LinearForm* linear, int np) {
    if (!linear) return 0;
    std::size_t bytes = 0;
    DEGPU_CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, bytes, static_cast<const int*>(nullptr),
                                              static_cast<const std::uint8_t*>(nullptr), static_cast<int*>(nullptr),
                                              static_cast<int*>(nullptr), np));
    return bytes;
  }
  // the violations, at and slot on the device; the count of feasible rows read back
  int on_device(const T* x_d, double* cv_d) {
    linear_violations<T><<<blocks(np), 256, 0, stream>>>(np, D, linear_d.view(), x_d, cv_d, flags.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
    std::size_t bytes = scratch_bytes;
    DEGPU_CUDA_TRY(cub::DeviceSelect::Flagged(scratch.ptr, bytes, static_cast<const int*>(iota.ptr),
                                              static_cast<const std::uint8_t*>(flags.ptr), at.ptr, count.ptr, np, stream));
    DEGPU_CUDA_TRY(cudaMemsetAsync(slot.ptr, 0xff, static_cast<std::size_t>(np) * sizeof(int), stream));  // -1
    slots_of<<<blocks(np), 256, 0, stream>>>(at.ptr, count.ptr, slot.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
    int n = 0;
    DEGPU_CUDA_TRY(cudaMemcpyAsync(&n, count.ptr, sizeof(int), cudaMemcpyDeviceToHost, stream));
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
    return n;
  }
  // the rows read back, the model on the host, the violations, at and slot uploaded
  int on_host(const T* x_d, double* cv_d) {
    const std::size_t n = static_cast<std::size_t>(np) * D;
    rows_h.resize(n);
    DEGPU_CUDA_TRY(cudaMemcpyAsync(rows_h.data(), x_d, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
    rows.resize(static_cast<std::size_t>(np));
    for (int i = 0; i < np; ++i) rows[i] = rows_h.data() + static_cast<std::size_t>(i) * D;
    cv_h.resize(static_cast<std::size_t>(np) * m);
    violations(*problem.constraints(), rows.data(), np, D, cv_h.data());
    at_h.clear();
    slot_h.assign(static_cast<std::size_t>(np), -1);
    for (int i = 0; i < np; ++i)
      if (feasible(cv_h.data() + static_cast<std::size_t>(i) * m, m)) {
        slot_h[i] = static_cast<int>(at_h.size());
        at_h.push_back(i);
      }
    upload(cv_d, cv_h);
    upload(slot.ptr, slot_h);
    if (!at_h.empty()) upload(at.ptr, at_h);
    return static_cast<int>(at_h.size());
  }
};

}  // namespace
}  // namespace degpu::cuda
