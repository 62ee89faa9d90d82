// An owning device allocation (checked), for the engines' buffers.
#pragma once
#include <algorithm>
#include <cstddef>

#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/de_ops.hpp"
#include "core/integer_box.hpp"
#include "core/params.hpp"
#include "cuda/util/check.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

namespace degpu::cuda {

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t n) {
    const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(T);
    const cudaError_t e = cudaMalloc(&ptr, bytes);
    if (e == cudaErrorMemoryAllocation) out_of_device_memory(bytes);
    if (e != cudaSuccess) throw_cuda(e, "cudaMalloc", __FILE__, __LINE__);
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(DeviceArray&& o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// host values copied to the device at dst.
template <class T>
void upload(T* dst, const std::vector<T>& src) {
  DEGPU_CUDA_TRY(cudaMemcpy(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// src (double, host) copied to the device at dst as T.
template <class T>
void upload_as(T* dst, const std::vector<double>& src) {
  upload(dst, std::vector<T>(src.begin(), src.end()));
}

// RunOptions::initial on the device: one block of rows (k x D) in T (empty for none).
template <class T>
DeviceArray<T> upload_initial(const RunOptions& o) {
  const std::vector<T> h = ops::initial_rows<T>(o);
  DeviceArray<T> d(h.size());
  DEGPU_CUDA_TRY(cudaMemcpy(d.ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// The algorithm's state of n individuals on the device (core/algorithms), word by word, starting as the
// host driver's; with `trials`, room for the trials' state beside it (alg::Trials). With a population-level
// update, the population's state (starting as initial_shared) and room for each selection's contribution
// (sum_words x n; `sum_sets` such sets: the gpu engine's global paths keep two, by generation parity). No
// allocation for what the algorithm does not have.
struct AlgorithmState {
  std::size_t n;
  int words, shared_words, sum_words;
  bool with_trials;
  DeviceArray<double> store, shared_store, sums_store;
  static std::size_t count(const ops::Params& p, std::size_t n, bool trials, int sum_sets = 1) {  // doubles
    return (trials ? 2 : 1) * static_cast<std::size_t>(alg::state_words(p)) * n + static_cast<std::size_t>(alg::shared_words(p)) +
           static_cast<std::size_t>(sum_sets) * alg::sum_words(p) * n;
  }
  static std::size_t bytes(const ops::Params& p, std::size_t n, bool trials, int sum_sets = 1) {
    return count(p, n, trials, sum_sets) * sizeof(double);
  }
  AlgorithmState(const ops::Params& p, std::size_t n, bool trials, int sum_sets = 1)
      : n(n),
        words(alg::state_words(p)),
        shared_words(alg::shared_words(p)),
        sum_words(alg::sum_words(p)),
        with_trials(trials),
        store((trials ? 2 : 1) * static_cast<std::size_t>(words) * n),
        shared_store(static_cast<std::size_t>(shared_words)),
        sums_store(static_cast<std::size_t>(sum_sets) * sum_words * n) {
    if (words) upload_as(store.ptr, alg::initial_state(p, n));
    if (shared_words) upload_as(shared_store.ptr, alg::initial_shared(p));
  }
  double* state() const { return words ? store.ptr : nullptr; }
  double* shared() const { return shared_words ? shared_store.ptr : nullptr; }
  double* sums() const { return sum_words ? sums_store.ptr : nullptr; }
  alg::Trials trials() const {
    return alg::Trials{state(), words && with_trials ? store.ptr + words * n : nullptr, n, words, shared(), sums()};
  }
};

// A problem's integrality on the device (constraints.hpp), from its integer box: D-long, the flag, and the
// lowest and highest integer (0 where not an integer); `view()` is what the kernels take (integer nullptr:
// none).
template <class T>
struct IntegersOnDevice {
  bool with;
  DeviceArray<std::uint8_t> integer;
  DeviceArray<T> ilo, ihi;
  explicit IntegersOnDevice(const IntegerBox<T>& box)
      : with(!box.ints.empty()),
        integer(with ? box.lo.size() : 0),
        ilo(with ? box.lo.size() : 0),
        ihi(with ? box.lo.size() : 0) {
    if (!with) return;
    std::vector<std::uint8_t> flag(box.lo.size(), 0);
    std::vector<T> l(box.lo.size(), T(0)), h(box.lo.size(), T(0));
    for (std::size_t k = 0; k < box.ints.size(); ++k) {
      const std::size_t j = static_cast<std::size_t>(box.ints[k]);
      flag[j] = 1;
      l[j] = box.ilo[k];
      h[j] = box.ihi[k];
    }
    upload(integer.ptr, flag);
    upload(ilo.ptr, l);
    upload(ihi.ptr, h);
  }
  ops::Integers<T> view() const { return with ? ops::Integers<T>{integer.ptr, ilo.ptr, ihi.ptr} : ops::Integers<T>{}; }
  static std::size_t bytes(const Problem& problem) {
    return problem.integrality().empty() ? 0 : static_cast<std::size_t>(problem.dim()) * (1 + 2 * sizeof(T));
  }
};

// A problem's box and (built-in functions) shift on the device; CEC functions keep their data in
// CecOnDevice (cec_device.cuh). With integrality, the box is widened on the integer coordinates
// (integer_box.hpp) and `integers()` says which they are and the integers each takes. ConfigError for a user
// objective (CPU engines only).
template <class T>
struct ProblemOnDevice {
  std::size_t D;
  DeviceArray<T> lo, hi, shift_storage;
  const T* shift = nullptr;  // nullptr: unshifted
  IntegersOnDevice<T> ints;
  explicit ProblemOnDevice(const Problem& problem) : ProblemOnDevice(problem, integer_box<T>(problem)) {}
  ops::Integers<T> integers() const { return ints.view(); }
  static std::size_t bytes(const Problem& problem) {
    return 3 * static_cast<std::size_t>(problem.dim()) * sizeof(T) + IntegersOnDevice<T>::bytes(problem);
  }

 private:
  ProblemOnDevice(const Problem& problem, const IntegerBox<T>& box)
      : D(check(problem)), lo(D), hi(D), shift_storage(problem.shift().size()), ints(box) {
    upload(lo.ptr, box.lo);
    upload(hi.ptr, box.hi);
    if (!problem.shift().empty()) {
      upload_as(shift_storage.ptr, problem.shift());
      shift = shift_storage.ptr;
    }
  }
 private:
  static std::size_t check(const Problem& problem) {
    if (!problem.on_gpu())
      throw ConfigError("problem " + problem.name() +
                        ": user objectives run on the CPU engines (serial, threads, matrix)");
    return static_cast<std::size_t>(problem.dim());
  }
};

}  // namespace degpu::cuda
