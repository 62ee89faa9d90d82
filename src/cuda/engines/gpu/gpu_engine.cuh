// The gpu engine: the whole run on the device, generations following one another inside the kernel; the
// host waits for each launch, a slice of generations (gpu_slices.cuh: a signal or a checkpoint between them).
// Three paths (docs/GPU.md, "The gpu engine"):
//   - resident (gpu_resident.cuh): a thread-block cluster per trial holds the population in its shared
//     memory; n trials side by side in one launch; the cluster's hardware barrier between generations;
//   - grid (gpu_global.cuh): rows in global memory, the whole device, a group of lanes per individual;
//   - wide (gpu_global.cuh): rows in global memory, several CTAs per individual (large D).
// Stops (target, generations and evaluations, wall clock through %globaltimer) are decided on the device,
// the same way in every CTA of a team. The operators and random streams are the CPU engines'
// (core/de_ops.hpp), so decisions match theirs. This file: the launch plan and the host side.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/checkpoint.hpp"
#include "core/island_bytes.hpp"
#include "core/migration.hpp"
#include "core/params.hpp"
#include "core/trials.hpp"
#include "cuda/engines/gpu/gpu_global.cuh"
#include "cuda/engines/gpu/gpu_islands.hpp"
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/gpu/gpu_resident.cuh"
#include "cuda/engines/gpu/gpu_slices.cuh"
#include "cuda/engines/gpu/spread_cost.hpp"
#include "cuda/engines/linear_constraints.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"

namespace degpu::cuda::gpu_engine {
namespace {

int ceil_pow2(long long v) {
  int r = 1;
  while (r < v && r < (1 << 30)) r *= 2;
  return r;
}
int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }
bool uses_pbest(const ops::Params& p) { return p.mutation == Mutation::current_to_pbest1; }

// DEGPU_GPU_ONE_LAUNCH=1 (set in the environment, for measurements): a run without checkpoints in one
// launch, not in slices (no signal is then read until it ends); 0 or unset: slices.
bool one_launch() {
  const char* env = std::getenv("DEGPU_GPU_ONE_LAUNCH");
  if (!env || !*env || std::string(env) == "0") return false;
  if (std::string(env) == "1") return true;
  throw ConfigError(std::string("DEGPU_GPU_ONE_LAUNCH=") + env + " (set in the environment): expected 0 or 1");
}

// DEGPU_GPU_ISLANDS: how the gpu engine's islands exchange: `launch` (the default) inside one launch where
// every island's cluster is resident at once, else between slices; `slices` always between slices (for
// measurements and the tests that compare the two).
bool islands_between_slices() {
  const char* env = std::getenv("DEGPU_GPU_ISLANDS");
  if (!env || !*env || std::string(env) == "launch") return false;
  if (std::string(env) == "slices") return true;
  throw ConfigError(std::string("DEGPU_GPU_ISLANDS=") + env + " (set in the environment): expected launch or slices");
}

// A cluster launch: n clusters of plan.cluster CTAs.
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1]{};
  ClusterLaunch(const GpuPlan& plan, int n) {
    cfg.gridDim = dim3(static_cast<unsigned>(plan.cluster * n));
    cfg.blockDim = dim3(static_cast<unsigned>(plan.threads));
    cfg.dynamicSmemBytes = plan.smem_bytes;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(plan.cluster);
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;  // cfg points into attr
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// The resident path's kernel for groups of `group` lanes and algorithms of `kind` (registry.hpp's
// alg::kernel_kind; gpu_resident.cuh's kKind). A compiled functor's handles are its run's kind's.
template <class Fn, class T, int K>
const void* resident_kernel_of(int group) {
  return group == 8 ? reinterpret_cast<const void*>(run_resident<Fn, T, 8, K>) : reinterpret_cast<const void*>(run_resident<Fn, T, 32, K>);
}
// spread: the spread path's (kSpread), instantiated for groups of 32 lanes and DE and jDE (kind 0) only, so
// far (nullptr for the others, and for a compiled functor).
template <class Fn, class T>
const void* resident_kernel(int group, int kind, const Fn& fn, bool spread = false) {
  if constexpr (compiled_elsewhere<Fn>) {
    (void)kind;
    if (spread) return nullptr;
    return group == 8 ? compiled_kernels(fn).resident8 : compiled_kernels(fn).resident32;
  } else {
    if (spread) return group == 32 && kind == 0 ? reinterpret_cast<const void*>(run_resident<Fn, T, 32, 0, true>) : nullptr;
    return kind == 0 ? resident_kernel_of<Fn, T, 0>(group) : kind == 1 ? resident_kernel_of<Fn, T, 1>(group) : resident_kernel_of<Fn, T, 2>(group);
  }
}
// The global paths' kernel: the grid path's, or the wide path's (a function in the term form only), for
// algorithms whose population shrinks or the others (gpu_global.cuh's kShrinking). A compiled functor's
// handles are its run's kind's.
template <class Fn, class T, bool kShrinking>
const void* global_kernel_of(bool wide) {
  if constexpr (has_terms<Fn>)
    if (wide) return reinterpret_cast<const void*>(run_wide<Fn, T, kShrinking>);
  return reinterpret_cast<const void*>(run_grid<Fn, T, 32, kShrinking>);
}
template <class Fn, class T>
const void* global_kernel(bool wide, bool shrinking, const Fn& fn) {
  if constexpr (compiled_elsewhere<Fn>) {
    (void)shrinking;
    return wide ? compiled_kernels(fn).wide : compiled_kernels(fn).grid;
  } else {
    return shrinking ? global_kernel_of<Fn, T, true>(wide) : global_kernel_of<Fn, T, false>(wide);
  }
}

struct DeviceLimits {
  int sms = 0, optin = 0, smem_per_sm = 0, cc = 0;
};
DeviceLimits device_limits() {
  DeviceLimits d;
  int device = 0;
  DEGPU_CUDA_TRY(cudaGetDevice(&device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&d.optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&d.cc, cudaDevAttrComputeCapabilityMajor, device));
  return d;
}

// The resident plan with `cluster` CTAs per trial and groups of `group` lanes, if the population fits:
// the widest window of draws (at most `group` generations) that fits the shared memory beside the
// function's region, of its first choice that leaves a window room (kernel_function.cuh's
// resident_choices: a CEC function's rotation matrices, every one, else one at a time, else none).
// ncons: linear constraints' count (their violations in shared memory too).
// fit_resident_shape: that layout for `cluster` CTAs of the resident kernel `kernel` (the spread path's too),
// and the bytes a CTA may take (limit); false where none fits.
template <class Fn, class T>
bool fit_resident_shape(const ops::Params& p, int cluster, int group, const void* kernel, const DeviceLimits& dev, const Fn& fn,
                        int ncons, ResidentShape& sh, int& w, int& choice, std::size_t& limit) {
  cudaFuncAttributes attr{};
  DEGPU_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
  limit = static_cast<std::size_t>(dev.optin) - attr.sharedSizeBytes;
  const bool pbest = p.mutation == Mutation::current_to_pbest1;
  int choices[4];
  const int nchoices = resident_choices(fn, choices);
  // DEGPU_GPU_WINDOW=N caps the window (for measurements; docs/GPU.md)
  // an archive or a shrinking population: every draw made at the trial (the donors may be the archive's
  // members; the live indices change), a window of one generation
  const int arc_cap = alg::initial_sizes(p).archive;
  const bool reduces = alg::reduces(p);
  int wmax = arc_cap || reduces ? 1 : group;
  if (const char* env = std::getenv("DEGPU_GPU_WINDOW"); env && *env) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end || v < 1 || v > 32 || (v & (v - 1)))
      throw ConfigError(std::string("DEGPU_GPU_WINDOW=") + env + " (set in the environment): expected a power of two from 1 to 32");
    wmax = std::min(wmax, static_cast<int>(v));
  }
  choice = 0;
  w = 0;
  for (int m = 0; m < nchoices && !w; ++m) {
    choice = choices[m];
    for (w = wmax; w >= 1; w /= 2) {
      sh = resident_shape<T>(p.np, p.D, cluster, w, pbest, alg::stateful(p), alg::sum_words(p), alg::shared_words(p), arc_cap, reduces, fn,
                             choice, ncons);
      if (sh.bytes <= limit) break;
    }
  }
  return w >= 1;
}
template <class Fn, class T>
bool fit_resident(const ops::Params& p, int n, int cluster, int group, const DeviceLimits& dev, const Fn& fn, int ncons, GpuPlan& plan) {
  if (cluster > p.np) return false;
  const void* kernel = resident_kernel<Fn, T>(group, alg::kernel_kind(p.algorithm), fn);
  ResidentShape sh{};
  int w = 0, choice = 0;
  std::size_t limit = 0;
  if (fit_resident_shape<Fn, T>(p, cluster, group, kernel, dev, fn, ncons, sh, w, choice, limit)) {
    plan.path = GpuPlan::Path::resident;
    plan.cluster = cluster;
    plan.group = group;
    plan.window = w;
    plan.fn_choice = choice;
    plan.threads = std::min(kMaxThreads, (sh.P * group + 31) / 32 * 32);
    plan.rounds = ceil_div(sh.P, plan.threads / group);
    plan.smem_bytes = sh.bytes;
    // Trials that each have SMs of their own get one CTA per SM (spread thin: a generation is a chain
    // of dependent steps per individual, so fewer individuals per SM is faster): enough shared memory
    // is asked for that a second CTA cannot fit.
    if (static_cast<long long>(n) * cluster <= dev.sms)
      plan.smem_bytes = std::min(limit, std::max(plan.smem_bytes, static_cast<std::size_t>(dev.smem_per_sm / 2)));
    plan.blocks = cluster * n;
    DEGPU_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.smem_bytes)));
    DEGPU_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const ClusterLaunch launch(plan, n);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.cfg) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    if (clusters < 1) return false;
    plan.resident_teams = std::min(clusters, n);
    return true;
  }
  return false;
}

