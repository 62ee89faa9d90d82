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
// This header holds the kernels and the host loop as templates over the kernel function type
// (kernel_function.cuh), taking the function's value with its device data: families/builtin_fused.cu
// instantiates them for the built-in problems, a user's .cu file for its device_problem (device_problem.hpp).
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
#include "cuda/engines/device_loop.cuh"
#include "cuda/engines/gpu/evaluate_rows.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "cuda/blocks/kernel_function.cuh"

namespace degpu::cuda::fused {
namespace {

// Kernel P's output for one individual and generation.
struct Draw {
  double F;
  ops::Donors donors;
  ops::CrossoverDraw crossover;
};

// Dynamic shared memory of IE and MCER for a block of `threads` threads holding m individuals:
// [trial rows: m D T, only when they are kept in shared memory][reduction: 3 doubles per warp][take: m ints]
struct SmemLayout {
  std::size_t red, take, total;  // byte offsets of the parts, and the size
};
__host__ __device__ inline SmemLayout smem_layout(int threads, int m, int D, std::size_t tsize, bool shared_rows) {
  SmemLayout l{};
  const std::size_t rows = shared_rows ? static_cast<std::size_t>(m) * static_cast<std::size_t>(D) * tsize : 0;
  l.red = (rows + 15) / 16 * 16;
  l.take = l.red + static_cast<std::size_t>((threads + kWarpSize - 1) / kWarpSize) * 3 * sizeof(double);
  l.total = l.take + static_cast<std::size_t>(m) * sizeof(int);
  return l;
}

extern __shared__ __align__(16) unsigned char fused_smem[];

// Where a thread works (a member of a group): the block is m groups of G threads, group k on individual blockIdx.x m + k.
struct Member {
  int G, m, k, lane;
  std::uint32_t i;
  bool active;  // i < np (the last block may have idle groups; they still reach every barrier)
};
__device__ __forceinline__ Member group_of(int G, int np) {
  Member q;
  q.G = G;
  q.m = static_cast<int>(blockDim.x) / G;
  q.k = static_cast<int>(threadIdx.x) / G;
  q.lane = static_cast<int>(threadIdx.x) % G;
  q.i = blockIdx.x * static_cast<unsigned>(q.m) + static_cast<unsigned>(q.k);
  q.active = q.i < static_cast<unsigned>(np);
  return q;
}

// f(row) without bias by the G threads of a group: each adds the terms of its coordinates (lane, lane + G,
// ...), then a shuffle reduction within the warp (width G when G < 32), then, for G > 32, the warps' sums
// are added in order through shared memory by the group's first thread. Every thread of the block must
// call it (it may hold a barrier); the value is valid in lane 0 of the group. Prefix functions (Schwefel
// 1.2) and a user's row function are evaluated by lane 0 alone, in order (a scan across the group is not
// written yet). A function that evaluates a row by a group itself (kernel_function.cuh's kGroupValue: a CEC
// function, its rotations and then lane 0, the block's barrier between the steps) does so, with its own
// bias where it adds one (the launch passes bias 0 then).
template <class F, class T>
__device__ double member_evaluate(const Member& q, const F& fn, const T* row, const T* __restrict__ o, int D, double* red) {
  if constexpr (is_row_function<F>) {  // a user's row: lane 0 alone
    return q.active && q.lane == 0 ? static_cast<double>(fn.f(row, D)) : 0.0;
  } else if constexpr (has_group_value<F>) {
    // the function's scratch: the lanes of each group's first warp (blocks of at most 1024 threads)
    const int first = q.G < kWarpSize ? static_cast<int>(threadIdx.x) - q.lane : q.k * kWarpSize;
    return fn.template group_value<1024, 0>(q.active ? q.i : 0, row, q.lane, q.G, q.active, first, [] { __syncthreads(); });
  } else if constexpr (F::pattern == fn::Pattern::prefix) {
    return q.active && q.lane == 0 ? fn::evaluate<F, T, double>(row, o, D) : 0.0;
  } else {
    double s0 = 0, s1 = 0, pr = 1;
    if (q.active) {
      auto z = [&](int j) -> T { return o ? static_cast<T>(row[j] - o[j]) : row[j]; };
      const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
      for (int j = q.lane; j < nterms; j += q.G) {
        T zn = 0;
        if constexpr (F::pattern == fn::Pattern::neighbour) zn = z(j + 1);
        if constexpr (F::pattern == fn::Pattern::cyclic) zn = z(j + 1 == D ? 0 : j + 1);
        const fn::Terms<T> t = F::template term<T>(z(j), zn, j, D);
        if constexpr (F::sums >= 1) s0 += static_cast<double>(t.s0);
        if constexpr (F::sums >= 2) s1 += static_cast<double>(t.s1);
        if constexpr (F::product) pr *= static_cast<double>(t.p);
      }
    }
    // Every block is whole warps (the launch makes m G a multiple of 32), so the full mask is right.
    const int width = q.G < kWarpSize ? q.G : kWarpSize;
    for (int off = width / 2; off > 0; off /= 2) {
      if constexpr (F::sums >= 1) s0 += __shfl_down_sync(0xffffffffu, s0, off, width);
      if constexpr (F::sums >= 2) s1 += __shfl_down_sync(0xffffffffu, s1, off, width);
      if constexpr (F::product) pr *= __shfl_down_sync(0xffffffffu, pr, off, width);
    }
    if (q.G > kWarpSize) {  // G is then a multiple of 32: the group is warps k G/32 .. (k+1) G/32 - 1
      const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
      if (threadIdx.x % kWarpSize == 0) {
        red[3 * warp] = s0;
        red[3 * warp + 1] = s1;
        red[3 * warp + 2] = pr;
      }
      __syncthreads();
      if (q.lane == 0) {
        const int w0 = q.k * (q.G / kWarpSize);
        s0 = red[3 * w0];
        s1 = red[3 * w0 + 1];
        pr = red[3 * w0 + 2];
        for (int w = w0 + 1; w < w0 + q.G / kWarpSize; ++w) {
          s0 += red[3 * w];
          s1 += red[3 * w + 1];
          pr *= red[3 * w + 2];
        }
      }
      // red is written once per kernel (one evaluation per launch), so no second barrier is needed here.
    }
    return F::template finish<double>(s0, s1, pr, D);
  }
}

// Kernel IE: the initial population (the CPU engines' init stream) and its values.
template <class F, class T>
__global__ void kernel_ie(ops::Params p, int G, T* __restrict__ x, T* __restrict__ f, const T* __restrict__ lo,
                          const T* __restrict__ hi, const T* __restrict__ o, double bias,
                          unsigned long long* nan_count, const __grid_constant__ F fn) {
  const Member q = group_of(G, p.np);
  const int D = p.D;
  const SmemLayout l = smem_layout(static_cast<int>(blockDim.x), q.m, D, sizeof(T), false);
  double* red = reinterpret_cast<double*>(fused_smem + l.red);
  T* xi = x + static_cast<std::size_t>(q.active ? q.i : 0) * D;
  if (q.active) {
    const ops::Stream s(p.seed, p.trial, ops::Purpose::init, 0, q.i);
    for (int j = q.lane; j < D; j += G) xi[j] = ops::uniform_in(s.unit_pair(static_cast<std::uint64_t>(j)), lo[j], hi[j]);
  }
  __syncthreads();  // the row's coordinates, written by the group's threads, are read by others below
  const double v = member_evaluate<F, T>(q, fn, xi, o, D, red);
  if (q.active && q.lane == 0) {
    const T fi = static_cast<T>(v + bias);
    f[q.i] = fi;
    if (fi != fi) atomicAdd(nan_count, 1ull);
  }
}

// Kernel P: generation g's draws, one thread per individual (pure functions of seed, trial, g and i).
__global__ void kernel_p(ops::Params p, std::uint32_t g, Draw* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= static_cast<unsigned>(p.np)) return;
  Draw d;
  const alg::Control c = alg::draw_ahead(p, g, i);
  d.F = c.F;
  d.donors = ops::draw_donors(p, g, i);
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  d.crossover = ops::draw_crossover(p, cs, c.CR);
  out[i] = d;
}

// Coordinates lane, lane + G, ... of trial i into u: the steps of block_make_trial (de_blocks.cuh), with
// the draws from kernel P instead of thread 0.
template <class T>
__device__ __forceinline__ void group_make_trial(const ops::Params& p, std::uint32_t g, const Member& q, const Draw& dr,
                                                 const T* __restrict__ x, std::uint32_t best,
                                                 const std::uint32_t* __restrict__ ranking, const T* __restrict__ lo,
                                                 const T* __restrict__ hi, T* u) {
  const int D = p.D;
  const T F = static_cast<T>(dr.F);
  ops::MutationRows<T> R{};
  R.xi = x + static_cast<std::size_t>(q.i) * D;
  R.xb = x + static_cast<std::size_t>(best) * D;
  R.xpb = ranking ? x + static_cast<std::size_t>(ranking[dr.donors.pbest_rank]) * D : R.xb;
  // All five (unused ones are row 0, never read): a loop the compiler unrolls keeps R in registers.
#pragma unroll
  for (int k = 0; k < 5; ++k) R.r[k] = x + static_cast<std::size_t>(dr.donors.r[k]) * D;
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, q.i);
  const ops::Stream rs(p.seed, p.trial, ops::Purpose::repair, g, q.i);
  const ops::CrossoverDraw c = dr.crossover;
  ops::visit_mutation(p.mutation, [&](auto M) {  // one switch per individual, not per coordinate
    for (int j = q.lane; j < D; j += q.G) {
      u[j] = ops::crossed_at(p, cs, c, j) ? ops::repair(p.repair, ops::mutate<decltype(M)::value>(F, R, j), R.xi[j], lo[j], hi[j], rs, j)
                     : R.xi[j];
    }
  });
}

