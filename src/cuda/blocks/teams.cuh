// The teams of CTAs that hold one trial of the gpu engine, and their barriers, split into arrive and wait
// so that work can go between them: a thread-block cluster (the resident path, gpu_resident.cuh) and the
// whole grid of a cooperative launch (the grid and wide paths, gpu_global.cuh). The other splits of work:
// a group of lanes (group.cuh), a CTA per individual (de_blocks.cuh), a CTA's best (best.cuh).
#pragma once
#include <cuda_runtime.h>

namespace degpu::cuda {
namespace {

// The resident path's barrier between generations: what crosses it is this CTA's shared memory only, so
// the arrive releases shared memory alone (a CTA-scope fence; the default release arrive is a GPU-scope
// MEMBAR, measured at ~0.65 us of a 0.72 us barrier of 16 CTAs of 512 threads: bench/cluster_sync_gpu.cu);
// the wait acquires.
__device__ __forceinline__ void cluster_arrive_shared() {
  asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// The grid barrier, split like the cluster's: arrive (every write of the CTA released, one count), then
// wait (until every CTA has counted this barrier; acquire). The CTAs are co-resident (cooperative launch),
// so spinning is safe. The counter only grows: barrier k is passed at k x gridDim arrivals.
struct GridTeam {
  unsigned long long* arrivals;
  unsigned long long passed = 0;  // barriers begun by this CTA
  template <class S>
  __device__ explicit GridTeam(const S& s) : arrivals(s.arrivals) {}
  __device__ static unsigned ranks() { return gridDim.x; }
  __device__ static unsigned rank() { return blockIdx.x; }
  __device__ void arrive() {
    __syncthreads();  // the CTA's writes are done
    ++passed;
    if (threadIdx.x == 0) {
      __threadfence();  // release them device-wide before counting
      atomicAdd(arrivals, 1ull);
    }
  }
  __device__ void wait() {
    if (threadIdx.x == 0) {
      const unsigned long long target = passed * gridDim.x;
      while (*reinterpret_cast<volatile unsigned long long*>(arrivals) < target) __nanosleep(32);
      __threadfence();  // acquire: the others' writes before this CTA's reads
    }
    __syncthreads();
  }
  __device__ void sync() {
    arrive();
    wait();
  }
};

}  // namespace
}  // namespace degpu::cuda
