// The scheduling problem (schedule.hpp) on the GPU: a row of DE coordinates decoded to machines, each
// machine running its tasks in task-index order, and the fitness lambda makespan + (1 - lambda) flowtime / m.
// Two ways (docs/SCHEDULING.md, "On the GPU"):
//   - schedule_group_value: a group of 32 lanes per schedule (the gpu engine), the tasks in chunks of 32;
//     a lane's completion time is its machine's finish so far plus the ETCs of the chunk's earlier tasks
//     on that machine, added one by one in task order: the CPU's sums, so completion times and makespan
//     are the CPU's bits (the flowtime's sum of them is a tree, so it may differ in the last bits);
//   - evaluate_schedules: 003_04289d69f9125e01.txt's design (gpu-kernels, gpu-eval): a CTA per schedule,
//     a thread per task, the machines' loads summed in shared memory.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/blocks/group.cuh"
#include "cuda/blocks/kernel_function.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "degpu/schedule.hpp"
#include "problems/schedule/schedule_gpu.hpp"

namespace degpu::cuda {
namespace {


struct ScheduleView {
  const double* etc = nullptr;    // n x m, task-major
  const double* ready = nullptr;  // m prior loads
  int n = 0, m = 0;
  double lambda = 0;
};

// The lanes of the warp before this thread's lane.
__device__ __forceinline__ unsigned lanes_below() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// One chunk of up to 32 consecutive tasks, one per lane of a warp (mask: the lanes that take part): this lane's task
// t on machine j (j = -1: no task) with ETC e. stage: the group's 32 staging doubles. Returns the ETCs of
// the chunk's earlier tasks on the same machine added to `c`, one by one in task order, then e; sets
// `last` when no later task of the chunk is on j.
__device__ __forceinline__ double chunk_completion(unsigned mask, int j, double e, double c, double* stage, int lane, bool& last) {
  stage[lane] = e;
  const unsigned peers = __match_any_sync(mask, j);
  __syncwarp(mask);
  const unsigned below = lanes_below();
  for (unsigned q = peers & below; q; q &= q - 1) c += stage[__ffs(q) - 1];
  last = (peers & ~below) == (1u << lane);
  return c + e;
}

// f of the schedule u by a warp-aligned group of G (32) lanes; every lane gets it. scratch: the group's
// kScheduleGroupMachines + 32 doubles of shared memory.
template <class T, class Grp>
__device__ double schedule_group_value(const ScheduleView& v, const T* u, const Grp& grp, double* scratch) {
  constexpr int G = 32;
  double* finish = scratch;
  double* stage = scratch + kScheduleGroupMachines;
  for (int j = grp.lane; j < v.m; j += G) finish[j] = v.ready[j];
  grp.sync();
  double flow = 0;
  for (int t0 = 0; t0 < v.n; t0 += G) {
    const int t = t0 + grp.lane;
    const bool on = t < v.n;
    const int j = on ? decode_machine(static_cast<double>(u[t]), v.m) : -1;
    const double e = on ? __ldg(v.etc + static_cast<std::size_t>(t) * v.m + j) : 0.0;
    bool last = false;
    const double c = chunk_completion(grp.mask, j, e, on ? finish[j] : 0.0, stage, grp.lane, last);
    grp.sync();  // every lane has read finish[] and stage[]
    if (on) {
      flow += c;
      if (last) finish[j] = c;
    }
    grp.sync();
  }
  flow = grp.sum(flow);
  double ms = -INFINITY;
  for (int j = grp.lane; j < v.m; j += G) ms = fmax(ms, finish[j]);
  for (int off = G / 2; off > 0; off /= 2) ms = fmax(ms, __shfl_xor_sync(grp.mask, ms, off, G));
  grp.sync();  // finish[] is read before the group's next schedule writes it
  return schedule_fitness(ScheduleCost{ms, flow}, v.lambda, v.m);
}

// The paper's evaluation: a CTA per schedule, a thread per task. The tasks go in tiles of blockDim; in a
// tile each warp finds, for each of its tasks, the ETCs of its earlier tasks on the same machine
// (chunk_completion) and each machine's total over the warp (tot[w][j], in shared memory); a task's
// completion time is then its machine's finish before the tile, plus the earlier warps' totals, plus its
// warp's part. Dynamic shared memory: finish[m], tot[warps][m], stage[blockDim], sums[warps].
template <class T>
__global__ void evaluate_schedules(ScheduleView v, const T* __restrict__ x, T* __restrict__ f) {
  extern __shared__ double sm[];
  const int W = static_cast<int>(blockDim.x / 32), w = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  double* finish = sm;
  double* tot = finish + v.m;
  double* stage = tot + static_cast<std::size_t>(W) * v.m;
  double* sums = stage + blockDim.x;
  const T* u = x + static_cast<std::size_t>(blockIdx.x) * v.n;
  for (int j = threadIdx.x; j < v.m; j += blockDim.x) finish[j] = v.ready[j];
  double flow = 0;
  for (int t0 = 0; t0 < v.n; t0 += blockDim.x) {
    for (int k = threadIdx.x; k < W * v.m; k += blockDim.x) tot[k] = 0;
    __syncthreads();
    const int t = t0 + static_cast<int>(threadIdx.x);
    const bool on = t < v.n;
    const int j = on ? decode_machine(static_cast<double>(u[t]), v.m) : -1;
    const double e = on ? __ldg(v.etc + static_cast<std::size_t>(t) * v.m + j) : 0.0;
    bool last = false;
    const double part = chunk_completion(0xffffffffu, j, e, 0.0, stage + 32 * w, lane, last);
    if (on && last) tot[w * v.m + j] = part;
    __syncthreads();
    if (on) {
      double c = finish[j];
      for (int k = 0; k < w; ++k) c += tot[k * v.m + j];
      flow += c + part;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < v.m; k += blockDim.x)
      for (int q = 0; q < W; ++q) finish[k] += tot[q * v.m + k];
    __syncthreads();  // tot[] is read before the next tile clears it
  }
  for (int off = 16; off > 0; off /= 2) flow += __shfl_xor_sync(0xffffffffu, flow, off);
  if (lane == 0) sums[w] = flow;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0, ms = -INFINITY;
    for (int k = 0; k < W; ++k) total += sums[k];
    for (int k = 0; k < v.m; ++k) ms = fmax(ms, finish[k]);
    f[blockIdx.x] = static_cast<T>(schedule_fitness(ScheduleCost{ms, total}, v.lambda, v.m));
  }
}

// The scheduling problem as the gpu engine's kernels take it (kernel_function.cuh's traits): its instance
// on the device, evaluated by a group of 32 lanes (schedule_group_value: whole warps, which find a chunk's
// tasks on the same machine together), each warp's finish times and staging in the function's own shared
// memory. gpu-fused does not run it (ScheduleModel::not_on says so), nor may the gpu engine with more than
// kScheduleGroupMachines machines (the same).
struct ScheduleFunction {
  static constexpr fn::Pattern pattern = fn::Pattern::whole;
  static constexpr int kGroupLanes = 32;
  static constexpr bool kFused = false;
  static constexpr bool kGroupValue = true;
  ScheduleView view;

