// The gpu-kernels engine (003_04289d69f9125e01.txt's design): everything on the GPU, one kernel per DE
// operation: initialise (a block per individual, a thread per coordinate), evaluate (a warp per
// individual), make trials (donors and crossover drawn by one thread, then a thread per coordinate:
// mutation where crossed, repair), select, find the best. The host reads the best value after each
// generation to decide whether to stop. The operators are those of the CPU engines (core/de_ops.hpp),
// on the same counter-based streams, so the GPU takes the same decisions for the same seed.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <vector>

#include "core/params.hpp"
#include "cuda/batch_evaluator.hpp"
#include "cuda/check.hpp"
#include "cuda/device_array.cuh"
#include "cuda/de_blocks.cuh"
#include "cuda/engines_cuda.hpp"
#include "degpu/errors.hpp"

namespace degpu::cuda {
namespace {

template <class T>
__global__ void init_population(ops::Params p, T* x, const T* lo, const T* hi, const T* initial, int ninitial) {
  block_init(p, blockIdx.x, x, lo, hi, initial, ninitial);
}
template <class T>
__global__ void make_trials(ops::Params p, std::uint32_t g, const T* __restrict__ x, const std::uint32_t* best,
                            const std::uint32_t* ranking, const T* __restrict__ lo, const T* __restrict__ hi,
                            T* __restrict__ trial, JdeArrays jde) {
  block_make_trial(p, g, blockIdx.x, x, best, ranking, lo, hi, trial, jde);
}
template <class T>
__global__ void select_survivors(int D, T* __restrict__ x, T* __restrict__ f, const T* __restrict__ trial,
                                 const T* __restrict__ ftrial, unsigned long long* nan_count, JdeArrays jde) {
  block_select(D, blockIdx.x, x, f, trial, ftrial, nan_count, jde);
}
constexpr int kBestThreads = 1024;
template <class T>
__global__ void find_best(int np, const T* __restrict__ f, std::uint32_t* best, T* best_f) {
  block_find_best<kBestThreads>(np, f, best, best_f);
}

// One trial, the populations' values from `eval`.
template <class T>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o, const RowsEvaluator<T>& eval) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const ops::Params p = ops::make_params(problem, r, o);
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  use_device((2 * np * D + 2 * np + 1) * sizeof(T) + ProblemOnDevice<T>::bytes(problem) + np * sizeof(std::uint32_t) + 64 +
             (p.jde ? 4 * np * sizeof(double) : 0));
  DeviceArray<T> x(np * D), trial(np * D), f(np), ftrial(np), best_f(1);
  DeviceArray<std::uint32_t> best(1), ranking(np);
  DeviceArray<unsigned long long> nan_count(1);
  // jDE: every individual starts at F.lo, CR.lo (as the CPU driver's Population)
  DeviceArray<double> jde_store(p.jde ? 4 * np : 0);
  JdeArrays jde;
  if (p.jde) {
    jde = JdeArrays{jde_store.ptr, jde_store.ptr + np, jde_store.ptr + 2 * np, jde_store.ptr + 3 * np};
    upload_jde_start(p, jde.Fi, jde.CRi, np);
  }
  const ProblemOnDevice<T> box(problem);
  cudaStream_t stream = 0;
  // the np rows at rows into values (built-ins: a warp per row; CEC functions: a thread per row;
  // schedules: a CTA per row, a thread per task; a model: its own)
  const auto evaluate = [&](const T* rows, T* values) {
    eval.evaluate(rows, p.np, values, stream);
    DEGPU_CUDA_TRY(cudaGetLastError());
  };
  DEGPU_CUDA_TRY(cudaMemset(nan_count.ptr, 0, sizeof(unsigned long long)));
  const int tpb = gpu_kernels_threads(p.D);
  const unsigned grid = static_cast<unsigned>(np);