// The spread plan (gpu_resident.cuh's kSpread; issue 34): one trial's population dealt to `ctas` CTAs (0: as
// few individuals a CTA as the SMs allow, ceil(NP / SMs), and as many CTAs as that needs), one CTA an SM, of
// `threads` threads (0, or fewer than the groups need: a group of 32 lanes an individual), in a cooperative
// launch. ConfigError where the path cannot take the run, naming why.
template <class Fn, class T>
void fit_spread(const ops::Params& p, int ctas, int threads, const DeviceLimits& dev, const Fn& fn, int ncons, GpuPlan& plan) {
  const int kind = alg::kernel_kind(p.algorithm);
  const void* kernel = resident_kernel<Fn, T>(32, kind, fn, true);
  if (!kernel)
    throw ConfigError(std::string("the spread path runs DE and jDE on the built-in and CEC functions so far (not {algorithm} ") +
                      std::string(algorithm_name(p.algorithm)) + " or a compiled objective): the resident or grid path does");
  if (dev.cc < 9) throw ConfigError("the spread path needs sm_90 or later (this device: sm_" + std::to_string(dev.cc) + "x)");
  if (ctas <= 0) ctas = ceil_div(p.np, ceil_div(p.np, dev.sms));
  if (ctas > dev.sms || ctas > p.np)
    throw ConfigError("the spread path takes one CTA an SM and one individual a CTA at least: " + std::to_string(ctas) + " CTAs for " +
                      std::to_string(dev.sms) + " SMs and {np} " + std::to_string(p.np));
  ResidentShape sh{};
  int w = 0, choice = 0;
  std::size_t limit = 0;
  if (!fit_resident_shape<Fn, T>(p, ctas, 32, kernel, dev, fn, ncons, sh, w, choice, limit))
    throw ConfigError("the spread path: " + std::to_string(ceil_div(p.np, ctas)) + " individuals of D " + std::to_string(p.D) +
                      " do not fit a CTA's shared memory (more CTAs, or the grid path)");
  plan.path = GpuPlan::Path::resident;
  plan.spread = true;
  plan.cluster = plan.blocks = ctas;
  plan.group = 32;
  plan.window = w;
  plan.fn_choice = choice;
  plan.threads = std::clamp((std::max(sh.P * 32, threads) + 31) / 32 * 32, 32, kMaxThreads);
  plan.rounds = ceil_div(sh.P, plan.threads / 32);
  plan.smem_bytes = std::min(limit, std::max(sh.bytes, static_cast<std::size_t>(dev.smem_per_sm / 2)));  // one CTA an SM
  DEGPU_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.smem_bytes)));
  int per_sm = 0;
  DEGPU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, plan.threads, plan.smem_bytes));
  if (per_sm < 1) throw CudaError("gpu engine: the spread path's CTA of " + std::to_string(plan.threads) + " threads does not fit an SM");
  plan.resident_teams = 1;
  plan.why += "one trial spread over " + std::to_string(ctas) + " CTAs, one an SM (" + std::to_string(sh.P) +
              " individuals each, a group of 32 lanes per individual, " + std::to_string(plan.threads) + " threads), the rows in " +
              "shared memory and published to global memory for the others, one grid barrier a generation, draws made " +
              std::to_string(w) + " generations ahead; " + describe_resident(fn, choice);
}

// The spread plan's CTAs for the planner's own choice: 256 threads (the CEC functions' few trials' generation
// spreads a CTA's pieces over its warps; the cost model's measurements were made so).
inline constexpr int kSpreadThreads = 256;

// One trial of a function with its own resident generation (a CEC function's), DE or jDE: the spread path
// instead of the resident plan `plan` where the cost model (spread_cost.hpp) estimates its generation
// shorter; either way plan.why says the estimate. The same decisions on both paths (the same bits).
template <class Fn, class T>
void consider_spread(const ops::Params& p, const DeviceLimits& dev, const Fn& fn, int ncons, GpuPlan& plan) {
  if constexpr (has_resident_hooks<Fn>) {
    if (!resident_kernel<Fn, T>(32, alg::kernel_kind(p.algorithm), fn, true)) return;  // (DE and jDE only)
    GpuPlan sp;
    try {
      fit_spread<Fn, T>(p, 0, kSpreadThreads, dev, fn, ncons, sp);
    } catch (const Error& e) {
      plan.why += std::string(" Not the spread path: ") + e.what() + ".";
      return;
    }
    const ResidentProfile prof = resident_profile(fn);
    SpreadCostInputs in;
    in.D = p.D;
    in.res_individuals = ceil_div(p.np, plan.cluster);
    in.res_threads = plan.threads;
    in.res_group = plan.group;
    in.spread_individuals = ceil_div(p.np, sp.cluster);
    in.spread_threads = sp.threads;
    in.components = prof.components;
    in.few = prof.few;
    in.value_bytes = static_cast<int>(sizeof(T));
    const SpreadCost cost = spread_cost(in);
    if (!cost.spread_pays()) {
      plan.why += " " + cost.text() + " So the resident plan.";
      return;
    }
    sp.why += cost.text() + " So the spread path.";  // (after fit_spread's "...; ")
    plan = sp;
  }
}

// One trial whose population no cluster holds, of a function with its own resident generation (a CEC
// function's), DE or jDE: the spread path where its CTAs hold the population (ceil(NP / SMs) individuals
// each), in place of the grid path's rows in global memory. Measured on an H200 (janssen:f01, f07, f10 at D
// 100, NP 2000 and 5000, f32: docs/PERFORMANCE.md, "Where no cluster holds the population"): a generation
// 1.6-2.5x shorter, the same bits. false (the grid path) where the spread path cannot take the run.
template <class Fn, class T>
bool spread_holds(const ops::Params& p, const DeviceLimits& dev, const Fn& fn, int ncons, GpuPlan& plan) {
  if constexpr (has_resident_hooks<Fn>) {
    if (!resident_kernel<Fn, T>(32, alg::kernel_kind(p.algorithm), fn, true)) return false;  // (DE and jDE only)
    GpuPlan sp;
    sp.why = "the population does not fit a cluster's shared memory, and the spread path's CTAs hold it (a generation "
             "1.6-2.5x shorter than the grid path's, measured: docs/GPU.md): ";
    try {
      fit_spread<Fn, T>(p, 0, kSpreadThreads, dev, fn, ncons, sp);
    } catch (const Error&) {
      return false;
    }
    plan = sp;
    return true;
  } else {
    (void)p, (void)dev, (void)fn, (void)ncons, (void)plan;
    return false;
  }
}