  // The value in every lane; `slot`, `active` and `first` are not needed (a warp per schedule, its scratch
  // by the warp's index).
  template <int kThreads, int kG, class T, class Sync>
  __device__ double group_value(std::size_t, const T* u, int, int, bool, int, Sync) const {
    if constexpr (kG == 32) {
      __shared__ double scratch[kThreads / 32][kScheduleGroupMachines + 32];
      return schedule_group_value<T>(view, u, Group<32>{}, scratch[threadIdx.x / 32]);
    } else {
      __trap();  // kGroupLanes: the plans give a schedule whole warps
      return 0.0;
    }
  }
};

// A schedule problem's instance on the device, and the paper's evaluation of many rows.
template <class T>
class ScheduleOnDevice {
 public:
  explicit ScheduleOnDevice(const Problem& problem)
      : data_(*check(problem)), etc_(data_.etc->etc.size()), ready_(data_.etc->ready.size()) {
    const EtcInstance& e = *data_.etc;
    upload_as(etc_.ptr, e.etc);
    upload_as(ready_.ptr, e.ready);
    view_ = ScheduleView{etc_.ptr, ready_.ptr, e.n, e.m, data_.lambda};
    // the most warps whose shared memory fits 48 KiB: at most 16, and no more than the tasks need
    warps_ = std::min(16, (e.n + 31) / 32);
    while (warps_ > 1 && smem(warps_) > kSmemLimit) --warps_;
    if (smem(warps_) > kSmemLimit)
      throw ConfigError("schedule: " + std::to_string(e.m) + " machines are more than the GPU engines evaluate (at most " +
                        std::to_string((kSmemLimit / 8 - 33) / 2) + "); use {engine} threads");
  }
  static std::size_t bytes(const Problem& problem) {
    const EtcInstance& e = *check(problem)->etc;
    return (e.etc.size() + e.ready.size()) * sizeof(double);
  }
  const ScheduleView& view() const { return view_; }
  int threads() const { return 32 * warps_; }  // evaluate()'s CTA, one per row
  // f[k] = the fitness of rows x[k n .. k n + n) (device memory), k < rows.
  void evaluate(const T* x, int rows, T* f, cudaStream_t stream) const {
    if (rows < 1) return;
    evaluate_schedules<T><<<static_cast<unsigned>(rows), static_cast<unsigned>(32 * warps_), smem(warps_), stream>>>(view_, x, f);
  }

 private:
  static constexpr std::size_t kSmemLimit = 48 * 1024;
  static const Problem::ScheduleData* check(const Problem& problem) {
    if (!problem.schedule_data()) throw ConfigError("problem " + problem.name() + ": not a schedule");
    return problem.schedule_data();
  }
  std::size_t smem(int warps) const {
    const std::size_t m = static_cast<std::size_t>(data_.etc->m), W = static_cast<std::size_t>(warps);
    return (m + W * m + 32 * W + W) * sizeof(double);
  }
  Problem::ScheduleData data_;
  DeviceArray<double> etc_, ready_;
  ScheduleView view_;
  int warps_ = 1;
};

// f(fn) with the problem's kernel function, if the problem is a schedule: its instance on the device while f
// runs (or, without `upload`, none: enough to plan a launch). false for another problem. The family's line
// in cuda/families/builtin.cuh.
template <class T, class F>
bool with_schedule_function(const Problem& problem, bool upload, F& f) {
  if (!problem.schedule_data()) return false;
  ScheduleFunction fn{};
  if (!upload) {
    f(fn);
    return true;
  }
  use_device(ScheduleOnDevice<T>::bytes(problem));
  const ScheduleOnDevice<T> data(problem);
  fn.view = data.view();
  f(fn);
  return true;
}

}  // namespace
}  // namespace degpu::cuda
