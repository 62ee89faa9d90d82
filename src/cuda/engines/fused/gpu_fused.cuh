// The gpu-fused engine: Qin, Raimondo, Ong and Forbes, "An improved CUDA-based implementation of
// differential evolution on GPU" (GECCO 2012; 000_102140a6e6a1466b.txt), cudaDE_i. Three kernels:
//   IE    initialise the population and evaluate it (generation 0);
//   P     the per-individual draws of one generation: F and CR (dither), the donor indices (and the rank
//         of the p-best), the crossover draw (bin: jrand; exp, nec: first coordinate and length); run on
//         a second stream into a double buffer, so that P of generation g+1 overlaps MCER of generation g;
//   MCER  mutation, crossover, evaluation and replacement fused: the trial vector stays in shared memory,
//         its value is a reduction over the individual's threads, and the survivor is written to the
//         other population buffer (generational replacement: no block overwrites a row that another
//         block may still read as a donor in the same generation).
// The host reads the best after each generation (a small find-best kernel and a copy of one value) to
// apply the stop criteria, history and progress as the other engines do. The operators and random
// streams are the CPU engines' (core/de_ops.hpp, as block_make_trial in de_blocks.cuh uses them), so the
// decisions are the serial engine's for the same seed; only the evaluation's sums are added in another
// order (the same tolerance as gpu-kernels).
// Integrality (constraints.hpp) as the CPU engines take it: the box widened on the integer coordinates
// (ProblemOnDevice) and the rounding where IE and MCER make a coordinate (ops::Integers). Linear
// constraints (ConstraintModel::linear()) in IE and MCER: each row's violations by its group's lanes (the
// CPU's arithmetic: linear_violation.cuh), the objective only at feasible rows (+inf at the others, as
// the CPU engines), Lampinen's rule in MCER's selection, the violations double-buffered beside the values,
// the best by feasibility (device_loop.cuh) and the count of infeasible points on the device. Other
// constraint models (a host function) are refused: a fused generation has no place for the host.
//
// Launch configuration. The paper gives every coordinate of a member its own thread and packs an integer
// number of members into a block, as many as the registers, the shared memory per block (its trial
// vectors) and the device's limits on blocks and threads allow, to maximise SM occupancy; dimensions
// beyond what one block holds have threads do several coordinates. Here: G threads per individual, G = D
// rounded up to a power of two up to 32 (so that several individuals share a warp when D is small) or to
// a multiple of 32 above; the block size is the one cudaOccupancyMaxPotentialBlockSizeVariableSMem finds
// for MCER (the largest that reaches the best occupancy, with the shared memory a block of that size needs:
// a trial row per individual plus the reduction's scratch), and a block holds m = block size / G
// individuals. Where G exceeds that block size, one individual per block and each thread loops over
// D / G coordinates (the paper's way past its maximal dimension). Departure: m is also capped at
// ceil(np / SMs) (but never below one warp), because packing members is what the paper's 7-SM GPU
// wanted, while on a 132-SM H100 a population of 100 in one block would leave 131 SMs idle.
//
// Shared memory: a trial row takes D sizeof(T) bytes; where one row (with the scratch) does not fit in
// the opt-in shared memory of a block (D above ~28,000 in double, ~56,000 in float on an H100), MCER
// keeps the trial rows in global memory instead (one row per individual, written and read by the same
// block), with otherwise the same steps.
//
// Streams (the paper swaps two streams and two index matrices M0 and M1 every generation): MCER, the
// find-best kernel and the copies run on one stream, P on the other, into draws[g % 2] for generation g.
// MCER of generation g waits for the event recorded after P of generation g; P of generation g+1 waits
// for the event recorded after MCER of generation g-1, the last reader of draws[(g+1) % 2]. The
// current-to-pbest ranking is made on the host, as gpu-kernels does (P only draws the rank; MCER looks
// it up).
//
// This header holds the host loop, fused_kernels.cuh the kernels, as templates over the kernel function type
// (kernel_function.cuh), taking the function's value with its device data: families/builtin_fused.cu
// instantiates them for the built-in problems, a user's .cu file for its device_problem (device_problem.hpp),
// NVRTC for a CudaObjective (whose kernels the host loop takes as handles: kernel_function.cuh's
// compiled_elsewhere).
#pragma once
#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "cuda/blocks/de_blocks.cuh"
#include "cuda/blocks/population_update.cuh"
#include "cuda/engines/archive.cuh"
#include "cuda/engines/device_loop.cuh"
#include "cuda/engines/fused/fused_kernels.cuh"
#include "cuda/engines/gpu/evaluate_rows.cuh"
#include "cuda/engines/linear_constraints.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "cuda/blocks/kernel_function.cuh"