template <class Fn, class T>
void plan_global(const ops::Params& p, const DeviceLimits& dev, bool wide, int threads, int per_individual, const Fn& fn,
                 GpuPlan& plan) {
  // a function of whole rows (a group's or a row function's) takes the grid path
  if (!has_terms<Fn> && wide)
    throw ConfigError("gpu engine: CEC functions, schedules and a user's row functions do not take the wide path (use grid,B)");
  const bool reduces = alg::reduces(p);
  const void* kernel = global_kernel<Fn, T>(wide, reduces, fn);
  plan.path = wide ? GpuPlan::Path::wide : GpuPlan::Path::grid;
  plan.group = 32;
  plan.threads = threads;
  // the CTA's copy of the population's state, the archive's plan and a shrinking population's live tables
  // (gpu_global.cuh)
  const int arc_cap = alg::initial_sizes(p).archive;
  plan.smem_bytes = global_smem_bytes(alg::shared_words(p), arc_cap, reduces ? p.np : 0);
  cudaFuncAttributes attr{};
  DEGPU_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
  if (plan.smem_bytes + attr.sharedSizeBytes > static_cast<std::size_t>(dev.optin))
    throw ConfigError("gpu engine: " + (arc_cap ? "an archive of " + std::to_string(arc_cap) + " members" : std::string("no archive")) +
                      (reduces ? " and the live table of NP " + std::to_string(p.np) : std::string()) +
                      " are planned in each CTA's shared memory (" + std::to_string(plan.smem_bytes) + " bytes), and this device's CTAs hold " +
                      std::to_string(dev.optin) + ": a smaller population or archive rate, or --engine gpu-fused");
  DEGPU_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.smem_bytes)));
  int per_sm = 0;
  DEGPU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, plan.smem_bytes));
  if (per_sm < 1) throw CudaError("gpu engine: " + std::to_string(threads) + " threads per CTA do not fit on this device");
  const long long capacity = static_cast<long long>(per_sm) * dev.sms;
  if (wide) {
    plan.per_individual = per_individual > 0 ? per_individual : static_cast<int>(std::max(1LL, capacity / p.np));
    plan.per_individual = static_cast<int>(std::min<long long>(plan.per_individual, capacity));
    plan.blocks = plan.per_individual * static_cast<int>(std::min<long long>(p.np, capacity / plan.per_individual));
    plan.rounds = ceil_div(p.np, plan.blocks / plan.per_individual);
  } else {
    plan.blocks = static_cast<int>(std::min(capacity, static_cast<long long>(ceil_div(static_cast<long long>(p.np) * 32, threads))));
    plan.rounds = ceil_div(p.np, static_cast<long long>(plan.blocks) * (threads / 32));
  }
  plan.resident_teams = 1;
  plan.why += std::to_string(per_sm) + " CTAs of " + std::to_string(threads) + " threads fit per SM (occupancy API): " +
              std::to_string(plan.blocks) + " CTAs.";
}

// The launch configuration (docs/GPU.md, "The gpu engine"). DEGPU_GPU_PLAN overrides it, for
// measurements: resident,C,B,G (B: ignored, the threads follow from C and G), spread,C,B (fit_spread: C 0 for
// its own count, B at least the groups' threads), grid,B or wide,K,B.
// Under ncons linear constraints (their violations computed by each individual's group of lanes, a constraint
// a lane, in the CPU's order) neither the wide path (several CTAs per individual) nor the resident path of
// a function with its own resident generation (a CEC function's, which evaluates the CTA's trials
// together) is taken.
// may_spread false: an archipelago's clusters (islands_plan), or a resumed checkpoint of the resident or grid
// path (its carry is laid out for that plan's CTAs): not the spread path unless DEGPU_GPU_PLAN says so.
template <class Fn, class T>
GpuPlan make_plan(const ops::Params& p, int n, const Fn& fn, int ncons = 0, bool may_spread = true) {
  const DeviceLimits dev = device_limits();
  const int blocks_per_row = ceil_div(p.D, kBlock);
  GpuPlan plan;
  const bool resident_ok = ncons == 0 || !has_resident_hooks<Fn>;
  const char* env = std::getenv("DEGPU_GPU_PLAN");
  if (env && *env) {
    int a = 0, b = 0, c = 0;
    const std::string note = std::string("DEGPU_GPU_PLAN=") + env + " (set in the environment). ";
    const auto refuse_constrained = [&](const char* path) {
      throw ConfigError(std::string("DEGPU_GPU_PLAN=") + env + ": the " + path +
                        " path takes no {constraints} (the grid path does: grid,B)");
    };
    if (std::sscanf(env, "resident,%d,%d,%d", &a, &b, &c) == 3) {
      if (!resident_ok) refuse_constrained("resident path of this function: the");
      if (!fit_resident<Fn, T>(p, n, a, group_lanes<Fn>() ? group_lanes<Fn>() : c == 8 ? 8 : 32, dev, fn, ncons, plan))
        throw ConfigError(std::string("DEGPU_GPU_PLAN=") + env + ": the population does not fit that cluster");
      plan.why = note;
      return plan;
    }
    if (std::sscanf(env, "spread,%d,%d", &a, &b) == 2) {
      if (!resident_ok) refuse_constrained("spread path of this function: the");
      plan.why = note;
      fit_spread<Fn, T>(p, a, b, dev, fn, ncons, plan);
      return plan;
    }
    if (std::sscanf(env, "grid,%d", &b) == 1) {
      plan.why = note;
      plan_global<Fn, T>(p, dev, false, std::clamp(b, 32, kMaxThreads) / 32 * 32, 0, fn, plan);
      return plan;
    }
    if (std::sscanf(env, "wide,%d,%d", &a, &b) == 2) {
      if (ncons) refuse_constrained("wide");
      plan.why = note;
      plan_global<Fn, T>(p, dev, true, std::clamp(b, 32, kMaxThreads) / 32 * 32, std::max(1, a), fn, plan);
      return plan;
    }
    throw ConfigError(std::string("DEGPU_GPU_PLAN=") + env + ": expected resident,C,B,G or spread,C,B or grid,B or wide,K,B");
  }
  // Resident where the population fits a cluster (sm_90). One trial: groups of 32 lanes (8 for D <= 32),
  // and individuals spread over up to 16 CTAs (each CTA at most ~8 warps: a generation is latency-bound);
  // n trials: the SMs shared out, a cluster of SMs / n CTAs each, groups of 8 lanes (32 for D > 256),
  // which pack four individuals into a warp's instructions.
  if (dev.cc >= 9 && resident_ok) {
    // (a function may name its group's lanes: a schedule takes whole warps, kGroupLanes)
    // (a row function: lane 0 of each group evaluates, so groups of 8 keep four lanes of a warp at work)
    const int group = group_lanes<Fn>() ? group_lanes<Fn>() : is_row_function<Fn> ? 8 : n == 1 ? (blocks_per_row > 8 ? 32 : 8) : (blocks_per_row > 64 ? 32 : 8);
    const int want = n == 1 ? ceil_div(static_cast<long long>(p.np) * group, 256) : std::max(1, dev.sms / n);
    int lowest = 0;  // the smallest cluster that holds the population
    for (int c = 1; c <= 16 && !lowest; ++c) {
      GpuPlan probe;
      if (fit_resident<Fn, T>(p, n, c, group, dev, fn, ncons, probe)) lowest = c;
    }
    if (lowest) {
      for (int c = std::clamp(want, lowest, 16); c >= lowest; --c) {
        if (!fit_resident<Fn, T>(p, n, c, group, dev, fn, ncons, plan)) continue;
        plan.why = (n == 1 ? std::string("one trial") : std::to_string(n) + " trials") + ": the population in shared memory, a cluster of " +
                   std::to_string(c) + " CTAs per trial (" + std::to_string(ceil_div(p.np, c)) + " individuals each; " +
                   (n == 1 ? "spread over up to 16 SMs, at most 8 warps each" : std::to_string(dev.sms) + " SMs shared among the trials") +
                   "), a group of " + std::to_string(group) + " lanes per individual, draws made " + std::to_string(plan.window) +
                   " generations ahead; " + describe_resident(fn, plan.fn_choice) +
                   std::to_string(plan.resident_teams) + " such clusters fit at once (occupancy API).";
        if (n == 1 && may_spread) consider_spread<Fn, T>(p, dev, fn, ncons, plan);
        return plan;
      }
    }
    if (n == 1 && may_spread && spread_holds<Fn, T>(p, dev, fn, ncons, plan)) return plan;
  }
  // Rows in global memory: a group of 32 lanes per individual over the whole device, or, for large D
  // with too few individuals to give each SM 16 warps, several CTAs per individual.
  const bool wide = ncons == 0 && has_terms<Fn> && p.D >= 2048 && static_cast<long long>(p.np) * 32 < static_cast<long long>(dev.sms) * 512;
  plan.why = std::string("the population does not fit a cluster's shared memory") + (dev.cc < 9 ? " (or no clusters: sm < 90)" : "") +
             ": rows in global memory, the whole device" + (n > 1 ? ", one trial after another" : "") + "; " +
             (wide ? "D >= 2048 and too few individuals to fill the SMs: several CTAs of 512 threads per individual. "
                   : "a group of 32 lanes per individual, CTAs sized to spread the individuals over all SMs. ");
  const int threads = wide ? kMaxThreads : std::clamp(ceil_pow2(ceil_div(static_cast<long long>(p.np) * 32, dev.sms)), 64, kMaxThreads);
  plan_global<Fn, T>(p, dev, wide, threads, 0, fn, plan);
  return plan;
}

