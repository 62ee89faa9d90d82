// The SHADE family's population changes on the device, for the engines that launch each generation from
// the host (gpu-kernels, gpu-fused), computing what the host driver computes (core/driver.hpp):
//
// - The archive (JADE's optional one, SHADE's, L-SHADE's, jSO's): the parents that lost in generation g join
//   it in index order, appended while there is room, else replacing the member drawn by word 8 of their
//   own donors stream. On the device a prefix sum over the "parent lost" flags gives each its turn, and
//   where two replace the same member the later index wins (an atomicMax on the member's owner), which is
//   the sequential result. One CTA plans the insertions (np is the population's size, thousands at most),
//   then a CTA per individual copies its row.
// - The reduction (L-SHADE, jSO): the host chooses the survivors as the host driver does
//   (driver::survivors, from the values it reads anyway for current-to-pbest's ranking) and the device
//   gathers them, in order, into the engine's other buffers; the archive keeps its first members.
#pragma once
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "core/de_ops.hpp"
#include "cuda/blocks/archive_view.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/feasibility.hpp"

namespace degpu::cuda {
namespace {  // host code that launches a kernel keeps that kernel's linkage (docs/DECISIONS.md)

// Whether individual i's parent lost in this generation, from the values and violations compared (gpu-kernels:
// before its selection overwrites them).
template <class T>
struct LostByValues {
  const T* f;
  const T* ftrial;
  const double* cv;
  const double* cvtrial;
  int m;
  __device__ bool operator()(int i) const {
    const std::size_t at = static_cast<std::size_t>(i) * m;
    const bool took = lampinen_takes(ftrial[i], cvtrial + at, f[i], cv + at, m, ops::NoWorse{});
    return ops::parent_lost(took, ftrial[i], f[i], cvtrial + at, cv + at, m);
  }
};
// ... from the flags the selection wrote (gpu-fused's MCER)
struct LostFlags {
  const std::uint8_t* flag;
  __device__ bool operator()(int i) const { return flag[i] != 0; }
};

constexpr int kPlanThreads = 1024;
// Generation g's insertions into an archive of capacity cap (count: its members), by one CTA: slot[i] the
// member that individual i's parent becomes, -1 where none (it did not lose, or a later one replaced the
// same member); owner: cap ints of scratch.
template <class Lost>
__global__ void plan_archive(ops::Params p, std::uint32_t g, Lost lost, int cap, int* count, int* owner, int* slot) {
  using Scan = cub::BlockScan<int, kPlanThreads>;
  __shared__ typename Scan::TempStorage scan;
  const int np = p.np, c0 = *count;
  for (int k = threadIdx.x; k < cap; k += kPlanThreads) owner[k] = -1;
  const int chunk = (np + kPlanThreads - 1) / kPlanThreads;  // thread t's individuals: [t chunk, t chunk + chunk)
  const int begin = min(np, static_cast<int>(threadIdx.x) * chunk), end = min(np, begin + chunk);
  int mine = 0, turn = 0, total = 0;
  for (int i = begin; i < end; ++i) mine += lost(i);
  Scan(scan).ExclusiveSum(mine, turn, total);
  __syncthreads();  // owner reset, and every thread has read count
  for (int i = begin; i < end; ++i) {
    int at = -1;
    if (lost(i)) {
      at = ops::archive_slot(p, g, static_cast<std::uint32_t>(i), c0 + turn, cap);
      ++turn;
      atomicMax(owner + at, i);
    }
    slot[i] = at;
  }
  __syncthreads();  // every owner decided
  for (int i = begin; i < end; ++i)
    if (slot[i] >= 0 && __ldcg(owner + slot[i]) != i) slot[i] = -1;
  if (threadIdx.x == 0) *count = min(cap, c0 + total);
}

// The parents' rows (x: np rows of D) into their members.
template <class T>
__global__ void archive_rows(int D, const int* __restrict__ slot, const T* __restrict__ x, T* __restrict__ rows) {
  const int at = slot[blockIdx.x];
  if (at < 0) return;
  const T* src = x + static_cast<std::size_t>(blockIdx.x) * D;
  T* dst = rows + static_cast<std::size_t>(at) * D;
  for (int j = threadIdx.x; j < D; j += blockDim.x) dst[j] = src[j];
}

// The population shrunk: new individual j is old individual kept[j] (a CTA each), its row, value and m
// violations gathered from (x, f, cv) into (x2, f2, cv2); the archive (count: its members, or nullptr)
// keeps its first arc_cap.
template <class T>
__global__ void compact_population(int D, int m, const std::uint32_t* __restrict__ kept, const T* __restrict__ x,
                                   T* __restrict__ x2, const T* __restrict__ f, T* __restrict__ f2, const double* __restrict__ cv,
                                   double* __restrict__ cv2, int* count, int arc_cap) {
  const std::size_t i = kept[blockIdx.x], j = blockIdx.x;
  for (int k = threadIdx.x; k < D; k += blockDim.x) x2[j * D + k] = x[i * D + k];
  for (int c = threadIdx.x; c < m; c += blockDim.x) cv2[j * m + c] = cv[i * m + c];
  if (threadIdx.x == 0) f2[j] = f[i];
  if (count && blockIdx.x == 0 && threadIdx.x == 0) *count = min(*count, arc_cap);
}

// An archive on the device: room for `capacity` members (the most it ever holds: the first generation's
// capacity), `cap` of them in use now (it falls as an L-SHADE population shrinks), count on the device.
template <class T>
struct DeviceArchive {
  int D, cap;
  DeviceArray<T> rows;
  DeviceArray<int> count, owner, slot;
  DeviceArchive(int D, int np, int capacity)
      : D(D),
        cap(capacity),
        rows(static_cast<std::size_t>(capacity) * D),
        count(1),
        owner(static_cast<std::size_t>(capacity)),
        slot(capacity ? static_cast<std::size_t>(np) : 0) {
    DEGPU_CUDA_TRY(cudaMemset(count.ptr, 0, sizeof(int)));
  }
  static std::size_t bytes(int D, int np, int capacity) {
    return static_cast<std::size_t>(capacity) * (D * sizeof(T) + sizeof(int)) + (capacity ? np * sizeof(int) : 0) + sizeof(int);
  }
  ArchiveView<T> view() const { return cap ? ArchiveView<T>{rows.ptr, count.ptr} : ArchiveView<T>{}; }
  // Generation g's losers (lost(i) for the p.np individuals; parents: their rows, not yet replaced) join it.
  template <class Lost>
  void insert(const ops::Params& p, std::uint32_t g, Lost lost, const T* parents, cudaStream_t stream) const {
    if (!cap) return;
    plan_archive<<<1, kPlanThreads, 0, stream>>>(p, g, lost, cap, count.ptr, owner.ptr, slot.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
    archive_rows<T><<<static_cast<unsigned>(p.np), 128, 0, stream>>>(D, slot.ptr, parents, rows.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
  }
  // Its members now (a copy from the device, after the stream's work).
  int size(cudaStream_t stream) const {
    int n = 0;
    if (!cap) return 0;
    DEGPU_CUDA_TRY(cudaMemcpyAsync(&n, count.ptr, sizeof(int), cudaMemcpyDeviceToHost, stream));
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
    return n;
  }
};

// The population (x, f, cv; D and m per row) shrunk to the n individuals kept (device), gathered into
// (x2, f2, cv2); the archive's capacity becomes arc_cap (at most its room).
template <class T>
void compact(int D, int m, const std::uint32_t* kept, int n, const T* x, T* x2, const T* f, T* f2, const double* cv,
             double* cv2, DeviceArchive<T>* archive, int arc_cap, cudaStream_t stream) {
  int* count = nullptr;
  if (archive && archive->cap) {
    archive->cap = std::min(arc_cap, archive->cap);
    count = archive->count.ptr;
  }
  compact_population<T><<<static_cast<unsigned>(n), 128, 0, stream>>>(D, m, kept, x, x2, f, f2, cv, cv2, count,
                                                                        archive ? archive->cap : 0);
  DEGPU_CUDA_TRY(cudaGetLastError());
}

}  // namespace
}  // namespace degpu::cuda
