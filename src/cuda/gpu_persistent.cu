// The gpu engine, first version: the whole run is one cooperative kernel. Generations follow one another
// on the device, separated by grid-wide barriers; the stop criteria (target error, generations and
// evaluations, wall clock through the GPU's global timer) are decided on the device, so the host waits
// once per run. Per generation: ranks for current-to-pbest, trials (a block per individual), evaluation
// (a warp per individual), selection, the best (block 0) and the stop decision. The operators are the CPU
// engines' (core/de_ops.hpp via de_blocks.cuh), so decisions match the other engines. No progress
// callback (the host does not see generations go by); history holds the sampled best values, without
// times.
#include <cooperative_groups.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/params.hpp"
#include "cuda/check.hpp"
#include "cuda/de_blocks.cuh"
#include "cuda/device_array.cuh"
#include "cuda/engines_cuda.hpp"
#include "cuda/evaluate_rows.cuh"
#include "degpu/errors.hpp"

namespace cg = cooperative_groups;

namespace degpu::cuda {
namespace {

constexpr int kThreads = 256;

template <class T>
struct RunState {
  T *x, *trial, *f, *ftrial, *best_f, *history;
  const T *lo, *hi, *shift;
  std::uint32_t *best, *ranking;
  unsigned long long* nan_count;
  long long* generations;  // generations done
  int* reason;             // StopReason + 1, 0 while running
  double bias;
  long long max_gens;      // from max-gens and max-evals
  int history_every;
  bool has_target;
  double target_f;         // stop when best_f <= target_f
  unsigned long long max_time_ns;  // 0: no time limit
  unsigned long long* start_ns;    // the GPU clock when the kernel started
};

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <class F, class T>
__device__ void evaluate_all(const ops::Params& p, const T* x, const T* o, double bias, T* f) {
  const int lane = threadIdx.x % kWarpSize;
  const int warps = gridDim.x * (blockDim.x / kWarpSize);
  for (int row = blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize; row < p.np; row += warps) {
    const double v = warp_evaluate<F, T>(x + static_cast<std::size_t>(row) * p.D, o, p.D, lane);
    if (lane == 0) f[row] = static_cast<T>(v + bias);
  }
}

// Block 0: the best, the history, the stop decision for generation g.
template <class T>
__device__ void decide(const ops::Params& p, const RunState<T>& s, long long g) {
  if (blockIdx.x != 0) return;
  block_find_best<kThreads>(p.np, s.f, s.best, s.best_f);
  if (threadIdx.x == 0) {
    const double bf = static_cast<double>(*s.best_f);
    if (s.history_every > 0 && g % s.history_every == 0) s.history[g / s.history_every] = *s.best_f;
    int reason = 0;
    if (s.has_target && bf <= s.target_f) reason = 1 + static_cast<int>(StopReason::target);
    else if (g >= s.max_gens) reason = 1 + static_cast<int>(StopReason::max_gens);
    else if (s.max_time_ns && global_ns() - *s.start_ns >= s.max_time_ns) reason = 1 + static_cast<int>(StopReason::max_time);
    *s.generations = g;
    *s.reason = reason;
  }
}

template <class F, class T>
__global__ void __launch_bounds__(kThreads) run_de(ops::Params p, RunState<T> s) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == 0 && threadIdx.x == 0) *s.start_ns = global_ns();
  for (int i = blockIdx.x; i < p.np; i += gridDim.x) block_init(p, static_cast<std::uint32_t>(i), s.x, s.lo, s.hi);
  grid.sync();
  evaluate_all<F, T>(p, s.x, s.shift, s.bias, s.f);
  grid.sync();
  decide(p, s, 0);
  grid.sync();
  const bool pbest = p.mutation == Mutation::current_to_pbest1;
  for (long long g = 1; *(volatile int*)s.reason == 0; ++g) {
    if (pbest) {  // rank i = how many are better, ties by index: the CPU engines' stable order
      for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.np; i += gridDim.x * blockDim.x) {
        int rank = 0;
        for (int j = 0; j < p.np; ++j) rank += ops::better(s.f[j], s.f[i]) || (j < i && !ops::better(s.f[i], s.f[j]));
        s.ranking[rank] = static_cast<std::uint32_t>(i);
      }
      grid.sync();
    }
    for (int i = blockIdx.x; i < p.np; i += gridDim.x)
      block_make_trial(p, static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(i), s.x, s.best,
                       pbest ? s.ranking : nullptr, s.lo, s.hi, s.trial);
    grid.sync();
    evaluate_all<F, T>(p, s.trial, s.shift, s.bias, s.ftrial);
    grid.sync();
    for (int i = blockIdx.x; i < p.np; i += gridDim.x)
      block_select(p.D, static_cast<std::uint32_t>(i), s.x, s.f, s.trial, s.ftrial, s.nan_count);
    grid.sync();
    decide(p, s, g);
    grid.sync();
  }
}