// The plan for n islands' clusters side by side, every one resident at once (in one launch, gpu_exchange.cuh,
// or between slices): make_plan's where they all fit, else the largest smaller cluster with which they do
// (make_plan's cluster follows the SMs per trial, and clusters of many CTAs, one CTA an SM, do not all fit
// the GPCs: on an H200, 32 clusters of 4 CTAs of janssen:f10's NP 64 do not), else make_plan's (the islands
// then exchange between slices). DEGPU_GPU_PLAN's is kept as it is.
template <class Fn, class T>
GpuPlan islands_plan(const ops::Params& p, int n, const Fn& fn, int ncons) {
  GpuPlan plan = make_plan<Fn, T>(p, n, fn, ncons, false);
  const char* env = std::getenv("DEGPU_GPU_PLAN");
  if (plan.path != GpuPlan::Path::resident || plan.resident_teams >= n || (env && *env)) return plan;
  const DeviceLimits dev = device_limits();
  for (int c = plan.cluster - 1; c >= 1; --c) {
    GpuPlan q;
    if (fit_resident<Fn, T>(p, n, c, plan.group, dev, fn, ncons, q) && q.resident_teams >= n) {
      q.why = plan.why + " Islands: clusters of " + std::to_string(c) + " CTAs instead, so that all " + std::to_string(n) +
              " are resident at once.";
      return q;
    }
  }
  return make_plan<Fn, T>(p, n, fn, ncons, false);  // (its kernel attributes again: the probes above set others)
}

// The plan for this process's n of an archipelago's K islands spread over R processes: the cluster and the
// groups of lanes that islands_plan takes for the largest process's share (clusters that all fit at once: the
// slices between migrations then run in one wave), or, resuming, those of the checkpoint's section
// gpu.plan.shape (any R may resume it), fitted to n, so that every process lays its CTAs out alike and a
// checkpoint joins their islands (gpu_slices.cuh's SliceRun::comm). islands_plan's where it is not the
// resident path (run() refuses islands there).
template <class Fn, class T>
GpuPlan spread_plan(const ops::Params& p, int n, int K, int R, const Fn& fn, int ncons, const ckpt::Sections* resume) {
  int largest = 0;
  for (int q = 0; q < R; ++q) largest = std::max(largest, first_island(q + 1, R, K) - first_island(q, R, K));
  const GpuPlan big = islands_plan<Fn, T>(p, largest, fn, ncons);
  if (big.path != GpuPlan::Path::resident) return big;
  int cluster = big.cluster, group = big.group;
  std::string why = big.why;
  if (resume && resume->has("gpu.plan.shape")) {
    const std::vector<int> shape = resume->get<int>("gpu.plan.shape", 2);
    if (shape[0] < 1 || shape[0] > 16 || (shape[1] != 8 && shape[1] != 32))
      throw DataError(resume->file + ": section gpu.plan.shape: clusters of " + std::to_string(shape[0]) + " CTAs, groups of " +
                      std::to_string(shape[1]) + " lanes");
    cluster = shape[0], group = shape[1];
    why = "Resumed: the checkpoint's clusters of " + std::to_string(cluster) + " CTAs and groups of " + std::to_string(group) + " lanes.";
  }
  GpuPlan plan;
  if (!fit_resident<Fn, T>(p, n, cluster, group, device_limits(), fn, ncons, plan)) {
    if (resume) throw DataError(resume->file + ": a checkpoint of islands in clusters of " + std::to_string(cluster) +
                                " CTAs, which this device cannot hold: resume it on the device that wrote it, or one like it");
    throw std::logic_error("gpu engine: the largest share's clusters do not fit a smaller one");  // (n <= largest)
  }
  plan.why = why + " Islands over " + std::to_string(R) + " processes: " + std::to_string(n) + " of the " + std::to_string(K) +
             " here, in the clusters of the largest share (" + std::to_string(largest) + "), as every process's.";
  return plan;
}

template <class T, class V>
DeviceArray<T> padded(const std::vector<V>& v, std::size_t n) {
  std::vector<T> h(n, T(0));
  std::copy(v.begin(), v.end(), h.begin());
  DeviceArray<T> d(n);
  upload(d.ptr, h);
  return d;
}

// n trials of the gpu engine for the kernel function Fn. fn: its value with its data on the device, uploaded
// by the caller (a built-in's is empty; a CEC function's has a scratch slot for each individual of the n
// trials: n np). t0: when the run began (the results' wall_s counts from it), before that upload.
// islands: the n trials are the islands of n / islands->islands archipelagos side by side (trial j's island k
// the (j K + k)th), which migrate as it says (gpu_exchange.cuh, gpu_islands.hpp; run_archipelago sets the
// trials and the budget up): the resident path only, in slices; several archipelagos in one launch only.
template <class T, class Fn>
std::vector<Result> run_archipelago(const Problem& problem, const Resolved& r, const RunOptions& o, int n, const Fn& fn,
                                    std::chrono::steady_clock::time_point t0);