  Result res;
  T bf = 0;
  std::vector<T> f_h;
  std::vector<std::uint32_t> rank_h;
  const auto read_best = [&] {
    find_best<T><<<1, kBestThreads, 0, stream>>>(p.np, f.ptr, best.ptr, best_f.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
    DEGPU_CUDA_TRY(cudaMemcpy(&bf, best_f.ptr, sizeof(T), cudaMemcpyDeviceToHost));
  };
  const auto record = [&](long long g) {
    res.history.push_back({g, res.evals, static_cast<double>(bf), elapsed()});
    if (o.history_x) {  // the best row, as the CPU driver keeps it
      std::uint32_t b = 0;
      std::vector<T> bx(D);
      DEGPU_CUDA_TRY(cudaMemcpy(&b, best.ptr, sizeof(b), cudaMemcpyDeviceToHost));
      DEGPU_CUDA_TRY(cudaMemcpy(bx.data(), x.ptr + static_cast<std::size_t>(b) * D, D * sizeof(T), cudaMemcpyDeviceToHost));
      res.history.back().best_x.assign(bx.begin(), bx.end());
    }
  };

  const DeviceArray<T> initial = upload_initial<T>(o);
  init_population<T><<<grid, tpb, 0, stream>>>(p, x.ptr, box.lo.ptr, box.hi.ptr, initial.ptr, static_cast<int>(o.initial.size()));
  evaluate(x.ptr, f.ptr);
  read_best();
  res.evals = p.np;
  if (o.history_every > 0) record(0);
  const bool pbest = p.mutation == Mutation::current_to_pbest1;
  long long g = 0;
  std::optional<StopReason> reason = check_stop(r.stop, problem.optimum_f(), static_cast<double>(bf), res.evals, p.np, 0, elapsed());
  while (!reason) {
    ++g;
    if (pbest) {  // the ranking on the host, as the CPU engines make it
      f_h.resize(np);
      rank_h.resize(np);
      DEGPU_CUDA_TRY(cudaMemcpy(f_h.data(), f.ptr, np * sizeof(T), cudaMemcpyDeviceToHost));
      std::iota(rank_h.begin(), rank_h.end(), 0u);
      std::stable_sort(rank_h.begin(), rank_h.end(), [&](std::uint32_t a, std::uint32_t b) { return ops::better(f_h[a], f_h[b]); });
      DEGPU_CUDA_TRY(cudaMemcpy(ranking.ptr, rank_h.data(), np * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    }
    make_trials<T><<<grid, tpb, 0, stream>>>(p, static_cast<std::uint32_t>(g), x.ptr, best.ptr, pbest ? ranking.ptr : nullptr,
                                             box.lo.ptr, box.hi.ptr, trial.ptr, jde);
    DEGPU_CUDA_TRY(cudaGetLastError());
    evaluate(trial.ptr, ftrial.ptr);
    select_survivors<T><<<grid, tpb, 0, stream>>>(p.D, x.ptr, f.ptr, trial.ptr, ftrial.ptr, nan_count.ptr, jde);
    DEGPU_CUDA_TRY(cudaGetLastError());
    read_best();
    res.evals += p.np;
    reason = check_stop(r.stop, problem.optimum_f(), static_cast<double>(bf), res.evals, p.np, g, elapsed());
    if (o.history_every > 0 && (g % o.history_every == 0 || reason)) record(g);
    if (o.progress) o.progress(Progress{g, res.evals, static_cast<double>(bf), elapsed()});
  }
  std::uint32_t b = 0;
  unsigned long long nans = 0;
  DEGPU_CUDA_TRY(cudaMemcpy(&b, best.ptr, sizeof(b), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(&nans, nan_count.ptr, sizeof(nans), cudaMemcpyDeviceToHost));
  std::vector<T> bx(D);
  DEGPU_CUDA_TRY(cudaMemcpy(bx.data(), x.ptr + static_cast<std::size_t>(b) * D, D * sizeof(T), cudaMemcpyDeviceToHost));
  res.generations = g;
  res.stop_reason = *reason;
  res.best_f = static_cast<double>(bf);
  res.best_x.assign(bx.begin(), bx.end());
  res.nan_evals = static_cast<long long>(nans);
  if (problem.optimum_f()) res.best_error = res.best_f - *problem.optimum_f();
  res.wall_s = elapsed();
  return res;
}

template <class T>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o) {
  const ops::Params p = ops::make_params(problem, r, o);
  return run<T>(problem, r, o, *builtin_rows<T>(problem, p.np));
}

}  // namespace

Result minimize_gpu_kernels(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return o.precision == Precision::f32 ? run<float>(problem, r, o) : run<double>(problem, r, o);
}

template <class T>
Result minimize_gpu_kernels_rows(const Problem& problem, const Resolved& r, const RunOptions& o, const RowsEvaluator<T>& rows) {
  return run<T>(problem, r, o, rows);
}
template Result minimize_gpu_kernels_rows<float>(const Problem&, const Resolved&, const RunOptions&, const RowsEvaluator<float>&);
template Result minimize_gpu_kernels_rows<double>(const Problem&, const Resolved&, const RunOptions&, const RowsEvaluator<double>&);

}  // namespace degpu::cuda