// Kernel MCER: generation g from population (x, f) into (xn, fn). trial_rows: nullptr to keep the trial
// rows in shared memory, else np D values in global memory (dimensions whose row does not fit).
template <class F, class T>
__global__ void kernel_mcer(ops::Params p, std::uint32_t g, int G, const Draw* __restrict__ draws,
                            const T* __restrict__ x, const T* __restrict__ f, T* __restrict__ xn,
                            T* __restrict__ fn_next, const std::uint32_t* __restrict__ best,
                            const std::uint32_t* __restrict__ ranking, const T* __restrict__ lo,
                            const T* __restrict__ hi, const T* __restrict__ o, double bias, T* __restrict__ trial_rows,
                            unsigned long long* nan_count, alg::State state, const double* __restrict__ shared,
                            alg::Sums sums, const __grid_constant__ F fn) {
  const Member q = group_of(G, p.np);
  const int D = p.D;
  const SmemLayout l = smem_layout(static_cast<int>(blockDim.x), q.m, D, sizeof(T), trial_rows == nullptr);
  double* red = reinterpret_cast<double*>(fused_smem + l.red);
  int* take = reinterpret_cast<int*>(fused_smem + l.take);
  T* u = trial_rows ? trial_rows + static_cast<std::size_t>(q.active ? q.i : 0) * D
                    : reinterpret_cast<T*>(fused_smem) + static_cast<std::size_t>(q.k) * D;
  // A stateful algorithm (core/algorithms): the trial's F and CR from the individual's state or the
  // population's (as the CPU driver's trial_control), drawn here and not in P, which runs beside the MCER
  // that updates the state; the crossover drawn for that CR. A population-level update: each selection's
  // contribution into sums, which end_generation_kernel adds up after the MCER.
  const bool stateful = alg::stateful(p);
  alg::Control ctl{};
  if (q.active) {
    Draw dr = draws[q.i];
    if (stateful) {
      ctl = alg::draw_stateful(p, g, q.i, state + q.i, shared);
      dr.F = ctl.F;
      dr.crossover = ops::draw_crossover(p, ops::Stream(p.seed, p.trial, ops::Purpose::crossover, g, q.i), ctl.CR);
    }
    group_make_trial(p, g, q, dr, x, *best, ranking, lo, hi, u);
  }
  __syncthreads();  // the trial's coordinates are read by other threads of the group
  const double v = member_evaluate<F, T>(q, fn, u, o, D, red);
  if (q.active && q.lane == 0) {
    const T ft = static_cast<T>(v + bias), fi = f[q.i];
    const bool t = ops::no_worse(ft, fi);
    take[q.k] = t;
    fn_next[q.i] = t ? ft : fi;
    if (ft != ft) atomicAdd(nan_count, 1ull);
    if (stateful && t) alg::keep(p, ctl, state + q.i);
    if (sums.at) alg::contribute(p, ctl, fi, ft, t, sums + q.i);  // a population-level update
  }
  __syncthreads();  // take[k], written by the group's lane 0
  if (q.active) {
    const T* src = take[q.k] ? u : x + static_cast<std::size_t>(q.i) * D;
    T* dst = xn + static_cast<std::size_t>(q.i) * D;
    for (int j = q.lane; j < D; j += G) dst[j] = src[j];
  }
}