template <class T, class Fn>
std::vector<Result> run(const Problem& problem, const Resolved& r, const RunOptions& o, int n, const Fn& fn,
                        std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now(), const Migration* islands = nullptr) {
  if (o.archipelago.used() && !islands) return run_archipelago<T>(problem, r, o, n, fn, t0);
  using clock = std::chrono::steady_clock;
  if (!problem.on_gpu())
    throw ConfigError("problem " + problem.name() + ": user objectives run on the CPU engines (serial, threads, matrix)");
  use_device(0);
  ops::Params p = ops::make_params(problem, r, o);
  const alg::Sizes start = alg::initial_sizes(p);
  if (alg::shared_words(p)) p.pbest_count = start.pbest_count;  // as the host driver starts
  const int arc_cap = start.archive;
  const bool reduces = alg::reduces(p);
  const LinearForm* const linear = LinearConstraintsOnDevice::only_linear(problem, "gpu");
  const int ncons = linear ? linear->count() : 0;
  const ckpt::Sections* const resuming = o.checkpoint.batch ? o.checkpoint.batch->resume.get() : nullptr;
  // Over processes (RunOptions::archipelago's comm): the n trials are this process's islands k0 .. k0 + n - 1,
  // exchanging between slices with the other processes' (gpu_islands.hpp)
  IslandComm* const comm = islands ? o.archipelago.comm.get() : nullptr;
  const int k0 = comm ? first_island(comm->rank(), comm->size(), islands->islands) : 0;
  // A checkpoint of islands that exchanged between slices (as processes do; gpu.islands.between) resumes
  // between slices, in its clusters, on any number of processes, one included; one of islands exchanging
  // inside one launch (one process's) resumes in one process only.
  const bool resume_between = islands && resuming && resuming->has("gpu.islands.between");
  if (comm && resuming && !resume_between)
    throw DataError(resuming->file + ": a checkpoint of islands that exchanged inside one launch of one process, which processes " +
                    "cannot share: resume it without mpirun");
  // (islands: clusters that all fit at once, in one launch or between slices: a cluster that waits for a
  // place runs its slice after the others, and every slice takes twice as long)
  // (a checkpoint of the resident or grid path, one written before the planner chose the spread path for
  // such a trial, resumes on its own path: the same bits either way)
  const bool resume_own_path = resuming && resuming->has("gpu.plan") &&
                               (resuming->text("gpu.plan").rfind("resident path", 0) == 0 || resuming->text("gpu.plan").rfind("grid path", 0) == 0);
  GpuPlan plan = islands && (comm || resume_between)
                     ? spread_plan<Fn, T>(p, n, islands->islands, comm ? comm->size() : 1, fn, ncons, resuming)
                 : islands ? islands_plan<Fn, T>(p, n, fn, ncons)
                           : make_plan<Fn, T>(p, n, fn, ncons, !resume_own_path);
  const bool resident = plan.path == GpuPlan::Path::resident;
  if (islands && plan.spread)
    throw ConfigError("{islands} " + std::to_string(n) + ": an archipelago runs in clusters (the resident path), not on the spread path");
  if (islands && !resident)
    throw ConfigError("{islands} " + std::to_string(n) + ": the gpu engine runs an archipelago on its resident path only, where an " +
                      "island's rows fit a cluster's shared memory, and this one's " + std::string(plan.path_name()) +
                      " path does not (use {engine} gpu-eval, or a smaller {np} or {dim})");
  // Islands in one launch where every island's cluster fits on the device at once (gpu_exchange.cuh), else
  // between slices (gpu_islands.hpp), where slices end on migrations, and a slice on a multiple of the
  // window: the window divides the interval.
  // (fit_resident's occupancy query: resident_teams, the clusters that fit at once, up to n)
  // Over processes: inside their launches too where every process can (one host, a GPU each, peer access:
  // gpu_islands.hpp's IslandBlock::across, agreed by all), with the slices and the window of the islands
  // between slices (so that either resumes the other's checkpoints: gpu_slices.cuh's SliceRun::stop_on)
  std::string across_why;
  const bool across = islands && comm &&
                      gpu_islands::IslandBlock::across(*comm, !islands_between_slices() && plan.resident_teams >= n, across_why);
  if (comm) plan.why += " " + across_why;
  const bool in_launch = islands && (comm ? across : !resume_between && !islands_between_slices() && plan.resident_teams >= n);
  if (islands && (!in_launch || comm)) plan.window = std::min(plan.window, islands->interval & -islands->interval);
  if (islands && !in_launch && !comm && n != islands->islands)
    throw std::logic_error("gpu engine: archipelagos side by side that do not fit in one launch");  // (archipelago_batch)
  // a target: the islands of a trial agree on it every generation, inside the launch only
  const bool isl_target = islands && r.stop.target_error && problem.optimum_f();
  if (isl_target && !in_launch)
    throw ConfigError("{target_error}: the gpu engine's islands stop on a target only where every island's cluster fits on the device at " +
                      std::string("once (these ") + std::to_string(n) + " do not: use {max_gens} or {max_evals}, fewer {islands} or a smaller {np})");
  if ((!resident || plan.spread) && n > 1)  // the global and spread paths take the whole device: one trial per launch
    return detail::each_trial(o, n, [&](const RunOptions& ot) { return run<T>(problem, r, ot, 1, fn).front(); });
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np), nt = static_cast<std::size_t>(n);
  const std::size_t Ds = static_cast<std::size_t>(row_stride(p.D));
  long long max_gens = r.stop.max_gens ? *r.stop.max_gens : (1LL << 62);
  // where the population shrinks, the evaluations of each generation from the schedule (alg::SizeReplay;
  // validate requires max_evals then), which the device's generation count stops at
  std::unique_ptr<alg::SizeReplay> sizes;
  if (reduces) {
    sizes = std::make_unique<alg::SizeReplay>(p, max_gens, r.stop.max_evals ? *r.stop.max_evals : -1);
    max_gens = sizes->generations();
  } else if (r.stop.max_evals) {
    max_gens = std::min(max_gens, (*r.stop.max_evals - p.np) / p.np);
  }
  const auto evals_after = [&](long long g) { return sizes ? sizes->evals(g) : static_cast<long long>(p.np) * (g + 1); };
  // History samples kept on the device per trial: at most kMaxHistory (the first ones; the last point is
  // always added), so a run bounded only by time does not reserve memory for 2^62 generations.
  constexpr long long kMaxHistory = 1 << 20;
  const std::size_t nhist =
      o.history_every > 0 ? static_cast<std::size_t>(std::min(max_gens / o.history_every + 1, kMaxHistory)) : 1;
  // RunOptions::history_x: the best row of the first nhist_x samples (at most ~256 MB of them)
  const std::size_t nhist_x = o.history_x && o.history_every > 0
                                  ? std::min(nhist, std::max<std::size_t>(1, (std::size_t{1} << 28) / (nt * D * sizeof(T))))
                                  : 0;
  const std::size_t rows = resident ? 0 : np * Ds;
  const std::size_t fs = resident ? 0 : np, ranks = resident ? 0 : plan.blocks;
  const std::size_t partials = plan.path == GpuPlan::Path::wide ? np * plan.per_individual * 3 : 0;
  // a trial's p-best ranking: pbest_count entries, at least 2 (L-SHADE's and jSO's count after a reduction)
  const int rstride = std::max(p.pbest_count, 2);
  // RunOptions::keep_population: every trial's last rows and values
  const std::size_t kept_x = o.keep_population ? nt * np * D : 0, kept_f = o.keep_population ? nt * np : 0;
  use_device((2 * rows + 2 * fs + nt * (D + 2 + nhist + nhist_x * D) + 3 * Ds + kept_x + kept_f) * sizeof(T) + IntegersOnDevice<T>::bytes(problem) + 2 * fs + partials * sizeof(double) + AlgorithmState::bytes(p, nt * np, false, resident ? 0 : 2) +
             2 * ranks * sizeof(Slot<T>) + nt * (static_cast<std::size_t>(rstride) * 4 + 48) + 64 +
             (resident ? 0 : 2 * np * static_cast<std::size_t>(ncons) * sizeof(double)) + LinearConstraintsOnDevice::bytes(linear) +
             nt * (static_cast<std::size_t>(arc_cap) * Ds * sizeof(T) + alg::shared_words(p) * sizeof(double) + 4) +
             3 * np);
  DeviceArray<T> x0(rows), x1(rows), f0(fs), f1(fs), best_f(nt), best_x(nt * D), history(nt * nhist);
  DeviceArray<unsigned long long> history_ns(nt * nhist);
  DeviceArray<T> history_x(nt * nhist_x * D);
  DeviceArray<std::uint8_t> side0(fs), side1(fs);
  DeviceArray<Slot<T>> slots(2 * ranks);
  DeviceArray<double> part(partials);
  DeviceArray<unsigned long long> arrivals(1), nans(nt), infeasible(nt);
  // linear constraints: the populations' violations (global paths; the resident path's are in shared memory)
  const LinearConstraintsOnDevice lin(linear, p.D);
  DeviceArray<double> cv0(resident ? 0 : np * static_cast<std::size_t>(ncons)), cv1(resident ? 0 : np * static_cast<std::size_t>(ncons));
  DeviceArray<std::uint32_t> ranking(nt * static_cast<std::size_t>(rstride)), best(nt);
  DeviceArray<long long> gens(nt);
  DeviceArray<int> reason(nt);
  DeviceArray<T> pop_x(kept_x), pop_f(kept_f);
  const IntegerBox<T> box = integer_box<T>(problem);  // the box, widened on integer coordinates
  const DeviceArray<T> lo = padded<T>(box.lo, Ds), hi = padded<T>(box.hi, Ds);
  const IntegersOnDevice<T> ints(box);
  const DeviceArray<T> shift = padded<T>(problem.shift(), problem.shift().empty() ? 1 : Ds);
  // trials x np individuals, as the host driver's Population's; a population-level update's contributions
  // in global memory on the global paths (two generations' sets), in the cluster's shared memory on the resident
  const AlgorithmState alg_state(p, nt * np, false, resident ? 0 : 2);
  // an archive (gpu_archive.cuh): every trial's members, the global paths' "parent lost" flags by parity;
  // the final members and population state of each trial
  const std::size_t words = static_cast<std::size_t>(alg::shared_words(p));
  DeviceArray<T> arc_rows(nt * static_cast<std::size_t>(arc_cap) * Ds);
  DeviceArray<std::uint8_t> lost0(arc_cap && !resident ? np : 0), lost1(arc_cap && !resident ? np : 0);
  DeviceArray<std::uint8_t> gone(reduces && !resident ? np : 0);  // a shrinking population's on the global paths
  DeviceArray<int> arc_size(nt);
  DeviceArray<double> shared_out(nt * words);
  // islands in one launch: the emigrants' buffers by parity, the flags and read counts (one block, which
  // the other processes open: gpu_islands.hpp), each island's scratch
  const std::size_t isl_M = in_launch ? static_cast<std::size_t>(islands->migrants) : 0, isl_K = in_launch ? nt : 0;
  const std::size_t isl_room = in_launch ? static_cast<std::size_t>(migration::max_sources(islands->islands)) : 0;
  const std::size_t isl_trials = isl_target ? nt / static_cast<std::size_t>(islands->islands) : 0;
  std::unique_ptr<gpu_islands::IslandBlock> isl_block;
  if (in_launch) isl_block = std::make_unique<gpu_islands::IslandBlock>(n, islands->migrants, static_cast<int>(Ds), sizeof(T), alg_state.words);
  DeviceArray<migration::Key> isl_own(isl_K * np), isl_cand(isl_K * isl_room * isl_M);
  DeviceArray<int> isl_from(2 * isl_K * isl_room * isl_M), isl_sources(isl_K * isl_room);
  DeviceArray<std::uint32_t> isl_scratch(4 * isl_K * isl_M);
  DeviceArray<migration::Move> isl_moves(isl_K * isl_M);
  DeviceArray<unsigned long long> isl_decided(isl_target ? nt : 0), isl_reached(isl_trials);
  if (isl_target) {  // nothing decided, nothing reached
    DEGPU_CUDA_TRY(cudaMemset(isl_decided.ptr, 0, nt * sizeof(unsigned long long)));
    DEGPU_CUDA_TRY(cudaMemset(isl_reached.ptr, 0xff, isl_trials * sizeof(unsigned long long)));
  }
  DEGPU_CUDA_TRY(cudaMemset(arrivals.ptr, 0, sizeof(unsigned long long)));
  DEGPU_CUDA_TRY(cudaMemset(nans.ptr, 0, nt * sizeof(unsigned long long)));
  DEGPU_CUDA_TRY(cudaMemset(infeasible.ptr, 0, nt * sizeof(unsigned long long)));

  State<T> s{};
  s.x[0] = x0.ptr, s.x[1] = x1.ptr, s.f[0] = f0.ptr, s.f[1] = f1.ptr, s.side[0] = side0.ptr, s.side[1] = side1.ptr;
  s.lo = lo.ptr, s.hi = hi.ptr, s.shift = problem.shift().empty() ? nullptr : shift.ptr;
  s.ints = ints.view();
  s.lin = lin.view();
  s.cv[0] = cv0.ptr, s.cv[1] = cv1.ptr;
  s.infeasible = infeasible.ptr;
  s.slots = slots.ptr, s.ranking = ranking.ptr, s.nans = nans.ptr, s.arrivals = arrivals.ptr, s.partials = part.ptr;
  s.gens = gens.ptr, s.reason = reason.ptr, s.best = best.ptr, s.best_f = best_f.ptr, s.best_x = best_x.ptr;
  s.history = history.ptr;
  s.history_ns = history_ns.ptr;
  s.history_x = nhist_x ? history_x.ptr : nullptr;
  s.nhist_x = static_cast<long long>(nhist_x);
  s.algo = alg::State{alg_state.state(), nt * np};
  s.shared0 = alg_state.shared();
  s.sums = alg_state.sums();
  s.archive = EngineArchive<T>{arc_cap ? arc_rows.ptr : nullptr, arc_cap, Ds};
  s.lost[0] = lost0.ptr, s.lost[1] = lost1.ptr;
  s.gone = gone.ptr;
  s.archive_size = arc_size.ptr;
  s.shared_out = words ? shared_out.ptr : nullptr;
  s.bias = kernel_bias<Fn>(problem);
  const DeviceArray<T> initial = upload_initial<T>(o);
  s.initial = initial.ptr;
  s.ninitial = static_cast<int>(o.initial.size());
  s.max_gens = max_gens;
  s.history_every = o.history_every;
  s.nhist = static_cast<long long>(nhist);
  if (r.stop.max_time_s) s.max_time_ns = static_cast<unsigned long long>(*r.stop.max_time_s * 1e9);
  if (r.stop.target_error && problem.optimum_f()) {
    s.has_target = true;
    s.target_f = *problem.optimum_f() + *r.stop.target_error;
  }
  if (r.stop.convergence) {
    s.has_convergence = true;
    s.tol = r.stop.convergence->tol;
    s.atol = r.stop.convergence->atol;
  }
  if (in_launch) {
    LaunchIslands<T>& x = s.isl;
    x.on = true;
    x.target = isl_target;
    x.mg = *islands;
    x.clusters = n;
    x.seed = p.seed, x.first = p.trial - static_cast<std::uint32_t>(k0), x.np0 = p.np, x.words = alg_state.words;
    const IslandPeer b = isl_block->own();
    x.rows = static_cast<T*>(b.rows), x.f = static_cast<T*>(b.f), x.keys = static_cast<migration::Key*>(b.keys), x.state = b.state;
    x.count = b.count, x.flag = b.flag, x.reads = b.reads;
    x.own = isl_own.ptr, x.cand = isl_cand.ptr, x.from = isl_from.ptr;
    x.sources = isl_sources.ptr, x.scratch = isl_scratch.ptr, x.moves = isl_moves.ptr;
    x.decided = isl_decided.ptr, x.reached = isl_reached.ptr;
    x.k0 = k0, x.local = comm ? n : islands->islands;
    if (comm) {  // (every process's block opened here)
      x.peers = isl_block->open(*comm, k0);
      x.procs = comm->size();
      x.abort = isl_block->abort_flag();
    }
  }
  s.pop_x = o.keep_population ? pop_x.ptr : nullptr;
  s.pop_f = o.keep_population ? pop_f.ptr : nullptr;
  const Mutation m = p.mutation;
  s.need_best = uses_best(m) || s.has_target || s.has_convergence || o.history_every > 0 || s.max_time_ns > 0;
  s.window = plan.window;
  s.fn_choice = plan.fn_choice;
  s.per_individual = plan.per_individual;
  s.rk = round_keys(p.seed);
  // Every run in slices (gpu_slices.cuh: a signal stops it at a slice's end, checkpoints are written between
  // them), unless DEGPU_GPU_ONE_LAUNCH=1 asks for one launch (for measurements, without checkpoints).
  const bool sliced = o.checkpoint.used() || !one_launch() || islands;
  // the resident path's layout of a CTA's shared memory, as the kernel and the plan (fit_resident) make it
  const ResidentShape shape =
      resident ? resident_shape<T>(p.np, p.D, plan.cluster, plan.window, uses_pbest(p), alg::stateful(p), alg::sum_words(p), alg::shared_words(p),
                                   arc_cap, reduces, fn, plan.fn_choice, ncons)
               : ResidentShape{};
  // the spread path's images of each CTA's shared memory up to the function's region (what the others read)
  DeviceArray<unsigned char> image(plan.spread ? static_cast<std::size_t>(plan.blocks) * shape.off_fn : 0);
  s.image = plan.spread ? image.ptr : nullptr;
  s.image_bytes = plan.spread ? shape.off_fn : 0;
  std::unique_ptr<CarryBuffers> carry;
  if (sliced) {
    carry = resident ? std::make_unique<CarryBuffers>(plan.blocks, shape.off_fn)
                     : std::make_unique<CarryBuffers>(static_cast<int>(words), p.np, reduces);
    s.carry = carry->view();
    // a resident batch resumes from a checkpoint of its own plan only (another path's batch, one trial after
    // another, would name another trial in progress)
    if (resident && resuming) check_plan(*resuming, comm ? plan_text(plan, islands->islands) : plan_text(plan));
  }

  const auto launch = [&] {
    ops::Params pp = p;
    auto fv = kernel_arg(fn);  // (a compiled functor's kernels take the empty functor's byte)
    void* args[] = {&pp, &s, &fv};
    if (plan.spread) {  // attributes set by the plan; every CTA resident at once (the grid barrier)
      DEGPU_CUDA_TRY(cudaLaunchCooperativeKernel(resident_kernel<Fn, T>(plan.group, alg::kernel_kind(p.algorithm), fn, true), dim3(plan.blocks),
                                                 dim3(plan.threads), args, plan.smem_bytes, 0));
    } else if (resident) {  // attributes set by the plan
      const ClusterLaunch cl(plan, n);
      DEGPU_CUDA_TRY(cudaLaunchKernelExC(&cl.cfg, resident_kernel<Fn, T>(plan.group, alg::kernel_kind(p.algorithm), fn), args));
      DEGPU_CUDA_TRY(cudaGetLastError());
      if (in_launch && comm) isl_block->wait(*comm);  // (a lost process found while the islands wait for it)
    } else {
      const void* k = global_kernel<Fn, T>(plan.path == GpuPlan::Path::wide, reduces, fn);
      DEGPU_CUDA_TRY(cudaLaunchCooperativeKernel(k, dim3(plan.blocks), dim3(plan.threads), args, plan.smem_bytes, 0));
    }
    DEGPU_CUDA_TRY(cudaGetLastError());
    DEGPU_CUDA_TRY(cudaDeviceSynchronize());
  };
  const double launched = std::chrono::duration<double>(clock::now() - t0).count();
  // In slices (gpu_slices.cuh), each trial's history read after each; else one launch.
  std::vector<std::vector<HistoryPoint>> sliced_history;
  std::unique_ptr<gpu_islands::ResidentIslands<T>> exchange;
  if (sliced) {
    SliceRun slices;
    if (resident) {
      // the trials side by side, each CTA's shared memory in the carry; what a trial that ended in an earlier
      // slice left (its result, the algorithm's final state) with the run's other buffers
      const std::size_t sw = static_cast<std::size_t>(alg_state.words) * nt * np;
      slices.trials = n;
      slices.quantum = plan.window;
      slices.with_trials = true;
      slices.kept = {{"gpu.gens", gens.ptr, nt * sizeof(long long)}, {"gpu.reason", reason.ptr, nt * sizeof(int)},
                  {"gpu.best", best.ptr, nt * sizeof(std::uint32_t)}, {"gpu.best_f", best_f.ptr, nt * sizeof(T)},
                  {"gpu.best_x", best_x.ptr, nt * D * sizeof(T)}, {"gpu.nans", nans.ptr, nt * sizeof(unsigned long long)},
                  {"gpu.infeasible", infeasible.ptr, nt * sizeof(unsigned long long)}, {"gpu.state", alg_state.store.ptr, sw * sizeof(double), true, std::max(1, alg_state.words)},
                  {"gpu.archive", arc_rows.ptr, nt * static_cast<std::size_t>(arc_cap) * Ds * sizeof(T)},
                  {"gpu.arc_size", arc_size.ptr, nt * sizeof(int)}, {"gpu.shared_out", shared_out.ptr, nt * words * sizeof(double)},
                  {"gpu.pop_x", pop_x.ptr, kept_x * sizeof(T)}, {"gpu.pop_f", pop_f.ptr, kept_f * sizeof(T)}};
      slices.check = [&](const ckpt::Sections& cs, long long done, const std::vector<char>& running) {
        check_resident_carry<T>(p, cs, shape, plan.cluster, n, arc_cap, reduces, done, s.need_best, running);
      };
      if (islands && !in_launch) {
        const gpu_islands::Layout layout{shape.P, shape.Ds, shape.off_f, shape.off_cv, shape.off_slots, shape.off_live};
        exchange = std::make_unique<gpu_islands::ResidentIslands<T>>(*islands, p.seed, p.trial - static_cast<std::uint32_t>(k0), layout,
                                                                     plan.cluster, n, p.np, ncons, reduces,
                                                                     carry->cta.ptr, carry->cta_bytes, alg_state.state(), alg_state.words,
                                                                     comm, k0);
        slices.migrate_every = islands->interval;
        slices.migrate = [&](long long g) { exchange->exchange(g); };
        slices.comm = comm;
        slices.k0 = k0;
        slices.islands = islands->islands;
      } else if (islands && comm) {  // (inside the launches over processes: every slice's end agreed)
        slices.stop_on = islands->interval;
        slices.comm = comm;
        slices.k0 = k0;
        slices.islands = islands->islands;
      }
      if (islands) slices.ckpt_trial = (o.trial - static_cast<std::uint32_t>(k0)) / static_cast<std::uint32_t>(islands->islands);
    } else {
      slices.kept = {
          {"gpu.x0", x0.ptr, rows * sizeof(T)}, {"gpu.x1", x1.ptr, rows * sizeof(T)}, {"gpu.f0", f0.ptr, fs * sizeof(T)},
          {"gpu.f1", f1.ptr, fs * sizeof(T)}, {"gpu.side0", side0.ptr, fs}, {"gpu.side1", side1.ptr, fs},
          {"gpu.slots", slots.ptr, 2 * ranks * sizeof(Slot<T>)}, {"gpu.nans", nans.ptr, sizeof(unsigned long long)},
          {"gpu.infeasible", infeasible.ptr, sizeof(unsigned long long)},
          {"gpu.cv0", cv0.ptr, np * static_cast<std::size_t>(ncons) * sizeof(double)},
          {"gpu.cv1", cv1.ptr, np * static_cast<std::size_t>(ncons) * sizeof(double)},
          {"gpu.state", alg_state.store.ptr, static_cast<std::size_t>(alg_state.words) * np * sizeof(double), true},
          {"gpu.sums", alg_state.sums_store.ptr, 2 * static_cast<std::size_t>(alg_state.sum_words) * np * sizeof(double)},
          {"gpu.archive", arc_rows.ptr, static_cast<std::size_t>(arc_cap) * Ds * sizeof(T)},
          {"gpu.lost0", lost0.ptr, arc_cap ? np : 0}, {"gpu.lost1", lost1.ptr, arc_cap ? np : 0}};
      slices.check = [&](const ckpt::Sections& cs, long long done, const std::vector<char>&) {
        check_carry<T>(p, cs, s.archive.cap, reduces, done, s.need_best);
      };
    }
    sliced_history = run_slices(o, r, plan, s, *carry, std::move(slices), max_gens, evals_after, nhist, nhist_x, D, t0, launch,
                                SampleBuffers<T>{history.ptr, history_ns.ptr, history_x.ptr});
    if (in_launch && comm) isl_block->close(*comm);  // (before any process frees the block the others opened)
  } else {
    launch();
  }

  std::vector<std::uint32_t> b(nt);
  std::vector<T> bf(nt), bx(nt * D);
  std::vector<unsigned long long> nan_h(nt), infeasible_h(nt);
  std::vector<long long> g(nt);
  std::vector<int> why(nt);
  DEGPU_CUDA_TRY(cudaMemcpy(b.data(), best.ptr, nt * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(bf.data(), best_f.ptr, nt * sizeof(T), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(bx.data(), best_x.ptr, nt * D * sizeof(T), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(nan_h.data(), nans.ptr, nt * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(infeasible_h.data(), infeasible.ptr, nt * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(g.data(), gens.ptr, nt * sizeof(long long), cudaMemcpyDeviceToHost));
  DEGPU_CUDA_TRY(cudaMemcpy(why.data(), reason.ptr, nt * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> arc_n(nt);
  std::vector<double> shared_h(nt * words);
  if (arc_cap) DEGPU_CUDA_TRY(cudaMemcpy(arc_n.data(), arc_size.ptr, nt * sizeof(int), cudaMemcpyDeviceToHost));
  if (words) DEGPU_CUDA_TRY(cudaMemcpy(shared_h.data(), shared_out.ptr, shared_h.size() * sizeof(double), cudaMemcpyDeviceToHost));
  std::vector<T> pop_xh(kept_x), pop_fh(kept_f);
  if (o.keep_population) {
    DEGPU_CUDA_TRY(cudaMemcpy(pop_xh.data(), pop_x.ptr, pop_xh.size() * sizeof(T), cudaMemcpyDeviceToHost));
    DEGPU_CUDA_TRY(cudaMemcpy(pop_fh.data(), pop_f.ptr, pop_fh.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }
  // one launch's samples: each trial's that were written, those of generations 0 .. g[t] (a trial that ended
  // early left the rest of its reserve unwritten; in slices, run_slices read them as they were taken)
  const auto samples_of = [&](std::size_t t) {
    return std::min(nhist, static_cast<std::size_t>(g[t] / o.history_every + 1));
  };
  std::vector<T> hist;
  std::vector<unsigned long long> hist_ns;
  if (o.history_every > 0 && !sliced) {
    hist.resize(nt * nhist);
    hist_ns.resize(nt * nhist);
    for (std::size_t t = 0; t < nt; ++t) {
      const std::size_t k = samples_of(t);
      DEGPU_CUDA_TRY(cudaMemcpy(hist.data() + t * nhist, history.ptr + t * nhist, k * sizeof(T), cudaMemcpyDeviceToHost));
      DEGPU_CUDA_TRY(cudaMemcpy(hist_ns.data() + t * nhist, history_ns.ptr + t * nhist, k * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost));
    }
  }
  const double wall = std::chrono::duration<double>(clock::now() - t0).count();
  std::vector<Result> out(nt);
  for (std::size_t t = 0; t < nt; ++t) {
    Result& res = out[t];
    res.generations = g[t];
    res.evals = evals_after(g[t]);
    res.stop_reason = static_cast<StopReason>(why[t] - 1);
    // the device merges max-gens and max-evals into one generation count; name the one the other
    // engines would (check_stop's order: max_evals first)
    res.final_np = sizes ? sizes->np(g[t]) : p.np;
    if (res.stop_reason == StopReason::max_gens && r.stop.max_evals && res.evals + res.final_np > *r.stop.max_evals)
      res.stop_reason = StopReason::max_evals;
    res.best_f = static_cast<double>(bf[t]);
    res.best_x.assign(bx.begin() + t * D, bx.begin() + (t + 1) * D);
    res.nan_evals = static_cast<long long>(nan_h[t]);
    res.archive_size = arc_n[t];
    if (words) alg::memories(p, shared_h.data() + t * words, res.memory_F, res.memory_CR);
    res.infeasible = static_cast<long long>(infeasible_h[t]);
    if (o.keep_population) {
      const std::size_t live = static_cast<std::size_t>(res.final_np);  // (a shrinking population's first rows)
      res.population.assign(pop_xh.begin() + t * np * D, pop_xh.begin() + (t * np + live) * D);
      res.population_f.assign(pop_fh.begin() + t * np, pop_fh.begin() + t * np + live);
    }
    if (problem.optimum_f()) res.best_error = res.best_f - *problem.optimum_f();
    res.wall_s = wall;  // the trials run together
    if (o.history_every > 0 && sliced) {
      res.history = std::move(sliced_history[t]);
      if (res.history.empty() || res.history.back().generation != g[t]) res.history.push_back({g[t], res.evals, res.best_f, wall});
      if (o.history_x) res.history.back().best_x = res.best_x;
    } else if (o.history_every > 0) {
      // a sample's time: the launch's (on the host) plus the device's time since generation 0's sample
      const T* h = hist.data() + t * nhist;
      const unsigned long long* ns = hist_ns.data() + t * nhist;
      // the samples' rows that were written (not the whole reserve)
      const std::size_t used_x = std::min(nhist_x, samples_of(t));
      std::vector<T> hist_x(used_x * D);
      if (used_x)
        DEGPU_CUDA_TRY(cudaMemcpy(hist_x.data(), history_x.ptr + t * nhist_x * D, hist_x.size() * sizeof(T), cudaMemcpyDeviceToHost));
      for (long long k = 0; k < static_cast<long long>(samples_of(t)); ++k) {
        res.history.push_back({k * o.history_every, evals_after(k * o.history_every), static_cast<double>(h[k]),
                               launched + static_cast<double>(ns[k] - ns[0]) * 1e-9});
        if (k < static_cast<long long>(used_x)) {
          const T* xk = hist_x.data() + static_cast<std::size_t>(k) * D;
          res.history.back().best_x.assign(xk, xk + D);
        }
      }
      if (res.history.empty() || res.history.back().generation != g[t]) res.history.push_back({g[t], res.evals, res.best_f, wall});
      if (o.history_x) res.history.back().best_x = res.best_x;  // the last sample (generation g[t]): the result's row
    }
  }
  return out;
}

// How many of n trials of the archipelago o.archipelago run side by side (run_archipelago): as many as fit on
// the device at once with every island's cluster resident (the plan's occupancy query, for the islands of all
// of them), so that they exchange inside one launch; 1 where even one trial's islands do not fit, or where
// DEGPU_GPU_ISLANDS=slices asks for the exchange between slices, or the gpu engine's plan is not resident.
template <class T, class Fn>
int archipelago_batch(const Problem& problem, const Resolved& r, const RunOptions& o, int n, const Fn& fn) {
  const int K = o.archipelago.islands;
  if (n <= 1 || islands_between_slices() || o.archipelago.comm) return 1;
  ops::Params p = ops::make_params(problem, ops::island_configs(problem, r, o.archipelago).front(), o);
  if (alg::shared_words(p)) p.pbest_count = alg::initial_sizes(p).pbest_count;  // (as run() plans)
  const int ncons = LinearConstraintsOnDevice::count(problem);
  for (int per = n;;) {
    const GpuPlan plan = islands_plan<Fn, T>(p, per * K, fn, ncons);
    if (plan.path != GpuPlan::Path::resident) return 1;
    if (plan.resident_teams >= per * K || per == 1) return per;
    per = std::max(1, std::min(per - 1, plan.resident_teams / K));
  }
}

// n trials of an archipelago (RunOptions::archipelago, one configuration: validate), in batches
// of archipelago_batch trials side by side, a trial's K islands K clusters of the batch's resident launch
// (island k of trial t draws as trial t K + k), each island's budget its share (ops::island_configs),
// migrating inside the launch (gpu_exchange.cuh) or, for a trial whose islands do not fit at once, between
// slices (gpu_islands.hpp); each trial's Result as the host-rows engines make it (core/islands.hpp): the best
// island's (by migration::before, the lowest island of equal ones), every island's evaluations, NaN values
// and final NP summed, each island's in Result::islands, the history's samples the archipelago's. Over
// processes (the archipelago's comm): one trial at a time, each process its share of the islands (the
// exchange between slices), every island's Result gathered, every process's Result the one process's.
template <class T, class Fn>
std::vector<Result> run_archipelago(const Problem& problem, const Resolved& r, const RunOptions& o, int n, const Fn& fn,
                                    std::chrono::steady_clock::time_point t0) {
  const Archipelago& a = o.archipelago;
  const int K = a.islands;
  if (n > 1 && o.checkpoint.used())
    throw ConfigError("{trials} " + std::to_string(n) + ": the gpu engine's islands write a checkpoint of one trial at a time");
  const Resolved rk = ops::island_configs(problem, r, a).front();
  const int per = archipelago_batch<T>(problem, r, o, n, fn);  // (a last, smaller batch checked again below)
  // over processes: this one's islands k0 .. k1 - 1 of each trial (one trial at a time), every island's
  // Result then gathered in island order
  IslandComm* const comm = a.comm.get();
  const int R = comm ? comm->size() : 1, rank = comm ? comm->rank() : 0;
  const int k0 = first_island(rank, R, K), k1 = first_island(rank + 1, R, K);
  std::vector<Result> out;
  for (int first = 0, m = 0; first < n; first += m) {
    // (the plan of fewer clusters takes larger ones, which may not all fit: the batch's own size checked)
    m = n - first < per ? archipelago_batch<T>(problem, r, o, n - first, fn) : per;
    RunOptions ob = o;
    ob.trial = (o.trial + static_cast<std::uint32_t>(first)) * static_cast<std::uint32_t>(K) + static_cast<std::uint32_t>(k0);
    std::vector<Result> all = run<T>(problem, rk, ob, comm ? k1 - k0 : m * K, fn, t0, &a);
    if (comm) {
      islands::BytesOut mine;
      for (const Result& ik : all) islands::put_result(mine, ik);
      const std::vector<std::string> every = comm->allgather(mine.b);
      all.clear();
      for (int q = 0; q < R; ++q) {
        islands::BytesIn in{every[static_cast<std::size_t>(q)]};
        for (int k = first_island(q, R, K); k < first_island(q + 1, R, K); ++k) all.push_back(islands::get_result(in));
      }
    }
    for (int j = 0; j < m; ++j) {
      const Result* isl = all.data() + static_cast<std::size_t>(j) * K;
      int b = 0;
      for (int k = 1; k < K; ++k)
        if (migration::before({isl[k].best_f, 0}, {isl[b].best_f, 0})) b = k;
      Result res = isl[b];
      res.evals = res.nan_evals = res.infeasible = 0;
      res.final_np = 0;
      res.islands.clear();
      res.population.clear();
      res.population_f.clear();
      for (int k = 0; k < K; ++k) {
        const Result& ik = isl[k];
        res.evals += ik.evals, res.nan_evals += ik.nan_evals, res.infeasible += ik.infeasible, res.final_np += ik.final_np;
        res.islands.push_back(IslandResult{ik.best_f, ik.evals, ik.final_np});
        if (o.keep_population) {
          res.population.insert(res.population.end(), ik.population.begin(), ik.population.end());
          res.population_f.insert(res.population_f.end(), ik.population_f.begin(), ik.population_f.end());
        }
      }
      // the samples (the same generations in every island: they stop together): the best island's value then,
      // every island's evaluations
      for (std::size_t i = 0; i < res.history.size(); ++i) {
        HistoryPoint& h = res.history[i];
        int bi = 0;
        h.evals = 0;
        for (int k = 0; k < K; ++k) {
          const HistoryPoint& hk = isl[k].history.at(i);
          h.evals += hk.evals;
          if (migration::before({hk.best_f, 0}, {isl[bi].history[i].best_f, 0})) bi = k;
        }
        h.best_f = isl[bi].history[i].best_f;
        if (!isl[bi].history[i].best_x.empty() || !h.best_x.empty()) h.best_x = isl[bi].history[i].best_x;
      }
      out.push_back(std::move(res));
    }
  }
  return out;
}

}  // namespace
}  // namespace degpu::cuda::gpu_engine
