// The host side of an engine whose population lives on the device and which launches each generation
// from the host (gpu-kernels, gpu-fused): after generation 0 and after each generation the best is found
// on the device and its value read back; the stop criteria, history (with the best row where asked) and
// progress are applied as the CPU driver applies them; current-to-pbest's ranking is made on the host, as
// the CPU engines make it; at the end the result is read back. The engine gives the generations.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "core/de_ops.hpp"
#include "cuda/blocks/de_blocks.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda::device_loop {
namespace {  // host code that launches a kernel keeps that kernel's linkage (docs/DECISIONS.md)

constexpr int kBestThreads = 1024;
template <class T>
__global__ void find_best(int np, const T* __restrict__ f, std::uint32_t* best, T* best_f) {
  block_find_best<kBestThreads>(np, f, best, best_f);
}

// A population on the device: np rows of D values and their values.
template <class T>
struct Rows {
  const T* x;
  const T* f;
};

// The run: `initial()` launches generation 0 (the population made and evaluated); `generation(g, best,
// ranking)` launches generation g (best: the device's index of the best individual; ranking:
// current-to-pbest's order of the population on the device, else nullptr);
// `population()` is the current population, read once the launches on `stream` are done; `nan_count` the
// device's count of NaN values. `t0`: when the run began (wall_s and history times count from it).
template <class T, class Initial, class Generation, class Population>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o, const ops::Params& p, cudaStream_t stream,
           std::chrono::steady_clock::time_point t0, const unsigned long long* nan_count, Initial initial,
           Generation generation, Population population) {
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  const bool pbest = p.mutation == Mutation::current_to_pbest1;
  DeviceArray<T> best_f(1);
  DeviceArray<std::uint32_t> best(1), ranking(pbest ? np : 0);
  const auto copy_back = [&](void* dst, const void* src, std::size_t bytes) {
    DEGPU_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
  };
  Result res;
  T bf = 0;
  const auto read_best = [&] {
    find_best<T><<<1, kBestThreads, 0, stream>>>(p.np, population().f, best.ptr, best_f.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
    copy_back(&bf, best_f.ptr, sizeof(T));
  };
  const auto best_row = [&] {
    std::uint32_t b = 0;
    copy_back(&b, best.ptr, sizeof(b));
    std::vector<T> bx(D);
    copy_back(bx.data(), population().x + static_cast<std::size_t>(b) * D, D * sizeof(T));
    return std::vector<double>(bx.begin(), bx.end());
  };
  const auto record = [&](long long g) {
    res.history.push_back({g, res.evals, static_cast<double>(bf), elapsed()});
    if (o.history_x) res.history.back().best_x = best_row();  // as the CPU driver keeps it
  };

  initial();
  read_best();
  res.evals = p.np;
  if (o.history_every > 0) record(0);
  std::vector<T> f_h;
  std::vector<std::uint32_t> rank_h;
  long long g = 0;
  std::optional<StopReason> reason = check_stop(r.stop, problem.optimum_f(), static_cast<double>(bf), res.evals, p.np, 0, elapsed());
  while (!reason) {
    ++g;
    if (pbest) {  // generation g - 1 is done: read_best waited for it
      f_h.resize(np);
      rank_h.resize(np);
      copy_back(f_h.data(), population().f, np * sizeof(T));
      std::iota(rank_h.begin(), rank_h.end(), 0u);
      std::stable_sort(rank_h.begin(), rank_h.end(), [&](std::uint32_t a, std::uint32_t b) { return ops::better(f_h[a], f_h[b]); });
      DEGPU_CUDA_TRY(cudaMemcpyAsync(ranking.ptr, rank_h.data(), np * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
      // a pageable source is staged before the call returns, and the copy precedes the generation on the
      // stream; wait anyway so that rank_h may be reused whatever the copy path
      DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    generation(g, static_cast<const std::uint32_t*>(best.ptr), pbest ? static_cast<const std::uint32_t*>(ranking.ptr) : nullptr);
    read_best();
    res.evals += p.np;
    reason = check_stop(r.stop, problem.optimum_f(), static_cast<double>(bf), res.evals, p.np, g, elapsed());
    if (o.history_every > 0 && (g % o.history_every == 0 || reason)) record(g);
    if (o.progress) o.progress(Progress{g, res.evals, static_cast<double>(bf), elapsed()});
  }
  unsigned long long nans = 0;
  copy_back(&nans, nan_count, sizeof(nans));
  res.best_x = best_row();
  res.generations = g;
  res.stop_reason = *reason;
  res.best_f = static_cast<double>(bf);
  res.nan_evals = static_cast<long long>(nans);
  if (problem.optimum_f()) res.best_error = res.best_f - *problem.optimum_f();
  res.wall_s = elapsed();
  return res;
}

}  // namespace
}  // namespace degpu::cuda::device_loop