namespace degpu::cuda::fused {
namespace {

inline int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// The launch of IE and MCER (see the comment at the top).
struct Launch {
  int G = 0, m = 0, threads = 0, blocks = 0;
  std::size_t smem = 0;
  bool shared_rows = true;
};

Launch choose_launch(const void* ie, const void* mcer, int D, int np, std::size_t tsize) {
  int device = 0, sms = 0, optin = 0;
  DEGPU_CUDA_TRY(cudaGetDevice(&device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes ai{}, am{};
  DEGPU_CUDA_TRY(cudaFuncGetAttributes(&ai, ie));
  DEGPU_CUDA_TRY(cudaFuncGetAttributes(&am, mcer));
  const std::size_t max_dynamic = static_cast<std::size_t>(optin) - std::max(ai.sharedSizeBytes, am.sharedSizeBytes);
  // Let both kernels take up to the opt-in limit (48 KiB without), for the occupancy search and the launch.
  DEGPU_CUDA_TRY(cudaFuncSetAttribute(ie, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(max_dynamic)));
  DEGPU_CUDA_TRY(cudaFuncSetAttribute(mcer, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(max_dynamic)));
  const int limit = std::min(ai.maxThreadsPerBlock, am.maxThreadsPerBlock);

  Launch L;
  int g_want = 1;
  if (D <= kWarpSize) {
    while (g_want < D) g_want *= 2;
  } else {
    g_want = ceil_div(D, kWarpSize) * kWarpSize;
  }
  // One row in shared memory (with the scratch of the largest block) or the global fallback.
  L.shared_rows = smem_layout(limit, 1, D, tsize, true).total <= max_dynamic;
  const auto smem_of = [&](int threads) {
    return smem_layout(threads, std::max(1, threads / g_want), D, tsize, L.shared_rows).total;
  };
  int min_grid = 0, best_threads = 0;
  DEGPU_CUDA_TRY(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &best_threads, mcer, smem_of, limit));
  if (best_threads < kWarpSize) throw CudaError("gpu-fused: the MCER kernel does not fit on this device");
  best_threads = best_threads / kWarpSize * kWarpSize;
  if (g_want <= best_threads) {
    L.G = g_want;
    L.m = std::min(best_threads / g_want, std::max(1, ceil_div(np, sms)));
    if (L.G < kWarpSize) {  // whole warps: m a multiple of 32 / G (still <= best_threads / G, a multiple too)
      const int per_warp = kWarpSize / L.G;
      L.m = ceil_div(L.m, per_warp) * per_warp;
    }
  } else {
    L.G = best_threads;
    L.m = 1;
  }
  L.threads = L.G * L.m;
  L.blocks = ceil_div(np, L.m);
  L.smem = smem_layout(L.threads, L.m, D, tsize, L.shared_rows).total;
  return L;
}

// IE's and MCER's kernels for Fn: the templates' instantiations, or a compiled functor's handles.
template <class Fn, class T>
const void* ie_kernel(const Fn& fn) {
  if constexpr (compiled_elsewhere<Fn>) return compiled_kernels(fn).ie;
  else return reinterpret_cast<const void*>(kernel_ie<Fn, T>);
}
template <class Fn, class T>
const void* mcer_kernel(const Fn& fn) {
  if constexpr (compiled_elsewhere<Fn>) return compiled_kernels(fn).mcer;
  else return reinterpret_cast<const void*>(kernel_mcer<Fn, T>);
}
// Launches IE or MCER (a kernel or a handle) with L's configuration on `stream`; the arguments in the
// kernel's parameter types, in order.
template <class... A>
void launch(const void* kernel, const Launch& L, cudaStream_t stream, A... a) {
  void* args[] = {static_cast<void*>(&a)...};
  DEGPU_CUDA_TRY(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(L.blocks)), dim3(static_cast<unsigned>(L.threads)), args,
                                  L.smem, stream));
}

struct CudaStream {
  cudaStream_t s{};
  CudaStream() { DEGPU_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~CudaStream() { cudaStreamDestroy(s); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
};
struct CudaEvent {
  cudaEvent_t e{};
  CudaEvent() { DEGPU_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  ~CudaEvent() { cudaEventDestroy(e); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
};

// One trial of gpu-fused for the kernel function Fn. fn: its value with its data on the device, uploaded by
// the caller (a built-in's is empty; a CEC function's has a scratch slot for each of the np individuals).
// t0: when the run began (the result's wall_s counts from it), before that upload.
template <class T, class Fn>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o, const Fn& fn,
           std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now()) {
  static_assert(on_fused<Fn>, "gpu-fused does not run this function (its kFused is false; the model's not_on says why)");
  ops::Params p = ops::make_params(problem, r, o);  // np and the p-best count follow a shrinking population (L-SHADE, jSO)
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  const int arc_cap = alg::initial_sizes(p).archive;  // an archive's capacity (0: none)
  // a population-level update (JADE, the SHADE family): MCER makes every draw itself, and no P runs
  const bool own_draws = alg::shared_words(p) > 0;
  const void* const ie = ie_kernel<Fn, T>(fn);
  const void* const mcer = mcer_kernel<Fn, T>(fn);
  const auto fn_arg = kernel_arg(fn);
  const double bias = kernel_bias<Fn>(problem);
  const LinearForm* const linear = LinearConstraintsOnDevice::only_linear(problem, "gpu-fused");
  const std::size_t m = linear ? static_cast<std::size_t>(linear->count()) : 0;

  // The trial rows' fallback buffer is only known after the launch is chosen; count it in the check.
  const std::size_t fixed = (2 * np * D + 2 * np + 1) * sizeof(T) + 2 * np * sizeof(Draw) +
                            ProblemOnDevice<T>::bytes(problem) + np * sizeof(std::uint32_t) + 64 + AlgorithmState::bytes(p, np, false) +
                            o.initial.size() * D * sizeof(T) +
                            2 * np * m * sizeof(double) + LinearConstraintsOnDevice::bytes(linear) +
                            DeviceArchive<T>::bytes(p.D, p.np, arc_cap) + (arc_cap ? np : 0) + (alg::reduces(p) ? 4 * np : 0);
  use_device(fixed);
  const Launch L = choose_launch(ie, mcer, p.D, p.np, sizeof(T));
  if (!L.shared_rows) use_device(fixed + np * D * sizeof(T));
  DeviceArray<T> xa(np * D), xb(np * D), fa(np), fb(np), trial_rows(L.shared_rows ? 0 : np * D);
  DeviceArray<Draw> draws_a(own_draws ? 0 : np), draws_b(own_draws ? 0 : np);
  DeviceArchive<T> archive(p.D, p.np, arc_cap);
  DeviceArray<std::uint8_t> lost(arc_cap ? np : 0);  // MCER's flags: the parents that lost, for the archive
  DeviceArray<unsigned long long> nan_count(2);  // [0] NaN values, [1] infeasible points (not evaluated)
  DeviceArray<double> cva(np * m), cvb(np * m);    // the populations' violations, beside fa and fb
  const LinearConstraintsOnDevice lin(linear, p.D);
  const ProblemOnDevice<T> box(problem);
  const T* o_dev = box.shift;
  T* xs[2] = {xa.ptr, xb.ptr};
  T* fs[2] = {fa.ptr, fb.ptr};
  double* cvs[2] = {cva.ptr, cvb.ptr};
  unsigned long long* const infeasible = nan_count.ptr + 1;
  Draw* draws[2] = {draws_a.ptr, draws_b.ptr};
  T* const trial_global = L.shared_rows ? nullptr : trial_rows.ptr;
  const AlgorithmState alg_state(p, np, false);  // the algorithm's state, as the host driver's Population's
  const DeviceArray<T> initial = upload_initial<T>(o);  // RunOptions::initial: the first rows of generation 0

  int p_threads = 0, p_min_grid = 0, device = 0, sms = 0;
  DEGPU_CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&p_min_grid, &p_threads, kernel_p, 0, 0));
  DEGPU_CUDA_TRY(cudaGetDevice(&device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // P is a thread per individual: spread them over the SMs rather than fill one block.
  p_threads = std::clamp(ceil_div(ceil_div(p.np, sms), kWarpSize) * kWarpSize, kWarpSize, std::max(p_threads, kWarpSize));
  const unsigned p_blocks = static_cast<unsigned>(ceil_div(p.np, p_threads));

  CudaStream main_stream, side_stream;
  const cudaStream_t sm = main_stream.s, sp = side_stream.s;
  CudaEvent p_done[2], mcer_done[2];  // [b]: the last P that wrote draws[b]; the last MCER that read it
  DEGPU_CUDA_TRY(cudaMemsetAsync(nan_count.ptr, 0, 2 * sizeof(unsigned long long), sm));
  // The box and shift were copied on the legacy stream, which the non-blocking streams do not wait for.
  DEGPU_CUDA_TRY(cudaDeviceSynchronize());

  const auto launch_p = [&](long long gen) {
    if (own_draws) return;
    kernel_p<<<p_blocks, static_cast<unsigned>(p_threads), 0, sp>>>(p, static_cast<std::uint32_t>(gen), draws[gen % 2]);
    DEGPU_CUDA_TRY(cudaGetLastError());
    DEGPU_CUDA_TRY(cudaEventRecord(p_done[gen % 2].e, sp));
  };
  int cur = 0;  // xs[cur], fs[cur]: the population
  device_loop::Family<T> family;
  family.state = &alg_state;
  if (arc_cap) family.archive = &archive;
  family.resumed = [&](long long g) { launch_p(g + 1); };  // (as IE's launch and each generation's end do)
  if (alg::reduces(p))
    family.shrink = [&](const std::uint32_t* kept, int n, const alg::Sizes& z) {
      compact<T>(p.D, static_cast<int>(m), kept, n, xs[cur], xs[cur ^ 1], fs[cur], fs[cur ^ 1], cvs[cur], cvs[cur ^ 1], &archive,
                 z.archive, sm);
      cur ^= 1;
    };
  Result res = device_loop::run<T>(
      problem, r, o, p, sm, t0, nan_count.ptr,
      [&] {
        launch(ie, L, sm, p, L.G, xs[cur], fs[cur], static_cast<const T*>(box.lo.ptr), static_cast<const T*>(box.hi.ptr),
               o_dev, bias, nan_count.ptr, box.integers(), Constraints{lin.view(), nullptr, cvs[cur], infeasible},
               static_cast<const T*>(initial.ptr), static_cast<int>(o.initial.size()), fn_arg);
        launch_p(1);  // overlaps IE
      },
      [&](long long g, const std::uint32_t* best, const std::uint32_t* ranking) {
        if (!own_draws) DEGPU_CUDA_TRY(cudaStreamWaitEvent(sm, p_done[g % 2].e, 0));  // draws[g % 2] are generation g's
        Launch Lg = L;
        Lg.blocks = ceil_div(p.np, L.m);  // the live population (a shrinking one's)
        launch(mcer, Lg, sm, p, static_cast<std::uint32_t>(g), L.G, static_cast<const Draw*>(own_draws ? nullptr : draws[g % 2]),
               static_cast<const T*>(xs[cur]), static_cast<const T*>(fs[cur]), xs[cur ^ 1], fs[cur ^ 1], best, ranking,
               static_cast<const T*>(box.lo.ptr), static_cast<const T*>(box.hi.ptr), o_dev, bias, trial_global,
               nan_count.ptr, alg::State{alg_state.state(), np}, static_cast<const double*>(alg_state.shared()),
               alg::Sums{alg_state.sums(), np}, box.integers(),
               Constraints{lin.view(), cvs[cur], cvs[cur ^ 1], infeasible}, archive.view(), arc_cap ? lost.ptr : nullptr, fn_arg);
        // the parents that lost (their rows still in xs[cur]) join the archive
        archive.insert(p, static_cast<std::uint32_t>(g), LostFlags{lost.ptr}, xs[cur], sm);
        if (alg_state.sum_words)  // the population-level update (core/algorithms), before the next MCER draws from it
          launch_end_generation(p, static_cast<std::uint32_t>(g), alg_state.shared(), alg_state.sums(), static_cast<std::uint32_t>(p.np),
                                np, sm);
        DEGPU_CUDA_TRY(cudaEventRecord(mcer_done[g % 2].e, sm));
        // P of g+1 overwrites draws[(g+1) % 2], last read by MCER of g-1 (done already: the host waited for
        // the best after it; the event keeps the order explicit on the device). It runs alongside MCER of g.
        if (g >= 2) DEGPU_CUDA_TRY(cudaStreamWaitEvent(sp, mcer_done[(g + 1) % 2].e, 0));
        launch_p(g + 1);
        cur ^= 1;
      },
      [&] { return device_loop::Rows<T>{xs[cur], fs[cur], m ? cvs[cur] : nullptr}; },
      device_loop::Constrained{static_cast<int>(m), nullptr, m ? infeasible : nullptr}, family);
  DEGPU_CUDA_TRY(cudaStreamSynchronize(sp));  // the last P (unused) before its buffers go
  return res;
}

// gpu-fused's launch for the kernel function Fn, in words (degpu devices --explain).
template <class T, class Fn>
std::string explain(const Problem& problem, const Resolved& r, const RunOptions& o) {
  const ops::Params p = ops::make_params(problem, r, o);
  const Launch L = choose_launch(reinterpret_cast<const void*>(kernel_ie<Fn, T>), reinterpret_cast<const void*>(kernel_mcer<Fn, T>),
                                 p.D, p.np, sizeof(T));
  return "kernels IE and MCER: " + std::to_string(L.blocks) + " blocks of " + std::to_string(L.threads) +
         " threads (block size from cudaOccupancyMaxPotentialBlockSizeVariableSMem), " + std::to_string(L.m) +
         " individuals per block, " + std::to_string(L.G) + " threads per individual, " + std::to_string(L.smem) +
         " bytes of shared memory per block (" + (L.shared_rows ? "trial rows in shared memory" : "trial rows in global memory") +
         "); kernel P (donors, crossover draws) on a second stream, one thread per individual, double-buffered.";
}

}  // namespace
}  // namespace degpu::cuda::fused