inline int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// The launch of IE and MCER (see the comment at the top).
struct Launch {
  int G = 0, m = 0, threads = 0, blocks = 0;
  std::size_t smem = 0;
  bool shared_rows = true;
};

template <class KI, class KM>
Launch choose_launch(KI ie, KM mcer, int D, int np, std::size_t tsize) {
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
  const ops::Params p = ops::make_params(problem, r, o);
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  const auto ie = kernel_ie<Fn, T>;
  const auto mcer = kernel_mcer<Fn, T>;
  const double bias = kernel_bias<Fn>(problem);

  // The trial rows' fallback buffer is only known after the launch is chosen; count it in the check.
  const std::size_t fixed = (2 * np * D + 2 * np + 1) * sizeof(T) + 2 * np * sizeof(Draw) +
                            ProblemOnDevice<T>::bytes(problem) + np * sizeof(std::uint32_t) + 64 + AlgorithmState::bytes(p, np, false);
  use_device(fixed);
  const Launch L = choose_launch(ie, mcer, p.D, p.np, sizeof(T));
  if (!L.shared_rows) use_device(fixed + np * D * sizeof(T));
  DeviceArray<T> xa(np * D), xb(np * D), fa(np), fb(np), trial_rows(L.shared_rows ? 0 : np * D);
  DeviceArray<Draw> draws_a(np), draws_b(np);
  DeviceArray<unsigned long long> nan_count(1);
  const ProblemOnDevice<T> box(problem);
  const T* o_dev = box.shift;
  T* xs[2] = {xa.ptr, xb.ptr};
  T* fs[2] = {fa.ptr, fb.ptr};
  Draw* draws[2] = {draws_a.ptr, draws_b.ptr};
  T* const trial_global = L.shared_rows ? nullptr : trial_rows.ptr;
  const AlgorithmState alg_state(p, np, false);  // the algorithm's state, as the host driver's Population's

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
  DEGPU_CUDA_TRY(cudaMemsetAsync(nan_count.ptr, 0, sizeof(unsigned long long), sm));
  // The box and shift were copied on the legacy stream, which the non-blocking streams do not wait for.
  DEGPU_CUDA_TRY(cudaDeviceSynchronize());

  const auto launch_p = [&](long long gen) {
    kernel_p<<<p_blocks, static_cast<unsigned>(p_threads), 0, sp>>>(p, static_cast<std::uint32_t>(gen), draws[gen % 2]);
    DEGPU_CUDA_TRY(cudaGetLastError());
    DEGPU_CUDA_TRY(cudaEventRecord(p_done[gen % 2].e, sp));
  };
  int cur = 0;  // xs[cur], fs[cur]: the population
  Result res = device_loop::run<T>(
      problem, r, o, p, sm, t0, nan_count.ptr,
      [&] {
        ie<<<static_cast<unsigned>(L.blocks), static_cast<unsigned>(L.threads), L.smem, sm>>>(
            p, L.G, xs[cur], fs[cur], box.lo.ptr, box.hi.ptr, o_dev, bias, nan_count.ptr, fn);
        DEGPU_CUDA_TRY(cudaGetLastError());
        launch_p(1);  // overlaps IE
      },
      [&](long long g, const std::uint32_t* best, const std::uint32_t* ranking) {
        DEGPU_CUDA_TRY(cudaStreamWaitEvent(sm, p_done[g % 2].e, 0));  // draws[g % 2] are generation g's
        mcer<<<static_cast<unsigned>(L.blocks), static_cast<unsigned>(L.threads), L.smem, sm>>>(
            p, static_cast<std::uint32_t>(g), L.G, draws[g % 2], xs[cur], fs[cur], xs[cur ^ 1], fs[cur ^ 1], best, ranking,
            box.lo.ptr, box.hi.ptr, o_dev, bias, trial_global, nan_count.ptr, alg::State{alg_state.state(), np},
            alg_state.shared(), alg::Sums{alg_state.sums(), np}, fn);
        DEGPU_CUDA_TRY(cudaGetLastError());
        if (alg_state.sum_words)  // the population-level update (core/algorithms), before the next MCER draws from it
          launch_end_generation(p, static_cast<std::uint32_t>(g), alg_state.shared(), alg_state.sums(), static_cast<std::uint32_t>(np), sm);
        DEGPU_CUDA_TRY(cudaEventRecord(mcer_done[g % 2].e, sm));
        // P of g+1 overwrites draws[(g+1) % 2], last read by MCER of g-1 (done already: the host waited for
        // the best after it; the event keeps the order explicit on the device). It runs alongside MCER of g.
        if (g >= 2) DEGPU_CUDA_TRY(cudaStreamWaitEvent(sp, mcer_done[(g + 1) % 2].e, 0));
        launch_p(g + 1);
        cur ^= 1;
      },
      [&] { return device_loop::Rows<T>{xs[cur], fs[cur]}; });
  DEGPU_CUDA_TRY(cudaStreamSynchronize(sp));  // the last P (unused) before its buffers go
  return res;
}

// gpu-fused's launch for the kernel function Fn, in words (degpu devices --explain).
template <class T, class Fn>
std::string explain(const Problem& problem, const Resolved& r, const RunOptions& o) {
  const ops::Params p = ops::make_params(problem, r, o);
  const Launch L = choose_launch(kernel_ie<Fn, T>, kernel_mcer<Fn, T>, p.D, p.np, sizeof(T));
  return "kernels IE and MCER: " + std::to_string(L.blocks) + " blocks of " + std::to_string(L.threads) +
         " threads (block size from cudaOccupancyMaxPotentialBlockSizeVariableSMem), " + std::to_string(L.m) +
         " individuals per block, " + std::to_string(L.G) + " threads per individual, " + std::to_string(L.smem) +
         " bytes of shared memory per block (" + (L.shared_rows ? "trial rows in shared memory" : "trial rows in global memory") +
         "); kernel P (donors, crossover draws) on a second stream, one thread per individual, double-buffered.";
}

}  // namespace
}  // namespace degpu::cuda::fused