template <class T>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const ops::Params p = ops::make_params(problem, r, o);
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  long long max_gens = r.stop.max_gens ? *r.stop.max_gens : (1LL << 62);
  if (r.stop.max_evals) max_gens = std::min(max_gens, (*r.stop.max_evals - p.np) / p.np);
  const std::size_t nhist = o.history_every > 0 ? static_cast<std::size_t>(max_gens / o.history_every + 1) : 1;
  use_device((2 * np * D + 2 * np + 1 + nhist) * sizeof(T) + ProblemOnDevice<T>::bytes(problem) + np * sizeof(std::uint32_t) + 64);
  DeviceArray<T> x(np * D), trial(np * D), f(np), ftrial(np), best_f(1), history(nhist);
  DeviceArray<std::uint32_t> best(1), ranking(np);
  DeviceArray<unsigned long long> nan_count(1);
  DeviceArray<long long> generations(1);
  DeviceArray<int> reason(1);
  DeviceArray<unsigned long long> start_ns(1);
  const ProblemOnDevice<T> box(problem);
  DEGPU_CUDA_TRY(cudaMemset(nan_count.ptr, 0, sizeof(unsigned long long)));
  DEGPU_CUDA_TRY(cudaMemset(reason.ptr, 0, sizeof(int)));

  RunState<T> s{x.ptr, trial.ptr, f.ptr, ftrial.ptr, best_f.ptr, history.ptr, box.lo.ptr, box.hi.ptr,
                box.shift, best.ptr, ranking.ptr, nan_count.ptr, generations.ptr,
                reason.ptr, problem.bias(), max_gens, o.history_every, false, 0.0, 0, start_ns.ptr};
  if (r.stop.max_time_s) s.max_time_ns = static_cast<unsigned long long>(*r.stop.max_time_s * 1e9);
  if (r.stop.target_error && problem.optimum_f()) {
    s.has_target = true;
    s.target_f = *problem.optimum_f() + *r.stop.target_error;
  }
  fn::visit(problem.function(), [&](auto fun) {
    using Fn = decltype(fun);
    auto kernel = run_de<Fn, T>;
    int per_sm = 0, device = 0, sms = 0;
    DEGPU_CUDA_TRY(cudaGetDevice(&device));
    DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    DEGPU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
    if (per_sm < 1) throw CudaError("gpu engine: the kernel does not fit on this device");
    const int blocks = static_cast<int>(std::min<long long>(static_cast<long long>(per_sm) * sms, p.np));
    ops::Params pp = p;
    void* args[] = {&pp, &s};
    DEGPU_CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(blocks), dim3(kThreads), args, 0, 0));
  });
  DEGPU_CUDA_TRY(cudaGetLastError());
  DEGPU_CUDA_TRY(cudaDeviceSynchronize());

  Result res;
  std::uint32_t b = 0;
  unsigned long long nans = 0;
  long long g = 0;
  int why = 0;
  T bf = 0;
  DEGPU_CUDA_TRY(cudaMemcpy(&b, best.ptr, sizeof(b), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(&bf, best_f.ptr, sizeof(bf), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(&nans, nan_count.ptr, sizeof(nans), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(&g, generations.ptr, sizeof(g), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(&why, reason.ptr, sizeof(why), cudaMemcpyDeviceToHost));
  std::vector<T> bx(D);
  DEGPU_CUDA_TRY(cudaMemcpy(bx.data(), x.ptr + static_cast<std::size_t>(b) * D, D * sizeof(T), cudaMemcpyDeviceToHost));
  res.generations = g;
  res.evals = static_cast<long long>(p.np) * (g + 1);
  // the device merges max-gens and max-evals into one generation count; name the one the other
  // engines would (check_stop's order: max_evals first)
  res.stop_reason = static_cast<StopReason>(why - 1);
  if (res.stop_reason == StopReason::max_gens && r.stop.max_evals && res.evals + p.np > *r.stop.max_evals)
    res.stop_reason = StopReason::max_evals;
  res.best_f = static_cast<double>(bf);
  res.best_x.assign(bx.begin(), bx.end());
  res.nan_evals = static_cast<long long>(nans);
  if (problem.optimum_f()) res.best_error = res.best_f - *problem.optimum_f();
  res.wall_s = std::chrono::duration<double>(clock::now() - t0).count();
  if (o.history_every > 0) {
    std::vector<T> h(nhist);
    DEGPU_CUDA_TRY(cudaMemcpy(h.data(), history.ptr, nhist * sizeof(T), cudaMemcpyDeviceToHost));
    for (long long k = 0; k * o.history_every <= g; ++k)
      res.history.push_back({k * o.history_every, p.np * (k * o.history_every + 1), static_cast<double>(h[k]), 0.0});
    if (g % o.history_every != 0) res.history.push_back({g, res.evals, res.best_f, res.wall_s});
  }
  return res;
}

}  // namespace

std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  std::vector<Result> out;
  RunOptions ot = o;
  for (int t = 0; t < n; ++t, ++ot.trial)
    out.push_back(o.precision == Precision::f32 ? run<float>(problem, r, ot) : run<double>(problem, r, ot));
  return out;
}

}  // namespace degpu::cuda
